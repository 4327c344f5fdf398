// The Congestion Control attributes against bytes worked out by hand from the
// layouts in cc_attributes.hpp (OpenSM ib_types.h ib_cong_* / ib_sw_* /
// ib_ca_* / ib_cc_tbl_*, rdma-core libibmad fields.c IB_CC_*, ibis CC_*), and
// round trips. Each expected byte says which field put it there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

#include "models/ib/cc_attributes.hpp"

using namespace hcasim::ib;

namespace {

template <class A>
std::array<uint8_t, A::kBytes> encoded(const A& a) {
  std::array<uint8_t, A::kBytes> b;
  b.fill(0xEE);  // encode must write every byte
  a.encode(b.data());
  return b;
}

template <class A>
A decoded(const std::array<uint8_t, A::kBytes>& b) {
  A a;
  a.decode(b.data());
  return a;
}

}  // namespace

TEST_CASE("CongestionInfo: CongestionInfo 0-1, ControlTableCap 2", "[ib][cc]") {
  CongestionInfo i;
  i.congestion_info = kCongestionInfoCreditStarvation;
  i.control_table_cap = 2;
  const auto b = encoded(i);
  const std::array<uint8_t, 4> want{0x00, 0x01, 0x02, 0x00};  // bit 0 = credit starvation; 2 blocks; reserved
  CHECK(b == want);
  CHECK(decoded<CongestionInfo>(b) == i);
}

TEST_CASE("CongestionKeyInfo: CC_Key 0-7, ProtectBit 8.7, LeasePeriod 10-11, Violations 12-13", "[ib][cc]") {
  CongestionKeyInfo k;
  k.cc_key = 0x1122334455667788ull;
  k.protect = true;
  k.lease_period = 0x0A0B;
  k.violations = 0x0C0D;
  const auto b = encoded(k);
  const std::array<uint8_t, 16> want{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,  // CC_Key
                                     0x80, 0x00,                                      // protect bit = MSB of byte 8
                                     0x0A, 0x0B, 0x0C, 0x0D, 0x00, 0x00};
  CHECK(b == want);
  CHECK(decoded<CongestionKeyInfo>(b) == k);
}

TEST_CASE("CongestionLog (switch): header 0-39, 15 events of 12 bytes from 40", "[ib][cc]") {
  CongestionLogSwitch l;
  l.congestion_flags = 0x01;
  l.event_counter = 0x0203;
  l.current_timestamp = 0x04050607;
  l.port_map.set(1);    // byte 31 - 0 = 31 of the map, bit 1 -> attribute byte 8 + 31 = 39: 0x02
  l.port_map.set(9);    // byte 31 - 1 = 30, bit 1 -> attribute byte 38: 0x02
  l.port_map.set(254);  // byte 31 - 31 = 0, bit 6 -> attribute byte 8: 0x40
  l.events[0] = {0x0011, 0x0022, 5, 0x01020304};
  l.events[14] = {0xABCD, 0x0001, 15, 0xFFFFFFFF};
  const auto b = encoded(l);
  std::array<uint8_t, 220> want{};
  want[0] = 0x01;                                  // LogType 1: switch
  want[1] = 0x01;                                  // CongestionFlags
  want[2] = 0x02, want[3] = 0x03;                  // LogEventsCounter
  want[4] = 0x04, want[5] = 0x05, want[6] = 0x06, want[7] = 0x07;  // CurrentTimeStamp
  want[8] = 0x40, want[38] = 0x02, want[39] = 0x02;                // PortMap
  const std::array<uint8_t, 12> e0{0x00, 0x11, 0x00, 0x22, 0x50, 0, 0, 0, 0x01, 0x02, 0x03, 0x04};
  std::copy(e0.begin(), e0.end(), want.begin() + 40);  // SLID, DLID, SL in 7:4 of byte 4, Timestamp 8-11
  const std::array<uint8_t, 12> e14{0xAB, 0xCD, 0x00, 0x01, 0xF0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF};
  std::copy(e14.begin(), e14.end(), want.begin() + 40 + 14 * 12);  // bytes 208-219
  CHECK(b == want);
  CHECK(congestion_log_type(b.data()) == kCongestionLogTypeSwitch);
  CHECK(decoded<CongestionLogSwitch>(b) == l);
  CHECK(l.port_map.test(254));
  CHECK_FALSE(l.port_map.test(2));
}

