// The CA's CCTI arithmetic and CCT injection delay (cc_injection.hpp) against
// values worked out by hand from its rules: a BECN adds CCTI_Increase up to
// CCTI_Limit, a timer expiry subtracts 1 down to CCTI_Min, the timer counts
// 1.024 us, and entry {shift, multiplier} delays T * multiplier / 2^shift
// after a packet of transmission time T.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/ib/cc_injection.hpp"

using namespace hcasim::ib;

TEST_CASE("CCTI: BECNs raise by CCTI_Increase to CCTI_Limit, timer expiries lower by 1 to CCTI_Min", "[ib][cc]") {
  CHECK(ccti_after_becn(0, 4, 127, 0) == 4);
  CHECK(ccti_after_becn(125, 4, 127, 0) == 127);  // 129 capped at the limit
  CHECK(ccti_after_becn(127, 4, 127, 0) == 127);
  CHECK(ccti_after_timer(5, 127, 0) == 4);
  CHECK(ccti_after_timer(0, 127, 0) == 0);
  CHECK(ccti_after_timer(3, 127, 3) == 3);        // not below CCTI_Min

  // Increase 5, limit 12, min 9, from 0: BECN BECN BECN, then four expiries.
  uint16_t ccti = 0;
  std::vector<uint16_t> seen;
  for (int i = 0; i < 3; ++i) seen.push_back(ccti = ccti_after_becn(ccti, 5, 12, 9));
  for (int i = 0; i < 4; ++i) seen.push_back(ccti = ccti_after_timer(ccti, 12, 9));
  // 0+5 = 5 is below the minimum 9 -> 9; 9+5 = 14 -> 12; 12; then 11, 10, 9, 9.
  CHECK(seen == std::vector<uint16_t>{9, 12, 12, 11, 10, 9, 9});

  // A minimum above the limit: the limit wins.
  CHECK(ccti_after_becn(0, 1, 10, 50) == 10);
  CHECK(ccti_after_timer(10, 10, 50) == 10);
}

TEST_CASE("CCTI timer: CCTI_Timer counts 1.024 us, and 0 never expires", "[ib][cc]") {
  CHECK(ccti_timer_period_ps(1) == 1'024'000);
  CHECK(ccti_timer_period_ps(100) == 102'400'000);  // 102.4 us
  CHECK(ccti_timer_period_ps(0xFFFF) == 67'107'840'000ull);  // 65535 * 1.024 us = 67.1 ms
  CHECK(ccti_timer_period_ps(0) == 0);
}

TEST_CASE("Trigger_Threshold: an event when the CCTI becomes equal to it", "[ib][cc]") {
  CHECK(ccti_reaches_trigger(4, 5, 5));
  CHECK(ccti_reaches_trigger(6, 5, 5));      // reached on the way down
  CHECK_FALSE(ccti_reaches_trigger(5, 5, 5));  // already there: no new event
  CHECK_FALSE(ccti_reaches_trigger(3, 4, 5));
}

TEST_CASE("CCT entry delay: T * multiplier / 2^shift", "[ib][cc]") {
  CHECK(cct_injection_delay_ps({0, 0}, 1000) == 0);
  CHECK(cct_injection_delay_ps({0, 3}, 1000) == 3000);
  CHECK(cct_injection_delay_ps({1, 3}, 1000) == 1500);
  CHECK(cct_injection_delay_ps({3, 10}, 1000) == 1250);
  CHECK(cct_injection_delay_ps({2, 16383}, 1000) == 4'095'750);  // 1000 * 16383 / 4
  // A 2048-byte payload packet with 30 bytes of headers and CRCs (2078 bytes)
  // at 25 Gb/s takes 2078 * 8 / 25e9 s = 664.96 ns; entry {1, 3} delays it
  // 664960 * 3 / 2 = 997440 ps.
  CHECK(cct_injection_delay_ps({1, 3}, 664'960) == 997'440);
}

TEST_CASE("CongestionControlTableState: blocks of 64 from CongestionControlTable Sets", "[ib][cc]") {
  CongestionControlTableState cct(2);  // ControlTableCap 2: CCTIs 0-127
  CongestionControlTable b0;
  b0.ccti_limit = 70;
  b0.entries[1] = {0, 5};
  CongestionControlTable b1;
  b1.ccti_limit = 70;
  b1.entries[6] = {2, 40};  // CCTI 64 + 6 = 70
  REQUIRE(cct.set_block(0, b0));
  REQUIRE(cct.set_block(1, b1));
  CHECK_FALSE(cct.set_block(2, b1));  // beyond the capacity
  CHECK(cct.ccti_limit() == 70);
  CHECK(cct.entry(1) == CctEntry{0, 5});
  CHECK(cct.entry(70) == CctEntry{2, 40});
  CHECK(cct.entry(500) == CctEntry{});
  CHECK(cct.get_block(1) == b1);
}

TEST_CASE("CACongestionSetting Set: the SLs its Control_Map names, and Port_Control", "[ib][cc]") {
  CaCongestionSetting cur;
  cur.entries[3] = {10, 1, 0, 0};
  cur.entries[4] = {20, 2, 0, 0};
  CaCongestionSetting set;
  set.port_control = kCaPortControlPerSl;
  set.control_map = 1u << 3;
  set.entries[3] = {150, 8, 60, 2};
  set.entries[4] = {999, 9, 9, 9};
  apply_ca_setting(set, cur);
  CHECK(cur.entries[3] == CaCongestionEntry{150, 8, 60, 2});
  CHECK(cur.entries[4] == CaCongestionEntry{20, 2, 0, 0});  // SL 4 not in the map
  CHECK(cur.port_control == kCaPortControlPerSl);
}
