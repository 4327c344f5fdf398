// An RC workload across an SM failover (docs/sm-roles.md): ib_write_bw
// between two hosts of a k = 4 fat tree while the master SM's HCA link fails
// at 1 ms. The standby takes over within its polling window and re-sweeps;
// the transfer completes with every byte checked, the link checker finds
// nothing lost but the announced link-down drops, and stats.json reports both
// SMs' roles.
#include <catch2/catch.hpp>

#include "testbench/cli/management_stats.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

TEST_CASE("SM failover under an RC workload: the standby takes over in time and every byte arrives") {
  const nlohmann::json j = nlohmann::json::parse(R"({
    "name": "sm_failover",
    "topology": {"pattern": "fat_tree", "k": 4, "levels": 2},
    "link": {"speed": "HDR", "width": "4x"},
    "management": {"mode": "in_band", "standby": "hca3.p1", "subnet_timeout": 10,
                   "sminfo_polling_timeout": "100us", "polling_retry_number": 2},
    "link_events": [{"link": "hca0.p1", "down": "1ms"}],
    "workload": {"perftest": [{"test": "write_bw", "client": "hca4.p1", "server": "hca8.p1",
                               "sizes": ["64KiB"], "iterations": 2000}]}
  })");
  ScenarioRun run = run_scenario(config::load_scenario(j));
  const Simulation& sim = *run.sim;
  const checkers::LinkChecker& c = sim.checker();
  INFO((c.ok() ? std::string() : c.messages()[0]));
  REQUIRE(c.ok());
  CHECK(c.announced_losses() == c.link_down_losses());
  REQUIRE(sim.workload_failures().empty());
  const workloads::PerftestResult& r = sim.perftests().at(0)->result();
  REQUIRE(r.failures.empty());
  for (const workloads::PerftestSizeResult& z : r.sizes) CHECK(z.done);
  // The workload spans the failure and the takeover: 2000 x 64 KiB at HDR
  // 4x (200 Gb/s) takes at least 2000 x 65536 x 8 / 200e9 s = 5.2 ms.
  const nlohmann::json m = management_json(sim.fabric());
  REQUIRE(m.contains("sm_roles"));
  CHECK(m["master"] == "hca3");
  const nlohmann::json& second = m["sm_roles"][1];
  CHECK(second["port"] == "hca3.p1");
  CHECK(second["state"] == "master");
  // Takeover in [1 ms + (R+1) T, 1 ms + (R+2) T] = [1.3, 1.4] ms, less at most
  // one poll's round trip (20 us; sm_failover_test.cpp).
  double took_over = 0;
  for (const nlohmann::json& ch : second["changes"])
    if (ch["state"] == "discovering" && ch["time_us"].get<double>() > 1000) took_over = ch["time_us"];
  CHECK(took_over >= 1280);
  CHECK(took_over <= 1400);
  REQUIRE(second["sweeps"].size() >= 1);
  CHECK(second["sweeps"][0]["trigger"] == "takeover");
  CHECK(second["sweeps"][0]["done_us"].get<double>() > took_over);
  CHECK(second["sweeps"][0]["done_us"].get<double>() < r.sizes.at(0).end_ps / 1e6);
}
