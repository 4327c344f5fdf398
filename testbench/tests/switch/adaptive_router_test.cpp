// Adaptive routing's choices (adaptive_router.hpp), hand-worked.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

#include "models/switch/adaptive_router.hpp"

using hcasim::sw::AdaptiveRouter;
using hcasim::sw::AdaptiveRoutingConfig;
using hcasim::sw::ArChoice;
using hcasim::sw::ArGroupTable;
using hcasim::sw::ArMode;

namespace {

// LIDs 1..4: LID 1 has no group, LIDs 2 and 3 group 1 (ports 3, 5, 7), LID 4 group 2 (port 9).
ArGroupTable three_ports() { return {{0, 0, 1, 1, 2}, {{}, {3, 5, 7}, {9}}}; }

AdaptiveRoutingConfig config_of(ArMode mode, ArChoice choice = ArChoice::LeastQueued) {
  AdaptiveRoutingConfig c;
  c.mode = mode;
  c.choice = choice;
  return c;
}

}  // namespace

TEST_CASE("adaptive router: a packet has a group when its SL is in the mask and its DLID has one") {
  AdaptiveRoutingConfig c = config_of(ArMode::Free);
  c.sl_mask = 0b101;  // SLs 0 and 2
  const AdaptiveRouter ar(c, three_ports(), 0);
  REQUIRE(ar.group(2, 0) == 1);
  REQUIRE(ar.group(4, 2) == 2);
  REQUIRE(ar.group(2, 1) == 0);   // SL 1 left to the LFT
  REQUIRE(ar.group(1, 0) == 0);   // LID 1: no group
  REQUIRE(ar.group(99, 0) == 0);  // beyond the table
}

TEST_CASE("adaptive router: least_queued takes the least loaded port, and idle ports in turn round the group") {
  AdaptiveRouter ar(config_of(ArMode::Free), three_ports(), 0);
  std::map<uint8_t, uint64_t> load{{3, 100}, {5, 0}, {7, 50}};
  const auto by_map = [&](uint8_t p) { return load[p]; };
  REQUIRE(ar.choose(1, 10, 2, 0, by_map) == 5);
  load = {{3, 100}, {5, 80}, {7, 50}};
  REQUIRE(ar.choose(1, 10, 2, 1, by_map) == 7);
  // All idle: the search starts after the last choice (7, then 3, 5, 7, ...).
  const auto idle = [](uint8_t) { return uint64_t{0}; };
  REQUIRE(ar.choose(1, 11, 2, 2, idle) == 3);
  REQUIRE(ar.choose(1, 11, 2, 3, idle) == 5);
  REQUIRE(ar.choose(1, 11, 2, 4, idle) == 7);
  REQUIRE(ar.choose(1, 11, 2, 5, idle) == 3);
  // A tie of loaded ports: the first from the start (after 3: 5, then 7).
  load = {{3, 10}, {5, 10}, {7, 10}};
  REQUIRE(ar.choose(1, 12, 3, 6, by_map) == 5);
  REQUIRE(ar.choose(1, 12, 3, 7, by_map) == 7);
  // A group of one port is that port.
  REQUIRE(ar.choose(2, 12, 4, 8, by_map) == 9);
  REQUIRE(ar.stats().routed == 9);
}

TEST_CASE("adaptive router: free mode counts a flow's change of port as a reroute") {
  AdaptiveRouter ar(config_of(ArMode::Free), three_ports(), 0);
  const auto idle = [](uint8_t) { return uint64_t{0}; };
  // Flow (10, 2) goes 3, 5, 7: two reroutes; flow (11, 2) once: none.
  REQUIRE(ar.choose(1, 10, 2, 0, idle) == 3);
  REQUIRE(ar.choose(1, 10, 2, 1, idle) == 5);
  REQUIRE(ar.choose(1, 11, 2, 2, idle) == 7);
  REQUIRE(ar.choose(1, 10, 2, 3, idle) == 3);
  REQUIRE(ar.stats().reroutes == 2);
  REQUIRE(ar.flows() == 2);
}

TEST_CASE("adaptive router: bounded mode keeps a flow's port until it has been idle longer than the ageing") {
  AdaptiveRoutingConfig c = config_of(ArMode::Bounded);
  c.ageing_ps = 1000;
  AdaptiveRouter ar(c, three_ports(), 0);
  std::map<uint8_t, uint64_t> load{{3, 0}, {5, 10}, {7, 10}};
  const auto by_map = [&](uint8_t p) { return load[p]; };
  REQUIRE(ar.choose(1, 10, 2, 0, by_map) == 3);
  load = {{3, 500}, {5, 0}, {7, 10}};  // port 3 busy now: the burst stays on it
  REQUIRE(ar.choose(1, 10, 2, 1000, by_map) == 3);   // 1,000 ps idle: not more than the ageing
  REQUIRE(ar.choose(1, 10, 2, 2000, by_map) == 3);
  REQUIRE(ar.stats().reroutes == 0);
  REQUIRE(ar.choose(1, 10, 2, 3001, by_map) == 5);   // 1,001 ps idle: chooses again
  REQUIRE(ar.stats().reroutes == 1);
  // Another flow to the same LID chooses for itself.
  REQUIRE(ar.choose(1, 11, 2, 3002, by_map) == 5);
  REQUIRE(ar.stats().routed == 5);
}

