// SMP attribute encode/decode at the offsets listed in mad_attributes.hpp.
#include "models/ib/mad_attributes.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {
namespace {

// Two fields sharing a byte: hi in bits 7:4, lo in bits 3:0.
uint8_t nibbles(uint8_t hi, uint8_t lo) { return static_cast<uint8_t>(((hi & 0xF) << 4) | (lo & 0xF)); }
uint8_t hi4(uint8_t b) { return static_cast<uint8_t>(b >> 4); }
uint8_t lo4(uint8_t b) { return static_cast<uint8_t>(b & 0xF); }
uint8_t bit(bool v, unsigned pos) { return static_cast<uint8_t>(v ? 1u << pos : 0); }

// TClass (8) / SL (4) / FlowLabel (20) word of ClassPortInfo.
uint32_t tc_sl_fl(uint8_t tc, uint8_t sl, uint32_t fl) {
  return (static_cast<uint32_t>(tc) << 24) | (static_cast<uint32_t>(sl & 0xF) << 20) | (fl & 0xFFFFF);
}

}  // namespace

void NodeInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  out[0] = base_version;
  out[1] = class_version;
  out[2] = node_type;
  out[3] = num_ports;
  put_be64(out + 4, sys_image_guid);
  put_be64(out + 12, node_guid);
  put_be64(out + 20, port_guid);
  put_be16(out + 28, partition_cap);
  put_be16(out + 30, device_id);
  put_be32(out + 32, revision);
  out[36] = local_port_num;
  put_be24(out + 37, vendor_id);
}

void NodeInfo::decode(const uint8_t* in) {
  base_version = in[0];
  class_version = in[1];
  node_type = in[2];
  num_ports = in[3];
  sys_image_guid = get_be64(in + 4);
  node_guid = get_be64(in + 12);
  port_guid = get_be64(in + 20);
  partition_cap = get_be16(in + 28);
  device_id = get_be16(in + 30);
  revision = get_be32(in + 32);
  local_port_num = in[36];
  vendor_id = get_be24(in + 37);
}

void NodeDescription::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  std::memcpy(out, text.data(), std::min<size_t>(text.size(), kBytes));
}

void NodeDescription::decode(const uint8_t* in) {
  const uint8_t* end = std::find(in, in + kBytes, 0);
  text.assign(reinterpret_cast<const char*>(in), static_cast<size_t>(end - in));
}

void PortInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be64(out + 0, m_key);
  put_be64(out + 8, gid_prefix);
  put_be16(out + 16, lid);
  put_be16(out + 18, master_sm_lid);
  put_be32(out + 20, capability_mask);
  put_be16(out + 24, diag_code);
  put_be16(out + 26, m_key_lease_period);
  out[28] = local_port_num;
  out[29] = link_width_enabled;
  out[30] = link_width_supported;
  out[31] = link_width_active;
  out[32] = nibbles(link_speed_supported, port_state);
  out[33] = nibbles(port_phys_state, link_down_default_state);
  out[34] = static_cast<uint8_t>(((m_key_protect_bits & 0x3) << 6) | (lmc & 0x7));
  out[35] = nibbles(link_speed_active, link_speed_enabled);
  out[36] = nibbles(neighbor_mtu, master_sm_sl);
  out[37] = nibbles(vl_cap, init_type);
  out[38] = vl_high_limit;
  out[39] = vl_arb_high_cap;
  out[40] = vl_arb_low_cap;
  out[41] = nibbles(init_type_reply, mtu_cap);
  out[42] = static_cast<uint8_t>(((vl_stall_count & 0x7) << 5) | (hoq_life & 0x1F));
  out[43] = static_cast<uint8_t>(((operational_vls & 0xF) << 4) | bit(partition_enforcement_inbound, 3) |
                                 bit(partition_enforcement_outbound, 2) | bit(filter_raw_inbound, 1) |
                                 bit(filter_raw_outbound, 0));
  put_be16(out + 44, m_key_violations);
  put_be16(out + 46, p_key_violations);
  put_be16(out + 48, q_key_violations);
  out[50] = guid_cap;
  out[51] = static_cast<uint8_t>(bit(client_reregister, 7) | ((mcast_pkey_trap_suppression & 0x3) << 5) |
                                 (subnet_timeout & 0x1F));
  out[52] = static_cast<uint8_t>(resp_time_value & 0x1F);
  out[53] = nibbles(local_phy_errors, overrun_errors);
  put_be16(out + 54, max_credit_hint);
  put_be24(out + 57, link_round_trip_latency);
  put_be16(out + 60, capability_mask2);
  out[62] = nibbles(link_speed_ext_active, link_speed_ext_supported);
  out[63] = static_cast<uint8_t>(link_speed_ext_enabled & 0x1F);
}

