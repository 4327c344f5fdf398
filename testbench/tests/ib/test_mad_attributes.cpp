// SMP attributes: fields at the byte offsets and bit positions of iba-facts 6
// (NodeInfo, PortInfo) and OpenSM ib_types.h (SwitchInfo, SL2VL, VLArb,
// ClassPortInfo), reserved bits zero, and round trips.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"

using namespace hcasim::ib;

namespace {

template <typename T>
std::array<uint8_t, kSmpDataBytes + 8> bytes_of(const T& a) {
  std::array<uint8_t, kSmpDataBytes + 8> b{};
  b.fill(0xEE);
  a.encode(b.data());
  return b;
}

// Round trip: decode(encode(a)) encodes to the same bytes.
template <typename T>
void check_round_trip(const T& a) {
  const auto b = bytes_of(a);
  T d;
  d.decode(b.data());
  CHECK(bytes_of(d) == b);
}

PortInfo sample_port_info() {
  PortInfo p;
  p.m_key = 0x0102030405060708ull;
  p.gid_prefix = 0xFE80000000000000ull;
  p.lid = 0x1234;
  p.master_sm_lid = 0x0001;
  p.capability_mask = 0x02010048;
  p.diag_code = 0xD1A6;
  p.m_key_lease_period = 0x0F0F;
  p.local_port_num = 7;
  p.link_width_enabled = 3;
  p.link_width_supported = 0x0B;
  p.link_width_active = 2;
  p.link_speed_supported = 0x7;
  p.port_state = kPortStateArmed;
  p.port_phys_state = kPhysStateLinkUp;
  p.link_down_default_state = 2;
  p.m_key_protect_bits = 2;
  p.lmc = 5;
  p.link_speed_active = 4;
  p.link_speed_enabled = 0xF;
  p.neighbor_mtu = 5;
  p.master_sm_sl = 0xA;
  p.vl_cap = 4;
  p.init_type = 0x9;
  p.vl_high_limit = 0x66;
  p.vl_arb_high_cap = 8;
  p.vl_arb_low_cap = 64;
  p.init_type_reply = 0xC;
  p.mtu_cap = 5;
  p.vl_stall_count = 7;
  p.hoq_life = 0x13;
  p.operational_vls = 3;
  p.partition_enforcement_inbound = true;
  p.partition_enforcement_outbound = false;
  p.filter_raw_inbound = true;
  p.filter_raw_outbound = false;
  p.m_key_violations = 0x1111;
  p.p_key_violations = 0x2222;
  p.q_key_violations = 0x3333;
  p.guid_cap = 32;
  p.client_reregister = true;
  p.mcast_pkey_trap_suppression = 1;
  p.subnet_timeout = 0x12;
  p.resp_time_value = 0x11;
  p.local_phy_errors = 0xA;
  p.overrun_errors = 0x5;
  p.max_credit_hint = 0xBEEF;
  p.link_round_trip_latency = 0xABCDEF;
  p.capability_mask2 = 0x0022;
  p.link_speed_ext_active = 2;
  p.link_speed_ext_supported = 7;
  p.link_speed_ext_enabled = 0x1E;
  return p;
}

}  // namespace

