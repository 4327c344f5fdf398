// The latency split's rules (latency_parts.hpp): ten parts cut at the WR's
// stages, never negative, summing to the latency exactly.
#include <catch2/catch.hpp>

#include <numeric>

#include "testbench/workloads/latency_parts.hpp"

using namespace hcasim::workloads;
using hcasim::transport::WrTimes;

namespace {
uint64_t sum(const std::array<uint64_t, kLatencyParts>& parts) {
  return std::accumulate(parts.begin(), parts.end(), uint64_t{0});
}

// The stages' times in the order of the trip (0: not passed).
WrTimes stages(uint64_t mmio, uint64_t at_hca, uint64_t on_chip, uint64_t built, uint64_t sent, uint64_t at_responder,
               uint64_t response, uint64_t response_in, uint64_t cqe) {
  return {mmio, at_hca, on_chip, built, sent, at_responder, response, response_in, cqe};
}
}  // namespace

TEST_CASE("a WR that passed every stage is cut at each of them, in the order of the trip") {
  const WrTimes t = stages(1100, 1300, 1350, 1400, 1460, 1700, 2300, 2550, 2800);
  const auto parts = split_latency(1000, t, 2810);
  CHECK(parts == std::array<uint64_t, kLatencyParts>{100, 200, 50, 50, 60, 240, 600, 250, 250, 10});
  CHECK(sum(parts) == 1810);
}

TEST_CASE("a stage not passed takes the cut before it: its time goes to the next part") {
  const WrTimes t = stages(1100, 1300, 1300, 1400, 1400, 0, 0, 0, 1700);  // an unreliable QP's send: no answer
  const auto parts = split_latency(1000, t, 1750);
  CHECK(parts == std::array<uint64_t, kLatencyParts>{100, 200, 0, 100, 0, 0, 0, 0, 300, 50});
  CHECK(sum(parts) == 750);
  // Nothing known: the whole latency is the poll's.
  CHECK(split_latency(1000, WrTimes{}, 1750) == std::array<uint64_t, kLatencyParts>{0, 0, 0, 0, 0, 0, 0, 0, 0, 750});
}

TEST_CASE("stages out of order or outside the latency are clamped: no part is negative, the sum is exact") {
  // mmio before the post, on_chip before the cut before it, built after the end.
  const WrTimes t = stages(900, 1500, 1200, 5000, 0, 0, 0, 0, 1600);
  const auto parts = split_latency(1000, t, 2000);
  CHECK(parts == std::array<uint64_t, kLatencyParts>{0, 500, 0, 500, 0, 0, 0, 0, 0, 0});
  CHECK(sum(parts) == 1000);
  // An end before the start: nothing to split.
  CHECK(sum(split_latency(1000, t, 500)) == 0);
}

TEST_CASE("parts summed over operations keep the sum of their latencies") {
  LatencyParts p;
  WrTimes t;
  t.mmio_ps = 1040;
  t.cqe_ps = 2900;
  p.add(1000, t, 3000);
  t.mmio_ps = 5100;
  t.cqe_ps = 5800;
  p.add(5000, t, 6000);
  CHECK(p.samples == 2);
  CHECK(p.total_ps() == 2000 + 1000);
  CHECK(p.sum_ps[0] == 40 + 100);
  CHECK(p.sum_ps[8] == 1860 + 700);
  CHECK(p.sum_ps[9] == 100 + 200);
  CHECK(latency_part_names()[0] == std::string("cpu_post"));
  CHECK(latency_part_names()[kLatencyParts - 1] == std::string("poll"));
}