TEST_CASE("CongestionLog (CA): header 0-11, 13 events of 16 bytes from 12", "[ib][cc]") {
  CongestionLogCa l;
  l.event_counter = 0x0001;
  l.event_map = 1u << 3;  // SL 3
  l.current_timestamp = 0x0A0B0C0D;
  l.events[0] = {0x123456, 0x654321, 7, 3, 0x0042, 0xDEADBEEF};
  l.events[12] = {0x000001, 0, 0, 0, 0, 0x00000010};
  const auto b = encoded(l);
  std::array<uint8_t, 220> want{};
  want[0] = 0x02;                                  // LogType 2: CA
  want[2] = 0x00, want[3] = 0x01;                  // ThresholdEventCounter
  want[4] = 0x00, want[5] = 0x08;                  // ThresholdCongestionEventMap: SL 3; 6-7 reserved
  want[8] = 0x0A, want[9] = 0x0B, want[10] = 0x0C, want[11] = 0x0D;  // CurrentTimeStamp
  const std::array<uint8_t, 16> e0{0x12, 0x34, 0x56, 0x00,   // Local QP, reserved
                                   0x65, 0x43, 0x21, 0x73,   // Remote QP, SL 7 | Service Type 3 (UD)
                                   0x00, 0x42, 0x00, 0x00,   // Remote LID, reserved
                                   0xDE, 0xAD, 0xBE, 0xEF};  // Timestamp
  std::copy(e0.begin(), e0.end(), want.begin() + 12);
  want[12 + 12 * 16 + 2] = 0x01;   // last event (bytes 204-219): Local QP 1
  want[12 + 12 * 16 + 15] = 0x10;  // its Timestamp
  CHECK(b == want);
  CHECK(congestion_log_type(b.data()) == kCongestionLogTypeCa);
  CHECK(decoded<CongestionLogCa>(b) == l);
}

TEST_CASE("SwitchCongestionSetting: Control_Map, masks, Threshold 68, Packet_Size 69, ... Marking_Rate 74", "[ib][cc]") {
  SwitchCongestionSetting s;
  s.control_map = kSwCcMapVictimMask | kSwCcMapCreditMask | kSwCcMapThreshold | kSwCcMapCreditStarvation |
                  kSwCcMapMarkingRate;  // 0x1F
  s.victim_mask.set(1);
  s.victim_mask.set(2);
  s.credit_mask.set(0);
  s.threshold = 0xF;
  s.packet_size = 4;
  s.cs_threshold = 3;
  s.cs_return_delay = {2, 0x0155};
  s.marking_rate = 10;
  const auto b = encoded(s);
  std::array<uint8_t, 76> want{};
  want[3] = 0x1F;          // Control_Map 0x0000001F
  want[4 + 31] = 0x06;     // Victim_Mask: ports 1 and 2 are bits 1 and 2 of its last byte
  want[36 + 31] = 0x01;    // Credit_Mask: port 0
  want[68] = 0xF0;         // Threshold 15 in bits 7:4
  want[69] = 0x04;         // Packet_Size 4 credits (256 bytes)
  want[70] = 0x30;         // CS_Threshold 3 in bits 7:4; byte 71 reserved
  want[72] = 0x81;         // CS_ReturnDelay: shift 2 -> 0x8000, multiplier 0x0155 -> 0x8155
  want[73] = 0x55;
  want[74] = 0x00;         // Marking_Rate 10
  want[75] = 0x0A;
  CHECK(b == want);
  CHECK(decoded<SwitchCongestionSetting>(b) == s);
}