TEST_CASE("NodeInfo fields sit at the iba-facts 6 offsets", "[mad_attr]") {
  NodeInfo n;
  n.node_type = kNodeTypeSwitch;
  n.num_ports = 36;
  n.sys_image_guid = 0x1111111111111111ull;
  n.node_guid = 0x0002C90300A1B2C3ull;
  n.port_guid = 0x3333333333333333ull;
  n.partition_cap = 0x0040;
  n.device_id = 0xCAFE;
  n.revision = 0x000000A0;
  n.local_port_num = 17;
  n.vendor_id = 0x0002C9;
  const auto b = bytes_of(n);
  CHECK(b[0] == 1);
  CHECK(b[1] == 1);
  CHECK(b[2] == 2);
  CHECK(b[3] == 36);
  CHECK(b[4] == 0x11);
  CHECK(b[12] == 0x00);
  CHECK(b[13] == 0x02);
  CHECK(b[19] == 0xC3);  // NodeGUID 12-19
  CHECK(b[20] == 0x33);
  CHECK(b[28] == 0x00);
  CHECK(b[29] == 0x40);  // PartitionCap
  CHECK(b[30] == 0xCA);
  CHECK(b[31] == 0xFE);  // DeviceID
  CHECK(b[35] == 0xA0);  // Revision 32-35
  CHECK(b[36] == 17);    // LocalPortNum
  CHECK(b[37] == 0x00);
  CHECK(b[38] == 0x02);
  CHECK(b[39] == 0xC9);  // VendorID 37-39
  CHECK(b[40] == 0xEE);  // encode writes 40 bytes only
  NodeInfo d;
  d.decode(b.data());
  CHECK(d.node_guid == n.node_guid);
  CHECK(d.vendor_id == 0x0002C9);
  CHECK(d.local_port_num == 17);
  check_round_trip(n);
}

TEST_CASE("NodeDescription is 64 bytes NUL-padded and may fill all 64", "[mad_attr]") {
  NodeDescription nd;
  nd.text = "sw1 leaf";
  const auto b = bytes_of(nd);
  CHECK(b[0] == 's');
  CHECK(b[7] == 'f');
  for (unsigned i = 8; i < 64; ++i) CHECK(b[i] == 0);
  NodeDescription d;
  d.decode(b.data());
  CHECK(d.text == "sw1 leaf");
  nd.text = std::string(70, 'x');  // longer than the field: 64 bytes go out
  const auto full = bytes_of(nd);
  CHECK(full[63] == 'x');
  CHECK(full[64] == 0xEE);
  d.decode(full.data());
  CHECK(d.text == std::string(64, 'x'));
}

