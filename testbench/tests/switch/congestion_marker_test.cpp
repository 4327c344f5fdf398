// The switch's marking across ports and VLs (congestion_marker.hpp) against
// values worked out by hand: threshold 8 of a 16384-byte buffer is congested
// from 8192 bytes; Marking_Rate 1 marks every second eligible packet; time
// congested runs from the sample that found the VL congested to the one that
// found it not.
#include <catch2/catch.hpp>

#include "models/switch/congestion_marker.hpp"

using namespace hcasim;

TEST_CASE("CongestionMarker: marks, counts and times congestion per port and VL", "[switch][cc]") {
  sw::CongestionMarker m(2);
  ib::SwitchCongestionSetting s;
  s.control_map = ib::kSwCcMapThreshold | ib::kSwCcMapMarkingRate;
  s.threshold = 8;
  s.marking_rate = 1;
  m.set_switch(s);
  CHECK(m.settings(1).threshold == 8);
  CHECK(m.settings(2).marking_rate == 1);

  CHECK_FALSE(m.judge(1, 0, {4096, 16384, true}, 2048, 0));    // 4096 < 8192: calm
  CHECK_FALSE(m.judge(1, 0, {8192, 16384, true}, 2048, 100));  // congested from 100; 1st eligible unmarked
  CHECK(m.judge(1, 0, {12288, 16384, true}, 2048, 200));       // 2nd eligible: marked
  CHECK_FALSE(m.judge(1, 0, {12288, 16384, false}, 2048, 300)); // a victim (no credit), no Victim_Mask bit
  m.update(1, 0, 0, 16384, 1100);                              // drained at 1100
  const sw::CcVlStats a = m.stats(1, 0, 5000);
  CHECK(a.marked == 1);
  CHECK(a.congested_ps == 1000);

  // Another port and VL are apart; an open interval counts up to the time asked.
  m.update(2, 1, 16384, 16384, 0);
  CHECK(m.stats(2, 1, 500).congested_ps == 500);
  CHECK(m.stats(2, 0, 500).congested_ps == 0);
  CHECK(m.stats(1, 1, 500).marked == 0);

  // A valid per-port element overrides the switch-wide threshold.
  ib::SwitchPortCongestionElement e;
  e.valid = true;
  e.threshold = 15;
  m.set_port(2, e);
  CHECK(m.settings(2).threshold == 15);
  CHECK(m.settings(1).threshold == 8);
  CHECK(m.judge(2, 3, {1024, 16384, true}, 64, 600));  // 1024 = 16384/16: congested at 15; rate 0 marks each
}