TEST_CASE("SwitchPortCongestionSetting: 32 elements {Valid|Type|Threshold, Packet_Size, Marking_Rate}", "[ib][cc]") {
  SwitchPortCongestionSetting p;
  p.ports[0] = {true, false, 8, 2, 0x0102};
  p.ports[1] = {true, true, 0xF, 0, 0};
  p.ports[31] = {false, false, 1, 0xFF, 0xFFFF};
  const auto b = encoded(p);
  std::array<uint8_t, 128> want{};
  want[0] = 0x88, want[1] = 0x02, want[2] = 0x01, want[3] = 0x02;        // Valid, CC, threshold 8; size 2; rate 0x0102
  want[4] = 0xCF;                                                        // Valid, credit starvation, threshold 15
  want[124] = 0x01, want[125] = 0xFF, want[126] = 0xFF, want[127] = 0xFF;  // not Valid, threshold 1
  CHECK(b == want);
  CHECK(decoded<SwitchPortCongestionSetting>(b) == p);
}

TEST_CASE("CACongestionSetting: Port_Control 0-1, Control_Map 2-3, 16 entries of 8 bytes from 4", "[ib][cc]") {
  CaCongestionSetting c;
  c.port_control = kCaPortControlPerSl;
  c.control_map = 0x8001;  // SLs 15 and 0
  c.entries[0] = {0x0123, 2, 5, 1};
  c.entries[15] = {0xFFFF, 0xFF, 0, 0x7F};
  const auto b = encoded(c);
  std::array<uint8_t, 132> want{};
  want[1] = 0x01;                                      // Port_Control: per SL
  want[2] = 0x80, want[3] = 0x01;                      // Control_Map
  const std::array<uint8_t, 8> e0{0x01, 0x23, 0x02, 0x05, 0x01, 0, 0, 0};  // Timer, Increase, Trigger, Min
  std::copy(e0.begin(), e0.end(), want.begin() + 4);
  const std::array<uint8_t, 8> e15{0xFF, 0xFF, 0xFF, 0x00, 0x7F, 0, 0, 0};
  std::copy(e15.begin(), e15.end(), want.begin() + 4 + 15 * 8);  // bytes 124-131
  CHECK(b == want);
  CHECK(decoded<CaCongestionSetting>(b) == c);
}

TEST_CASE("CongestionControlTable: CCTI_Limit 0-1, 64 entries {shift 15:14, multiplier 13:0} from 4", "[ib][cc]") {
  CongestionControlTable t;
  t.ccti_limit = 127;
  t.entries[1] = {1, 0x3FFF};
  t.entries[63] = {3, 1};
  const auto b = encoded(t);
  std::array<uint8_t, 132> want{};
  want[1] = 0x7F;                   // CCTI_Limit 127; bytes 2-3 reserved; entry 0 = 0
  want[6] = 0x7F, want[7] = 0xFF;   // entry 1: 0x4000 | 0x3FFF
  want[130] = 0xC0, want[131] = 0x01;  // entry 63 (bytes 130-131): 0xC000 | 1
  CHECK(b == want);
  CHECK(decoded<CongestionControlTable>(b) == t);

  // Fields wider than their wire field are truncated to it.
  CHECK(CctEntry{7, 0xFFFF}.word() == 0xFFFF);
  CHECK(CctEntry::from_word(0x8155) == CctEntry{2, 0x0155});
}

TEST_CASE("TimeStamp: one 32-bit count", "[ib][cc]") {
  TimeStamp t;
  t.value = 0x01020304;
  const auto b = encoded(t);
  const std::array<uint8_t, 4> want{0x01, 0x02, 0x03, 0x04};
  CHECK(b == want);
  CHECK(decoded<TimeStamp>(b) == t);
}