void PortInfo::decode(const uint8_t* in) {
  m_key = get_be64(in + 0);
  gid_prefix = get_be64(in + 8);
  lid = get_be16(in + 16);
  master_sm_lid = get_be16(in + 18);
  capability_mask = get_be32(in + 20);
  diag_code = get_be16(in + 24);
  m_key_lease_period = get_be16(in + 26);
  local_port_num = in[28];
  link_width_enabled = in[29];
  link_width_supported = in[30];
  link_width_active = in[31];
  link_speed_supported = hi4(in[32]);
  port_state = lo4(in[32]);
  port_phys_state = hi4(in[33]);
  link_down_default_state = lo4(in[33]);
  m_key_protect_bits = static_cast<uint8_t>(in[34] >> 6);
  lmc = static_cast<uint8_t>(in[34] & 0x7);
  link_speed_active = hi4(in[35]);
  link_speed_enabled = lo4(in[35]);
  neighbor_mtu = hi4(in[36]);
  master_sm_sl = lo4(in[36]);
  vl_cap = hi4(in[37]);
  init_type = lo4(in[37]);
  vl_high_limit = in[38];
  vl_arb_high_cap = in[39];
  vl_arb_low_cap = in[40];
  init_type_reply = hi4(in[41]);
  mtu_cap = lo4(in[41]);
  vl_stall_count = static_cast<uint8_t>(in[42] >> 5);
  hoq_life = static_cast<uint8_t>(in[42] & 0x1F);
  operational_vls = hi4(in[43]);
  partition_enforcement_inbound = (in[43] & 0x08) != 0;
  partition_enforcement_outbound = (in[43] & 0x04) != 0;
  filter_raw_inbound = (in[43] & 0x02) != 0;
  filter_raw_outbound = (in[43] & 0x01) != 0;
  m_key_violations = get_be16(in + 44);
  p_key_violations = get_be16(in + 46);
  q_key_violations = get_be16(in + 48);
  guid_cap = in[50];
  client_reregister = (in[51] & 0x80) != 0;
  mcast_pkey_trap_suppression = static_cast<uint8_t>((in[51] >> 5) & 0x3);
  subnet_timeout = static_cast<uint8_t>(in[51] & 0x1F);
  resp_time_value = static_cast<uint8_t>(in[52] & 0x1F);
  local_phy_errors = hi4(in[53]);
  overrun_errors = lo4(in[53]);
  max_credit_hint = get_be16(in + 54);
  link_round_trip_latency = get_be24(in + 57);
  capability_mask2 = get_be16(in + 60);
  link_speed_ext_active = hi4(in[62]);
  link_speed_ext_supported = lo4(in[62]);
  link_speed_ext_enabled = static_cast<uint8_t>(in[63] & 0x1F);
}

void SwitchInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out + 0, linear_fdb_cap);
  put_be16(out + 2, random_fdb_cap);
  put_be16(out + 4, multicast_fdb_cap);
  put_be16(out + 6, linear_fdb_top);
  out[8] = default_port;
  out[9] = default_mcast_primary_port;
  out[10] = default_mcast_not_primary_port;
  out[11] = static_cast<uint8_t>(((life_time_value & 0x1F) << 3) | bit(port_state_change, 2) |
                                 (optimized_sl2vl & 0x3));
  put_be16(out + 12, lids_per_port);
  put_be16(out + 14, partition_enforcement_cap);
  out[16] = static_cast<uint8_t>(bit(inbound_enforcement_cap, 7) | bit(outbound_enforcement_cap, 6) |
                                 bit(filter_raw_inbound_cap, 5) | bit(filter_raw_outbound_cap, 4) |
                                 bit(enhanced_port0, 3));
  put_be16(out + 18, multicast_fdb_top);
}

void SwitchInfo::decode(const uint8_t* in) {
  linear_fdb_cap = get_be16(in + 0);
  random_fdb_cap = get_be16(in + 2);
  multicast_fdb_cap = get_be16(in + 4);
  linear_fdb_top = get_be16(in + 6);
  default_port = in[8];
  default_mcast_primary_port = in[9];
  default_mcast_not_primary_port = in[10];
  life_time_value = static_cast<uint8_t>(in[11] >> 3);
  port_state_change = (in[11] & 0x04) != 0;
  optimized_sl2vl = static_cast<uint8_t>(in[11] & 0x3);
  lids_per_port = get_be16(in + 12);
  partition_enforcement_cap = get_be16(in + 14);
  inbound_enforcement_cap = (in[16] & 0x80) != 0;
  outbound_enforcement_cap = (in[16] & 0x40) != 0;
  filter_raw_inbound_cap = (in[16] & 0x20) != 0;
  filter_raw_outbound_cap = (in[16] & 0x10) != 0;
  enhanced_port0 = (in[16] & 0x08) != 0;
  multicast_fdb_top = get_be16(in + 18);
}

