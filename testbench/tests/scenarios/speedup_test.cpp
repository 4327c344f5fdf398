// The crossbar's speedup, end to end: an input moves one packet at a time, at
// speedup x the output's data rate, so an input that feeds a slower output is
// busy for longer than its own link takes to bring the next packet in.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// hca0 (HDR) sends two saturated flows on two VLs through one switch: to hca1,
// whose link is EDR (half HDR's rate, so a packet takes 2T there against T on
// HDR), and to hca2 on HDR. The input takes the two VLs in turn; a round moves
// one packet of each in (2T + T) / speedup. So each flow gets min(speedup / 3,
// 1 / 2) packets per T: the crossbar's limit, or the HDR link split in two
// (where the EDR output's own limit, one packet per 2T, is the same).
void check_speedup(double speedup) {
  const nlohmann::json root = {
      {"name", "speedup"},
      {"topology", {{"pattern", "single_switch"}, {"hosts", 3}}},
      {"port", {{"data_vls", 2}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
      {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
      {"link_overrides", {{{"port", "sw0.p2"}, {"speed", "EDR"}}}},
      {"switch", {{"architecture", "cioq"}, {"speedup", speedup}}},
      {"workload",
       {{"flows",
         {{{"name", "to_edr"}, {"src", "hca0.p1"}, {"dst", "hca1.p1"}, {"sl", 0}, {"payload", "4KiB"}, {"rate", "saturate"}},
          {{"name", "to_hdr"}, {"src", "hca0.p1"}, {"dst", "hca2.p1"}, {"sl", 1}, {"payload", "4KiB"}, {"rate", "saturate"}}}}}},
      {"run", {{"duration", "200us"}, {"seed", 1}}}};
  ScenarioRun run = run_scenario(config::load_scenario(root));
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  const double hdr = analytic_bound(run.scenario.link, 4096).data_bps;  // one packet per T
  const double expected = std::min(speedup / 3, 0.5) * hdr;
  for (std::size_t f = 0; f < 2; ++f) {
    const double measured = steady_bps(sim.flow_results()[f], 4096);
    INFO(sim.flows()[f].name << ": " << measured / 1e9 << " Gb/s, expected " << expected / 1e9 << " Gb/s");
    REQUIRE(std::abs(measured - expected) / expected < 0.01);
  }
}

}  // namespace

TEST_CASE("speedup 1: an input feeding an output of half its rate moves a third of its link per VL") {
  check_speedup(1.0);
}

TEST_CASE("speedup 1.25: the crossbar still limits the input, to 1.25 / 3 of its link per VL") {
  check_speedup(1.25);
}

TEST_CASE("speedup 2: the crossbar keeps up, the HDR link splits in two and the EDR output runs full") {
  check_speedup(2.0);
}
