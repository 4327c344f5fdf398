// The CC agent (IBA Annex A10.4; cc_agent.hpp) of a switch and of an HCA:
// Get / Set round trips of each attribute, Control_Map, the CC_Key check and
// the statuses of what a node does not support. Statuses and byte offsets
// are the spec's (IBA 13.4.7 MAD status: bits 4:2 = 1 bad class version, 2
// unsupported method, 3 unsupported method / attribute, 7 invalid value;
// A10.4.1 CC MAD layout: attribute data from byte 64, CongestionLog from 32).

#include <catch2/catch.hpp>

#include <systemc>

#include "models/hca/hca.hpp"
#include "models/mgmt/cc_agent.hpp"
#include "models/switch/switch.hpp"

using namespace hcasim;

namespace {

ib::CcMad cc(uint8_t method, uint16_t attr, uint32_t mod, uint64_t key = 0) {
  return ib::cc_request(method, attr, mod, 7, key);
}

template <class Attribute>
ib::CcMad cc_set(const Attribute& a, uint32_t mod, uint64_t key = 0) {
  ib::CcMad m = cc(ib::kMethodSet, Attribute::kAttrId, mod, key);
  ib::put_attribute(m, a);
  return m;
}

// The answer's 256 bytes as they go on the wire.
std::array<uint8_t, ib::kMadBytes> wire(const ib::CcMad& m) {
  std::array<uint8_t, ib::kMadBytes> b{};
  ib::encode(m, b.data());
  return b;
}

uint16_t wire_status(const ib::CcMad& m) {
  const auto b = wire(m);
  return static_cast<uint16_t>(b[4] << 8 | b[5]);  // MAD header bytes 4-5
}

}  // namespace

TEST_CASE("a CA's CC agent sets and reads back its port's CACongestionSetting and CCT blocks", "[mgmt][cc]") {
  ib::PacketPool pool;
  hca::Hca h("hca", std::vector<link::PortConfig>(2), {1, 2}, pool);
  mgmt::CcAgent agent(h);
  ib::CcMad resp;

  // CongestionInfo: ControlTableCap (attribute byte 2 = MAD byte 66) = 4 blocks of 64.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCongestionInfo, 0), 1, 0, resp));
  REQUIRE(resp.hdr.method == 0x81);
  REQUIRE(wire_status(resp) == 0);
  REQUIRE(wire(resp)[66] == 4);

  // A Set with Control_Map = SL 3 only changes SL 3's entry (A10.4.3.6).
  ib::CaCongestionSetting s;
  s.port_control = ib::kCaPortControlPerSl;
  s.control_map = 1u << 3;
  for (ib::CaCongestionEntry& e : s.entries) e = {100, 2, 5, 1};
  REQUIRE(agent.process(cc_set(s, 0), 2, 0, resp));
  REQUIRE(wire_status(resp) == 0);
  REQUIRE(h.congestion(1) != nullptr);
  REQUIRE(h.congestion(0) == nullptr);  // the other port is untouched
  const ib::CaCongestionSetting& now = h.congestion(1)->setting();
  REQUIRE(now.port_control == ib::kCaPortControlPerSl);
  REQUIRE(now.entries[3] == ib::CaCongestionEntry{100, 2, 5, 1});
  REQUIRE(now.entries[4] == ib::CaCongestionEntry{});
  // A Get answers the port's current value: entry SL 3 at attribute byte 4 + 8 x 3 = MAD byte 92.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCaCongestionSetting, 0), 2, 0, resp));
  const auto b = wire(resp);
  REQUIRE((b[92] << 8 | b[93]) == 100);  // CCTI_Timer
  REQUIRE(b[94] == 2);                   // CCTI_Increase
  REQUIRE(b[95] == 5);                   // Trigger_Threshold
  REQUIRE(b[96] == 1);                   // CCTI_Min
  REQUIRE((b[100] << 8 | b[101]) == 0);  // SL 4's CCTI_Timer

  // CCT block 1 = CCTIs 64..127 (the modifier is the block).
  ib::CongestionControlTable t;
  t.ccti_limit = 100;
  for (unsigned i = 0; i < ib::kCctEntriesPerBlock; ++i) t.entries[i] = {1, static_cast<uint16_t>(i + 1)};
  REQUIRE(agent.process(cc_set(t, 1), 2, 0, resp));
  REQUIRE(wire_status(resp) == 0);
  REQUIRE(h.congestion(1)->table().entry(64) == ib::CctEntry{1, 1});
  REQUIRE(h.congestion(1)->table().ccti_limit() == 100);
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCongestionControlTable, 1), 2, 0, resp));
  ib::CongestionControlTable got;
  ib::get_attribute(resp, got);
  REQUIRE(got == t);
  // Block 4 is beyond the 4 blocks: invalid attribute value, nothing set.
  REQUIRE(agent.process(cc_set(t, 4), 2, 0, resp));
  REQUIRE(wire_status(resp) == (7u << 2));
  // TimeStamp counts 1.024 us: 10.24 us is 10.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrTimeStamp, 0), 1, 10'240'000, resp));
  REQUIRE((wire(resp)[64] << 24 | wire(resp)[65] << 16 | wire(resp)[66] << 8 | wire(resp)[67]) == 10);
}

