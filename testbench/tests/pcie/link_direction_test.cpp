// One link direction's bookings against hand-computed times (1 ps per byte,
// so a TLP of n wire bytes takes n ps): back-to-back TLPs, a TLP ready
// earlier than one booked before it taking the gap in front of it, posted
// writes keeping their order, and retire forgetting what has ended.
#include <catch2/catch.hpp>

#include "models/pcie/link_direction.hpp"

using hcasim::pcie::LinkDirection;

namespace {
constexpr bool kPosted = true;
constexpr bool kNonPosted = false;
}  // namespace

TEST_CASE("TLPs ready together go out back to back, each after the one before") {
  LinkDirection d(1.0);
  CHECK(d.send(0, 100, kNonPosted) == 100);
  CHECK(d.send(0, 100, kNonPosted) == 200);
  CHECK(d.send(50, 24, kPosted) == 224);
  CHECK(d.busy_until_ps() == 224);
  CHECK(d.busy_ps() == 224);
  CHECK(d.bookings() == 1);  // one merged interval [0, 224)
}

TEST_CASE("a TLP ready before one booked for later takes the free gap in front of it") {
  LinkDirection d(1.0);
  CHECK(d.send(1000, 100, kNonPosted) == 1100);  // booked for a later time: [1000, 1100)
  CHECK(d.send(0, 100, kNonPosted) == 100);      // ready now: not behind it
  CHECK(d.send(0, 850, kNonPosted) == 950);      // [100, 950) still fits before 1000
  CHECK(d.send(0, 100, kNonPosted) == 1200);     // 50 ps left before 1000: goes after [1000, 1100)
  CHECK(d.send(950, 50, kNonPosted) == 1000);    // exactly fills [950, 1000)
  CHECK(d.bookings() == 1);                      // all of it is now [0, 1200)
  CHECK(d.busy_until_ps() == 1200);
  CHECK(d.busy_ps() == 1200);
}

TEST_CASE("a TLP longer than every gap goes after the last booking that blocks it") {
  LinkDirection d(1.0);
  d.send(100, 10, kNonPosted);  // [100, 110)
  d.send(200, 10, kNonPosted);  // [200, 210)
  d.send(300, 10, kNonPosted);  // [300, 310)
  CHECK(d.bookings() == 3);
  CHECK(d.send(95, 150, kNonPosted) == 460);  // gaps of 90 ps: none fits; starts at 310
  CHECK(d.send(0, 90, kNonPosted) == 90);     // [0, 90): before the first booking
  CHECK(d.send(110, 90, kNonPosted) == 200);  // exactly [110, 200): joins both neighbours
  CHECK(d.bookings() == 3);                   // [0, 90), [100, 210), [300, 460)
}

TEST_CASE("posted writes keep the order they were booked in, and reads may pass them") {
  LinkDirection d(1.0);
  CHECK(d.send(1000, 64, kPosted) == 1064);  // a CQE write waiting for its CQ context
  CHECK(d.send(0, 256, kPosted) == 1320);    // a later-booked posted write stays behind it
  CHECK(d.send(0, 24, kNonPosted) == 24);    // a read request does not
}

TEST_CASE("retire forgets the bookings that ended, and new TLPs start where they are ready") {
  LinkDirection d(1.0);
  d.send(0, 100, kNonPosted);
  d.send(500, 100, kNonPosted);
  CHECK(d.bookings() == 2);
  d.retire(100);
  CHECK(d.bookings() == 1);
  d.retire(700);
  CHECK(d.bookings() == 0);
  CHECK(d.send(700, 10, kNonPosted) == 710);
  CHECK(d.busy_ps() == 210);
}