void LftBlock::encode(uint8_t* out) const { std::copy(port.begin(), port.end(), out); }
void LftBlock::decode(const uint8_t* in) { std::copy(in, in + kBytes, port.begin()); }

void SlToVlTable::encode(uint8_t* out) const {
  for (unsigned i = 0; i < kBytes; ++i) out[i] = nibbles(vl[2 * i], vl[2 * i + 1]);
}

void SlToVlTable::decode(const uint8_t* in) {
  for (unsigned i = 0; i < kBytes; ++i) {
    vl[2 * i] = hi4(in[i]);
    vl[2 * i + 1] = lo4(in[i]);
  }
}

void VlArbBlock::encode(uint8_t* out) const {
  for (unsigned i = 0; i < kVlArbBlockEntries; ++i) {
    out[2 * i] = static_cast<uint8_t>(entry[i].vl & 0xF);  // bits 7:4 reserved
    out[2 * i + 1] = entry[i].weight;
  }
}

void VlArbBlock::decode(const uint8_t* in) {
  for (unsigned i = 0; i < kVlArbBlockEntries; ++i) {
    entry[i].vl = lo4(in[2 * i]);
    entry[i].weight = in[2 * i + 1];
  }
}

void PkeyTableBlock::encode(uint8_t* out) const {
  for (unsigned i = 0; i < kPkeyBlockEntries; ++i) put_be16(out + 2 * i, pkey[i]);
}

void PkeyTableBlock::decode(const uint8_t* in) {
  for (unsigned i = 0; i < kPkeyBlockEntries; ++i) pkey[i] = get_be16(in + 2 * i);
}

void ClassPortInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  out[0] = base_version;
  out[1] = class_version;
  put_be16(out + 2, capability_mask);
  put_be32(out + 4, ((capability_mask2 & 0x7FFFFFFu) << 5) | (resp_time_value & 0x1F));
  std::copy(redirect_gid.begin(), redirect_gid.end(), out + 8);
  put_be32(out + 24, tc_sl_fl(redirect_tclass, redirect_sl, redirect_flow_label));
  put_be16(out + 28, redirect_lid);
  put_be16(out + 30, redirect_pkey);
  put_be32(out + 32, redirect_qp & 0xFFFFFF);
  put_be32(out + 36, redirect_qkey);
  std::copy(trap_gid.begin(), trap_gid.end(), out + 40);
  put_be32(out + 56, tc_sl_fl(trap_tclass, trap_sl, trap_flow_label));
  put_be16(out + 60, trap_lid);
  put_be16(out + 62, trap_pkey);
  put_be32(out + 64, (static_cast<uint32_t>(trap_hop_limit) << 24) | (trap_qp & 0xFFFFFF));
  put_be32(out + 68, trap_qkey);
}

void ClassPortInfo::decode(const uint8_t* in) {
  base_version = in[0];
  class_version = in[1];
  capability_mask = get_be16(in + 2);
  const uint32_t cm2_rtv = get_be32(in + 4);
  capability_mask2 = cm2_rtv >> 5;
  resp_time_value = static_cast<uint8_t>(cm2_rtv & 0x1F);
  std::copy(in + 8, in + 24, redirect_gid.begin());
  const uint32_t r = get_be32(in + 24);
  redirect_tclass = static_cast<uint8_t>(r >> 24);
  redirect_sl = static_cast<uint8_t>((r >> 20) & 0xF);
  redirect_flow_label = r & 0xFFFFF;
  redirect_lid = get_be16(in + 28);
  redirect_pkey = get_be16(in + 30);
  redirect_qp = get_be32(in + 32) & 0xFFFFFF;
  redirect_qkey = get_be32(in + 36);
  std::copy(in + 40, in + 56, trap_gid.begin());
  const uint32_t t = get_be32(in + 56);
  trap_tclass = static_cast<uint8_t>(t >> 24);
  trap_sl = static_cast<uint8_t>((t >> 20) & 0xF);
  trap_flow_label = t & 0xFFFFF;
  trap_lid = get_be16(in + 60);
  trap_pkey = get_be16(in + 62);
  const uint32_t hq = get_be32(in + 64);
  trap_hop_limit = static_cast<uint8_t>(hq >> 24);
  trap_qp = hq & 0xFFFFFF;
  trap_qkey = get_be32(in + 68);
}

}  // namespace hcasim::ib