TEST_CASE("a switch's CC agent applies only the Control_Map parts of SwitchCongestionSetting and sets port blocks", "[mgmt][cc]") {
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(4), 1, pool);
  mgmt::CcAgent agent(s);
  ib::CcMad resp;
  ib::SwitchCongestionSetting set;
  set.control_map = ib::kSwCcMapThreshold;  // bit 2: Threshold and Packet_Size only
  set.threshold = 9;
  set.packet_size = 4;
  set.marking_rate = 77;                     // not in the map: ignored
  set.victim_mask.set(2);                    // not in the map: ignored
  REQUIRE(agent.process(cc_set(set, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == 0);
  REQUIRE(s.congestion() != nullptr);
  const ib::SwitchCongestionSetting& now = s.congestion()->switch_setting();
  REQUIRE(now.threshold == 9);
  REQUIRE(now.packet_size == 4);
  REQUIRE(now.marking_rate == 0);
  REQUIRE(!now.victim_mask.test(2));
  // The answer: Threshold in bits 7:4 of attribute byte 68 (MAD byte 132), Packet_Size byte 69.
  const auto b = wire(resp);
  REQUIRE(b[132] == 0x90);
  REQUIRE(b[133] == 4);
  REQUIRE((b[138] << 8 | b[139]) == 0);  // Marking_Rate as set: 0

  // SwitchPortCongestionSetting block 0: element i = port i; only Valid elements apply.
  ib::SwitchPortCongestionSetting ports;
  ports.ports[3] = {true, false, 12, 2, 5};
  ports.ports[2] = {false, false, 15, 0, 0};
  REQUIRE(agent.process(cc_set(ports, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == 0);
  REQUIRE(s.congestion()->port_element(3) == ib::SwitchPortCongestionElement{true, false, 12, 2, 5});
  REQUIRE(s.congestion()->port_element(2) == ib::SwitchPortCongestionElement{});
  // Element 3 = attribute bytes 12-15 = MAD bytes 76-79: Valid bit 7, Threshold 3:0.
  REQUIRE(wire(resp)[76] == (0x80 | 12));
  // 4 ports fit block 0; block 1 does not exist.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrSwitchPortCongestionSetting, 1), 1, 0, resp));
  REQUIRE(wire_status(resp) == (7u << 2));
  // A switch has no CA attributes.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCaCongestionSetting, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == (3u << 2));
  // CongestionLog: LogType 1 (switch) at MAD byte 32.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCongestionLog, 0), 1, 0, resp));
  REQUIRE(wire(resp)[32] == 1);
}

TEST_CASE("a CC MAD with the wrong CC_Key gets no answer and counts a violation", "[mgmt][cc]") {
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(2), 1, pool);
  mgmt::CcAgent agent(s);
  ib::CcMad resp;
  ib::CongestionKeyInfo k;
  k.cc_key = 0x1122334455667788ull;
  REQUIRE(agent.process(cc_set(k, 0), 1, 0, resp));  // key 0 at the node: any key passes
  REQUIRE(wire_status(resp) == 0);
  ib::SwitchCongestionSetting set;
  set.control_map = ib::kSwCcMapThreshold;
  set.threshold = 5;
  REQUIRE_FALSE(agent.process(cc_set(set, 0, 0x99), 1, 0, resp));
  REQUIRE_FALSE(agent.process(cc(ib::kMethodGet, ib::kAttrCongestionInfo, 0, 0), 1, 0, resp));
  REQUIRE(agent.stats().key_violations == 2);
  REQUIRE(s.congestion() == nullptr);  // the refused Set changed nothing
  // With the key: answered; CC_KeyViolations (attribute bytes 12-13 = MAD bytes 76-77) is 2.
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrCongestionKeyInfo, 0, k.cc_key), 1, 0, resp));
  const auto b = wire(resp);
  REQUIRE((b[76] << 8 | b[77]) == 2);
  REQUIRE(b[64] == 0x11);  // the CC_Key at attribute byte 0
  REQUIRE(b[71] == 0x88);
  REQUIRE(agent.process(cc_set(set, 0, k.cc_key), 1, 0, resp));
  REQUIRE(s.congestion()->switch_setting().threshold == 5);
}

TEST_CASE("unsupported class version, method and attribute get their MAD status", "[mgmt][cc]") {
  ib::PacketPool pool;
  hca::Hca h("hca", std::vector<link::PortConfig>(1), {1}, pool);
  mgmt::CcAgent agent(h);
  ib::CcMad resp;
  ib::CcMad v1 = cc(ib::kMethodGet, ib::kAttrCongestionInfo, 0);
  v1.hdr.class_version = 1;
  REQUIRE(agent.process(v1, 1, 0, resp));
  REQUIRE(wire_status(resp) == 0x0004);  // UNSUP_CLASS_VER
  REQUIRE(agent.process(cc(0x03, ib::kAttrCongestionInfo, 0), 1, 0, resp));  // Send
  REQUIRE(wire_status(resp) == 0x0008);  // UNSUP_METHOD
  REQUIRE(agent.process(cc(ib::kMethodGet, ib::kAttrSwitchCongestionSetting, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == 0x000C);  // UNSUP_METHOD_ATTR: a CA has none
  REQUIRE(agent.process(cc(ib::kMethodSet, ib::kAttrCongestionInfo, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == 0x000C);  // read-only
  REQUIRE(agent.process(cc(ib::kMethodGet, 0x00FF, 0), 1, 0, resp));
  REQUIRE(wire_status(resp) == 0x000C);  // no such attribute
  REQUIRE(resp.hdr.method == 0x81);
  REQUIRE(agent.stats().errors == 5);
}
