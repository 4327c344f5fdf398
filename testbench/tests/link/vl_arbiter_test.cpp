// VL arbitration against the rules of IBA 7.6.9 / seed 004 and the model's
// documented choices (iba-facts "Where the sources are silent").
#include <catch2/catch.hpp>

#include <map>

#include "models/link/vl_arbiter.hpp"

using namespace hcasim::link;

namespace {

// Runs `grants` arbitrations with every listed VL always ready with packets of
// `blocks` blocks; returns blocks granted per VL.
std::map<int, uint64_t> run(VlArbiter& arb, const std::map<int, uint32_t>& ready, int grants) {
  VlCandidates c{};
  for (auto [vl, blocks] : ready) c[vl] = blocks;
  std::map<int, uint64_t> got;
  for (int i = 0; i < grants; ++i) {
    const int vl = arb.grant(c);
    if (vl < 0) break;
    got[vl] += c[vl];
  }
  return got;
}

double share(const std::map<int, uint64_t>& got, int vl) {
  uint64_t total = 0;
  for (auto [v, b] : got) total += b;
  return got.count(vl) ? static_cast<double>(got.at(vl)) / static_cast<double>(total) : 0.0;
}

}  // namespace

TEST_CASE("weights 1:3 with one-block packets give exactly 25/75") {
  VlArbiter arb({{}, {{0, 1}, {1, 3}}, 0, WeightPolicy::Overshoot});
  auto got = run(arb, {{0, 1}, {1, 1}}, 40000);
  REQUIRE(got[0] == 10000);
  REQUIRE(got[1] == 30000);
}

TEST_CASE("weights 64:192 with 4 KiB packets (65 blocks) give one and three packets per round") {
  // 65 blocks >= 64: entry 0 is spent after one packet; entry 1 after three (195 >= 192).
  VlArbiter arb({{}, {{0, 64}, {1, 192}}, 0, WeightPolicy::Overshoot});
  VlCandidates c{};
  c[0] = c[1] = 65;
  std::vector<int> order;
  for (int i = 0; i < 8; ++i) order.push_back(arb.grant(c));
  REQUIRE(order == std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1});
}

TEST_CASE("overshoot is forgotten: weights 1:3 with 65-block packets alternate") {
  VlArbiter arb({{}, {{0, 1}, {1, 3}}, 0, WeightPolicy::Overshoot});
  auto got = run(arb, {{0, 65}, {1, 65}}, 1000);
  REQUIRE(got[0] == got[1]);
}

TEST_CASE("deficit policy carries the overshoot: 1:3 holds for any packet size") {
  VlArbiter arb({{}, {{0, 16}, {1, 48}}, 0, WeightPolicy::Deficit});
  auto got = run(arb, {{0, 65}, {1, 65}}, 40000);
  REQUIRE(share(got, 0) == Approx(0.25).epsilon(0.01));
  REQUIRE(share(got, 1) == Approx(0.75).epsilon(0.01));
}

TEST_CASE("a VL absent from both tables gets nothing - weight 0 entries are skipped") {
  VlArbiter arb({{{2, 0}}, {{0, 4}, {1, 4}, {2, 0}}, 0, WeightPolicy::Overshoot});
  auto got = run(arb, {{0, 1}, {1, 1}, {2, 1}, {3, 1}}, 1000);
  REQUIRE(got.count(2) == 0);
  REQUIRE(got.count(3) == 0);
  REQUIRE(got[0] == 500);
  REQUIRE(got[1] == 500);
}

TEST_CASE("an entry whose VL cannot send is skipped and the turn moves on") {
  VlArbiter arb({{}, {{0, 10}, {1, 10}}, 0, WeightPolicy::Overshoot});
  VlCandidates c{};
  c[1] = 1;  // VL0 has no credit
  for (int i = 0; i < 5; ++i) REQUIRE(arb.grant(c) == 1);
  c[0] = 0;
  c[1] = 0;
  REQUIRE(arb.grant(c) == -1);
  REQUIRE_FALSE(arb.can_grant(c));
}

TEST_CASE("high limit 255 lets a saturated high-priority VL starve low priority") {
  VlArbiter arb({{{0, 255}}, {{1, 255}}, 255, WeightPolicy::Overshoot});
  auto got = run(arb, {{0, 65}, {1, 65}}, 10000);
  REQUIRE(got.count(1) == 0);
}

TEST_CASE("a finite high limit lets one low packet through per limit's worth of high blocks") {
  // Limit L counts L x 4 KiB = L x 64 blocks; packets of 65 blocks: ceil(64 L / 65)
  // high packets go (the last one overshoots), then one low packet.
  for (uint32_t limit : {1u, 4u, 16u, 100u}) {
    VlArbiter arb({{{0, 255}}, {{1, 255}}, limit, WeightPolicy::Overshoot});
    VlCandidates c{};
    c[0] = c[1] = 65;
    const uint32_t high_per_low = (64 * limit + 64) / 65;  // ceil(64 L / 65)
    for (int round = 0; round < 5; ++round) {
      for (uint32_t i = 0; i < high_per_low; ++i) REQUIRE(arb.grant(c) == 0);
      REQUIRE(arb.grant(c) == 1);
    }
  }
}

TEST_CASE("high limit 0 alternates one high packet and one low packet") {
  VlArbiter arb({{{0, 255}}, {{1, 255}}, 0, WeightPolicy::Overshoot});
  VlCandidates c{};
  c[0] = c[1] = 3;
  for (int i = 0; i < 10; ++i) {
    REQUIRE(arb.grant(c) == 0);
    REQUIRE(arb.grant(c) == 1);
  }
}

