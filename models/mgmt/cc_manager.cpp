#include "models/mgmt/cc_manager.hpp"

#include <algorithm>
#include <array>

#include "models/hca/ca_congestion.hpp"

namespace hcasim::mgmt {

namespace {

// UNSUP_CLASS_VER, UNSUP_METHOD, UNSUP_METHOD_ATTR: the invalid-field codes
// 1..3 in status bits 4:2 (mad.hpp), which OpenSM's cc_rcv_mad tests.
bool unsupported(uint16_t status) {
  const uint16_t code = status & 0x1C;
  return code == ib::kStatusBadVersion || code == ib::kStatusUnsupportedMethod ||
         code == ib::kStatusUnsupportedMethodAttr;
}

}  // namespace

std::vector<ib::CongestionControlTable> cc_table_blocks(const std::vector<ib::CctEntry>& entries, uint16_t ccti_limit) {
  hca::CaCongestionControl scratch;  // the table as an agent holds it after the pre-configured install
  scratch.set_table(entries, ccti_limit);
  std::vector<ib::CongestionControlTable> out;
  for (uint32_t block = 0; block <= ccti_limit / ib::kCctEntriesPerBlock; ++block)
    out.push_back(scratch.table().get_block(block));
  return out;
}

std::vector<CcTarget> cc_targets(const SubnetView& view) {
  std::vector<CcTarget> out;
  const topology::Topology& t = view.topology;
  for (unsigned n = 0; n < t.nodes.size() && n < view.lids.base.size(); ++n) {
    const std::vector<uint16_t>& base = view.lids.base[n];
    if (t.nodes[n].kind == topology::NodeKind::Switch) {
      if (!base.empty() && base[0] != 0) out.push_back({topology::port_guid(t, {n, 0}), base[0], true});
      continue;
    }
    for (unsigned i = 0; i < base.size(); ++i)
      if (base[i] != 0) out.push_back({topology::port_guid(t, {n, i + 1}), base[i], false});
  }
  return out;
}

uint64_t CcManager::next_tid() {
  uint64_t t = tid_++ & 0xFFFFFFFFu;
  if (t == 0) t = tid_++ & 0xFFFFFFFFu;
  return t;
}

void CcManager::queue(uint64_t guid, uint16_t lid, uint16_t attr, uint32_t mod, const uint8_t* data, unsigned bytes) {
  Item it;
  it.port_guid = guid;
  it.send.dlid = lid;
  it.send.mad = ib::cc_request(ib::kMethodSet, attr, mod, 0, config_.cc_key);
  std::copy(data, data + bytes, it.send.mad.attribute_data(attr));
  waiting_.push_back(it);
}

void CcManager::setup(const std::vector<CcTarget>& targets, uint64_t now, std::vector<CcSend>& out) {
  ++stats_.setups;
  std::array<uint8_t, ib::kCcMgtDataBytes> buf{};
  for (const CcTarget& t : targets) {
    CcPortState& p = ports_[t.port_guid];
    if (p.unavailable) continue;
    if (t.is_switch) {
      if (p.has_switch && p.switch_setting == config_.switch_setting) {
        ++stats_.skipped;
        continue;
      }
      config_.switch_setting.encode(buf.data());
      queue(t.port_guid, t.lid, ib::kAttrSwitchCongestionSetting, 0, buf.data(), ib::SwitchCongestionSetting::kBytes);
      continue;
    }
    if (p.has_ca && p.ca_setting == config_.ca_setting) {
      ++stats_.skipped;
    } else {
      config_.ca_setting.encode(buf.data());
      queue(t.port_guid, t.lid, ib::kAttrCaCongestionSetting, 0, buf.data(), ib::CaCongestionSetting::kBytes);
    }
    for (uint32_t block = 0; block < config_.cct.size(); ++block) {
      const auto it = p.cct.find(block);
      if (it != p.cct.end() && it->second == config_.cct[block]) {
        ++stats_.skipped;
        continue;
      }
      config_.cct[block].encode(buf.data());
      queue(t.port_guid, t.lid, ib::kAttrCongestionControlTable, block, buf.data(), ib::CongestionControlTable::kBytes);
    }
  }
  pump(now, out);
}

void CcManager::pump(uint64_t now, std::vector<CcSend>& out) {
  while (!waiting_.empty() && outstanding_.size() < config_.max_outstanding) {
    Item it = waiting_.front();
    waiting_.pop_front();
    it.send.mad.hdr.tid = next_tid();
    it.tries = 1;
    it.deadline = now + config_.timeout_ps;
    ++stats_.sent;
    out.push_back(it.send);
    outstanding_.emplace(it.send.mad.hdr.tid, it);
  }
}

void CcManager::store(CcPortState& p, const ib::CcMad& resp) {
  switch (resp.hdr.attr_id) {
    case ib::kAttrSwitchCongestionSetting:
      ib::get_attribute(resp, p.switch_setting);
      p.has_switch = true;
      break;
    case ib::kAttrCaCongestionSetting:
      ib::get_attribute(resp, p.ca_setting);
      p.has_ca = true;
      break;
    case ib::kAttrCongestionControlTable:
      ib::get_attribute(resp, p.cct[resp.hdr.attr_mod]);
      break;
    default:
      break;
  }
}

void CcManager::on_response(const ib::CcMad& resp, uint64_t now, std::vector<CcSend>& out) {
  const auto it = outstanding_.find(resp.hdr.tid);
  if (it == outstanding_.end() || (resp.hdr.method & ib::kMethodResponseBit) == 0) return;
  const Item item = it->second;
  outstanding_.erase(it);
  ++stats_.answered;
  CcPortState& p = ports_[item.port_guid];
  p.timeout_count = 0;
  if (resp.hdr.status != ib::kStatusOk) {
    ++stats_.errors;
    if (unsupported(resp.hdr.status)) p.unavailable = true;
  } else {
    p.unavailable = false;
    store(p, resp);
  }
  pump(now, out);
}

void CcManager::on_timer(uint64_t now, std::vector<CcSend>& out) {
  std::vector<uint64_t> expired;
  for (const auto& [tid, item] : outstanding_)
    if (item.deadline <= now) expired.push_back(tid);
  for (uint64_t tid : expired) {
    Item item = outstanding_.at(tid);
    outstanding_.erase(tid);
    ++stats_.timeouts;
    if (item.tries <= config_.retries) {  // the same MAD again, with its TID
      ++item.tries;
      item.deadline = now + config_.timeout_ps;
      ++stats_.sent;
      out.push_back(item.send);
      outstanding_.emplace(tid, item);
      continue;
    }
    ++stats_.failed;
    CcPortState& p = ports_[item.port_guid];
    if (++p.timeout_count > kCcTimeoutThreshold) p.unavailable = true;
  }
  pump(now, out);
}

uint64_t CcManager::deadline_ps() const {
  uint64_t d = UINT64_MAX;
  for (const auto& [tid, item] : outstanding_) d = std::min(d, item.deadline);
  return d;
}

const CcPortState* CcManager::port(uint64_t port_guid) const {
  const auto it = ports_.find(port_guid);
  return it == ports_.end() ? nullptr : &it->second;
}

unsigned CcManager::unavailable_ports() const {
  unsigned n = 0;
  for (const auto& [guid, p] : ports_) n += p.unavailable ? 1 : 0;
  return n;
}

}  // namespace hcasim::mgmt
