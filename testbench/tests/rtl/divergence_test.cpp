// A deliberately wrong arbiter RTL (weight counted off by one:
// HCASIM_RTL_BUG_WEIGHT) in a port under rtl+check: the run stops at the first
// grant where it and the C++ arbiter differ, and the failure names that grant
// with its time, its inputs and both answers.
#include <catch2/catch.hpp>

#include "testbench/tests/rtl/rtl_fixture.hpp"
#include "testbench/tests/rtl/rtl_variants.hpp"
#include "testbench/tests/scenarios/b2b_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
// Weights 1:3 and one-block packets on two saturated VLs, the variant in every port.
std::unique_ptr<Simulation> weights_1_3_with_the_variant(link::Implementation mode, uint64_t duration_ps) {
  link::PortConfig pc;
  pc.data_vls = 4;
  pc.vlarb.low = {{0, 1}, {1, 3}};
  pc.vl_arbiter = mode;
  RunOptions o;
  o.duration_ps = duration_ps;
  o.rtl_blocks.arbiter = weight_bug_vl_arbiter();
  return std::make_unique<Simulation>(config::back_to_back(pc, pc, link::LinkConfig{}),
                                      std::vector<workloads::FlowSpec>{flow(0, 28, 0), flow(1, 28, 0)}, o);
}
}  // namespace

TEST_CASE("rtl+check stops a run at the first grant of the weight-off-by-one arbiter and names it") {
  // VL0 sends one packet per turn, then VL1 (C++ arbiter, seed 004 weights).
  // The variant grants VL0 a second time.
  auto run = weights_1_3_with_the_variant(link::Implementation::RtlCheck, 200'000'000);
  Simulation& sim = *run;
  GrantRecorder sent(*sim.fabric().ports()[0]);
  sim.run();
  REQUIRE_FALSE(sim.rtl_failures().empty());
  const std::string& m = sim.rtl_failures()[0];
  INFO(m);
  CHECK_THAT(m, StartsWith("rtl+check: hca0.p1 VL arbiter diverged at grant "));
  CHECK_THAT(m, Contains("requests VL0 1 block, VL1 1 block; C++ grants VL1, RTL grants VL0"));
  // It stopped there: one packet on each VL (the second with the C++ grant),
  // long before the end of the run.
  const auto& vl = sim.fabric().ports()[0]->stats().vl;
  REQUIRE(vl[0].tx_packets == 1);
  REQUIRE(vl[1].tx_packets == 1);
  REQUIRE(sim.sim_time_ps() < 1'000'000);
  std::vector<uint8_t> data;
  for (uint8_t g : sent.grants)
    if (g != link::kGrantFlowControl) data.push_back(g);
  REQUIRE(data == std::vector<uint8_t>{0, 1});
  // The run's checks failed, with the divergence among them.
  const nlohmann::json stats = stats_without_wall(sim);
  REQUIRE_FALSE(stats["checker"]["ok"].get<bool>());
  REQUIRE(stats["checker"]["first_violations"].back().get<std::string>() == sim.rtl_failures().back());
}

TEST_CASE("the weight-off-by-one arbiter without the check runs to the end with the wrong shares") {
  // What rtl+check is for: in plain rtl mode the variant keeps the pin
  // contract, so the run passes, with VL0 sending two blocks per turn of 1.
  auto run = weights_1_3_with_the_variant(link::Implementation::Rtl, 20'000'000);
  Simulation& sim = *run;
  sim.run();
  REQUIRE(sim.rtl_failures().empty());
  const auto& vl = sim.fabric().ports()[0]->stats().vl;
  // 2 : 4 blocks per round instead of 1 : 3 (VL1's weight 3 also lets 4 go).
  CHECK(static_cast<double>(vl[0].tx_packets) / static_cast<double>(vl[1].tx_packets) == Approx(0.5).epsilon(0.02));
}
