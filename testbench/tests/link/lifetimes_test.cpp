// Lifetime arithmetic of iba-facts 4 "Lifetimes": HOQ and switch lifetimes, and
// the VL stall after VLStallCount consecutive HOQ discards.
#include <catch2/catch.hpp>

#include "models/link/lifetimes.hpp"

using namespace hcasim::link;

TEST_CASE("lifetimes of 0 disable the mechanism") {
  Lifetimes off;
  REQUIRE_FALSE(off.enabled());
  REQUIRE(off.deadline(100, 50) == UINT64_MAX);
}

TEST_CASE("the head expires at the earlier of head time + HOQLife and arrival + switch lifetime") {
  Lifetimes l{1000, 5000, 0};
  REQUIRE(l.enabled());
  // Arrived at 0, head since 2000: HOQ at 3000 comes before switch life at 5000.
  REQUIRE(l.deadline(2000, 0) == 3000);
  REQUIRE(l.hoq_expired_first(2000, 0));
  // Arrived at 0, head since 4500: switch life at 5000 comes first.
  REQUIRE(l.deadline(4500, 0) == 5000);
  REQUIRE_FALSE(l.hoq_expired_first(4500, 0));
  Lifetimes hoq_only{1000, 0, 0};
  REQUIRE(hoq_only.deadline(7, 0) == 1007);
  Lifetimes switch_only{0, 1000, 0};
  REQUIRE(switch_only.deadline(7, 3) == 1003);
  REQUIRE_FALSE(switch_only.hoq_expired_first(7, 3));
}

TEST_CASE("VLStallCount consecutive HOQ discards stall the VL for 8 x HOQLife") {
  Lifetimes l{1000, 0, 3};
  VlStall s;
  REQUIRE_FALSE(s.on_hoq_discard(l, 10));
  REQUIRE_FALSE(s.on_hoq_discard(l, 20));
  REQUIRE(s.on_hoq_discard(l, 30));
  REQUIRE(s.stalled(30));
  REQUIRE(s.stalled(30 + 8 * 1000 - 1));
  REQUIRE_FALSE(s.stalled(30 + 8 * 1000));
  REQUIRE(s.consecutive() == 0);
}

TEST_CASE("a packet sent between HOQ discards resets the count") {
  Lifetimes l{1000, 0, 2};
  VlStall s;
  REQUIRE_FALSE(s.on_hoq_discard(l, 10));
  s.on_sent();
  REQUIRE_FALSE(s.on_hoq_discard(l, 20));
  REQUIRE_FALSE(s.stalled(21));
  REQUIRE(s.on_hoq_discard(l, 30));
}

TEST_CASE("a VLStallCount of 0 never stalls") {
  Lifetimes l{1000, 0, 0};
  VlStall s;
  for (int i = 0; i < 100; ++i) REQUIRE_FALSE(s.on_hoq_discard(l, static_cast<uint64_t>(i)));
  REQUIRE_FALSE(s.stalled(100));
}