TEST_CASE("PortInfo fields sit at the iba-facts 6 offsets and bit positions", "[mad_attr]") {
  const PortInfo p = sample_port_info();
  const auto b = bytes_of(p);
  CHECK(b[0] == 0x01);
  CHECK(b[7] == 0x08);   // M_Key
  CHECK(b[8] == 0xFE);
  CHECK(b[9] == 0x80);   // GIDPrefix
  CHECK(b[16] == 0x12);
  CHECK(b[17] == 0x34);  // LID
  CHECK(b[18] == 0x00);
  CHECK(b[19] == 0x01);  // MasterSMLID
  CHECK(b[20] == 0x02);
  CHECK(b[23] == 0x48);  // CapabilityMask
  CHECK(b[24] == 0xD1);
  CHECK(b[25] == 0xA6);  // DiagCode
  CHECK(b[26] == 0x0F);  // M_KeyLeasePeriod
  CHECK(b[28] == 7);     // LocalPortNum
  CHECK(b[29] == 3);
  CHECK(b[30] == 0x0B);
  CHECK(b[31] == 2);     // LinkWidth Enabled / Supported / Active
  CHECK(b[32] == 0x73);  // LinkSpeedSupported 7:4, PortState 3:0 (Armed = 3)
  CHECK(b[33] == 0x52);  // PhysState 7:4 (LinkUp = 5), LinkDownDefault 3:0
  CHECK(b[34] == 0x85);  // M_KeyProtect 7:6 = 2, reserved 5:3, LMC 2:0 = 5
  CHECK(b[35] == 0x4F);  // LinkSpeedActive, LinkSpeedEnabled
  CHECK(b[36] == 0x5A);  // NeighborMTU, MasterSMSL
  CHECK(b[37] == 0x49);  // VLCap, InitType
  CHECK(b[38] == 0x66);  // VLHighLimit
  CHECK(b[39] == 8);     // VLArbHighCap
  CHECK(b[40] == 64);    // VLArbLowCap
  CHECK(b[41] == 0xC5);  // InitTypeReply, MTUCap
  CHECK(b[42] == 0xF3);  // VLStallCount 7:5 = 7, HOQLife 4:0 = 0x13
  CHECK(b[43] == 0x3A);  // OperationalVLs = 3; PartEnfIn (bit 3) and FilterRawIn (bit 1)
  CHECK(b[44] == 0x11);
  CHECK(b[46] == 0x22);
  CHECK(b[48] == 0x33);  // violation counters
  CHECK(b[50] == 32);    // GUIDCap
  CHECK(b[51] == 0xB2);  // ClientReregister bit 7, McastPKeyTrapSuppr 6:5 = 1, SubnetTimeout 0x12
  CHECK(b[52] == 0x11);  // RespTimeValue 4:0
  CHECK(b[53] == 0xA5);  // LocalPhyErrors, OverrunErrors
  CHECK(b[54] == 0xBE);
  CHECK(b[55] == 0xEF);  // MaxCreditHint
  CHECK(b[56] == 0x00);  // reserved
  CHECK(b[57] == 0xAB);
  CHECK(b[59] == 0xEF);  // LinkRoundTripLatency 57-59
  CHECK(b[60] == 0x00);
  CHECK(b[61] == 0x22);  // CapabilityMask2
  CHECK(b[62] == 0x27);  // LinkSpeedExtActive, LinkSpeedExtSupported
  CHECK(b[63] == 0x1E);  // LinkSpeedExtEnabled 4:0
  CHECK(b[64] == 0xEE);
  PortInfo d;
  d.decode(b.data());
  CHECK(d.lid == 0x1234);
  CHECK(d.port_state == kPortStateArmed);
  CHECK(d.lmc == 5);
  CHECK(d.hoq_life == 0x13);
  CHECK(d.vl_stall_count == 7);
  CHECK(d.partition_enforcement_inbound);
  CHECK_FALSE(d.partition_enforcement_outbound);
  CHECK(d.client_reregister);
  CHECK(d.subnet_timeout == 0x12);
  CHECK(d.link_round_trip_latency == 0xABCDEF);
  check_round_trip(p);
}

TEST_CASE("PortInfo reserved bits stay zero when every field is at its maximum", "[mad_attr]") {
  PortInfo p;
  p.m_key_protect_bits = 0xFF;
  p.lmc = 0xFF;
  p.resp_time_value = 0xFF;
  p.link_speed_ext_enabled = 0xFF;
  const auto b = bytes_of(p);
  CHECK(b[34] == 0xC7);  // bits 5:3 reserved
  CHECK(b[52] == 0x1F);  // bits 7:5 reserved
  CHECK(b[63] == 0x1F);  // bits 7:5 reserved
}

