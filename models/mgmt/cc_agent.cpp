#include "models/mgmt/cc_agent.hpp"

#include <algorithm>

#include "models/hca/hca.hpp"
#include "models/ib/cc_injection.hpp"
#include "models/switch/switch.hpp"

namespace hcasim::mgmt {

namespace {

uint32_t timestamp(uint64_t now_ps) { return static_cast<uint32_t>(now_ps / ib::kCctiTimerUnitPs); }

// A Get of a setting with a Control_Map (SwitchCongestionSetting,
// CACongestionSetting): the current setting, with the map the request carried.
template <class Setting>
uint16_t answer_setting(Setting current, const ib::CcMad& req, ib::CcMad& resp) {
  Setting asked;
  ib::get_attribute(req, asked);
  current.control_map = asked.control_map;
  ib::put_attribute(resp, current);
  return ib::kStatusOk;
}

}  // namespace

CcAgent::CcAgent(hca::Hca& hca) : hca_(&hca), keys_(hca.port_count() + 1) {}

CcAgent::CcAgent(sw::Switch& sw) : switch_(&sw), keys_(1) {}

bool CcAgent::process(const ib::CcMad& req, unsigned in, uint64_t now_ps, ib::CcMad& resp) {
  resp = req;
  resp.hdr.method = ib::kMethodGetResp;
  resp.area.fill(0);
  uint16_t status = ib::kStatusOk;
  if (req.hdr.class_version != ib::kCcClassVersion) {
    status = ib::kStatusBadVersion;
  } else {
    ib::CongestionKeyInfo& key = keys_.at(key_port(in));
    if (key.cc_key != 0 && req.cc_key != key.cc_key) {
      ++stats_.key_violations;
      if (key.violations != 0xFFFF) ++key.violations;
      return false;
    }
    if (req.hdr.method == ib::kMethodGet) {
      ++stats_.gets;
      status = get(req, in, now_ps, resp);
    } else if (req.hdr.method == ib::kMethodSet) {
      ++stats_.sets;
      status = set(req, in);
      if (status == ib::kStatusOk) status = get(req, in, now_ps, resp);
    } else {
      status = ib::kStatusUnsupportedMethod;
    }
  }
  if (status != ib::kStatusOk) {
    ++stats_.errors;
    resp.area = req.area;  // an error answer carries the request's data back
  }
  resp.hdr.status = status;
  return true;
}

uint16_t CcAgent::get(const ib::CcMad& req, unsigned in, uint64_t now_ps, ib::CcMad& resp) {
  const uint32_t mod = req.hdr.attr_mod;
  switch (req.hdr.attr_id) {
    case ib::kAttrCongestionInfo: {
      ib::CongestionInfo ci;
      if (!is_switch()) {
        const hca::CaCongestionControl* cc = hca_->congestion(in - 1);
        ci.control_table_cap = static_cast<uint8_t>(cc != nullptr ? cc->table().blocks()
                                                                  : hca::CaCongestionControl{}.table().blocks());
      }
      ib::put_attribute(resp, ci);
      return ib::kStatusOk;
    }
    case ib::kAttrCongestionKeyInfo:
      ib::put_attribute(resp, keys_.at(key_port(in)));
      return ib::kStatusOk;
    case ib::kAttrTimeStamp:
      ib::put_attribute(resp, ib::TimeStamp{timestamp(now_ps)});
      return ib::kStatusOk;
    case ib::kAttrCongestionLog: {
      if (is_switch()) return switch_log(now_ps, resp);
      ib::CongestionLogCa log;
      if (const hca::CaCongestionControl* cc = hca_->congestion(in - 1))
        log.event_counter = static_cast<uint16_t>(std::min<uint64_t>(cc->stats().trigger_events, 0xFFFF));
      log.current_timestamp = timestamp(now_ps);
      ib::put_attribute(resp, log);
      return ib::kStatusOk;
    }
    default:
      break;
  }
  if (is_switch()) {
    const sw::CongestionMarker* m = switch_->congestion();
    if (req.hdr.attr_id == ib::kAttrSwitchCongestionSetting)
      return answer_setting(m != nullptr ? m->switch_setting() : ib::SwitchCongestionSetting{}, req, resp);
    if (req.hdr.attr_id == ib::kAttrSwitchPortCongestionSetting) {
      ib::SwitchPortCongestionSetting b;
      const uint16_t st = port_block(mod, b);
      if (st == ib::kStatusOk) ib::put_attribute(resp, b);
      return st;
    }
    return ib::kStatusUnsupportedMethodAttr;
  }
  const hca::CaCongestionControl* cc = hca_->congestion(in - 1);
  const hca::CaCongestionControl none;
  const hca::CaCongestionControl& c = cc != nullptr ? *cc : none;
  if (req.hdr.attr_id == ib::kAttrCaCongestionSetting) return answer_setting(c.setting(), req, resp);
  if (req.hdr.attr_id == ib::kAttrCongestionControlTable) {
    if (mod >= c.table().blocks()) return ib::kStatusInvalidAttribute;
    ib::put_attribute(resp, c.table().get_block(mod));
    return ib::kStatusOk;
  }
  return ib::kStatusUnsupportedMethodAttr;
}

uint16_t CcAgent::set(const ib::CcMad& req, unsigned in) {
  const uint32_t mod = req.hdr.attr_mod;
  const uint16_t attr = req.hdr.attr_id;
  if (attr == ib::kAttrCongestionKeyInfo) {
    ib::CongestionKeyInfo k;
    ib::get_attribute(req, k);
    ib::CongestionKeyInfo& mine = keys_.at(key_port(in));
    mine.cc_key = k.cc_key;
    mine.protect = k.protect;
    mine.lease_period = k.lease_period;
    mine.violations = k.violations;
    return ib::kStatusOk;
  }
  if (is_switch() && attr == ib::kAttrSwitchCongestionSetting) {
    ib::SwitchCongestionSetting s;
    ib::get_attribute(req, s);
    switch_->congestion_marker().set_switch(s);
    return ib::kStatusOk;
  }
  if (is_switch() && attr == ib::kAttrSwitchPortCongestionSetting) {
    ib::SwitchPortCongestionSetting b;
    if (const uint16_t st = port_block(mod, b); st != ib::kStatusOk) return st;  // checks the block
    ib::get_attribute(req, b);
    sw::CongestionMarker& m = switch_->congestion_marker();
    for (unsigned i = 0; i < ib::kPortsPerSwitchPortBlock; ++i) {
      const unsigned port = mod * ib::kPortsPerSwitchPortBlock + i;
      if (b.ports[i].valid && port >= 1 && port <= m.ports()) m.set_port(port, b.ports[i]);
    }
    return ib::kStatusOk;
  }
  if (!is_switch() && attr == ib::kAttrCaCongestionSetting) {
    ib::CaCongestionSetting s;
    ib::get_attribute(req, s);
    hca_->congestion_control(in - 1).set_setting(s);
    return ib::kStatusOk;
  }
  if (!is_switch() && attr == ib::kAttrCongestionControlTable) {
    const hca::CaCongestionControl* cc = hca_->congestion(in - 1);
    if (mod >= (cc != nullptr ? cc->table().blocks() : hca::CaCongestionControl{}.table().blocks()))
      return ib::kStatusInvalidAttribute;
    ib::CongestionControlTable t;
    ib::get_attribute(req, t);
    return hca_->congestion_control(in - 1).set_table_block(mod, t) ? ib::kStatusOk : ib::kStatusInvalidAttribute;
  }
  return ib::kStatusUnsupportedMethodAttr;  // unknown, read-only, or not of this kind of node
}

uint16_t CcAgent::switch_log(uint64_t now_ps, ib::CcMad& resp) const {
  ib::CongestionLogSwitch log;
  log.current_timestamp = timestamp(now_ps);
  if (const sw::CongestionMarker* m = switch_->congestion()) {
    uint64_t marked = 0;
    for (unsigned p = 1; p <= m->ports(); ++p) {
      uint64_t port_marked = 0;
      for (unsigned vl = 0; vl < sw::CongestionMarker::kVls; ++vl) port_marked += m->stats(p, vl, now_ps).marked;
      if (port_marked != 0) log.port_map.set(p);
      marked += port_marked;
    }
    log.event_counter = static_cast<uint16_t>(std::min<uint64_t>(marked, 0xFFFF));
  }
  ib::put_attribute(resp, log);
  return ib::kStatusOk;
}

uint16_t CcAgent::port_block(uint32_t block, ib::SwitchPortCongestionSetting& out) const {
  const unsigned ports = switch_->port_count();
  if (block > ports / ib::kPortsPerSwitchPortBlock) return ib::kStatusInvalidAttribute;
  out = {};
  if (const sw::CongestionMarker* m = switch_->congestion())
    for (unsigned i = 0; i < ib::kPortsPerSwitchPortBlock; ++i) {
      const unsigned port = block * ib::kPortsPerSwitchPortBlock + i;
      if (port >= 1 && port <= ports) out.ports[i] = m->port_element(port);
    }
  return ib::kStatusOk;
}

}  // namespace hcasim::mgmt
