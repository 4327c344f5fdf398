#include "models/mgmt/sma.hpp"

#include <algorithm>

#include "models/hca/hca.hpp"
#include "models/mgmt/ar_programming.hpp"
#include "models/mgmt/port_codes.hpp"
#include "models/mgmt/vlarb_blocks.hpp"
#include "models/switch/switch.hpp"

namespace hcasim::mgmt {

namespace {

constexpr uint16_t kLinearFdbCap = 0xC000;  // iba-facts 4: unicast LIDs up to 0xBFFF

bool transition_ok(link::PortState from, uint8_t to) {
  switch (to) {
    case ib::kPortStateNoChange:
    case ib::kPortStateDown: return true;
    case ib::kPortStateInit: return from != link::PortState::Down;
    case ib::kPortStateArmed: return from == link::PortState::Init || from == link::PortState::Armed;
    case ib::kPortStateActive: return from == link::PortState::Armed || from == link::PortState::Active;
    default: return false;
  }
}

}  // namespace

Sma::Sma(hca::Hca& hca, const NodeIdentity& id) : hca_(&hca), id_(id), ports_(hca.port_count() + 1) {}

Sma::Sma(sw::Switch& sw, const NodeIdentity& id) : switch_(&sw), id_(id), ports_(sw.port_count() + 1) {}

unsigned Sma::port_count() const { return is_switch() ? switch_->port_count() : hca_->port_count(); }

link::Port* Sma::model_port(unsigned number) const {
  if (number == 0 || number > port_count()) return nullptr;
  return is_switch() ? &switch_->port(number) : &hca_->port(number - 1);
}

bool Sma::m_key_ok(const ib::Smp& req, unsigned in, bool& hide_key) {
  PortState& s = state(key_port(in));
  hide_key = false;
  if (s.m_key == 0 || req.m_key == s.m_key) return true;
  const bool set = req.hdr.method == ib::kMethodSet;
  if (!set && s.m_key_protect == 0) return true;
  if (!set && s.m_key_protect == 1) {
    hide_key = true;
    return true;
  }
  ++s.m_key_violations;
  ++stats_.m_key_violations;
  return false;
}

bool Sma::process(const ib::Smp& req, unsigned in, ib::Smp& resp) {
  bool hide_key = false;
  if (!m_key_ok(req, in, hide_key)) return false;
  resp = req;
  resp.hdr.method = ib::kMethodGetResp;
  resp.data.fill(0);
  uint16_t status = ib::kStatusOk;
  const bool sm_info = req.hdr.attr_id == ib::kAttrSmInfo;
  if (req.hdr.method == ib::kMethodSet) {
    ++stats_.sets;
    if (!sm_info) status = set_attribute(req, in);
  } else if (req.hdr.method == ib::kMethodGet) {
    ++stats_.gets;
  } else {
    status = ib::kStatusUnsupportedMethod;
  }
  if (status == ib::kStatusOk && sm_info)
    status = sm_info_ && in == sm_info_port_ ? sm_info_(req, resp.data.data()) : ib::kStatusUnsupportedMethodAttr;
  else if (status == ib::kStatusOk) status = get_attribute(req, in, resp);
  if (status != ib::kStatusOk) {
    ++stats_.errors;
    resp.data.fill(0);
  }
  if (hide_key && req.hdr.attr_id == ib::kAttrPortInfo) std::fill_n(resp.data.begin(), 8, uint8_t{0});
  resp.hdr.status = status;
  return true;
}

unsigned Sma::port_info_port(uint32_t mod, unsigned in) const {
  // IBA 14.2.5.6: the port number is the modifier's low byte; bit 31 says the
  // SM supports extended speeds (OpenSM sets it for such ports), the rest is reserved.
  const unsigned port = mod & 0xFF;
  if ((mod & 0x7FFFFF00) != 0) return port_count() + 1;  // reserved bits set: no such port
  return !is_switch() && port == 0 ? in : port;
}

ib::PortInfo Sma::port_info(unsigned port) const {
  const PortState& s = ports_.at(port);
  ib::PortInfo pi;
  pi.m_key = s.m_key;
  pi.m_key_protect_bits = s.m_key_protect;
  pi.m_key_lease_period = s.m_key_lease;
  pi.master_sm_lid = s.master_sm_lid;
  pi.master_sm_sl = s.master_sm_sl;
  pi.subnet_timeout = s.subnet_timeout;
  pi.resp_time_value = s.resp_time_value;
  pi.lmc = s.lmc;
  pi.hoq_life = s.hoq_life;
  pi.vl_stall_count = s.vl_stall_count;
  pi.client_reregister = s.client_reregister;
  pi.capability_mask = s.capability_mask;
  pi.m_key_violations = s.m_key_violations;
  pi.local_port_num = static_cast<uint8_t>(port);
  pi.vl_arb_high_cap = link::kMaxArbEntries;
  pi.vl_arb_low_cap = link::kMaxArbEntries;
  if (is_switch()) {
    pi.lid = switch_->lid();
    const PortState& p0 = ports_[0];  // a switch's LID and LMC live on port 0
    pi.lmc = p0.lmc;
  } else {
    pi.lid = hca_->lid(port - 1);
  }
  const link::Port* p = model_port(port);
  // Extended speeds (FDR and up) are valid in LinkSpeedExt*; tools read a switch's from its port 0.
  const link::Port* speed_port = p != nullptr ? p : port_count() > 0 ? model_port(1) : nullptr;
  if (speed_port != nullptr && speed_codes(speed_port->link_config().speed).ext != 0)
    pi.capability_mask |= ib::kPortCapExtendedSpeeds;
  if (p == nullptr) {  // a switch's management port: always up
    pi.port_state = ib::kPortStateActive;
    pi.port_phys_state = ib::kPhysStateLinkUp;
    return pi;
  }
  const link::PortConfig& c = p->config();
  pi.port_state = static_cast<uint8_t>(p->state());
  pi.port_phys_state = p->peer() != nullptr && p->state() != link::PortState::Down ? ib::kPhysStateLinkUp : ib::kPhysStatePolling;
  const link::LinkConfig& l = p->link_config();
  pi.link_width_supported = pi.link_width_enabled = pi.link_width_active = width_code(l.width);
  const SpeedCodes sc = speed_codes(l.speed);
  pi.link_speed_supported = pi.link_speed_enabled = pi.link_speed_active = sc.speed;
  pi.link_speed_ext_supported = pi.link_speed_ext_enabled = pi.link_speed_ext_active = sc.ext;
  pi.mtu_cap = pi.neighbor_mtu = mtu_code(c.mtu);
  pi.vl_cap = vl_code(c.data_vls);
  pi.operational_vls = vl_code(p->vl_count());
  pi.vl_high_limit = static_cast<uint8_t>(std::min<uint32_t>(p->vlarb().high_limit, 255));
  pi.p_key_violations = static_cast<uint16_t>(std::min<uint64_t>(p->pkey_violations(), 0xFFFF));
  if (is_switch()) {
    pi.partition_enforcement_inbound = p->enforces_inbound();
    pi.partition_enforcement_outbound = p->enforces_outbound();
    pi.filter_raw_inbound = s.filter_raw_inbound;
    pi.filter_raw_outbound = s.filter_raw_outbound;
  }
  return pi;
}

std::array<uint8_t, ib::kSmpDataBytes> Sma::read(uint16_t attr, uint32_t mod, unsigned in) {
  ib::Smp req;
  req.hdr.method = ib::kMethodGet;
  req.hdr.attr_id = attr;
  req.hdr.attr_mod = mod;
  ib::Smp resp;
  if (get_attribute(req, in, resp) != ib::kStatusOk) resp.data.fill(0);
  return resp.data;
}

uint16_t Sma::get_attribute(const ib::Smp& req, unsigned in, ib::Smp& resp) {
  uint8_t* out = resp.data.data();
  const uint32_t mod = req.hdr.attr_mod;
  switch (req.hdr.attr_id) {
    case ib::kAttrNodeInfo: {
      ib::NodeInfo ni;
      ni.node_type = is_switch() ? ib::kNodeTypeSwitch : ib::kNodeTypeCa;
      ni.num_ports = static_cast<uint8_t>(port_count());
      ni.node_guid = id_.guid;
      ni.sys_image_guid = id_.system_guid != 0 ? id_.system_guid : id_.guid;
      ni.port_guid = is_switch() ? id_.guid : id_.guid + in;
      ni.partition_cap = kPkeyTableEntries;
      ni.device_id = id_.device_id;
      ni.local_port_num = static_cast<uint8_t>(in);
      ni.vendor_id = id_.vendor_id;
      ni.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrNodeDescription: {
      ib::NodeDescription nd;
      nd.text = id_.description;
      nd.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrPortInfo: {
      const unsigned port = port_info_port(mod, in);
      if (port > port_count() || (!is_switch() && port == 0)) return ib::kStatusInvalidAttribute;
      ib::PortInfo pi = port_info(port);
      pi.local_port_num = static_cast<uint8_t>(in);  // IBA 14.2.5.6: the port the SMP came in on
      pi.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrSwitchInfo: {
      if (!is_switch()) return ib::kStatusUnsupportedMethodAttr;
      ib::SwitchInfo si;
      si.linear_fdb_cap = kLinearFdbCap;
      const size_t n = switch_->forwarding().lft().size();
      si.linear_fdb_top = static_cast<uint16_t>(n == 0 ? 0 : n - 1);
      si.optimized_sl2vl = 1;
      si.port_state_change = port_state_change_;
      si.partition_enforcement_cap = kPkeyTableEntries;
      si.inbound_enforcement_cap = si.outbound_enforcement_cap = true;
      si.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrLft: {
      if (!is_switch()) return ib::kStatusUnsupportedMethodAttr;
      if (mod >= kLinearFdbCap / ib::kLftBlockEntries) return ib::kStatusInvalidAttribute;
      ib::LftBlock b;
      for (unsigned i = 0; i < ib::kLftBlockEntries; ++i)
        b.port[i] = switch_->forwarding().lookup(static_cast<uint16_t>(mod * ib::kLftBlockEntries + i));
      b.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrSlToVlTable: {
      ib::SlToVlTable t;
      if (is_switch()) {
        const unsigned i = ib::sl2vl_in_port(mod), o = ib::sl2vl_out_port(mod);
        if (i > port_count() || o > port_count()) return ib::kStatusInvalidAttribute;
        const auto& tab = switch_->forwarding().sl2vl(i, o);
        std::copy(tab.begin(), tab.end(), t.vl.begin());
      } else {
        const auto& tab = model_port(in)->sl2vl();
        std::copy(tab.begin(), tab.end(), t.vl.begin());
      }
      t.encode(out);
      return ib::kStatusOk;
    }
    case ib::kAttrVlArbTable: {
      ib::VlArbBlock b;
      const uint16_t st = get_vlarb(mod, in, b);
      if (st == ib::kStatusOk) b.encode(out);
      return st;
    }
    case ib::kAttrPkeyTable: {
      const std::vector<uint16_t>* t = pkey_table(mod, in);
      if (t == nullptr) return ib::kStatusInvalidAttribute;
      ib::PkeyTableBlock b;
      const unsigned first = ib::pkey_block(mod) * ib::kPkeyBlockEntries;
      for (unsigned i = 0; i < ib::kPkeyBlockEntries && first + i < t->size(); ++i) b.pkey[i] = (*t)[first + i];
      b.encode(out);
      return ib::kStatusOk;
    }
    default:
      if (is_switch() && is_ar_attribute(req.hdr.attr_id) && switch_->adaptive() != nullptr)
        return get_ar_attribute(*switch_->adaptive(), req.hdr.attr_id, mod, out);
      return ib::kStatusUnsupportedMethodAttr;
  }
}

uint16_t Sma::set_attribute(const ib::Smp& req, unsigned in) {
  const uint8_t* data = req.data.data();
  const uint32_t mod = req.hdr.attr_mod;
  switch (req.hdr.attr_id) {
    case ib::kAttrPortInfo: {
      const unsigned port = port_info_port(mod, in);
      if (port > port_count() || (!is_switch() && port == 0)) return ib::kStatusInvalidAttribute;
      ib::PortInfo pi;
      pi.decode(data);
      return set_port_info(pi, port);
    }
    case ib::kAttrLft: {
      if (!is_switch()) return ib::kStatusUnsupportedMethodAttr;
      if (mod >= kLinearFdbCap / ib::kLftBlockEntries) return ib::kStatusInvalidAttribute;
      ib::LftBlock b;
      b.decode(data);
      switch_->set_lft_block(mod, b.port);
      return ib::kStatusOk;
    }
    case ib::kAttrSlToVlTable: {
      ib::SlToVlTable t;
      t.decode(data);
      std::array<uint8_t, 16> tab{};
      std::copy(t.vl.begin(), t.vl.end(), tab.begin());
      if (is_switch()) {
        const unsigned i = ib::sl2vl_in_port(mod), o = ib::sl2vl_out_port(mod), n = port_count();
        const bool all_in = (mod & kSl2VlAllInputs) != 0, all_out = (mod & kSl2VlAllOutputs) != 0;
        if ((!all_in && i > n) || (!all_out && (o > n || o == 0))) return ib::kStatusInvalidAttribute;
        for (unsigned in = all_in ? 0 : i; in <= (all_in ? n : i); ++in)
          for (unsigned out = all_out ? 1 : o; out <= (all_out ? n : o); ++out) switch_->set_sl2vl(in, out, tab);
      } else {
        model_port(in)->set_sl2vl(tab);
      }
      return ib::kStatusOk;
    }
    case ib::kAttrVlArbTable: {
      ib::VlArbBlock b;
      b.decode(data);
      return set_vlarb(mod, in, b);
    }
    case ib::kAttrSwitchInfo: {
      ib::SwitchInfo si;
      si.decode(data);
      if (is_switch() && si.port_state_change) port_state_change_ = false;  // written 1: cleared
      return ib::kStatusOk;  // nothing else the model lets an SM change
    }
    case ib::kAttrPkeyTable: {
      const std::vector<uint16_t>* t = pkey_table(mod, in);
      if (t == nullptr) return ib::kStatusInvalidAttribute;
      ib::PkeyTableBlock b;
      b.decode(data);
      std::vector<uint16_t> table = *t;
      const unsigned first = ib::pkey_block(mod) * ib::kPkeyBlockEntries;
      table.resize(std::max<std::size_t>(table.size(), first + ib::kPkeyBlockEntries), 0);
      std::copy(b.pkey.begin(), b.pkey.end(), table.begin() + first);
      while (!table.empty() && table.back() == 0) table.pop_back();
      const unsigned port = is_switch() ? ib::pkey_port(mod) : in;
      if (link::Port* p = model_port(port)) p->set_pkeys(std::move(table));
      else state(0).pkeys = std::move(table);
      return ib::kStatusOk;
    }
    case ib::kAttrNodeInfo:
    case ib::kAttrNodeDescription: return ib::kStatusOk;  // nothing the model lets an SM change
    default:
      if (is_switch() && is_ar_attribute(req.hdr.attr_id) && switch_->adaptive() != nullptr)
        return set_ar_attribute(*switch_->adaptive_router(), port_count(), req.hdr.attr_id, mod, data);
      return ib::kStatusUnsupportedMethodAttr;
  }
}

uint16_t Sma::set_port_info(const ib::PortInfo& pi, unsigned port) {
  link::Port* p = model_port(port);
  if (p != nullptr) {
    if (pi.operational_vls != 0 && pi.operational_vls != vl_code(p->vl_count())) return ib::kStatusInvalidAttribute;
    if (pi.neighbor_mtu != 0 && mtu_bytes(pi.neighbor_mtu) != p->config().mtu) return ib::kStatusInvalidAttribute;
    if (!transition_ok(p->state(), pi.port_state)) return ib::kStatusInvalidAttribute;
  }
  if (pi.lmc > 7) return ib::kStatusInvalidAttribute;
  PortState& s = state(port);
  s.m_key = pi.m_key;
  s.m_key_protect = pi.m_key_protect_bits;
  s.m_key_lease = pi.m_key_lease_period;
  s.master_sm_lid = pi.master_sm_lid;
  s.master_sm_sl = pi.master_sm_sl;
  s.subnet_timeout = pi.subnet_timeout;
  s.lmc = pi.lmc;
  s.hoq_life = pi.hoq_life;
  s.vl_stall_count = pi.vl_stall_count;
  s.client_reregister = pi.client_reregister;
  if (pi.client_reregister && !is_switch() && reregister_) reregister_(port);
  if (is_switch() && p != nullptr) {
    p->set_partition_enforcement(pi.partition_enforcement_inbound, pi.partition_enforcement_outbound);
    s.filter_raw_inbound = pi.filter_raw_inbound;
    s.filter_raw_outbound = pi.filter_raw_outbound;
  }
  if (is_switch()) {
    if (port == 0) switch_->set_lid(pi.lid);
  } else {
    hca_->set_lid(port - 1, pi.lid);
  }
  if (p == nullptr) return ib::kStatusOk;
  if (pi.vl_high_limit != p->vlarb().high_limit) {
    link::VlArbConfig c = p->vlarb();
    c.high_limit = pi.vl_high_limit;
    if (is_switch()) switch_->set_vlarb(port, c);
    else p->set_vlarb(c);
  }
  if (pi.port_state != ib::kPortStateNoChange) {
    const auto to = static_cast<link::PortState>(pi.port_state);
    p->set_state(to == link::PortState::Down || p->peer() == nullptr ? link::PortState::Down : to);
    if (port_state_set_) port_state_set_();
  }
  return ib::kStatusOk;
}

const std::vector<uint16_t>* Sma::pkey_table(uint32_t mod, unsigned in) const {
  if (ib::pkey_block(mod) >= kPkeyTableEntries / ib::kPkeyBlockEntries) return nullptr;
  const unsigned port = is_switch() ? ib::pkey_port(mod) : in;
  if (port > port_count()) return nullptr;
  if (const link::Port* p = model_port(port)) return &p->pkeys();
  return is_switch() ? &ports_[0].pkeys : nullptr;
}

uint16_t Sma::get_vlarb(uint32_t mod, unsigned in, ib::VlArbBlock& out) const {
  const unsigned block = ib::vlarb_block(mod);
  unsigned port = ib::vlarb_port(mod);
  if (!is_switch() && port == 0) port = in;
  const link::Port* p = model_port(port);
  if (p == nullptr || !vlarb_table_block_valid(block)) return ib::kStatusInvalidAttribute;
  out = vlarb_table_block(p->vlarb(), block);
  return ib::kStatusOk;
}

uint16_t Sma::set_vlarb(uint32_t mod, unsigned in, const ib::VlArbBlock& block) {
  const unsigned b = ib::vlarb_block(mod);
  unsigned port = ib::vlarb_port(mod);
  if (!is_switch() && port == 0) port = in;
  link::Port* p = model_port(port);
  if (p == nullptr || !vlarb_table_block_valid(b)) return ib::kStatusInvalidAttribute;
  link::VlArbConfig c = p->vlarb();
  set_vlarb_table_block(c, b, block);
  if (is_switch()) switch_->set_vlarb(port, c);
  else p->set_vlarb(c);
  return ib::kStatusOk;
}

}  // namespace hcasim::mgmt