TEST_CASE("SwitchInfo fields sit at the OpenSM ib_switch_info_t offsets", "[mad_attr]") {
  SwitchInfo s;
  s.linear_fdb_cap = 0xC000;
  s.random_fdb_cap = 0x0001;
  s.multicast_fdb_cap = 0x0400;
  s.linear_fdb_top = 0x0123;
  s.default_port = 5;
  s.default_mcast_primary_port = 6;
  s.default_mcast_not_primary_port = 7;
  s.life_time_value = 0x13;
  s.port_state_change = true;
  s.optimized_sl2vl = 1;
  s.lids_per_port = 0x0008;
  s.partition_enforcement_cap = 0x0020;
  s.inbound_enforcement_cap = true;
  s.outbound_enforcement_cap = false;
  s.filter_raw_inbound_cap = true;
  s.filter_raw_outbound_cap = false;
  s.enhanced_port0 = true;
  s.multicast_fdb_top = 0xC1FF;
  const auto b = bytes_of(s);
  CHECK(b[0] == 0xC0);
  CHECK(b[1] == 0x00);  // LinearFDBCap
  CHECK(b[3] == 0x01);  // RandomFDBCap
  CHECK(b[4] == 0x04);  // MulticastFDBCap
  CHECK(b[6] == 0x01);
  CHECK(b[7] == 0x23);  // LinearFDBTop
  CHECK(b[8] == 5);
  CHECK(b[9] == 6);
  CHECK(b[10] == 7);
  CHECK(b[11] == 0x9D);  // LifeTimeValue 0x13 << 3 | PortStateChange 0x04 | OptimizedSL2VL 1
  CHECK(b[13] == 0x08);  // LIDsPerPort
  CHECK(b[15] == 0x20);  // PartitionEnforcementCap
  CHECK(b[16] == 0xA8);  // Inbound 0x80 | FilterRawInbound 0x20 | EnhancedPort0 0x08
  CHECK(b[17] == 0x00);
  CHECK(b[18] == 0xC1);
  CHECK(b[19] == 0xFF);  // MulticastFDBTop
  CHECK(b[20] == 0xEE);
  SwitchInfo d;
  d.decode(b.data());
  CHECK(d.life_time_value == 0x13);
  CHECK(d.port_state_change);
  CHECK(d.optimized_sl2vl == 1);
  CHECK(d.enhanced_port0);
  CHECK_FALSE(d.outbound_enforcement_cap);
  check_round_trip(s);
}

TEST_CASE("LFT block holds 64 one-byte ports and the block number is LID over 64", "[mad_attr]") {
  LftBlock l;
  for (unsigned i = 0; i < kLftBlockEntries; ++i) l.port[i] = static_cast<uint8_t>(i % 3 == 0 ? kLftNoPort : i);
  const auto b = bytes_of(l);
  CHECK(b[0] == 0xFF);
  CHECK(b[1] == 1);
  CHECK(b[63] == 0xFF);
  CHECK(b[62] == 62);
  check_round_trip(l);
  CHECK(lft_block_of(63) == 0);
  CHECK(lft_block_of(64) == 1);
  CHECK(lft_block_of(0xBFFF) == 767);
  CHECK(lft_attr_mod(767) == 767u);
}

TEST_CASE("SLtoVL table packs SL0 into the high nibble of byte 0", "[mad_attr]") {
  SlToVlTable t;
  for (unsigned sl = 0; sl < kNumSls; ++sl) t.vl[sl] = static_cast<uint8_t>(sl);  // qos_sl2vl "0,1,...,14,7" style
  t.vl[15] = 7;
  const auto b = bytes_of(t);
  CHECK(b[0] == 0x01);
  CHECK(b[1] == 0x23);
  CHECK(b[6] == 0xCD);
  CHECK(b[7] == 0xE7);
  CHECK(b[8] == 0xEE);
  check_round_trip(t);
  CHECK(sl2vl_attr_mod(3, 9) == 0x0309u);
  CHECK(sl2vl_in_port(0x0309) == 3);
  CHECK(sl2vl_out_port(0x0309) == 9);
}

TEST_CASE("VLArb block entries are VL low nibble then Weight and the modifier is block and port", "[mad_attr]") {
  VlArbBlock v;
  for (unsigned i = 0; i < kVlArbBlockEntries; ++i) v.entry[i] = VlArbEntry{static_cast<uint8_t>(i % 15), static_cast<uint8_t>(4 * i)};
  v.entry[1].vl = 0xF1;  // the high nibble is reserved
  const auto b = bytes_of(v);
  CHECK(b[0] == 0);
  CHECK(b[1] == 0);
  CHECK(b[2] == 0x01);
  CHECK(b[3] == 4);
  CHECK(b[62] == 31 % 15);
  CHECK(b[63] == 124);
  CHECK(b[64] == 0xEE);
  VlArbBlock d;
  d.decode(b.data());
  CHECK(d.entry[1].vl == 1);
  CHECK(d.entry[31].weight == 124);
  CHECK(vlarb_attr_mod(kVlArbHighFirst, 5) == 0x00030005u);
  CHECK(vlarb_attr_mod(kVlArbLowSecond, 0x12) == 0x00020012u);
  CHECK(vlarb_block(0x00040007) == kVlArbHighSecond);
  CHECK(vlarb_port(0x00040007) == 7);
  CHECK(kVlArbLowFirst == 1);
}

