// docs/perftest.md "One posting thread bounds small messages": 64 B write_bw
// with the default host runs at one WR per (post + blueflame) CPU time of
// the one posting thread, at any QP count.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

nlohmann::json small_write_bw(unsigned qps, unsigned threads = 1) {
  return {{"name", "cpu_bound"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}}},
          {"workload",
           {{"perftest", nlohmann::json::array({{{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                                 {"sizes", {"64B"}}, {"iterations", 20000 / qps}, {"qps", qps},
                                                 {"threads", threads}}})}}}};
}

}  // namespace

TEST_CASE("64 B write_bw with the default host is bound by its one posting thread: 1 / (post + blueflame) at 1, 4 and 16 QPs") {
  const ScratchDir dir("perftest_cpu_bound");
  constexpr double kPerWrNs = 40 + 200;  // hca.cpu.post + hca.cpu.blueflame defaults (docs/scenario-reference.md)
  for (unsigned qps : {1u, 4u, 16u}) {
    const std::string name = "q" + std::to_string(qps);
    const CommandResult r = run_scenario_json(dir, name, small_write_bw(qps).dump());
    INFO(name << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto s = nlohmann::json::parse(slurp(dir / name / "stats.json"));
    CHECK(s["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>() == Approx(1e3 / kPerWrNs).epsilon(0.01));
    CHECK(s["hosts"]["first"][0]["driver"]["cpu_utilization"].get<double>() > 0.99);
  }
}

TEST_CASE("perftest threads: 2 and 4 posting threads per side multiply the CPU-bound rate, each thread busy") {
  const ScratchDir dir("perftest_threads");
  constexpr double kPerWrNs = 40 + 200;
  for (unsigned threads : {2u, 4u}) {
    const std::string name = "t" + std::to_string(threads);
    const CommandResult r = run_scenario_json(dir, name, small_write_bw(8, threads).dump());
    INFO(name << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto s = nlohmann::json::parse(slurp(dir / name / "stats.json"));
    CHECK(s["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>() == Approx(threads * 1e3 / kPerWrNs).epsilon(0.01));
    const auto& driver = s["hosts"]["first"][0]["driver"];
    CHECK(driver["cpu_threads"].get<unsigned>() == threads);
    CHECK(driver["cpu_utilization"].get<double>() > 0.99);
  }
  // More threads than QPs, or threads on a latency test: one line naming the key.
  nlohmann::json bad = small_write_bw(2, 3);
  CommandResult r = run_scenario_json(dir, "bad", bad.dump());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("workload.perftest.0.threads: 3 is above qps 2") != std::string::npos);
}