TEST_CASE("adaptive router: random spreads uniformly and repeats with the seed") {
  AdaptiveRoutingConfig c = config_of(ArMode::Free, ArChoice::Random);
  c.seed = 7;
  AdaptiveRouter a(c, three_ports(), 3), b(c, three_ports(), 3), other(c, three_ports(), 4);
  const auto idle = [](uint8_t) { return uint64_t{0}; };
  std::map<uint8_t, int> count;
  bool differs = false;
  constexpr int kDraws = 30000;
  for (int i = 0; i < kDraws; ++i) {
    const uint8_t p = a.choose(1, 10, 2, i, idle);
    REQUIRE(p == b.choose(1, 10, 2, i, idle));
    differs = differs || p != other.choose(1, 10, 2, i, idle);
    ++count[p];
  }
  REQUIRE(differs);  // another switch (salt) draws another stream
  REQUIRE(count.size() == 3);
  // Each port 1/3 of the draws: binomial sigma = sqrt(30000 x 2/9) = 82; 5 sigma.
  for (const auto& [port, n] : count) REQUIRE(std::abs(n - kDraws / 3) < 410);
}

TEST_CASE("adaptive router: least_queued_of_k picks the idle port of two unless all k draws miss it") {
  for (const uint32_t k : {1u, 3u}) {
    AdaptiveRoutingConfig c = config_of(ArMode::Free, ArChoice::LeastQueuedOfK);
    c.k = k;
    AdaptiveRouter ar(c, {{0, 0, 1}, {{}, {3, 5}}}, 0);
    const auto load = [](uint8_t p) { return p == 3 ? uint64_t{0} : uint64_t{100}; };
    int idle = 0;
    constexpr int kDraws = 20000;
    for (int i = 0; i < kDraws; ++i) idle += ar.choose(1, 10, 2, i, load) == 3;
    // P(port 5) = (1/2)^k: k = 1, 0.5; k = 3, 0.125 (binomial sigma at most 71; 5 sigma).
    const double miss = k == 1 ? 0.5 : 0.125;
    INFO("k " << k);
    REQUIRE(std::abs((kDraws - idle) - miss * kDraws) < 355);
  }
}

TEST_CASE("adaptive router: refuses k 0, an empty group and a LID naming no group") {
  AdaptiveRoutingConfig c = config_of(ArMode::Free, ArChoice::LeastQueuedOfK);
  c.k = 0;
  REQUIRE_THROWS_AS(AdaptiveRouter(c, three_ports(), 0), std::invalid_argument);
  REQUIRE_THROWS_AS(AdaptiveRouter(config_of(ArMode::Free), {{0, 1}, {{}, {}}}, 0), std::invalid_argument);
  REQUIRE_THROWS_AS(AdaptiveRouter(config_of(ArMode::Free), {{0, 3}, {{}, {1}}}, 0), std::invalid_argument);
  ArGroupTable too_many;
  too_many.ports.assign(hcasim::sw::kArGroupCap + 1, {1});
  too_many.ports[0].clear();
  REQUIRE_THROWS_AS(AdaptiveRouter(config_of(ArMode::Free), too_many, 0), std::invalid_argument);
}

TEST_CASE("adaptive router in band: off until its settings say otherwise, then the groups the SM wrote") {
  AdaptiveRouter ar(config_of(ArMode::Off), {}, 0);
  const auto idle = [](uint8_t) { return uint64_t{0}; };
  // Groups first: group 3 = ports 2 and 4; LIDs 32..63 name it except LID 40 (none) and LID 41 (group 5, no port).
  ar.set_group(3, {2, 4});
  std::array<uint16_t, 32> block{};
  block.fill(3);
  block[8] = 0;
  block[9] = 5;
  ar.set_lid_groups(32, block.data(), 32);
  REQUIRE(ar.group(33, 0) == 0);  // mode off: the LFT routes every packet
  AdaptiveRoutingConfig on = config_of(ArMode::Free);
  on.sl_mask = 0x0002;  // SL 1 only
  ar.set_settings(on);
  CHECK(ar.group(33, 1) == 3);
  CHECK(ar.group(33, 0) == 0);   // SL 0 not in the mask
  CHECK(ar.group(31, 1) == 0);   // below the block
  CHECK(ar.group(40, 1) == 0);   // group 0
  CHECK(ar.group(41, 1) == 0);   // a group with no port yet
  CHECK(ar.group(64, 1) == 0);   // beyond the table
  CHECK(ar.choose(3, 1, 33, 0, idle) == 2);
  CHECK(ar.choose(3, 1, 33, 1, idle) == 4);  // the rotating start
  ar.set_group(5, {7});
  CHECK(ar.group(41, 1) == 5);
  CHECK(ar.choose(5, 1, 41, 2, idle) == 7);
  // Off again: nothing adaptive, the groups kept.
  ar.set_settings(config_of(ArMode::Off));
  CHECK(ar.group(33, 1) == 0);
  CHECK(ar.groups().ports[3] == std::vector<uint8_t>{2, 4});
  REQUIRE_THROWS_AS(ar.set_group(hcasim::sw::kArGroupCap, {1}), std::invalid_argument);
  block[0] = hcasim::sw::kArGroupCap;
  REQUIRE_THROWS_AS(ar.set_lid_groups(0, block.data(), 32), std::invalid_argument);
  AdaptiveRoutingConfig k0 = config_of(ArMode::Free, ArChoice::LeastQueuedOfK);
  k0.k = 0;
  REQUIRE_THROWS_AS(ar.set_settings(k0), std::invalid_argument);
}