TEST_CASE("ClassPortInfo packs CapabilityMask2 above a 5-bit RespTimeValue", "[mad_attr]") {
  ClassPortInfo c;
  c.base_version = 1;
  c.class_version = 2;
  c.capability_mask = 0x0201;
  c.capability_mask2 = 0x4000001;  // 27 bits
  c.resp_time_value = 16;          // iba-facts 6: OpenSM's SA reports 16 for 200 ms
  for (unsigned i = 0; i < 16; ++i) {
    c.redirect_gid[i] = static_cast<uint8_t>(0x10 + i);
    c.trap_gid[i] = static_cast<uint8_t>(0x30 + i);
  }
  c.redirect_tclass = 0xAB;
  c.redirect_sl = 0xC;
  c.redirect_flow_label = 0xDEF12;
  c.redirect_lid = 0x0102;
  c.redirect_pkey = 0xFFFF;
  c.redirect_qp = 0x123456;
  c.redirect_qkey = kGsiQKey;
  c.trap_tclass = 0x11;
  c.trap_sl = 0x2;
  c.trap_flow_label = 0x33333;
  c.trap_lid = 0x0405;
  c.trap_pkey = 0x7FFF;
  c.trap_hop_limit = 0xFE;
  c.trap_qp = 0x000001;
  c.trap_qkey = 0x01020304;
  std::array<uint8_t, 80> b{};
  b.fill(0xEE);
  c.encode(b.data());
  CHECK(b[0] == 1);
  CHECK(b[1] == 2);
  CHECK(b[2] == 0x02);
  CHECK(b[3] == 0x01);
  // 0x4000001 << 5 | 16 = 0x80000030
  CHECK(b[4] == 0x80);
  CHECK(b[5] == 0x00);
  CHECK(b[6] == 0x00);
  CHECK(b[7] == 0x30);
  CHECK(b[8] == 0x10);
  CHECK(b[23] == 0x1F);  // RedirectGID 8-23
  CHECK(b[24] == 0xAB);
  CHECK(b[25] == 0xCD);
  CHECK(b[26] == 0xEF);
  CHECK(b[27] == 0x12);  // TC / SL / FL
  CHECK(b[28] == 0x01);
  CHECK(b[29] == 0x02);  // RedirectLID
  CHECK(b[32] == 0x00);
  CHECK(b[33] == 0x12);  // RedirectQP 24 bits, top byte reserved
  CHECK(b[36] == 0x80);
  CHECK(b[37] == 0x01);  // RedirectQ_Key
  CHECK(b[40] == 0x30);  // TrapGID 40-55
  CHECK(b[56] == 0x11);
  CHECK(b[57] == 0x23);
  CHECK(b[60] == 0x04);
  CHECK(b[62] == 0x7F);
  CHECK(b[64] == 0xFE);  // TrapHopLimit
  CHECK(b[67] == 0x01);  // TrapQP
  CHECK(b[68] == 0x01);
  CHECK(b[71] == 0x04);  // TrapQ_Key
  CHECK(b[72] == 0xEE);
  ClassPortInfo d;
  d.decode(b.data());
  CHECK(d.capability_mask2 == 0x4000001u);
  CHECK(d.resp_time_value == 16);
  CHECK(d.redirect_flow_label == 0xDEF12u);
  CHECK(d.trap_hop_limit == 0xFE);
  std::array<uint8_t, 80> again{};
  again.fill(0xEE);
  d.encode(again.data());
  CHECK(again == b);
}