TEST_CASE("high priority goes on past its limit when low has nothing to send") {
  VlArbiter arb({{{0, 255}}, {{1, 255}}, 0, WeightPolicy::Overshoot});
  VlCandidates c{};
  c[0] = 65;
  for (int i = 0; i < 10; ++i) REQUIRE(arb.grant(c) == 0);
}

TEST_CASE("a VL listed in both tables and several times is served by each entry") {
  VlArbiter arb({{}, {{0, 2}, {1, 1}, {0, 2}}, 0, WeightPolicy::Overshoot});
  auto got = run(arb, {{0, 1}, {1, 1}}, 5000);
  REQUIRE(got[0] == 4000);
  REQUIRE(got[1] == 1000);
}

TEST_CASE("a round with nothing to send ends the current entry's turn") {
  VlArbiter arb({{}, {{0, 2}, {1, 2}}, 0, WeightPolicy::Overshoot});
  const VlCandidates both{1, 1};
  const VlCandidates none{};
  REQUIRE(arb.grant(both) == 0);  // VL0 has used 1 of 2
  REQUIRE(arb.grant(none) == -1); // the turn goes round and comes back fresh
  REQUIRE(arb.grant(both) == 0);
  REQUIRE(arb.grant(both) == 0);
  REQUIRE(arb.grant(both) == 1);
}

TEST_CASE("deficit: a round with nothing to send pays off one weight of a carried overshoot") {
  // VL0 weight 1 sends 3-block packets: each turn overshoots by 2.
  VlArbiter arb({{}, {{0, 1}, {1, 1}}, 0, WeightPolicy::Deficit});
  const VlCandidates both{3, 1};
  const VlCandidates none{};
  REQUIRE(arb.grant(both) == 0);   // overshoot 2 carried
  REQUIRE(arb.grant(both) == 1);
  REQUIRE(arb.grant(none) == -1);  // one idle round pays off 1 of the 2
  REQUIRE(arb.grant(both) == 1);
  REQUIRE(arb.grant(both) == 1);   // VL0's turn pays off the other 1
  REQUIRE(arb.grant(both) == 0);   // (without the idle round VL1 would get three in a row)
}

TEST_CASE("a table of 64 entries is accepted and 65 are refused with the limit") {
  VlArbConfig c;
  c.low.assign(kMaxArbEntries, VlArbEntry{0, 1});  // iba-facts 3: VLArbLowCap <= 64
  VlArbiter full(c);
  VlCandidates one{};
  one[0] = 1;
  REQUIRE(full.grant(one) == 0);
  c.low.push_back(VlArbEntry{0, 1});
  REQUIRE_THROWS_WITH(VlArbiter(c), Catch::Contains("at most 64"));
}

TEST_CASE("entries for VLs the port does not operate are skipped - even with a candidate on that VL") {
  // A ConnectX-2's table of VL0-7 on a 4-VL port (as the SM may program it with
  // VLArbitrationTable SMPs): VL5's entry, weight 100, is skipped like a weight-0
  // entry, so VL0 and VL1 (weight 1 each, one-block packets) alternate exactly.
  const VlArbConfig cx2{{}, {{0, 1}, {5, 100}, {1, 1}, {7, 100}}, 0, WeightPolicy::Overshoot};
  VlArbiter four(cx2, 4);
  auto got = run(four, {{0, 1}, {1, 1}, {5, 1}, {7, 1}}, 20000);
  REQUIRE(got.count(5) == 0);
  REQUIRE(got.count(7) == 0);
  REQUIRE(got[0] == 10000);
  REQUIRE(got[1] == 10000);
  // On an 8-VL port the same table serves VL5 and VL7: 100 blocks each per round of 202.
  VlArbiter eight(cx2, 8);
  got = run(eight, {{0, 1}, {1, 1}, {5, 1}, {7, 1}}, 202 * 100);
  REQUIRE(got[5] == 100 * 100);
  REQUIRE(got[7] == 100 * 100);
  REQUIRE(got[0] == 100);
  // Nothing but skipped entries: nothing is granted, and can_grant agrees.
  VlArbiter none({{{6, 10}}, {{4, 10}}, 0, WeightPolicy::Overshoot}, 4);
  VlCandidates c{};
  c[4] = c[6] = 1;
  REQUIRE_FALSE(none.can_grant(c));
  REQUIRE(none.grant(c) == -1);
}

TEST_CASE("operational_tables keeps every entry in place and zeroes the weights of VLs not operated") {
  const VlArbConfig c{{{0, 4}, {9, 4}}, {{0, 0}, {1, 4}, {14, 4}, {3, 8}}, 6, WeightPolicy::Deficit};
  const VlArbConfig t = operational_tables(c, 4);
  REQUIRE(t.high.size() == 2);
  REQUIRE(t.low.size() == 4);
  CHECK(t.high[0].weight == 4);
  CHECK(t.high[1].vl == 9);
  CHECK(t.high[1].weight == 0);
  CHECK(t.low[1].weight == 4);
  CHECK(t.low[2].weight == 0);
  CHECK(t.low[3].weight == 8);
  CHECK(t.high_limit == 6);
  CHECK(t.policy == WeightPolicy::Deficit);
  // An entry naming VL15 (a 4-bit VL field written by an SMP) is skipped on any port.
  const VlArbConfig vl15 = operational_tables({{}, {{15, 10}, {0, 1}}, 0, WeightPolicy::Overshoot}, kMaxDataVls);
  CHECK(vl15.low[0].weight == 0);
  CHECK(vl15.low[1].weight == 1);
}
