// The switch's FECN marking decision (cc_marking.hpp) against values worked
// out by hand from its rules: Threshold t congests a VL at (16 - t)/16 of its
// buffer (0 never), Packet_Size in 64-byte credits, Marking_Rate m = m
// unmarked eligible packets between marked ones, victims marked only with the
// port's Victim_Mask bit, and a Set applying only what its Control_Map names.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

#include "models/ib/cc_marking.hpp"

using namespace hcasim::ib;

TEST_CASE("Threshold: sixteenths of the VL buffer, 0 never congests", "[ib][cc]") {
  const uint64_t buf = 16384;
  CHECK(congestion_level_bytes(15, buf) == 1024);   // 16384 * 1/16
  CHECK(congestion_level_bytes(8, buf) == 8192);    // 16384 * 8/16
  CHECK(congestion_level_bytes(1, buf) == 15360);   // 16384 * 15/16
  CHECK(congestion_level_bytes(0, buf) == std::numeric_limits<uint64_t>::max());
  CHECK_FALSE(is_congested(8, 8191, buf));
  CHECK(is_congested(8, 8192, buf));
  CHECK_FALSE(is_congested(0, buf, buf));           // a full buffer does not congest at threshold 0
  CHECK(is_congested(15, 1024, buf));
  CHECK_FALSE(is_congested(15, 1023, buf));
}

TEST_CASE("Packet_Size: packets under Packet_Size * 64 bytes are not eligible", "[ib][cc]") {
  CHECK_FALSE(is_marking_eligible(4, 255));  // 4 credits = 256 bytes
  CHECK(is_marking_eligible(4, 256));
  CHECK(is_marking_eligible(0, 1));          // 0: every packet
  CHECK_FALSE(is_marking_eligible(255, 16319));  // 255 * 64 = 16320
}

TEST_CASE("Marking_Rate m: m unmarked eligible packets between two marked ones", "[ib][cc]") {
  auto pattern = [](uint16_t m, int n) {
    MarkingRateCounter c;
    std::string s;
    for (int i = 0; i < n; ++i) s += c.take(m) ? 'M' : '.';
    return s;
  };
  CHECK(pattern(0, 4) == "MMMM");
  CHECK(pattern(2, 9) == "..M..M..M");
  CHECK(pattern(4, 10) == "....M....M");
}

TEST_CASE("should_mark_fecn: congested root VL, eligible packet, marking rate", "[ib][cc]") {
  PortMarkingSettings s;
  s.threshold = 8;      // congested from 8192 of 16384 bytes
  s.packet_size = 4;    // from 256 bytes
  s.marking_rate = 1;   // every second eligible packet
  VlCongestionState root{8192, 16384, true};
  VlCongestionState calm{8191, 16384, true};
  VlCongestionState victim{16384, 16384, false};
  MarkingRateCounter c;

  CHECK_FALSE(should_mark_fecn(s, calm, 2048, c));    // not congested: counter untouched
  CHECK_FALSE(should_mark_fecn(s, root, 255, c));     // not eligible: counter untouched
  CHECK_FALSE(should_mark_fecn(s, victim, 2048, c));  // a victim, no Victim_Mask bit
  CHECK(c.unmarked_since_last() == 0);
  CHECK_FALSE(should_mark_fecn(s, root, 2048, c));    // 1st eligible: unmarked
  CHECK(should_mark_fecn(s, root, 256, c));           // 2nd: marked
  CHECK_FALSE(should_mark_fecn(s, root, 4096, c));    // 3rd: unmarked

  s.victim_marking = true;  // the port's Victim_Mask bit: victims mark too
  CHECK(should_mark_fecn(s, victim, 2048, c));        // 4th eligible: marked

  s.threshold = 0;  // never
  MarkingRateCounter c0;
  CHECK_FALSE(should_mark_fecn(s, VlCongestionState{16384, 16384, true}, 4096, c0));
}

TEST_CASE("Port settings: a Valid Control_Type 0 element overrides the switch's", "[ib][cc]") {
  SwitchCongestionSetting sw;
  sw.threshold = 3;
  sw.packet_size = 1;
  sw.marking_rate = 7;
  sw.victim_mask.set(5);

  SwitchPortCongestionElement port;  // not Valid: the switch-wide values
  PortMarkingSettings want{3, 1, 7, true};
  CHECK(port_marking_settings(sw, port, 5) == want);
  want.victim_marking = false;
  CHECK(port_marking_settings(sw, port, 6) == want);  // port 6 has no Victim_Mask bit

  port = {true, false, 9, 2, 0};  // Valid, congestion control: its own values
  CHECK(port_marking_settings(sw, port, 5) == PortMarkingSettings{9, 2, 0, true});

  port.credit_starvation = true;  // Valid but credit starvation: not a marking setting
  CHECK(port_marking_settings(sw, port, 5) == PortMarkingSettings{3, 1, 7, true});
}

TEST_CASE("SwitchCongestionSetting Set: only the parts its Control_Map names", "[ib][cc]") {
  SwitchCongestionSetting cur;
  cur.threshold = 2;
  cur.packet_size = 3;
  cur.marking_rate = 4;
  cur.victim_mask.set(1);

  SwitchCongestionSetting set;
  set.control_map = kSwCcMapMarkingRate;
  set.threshold = 15;
  set.packet_size = 9;
  set.marking_rate = 100;
  set.victim_mask.set(7);
  apply_switch_setting(set, cur);
  CHECK(cur.marking_rate == 100);
  CHECK(cur.threshold == 2);
  CHECK(cur.packet_size == 3);
  CHECK(cur.victim_mask.test(1));
  CHECK_FALSE(cur.victim_mask.test(7));

  set.control_map = kSwCcMapThreshold | kSwCcMapVictimMask;
  apply_switch_setting(set, cur);
  CHECK(cur.threshold == 15);
  CHECK(cur.packet_size == 9);
  CHECK(cur.victim_mask == set.victim_mask);
  CHECK(cur.control_map == 0);  // the stored setting's own map is not what a Set carries
}
