// Saturating uniform traffic on the fabrics min-hop routes into a credit loop
// (a 6x6 torus, a 9-group dragonfly), 2 KiB packets on 8 KiB buffers: lash and
// dfsssp with every pair on its SA SL (sl "path") run to the end with the link
// checker clean; min-hop's loop closes and the fabric deadlocks, which the run
// reports (exit 1, one line) and the credit-loop check of validate predicts.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

constexpr uint64_t kDurationPs = 200'000'000;  // 200 us

std::string saturating_uniform(const nlohmann::json& topology, const std::string& algorithm) {
  nlohmann::json s = {
      {"name", "saturating_uniform"},
      {"topology", topology},
      {"routing", {{"algorithm", algorithm}}},
      {"port", {{"data_vls", 8}, {"mtu", 2048}, {"vl_buffer", "8KiB"}}},
      {"link", {{"speed", "EDR"}, {"width", "4x"}, {"propagation", "3m"}}},
      {"workload",
       {{"patterns", {{{"name", "uniform"}, {"kind", "uniform"}, {"payload", "2KiB"}, {"rate", "saturate"},
                       {"sl", "path"}}}}}},
      {"run", {{"duration", "200us"}, {"seed", 1}}}};
  return s.dump(1);
}

}  // namespace

TEST_CASE("under saturating uniform traffic lash and dfsssp stay deadlock-free where min-hop deadlocks, checker clean") {
  const auto dir = scratch("deadlock_free");
  const std::vector<std::pair<std::string, nlohmann::json>> fabrics = {
      {"torus", {{"pattern", "torus"}, {"x", 6}, {"y", 6}, {"hosts_per_switch", 1}}},
      {"dragonfly", {{"pattern", "dragonfly"}, {"a", 4}, {"p", 2}, {"h", 2}}}};
  for (const auto& [fabric, topology] : fabrics) {
    for (const std::string algorithm : {"lash", "dfsssp", "minhop"}) {
      const std::string name = fabric + "_" + algorithm;
      INFO(name);
      const std::string file = write_file(dir / (name + ".json"), saturating_uniform(topology, algorithm));
      const CommandResult v = run_command("validate " + file, dir);
      const bool loop = v.out.find("credit loop on VL 0") != std::string::npos;
      CHECK(loop == (algorithm == "minhop"));  // the check predicts it
      const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / name).string(), dir);
      INFO(r.err);
      const nlohmann::json stats = nlohmann::json::parse(slurp(dir / name / "stats.json"));
      CHECK(stats["checker"]["ok"] == true);                 // no credit overrun, no loss, deadlock or not
      CHECK(stats["checker"]["packets_checked"] > 10000);
      const auto& failures = stats["run"]["workload_failures"];
      if (algorithm != "minhop") {
        CHECK(r.exit_code == 0);
        CHECK(stats["run"]["sim_time_ps"] == kDurationPs);  // still moving at the end
        CHECK(failures.empty());
        CHECK(stats["routing"]["engine"] == algorithm);
        const unsigned layers = stats["routing"]["virtual_layers"];  // more than one, as validate counts them
        CHECK(layers > 1);
        CHECK(v.out.find(algorithm + ": " + std::to_string(layers) + " virtual layers") != std::string::npos);
      } else {
        CHECK(r.exit_code == 1);
        CHECK(stats["routing"]["virtual_layers"] == 1);
        CHECK(stats["run"]["sim_time_ps"] < kDurationPs);   // the kernel ran out of events
        REQUIRE(failures.size() == 1);
        CHECK(failures[0].get<std::string>().find("the fabric deadlocked") == 0);
        CHECK(r.err.find("check failed: the fabric deadlocked") != std::string::npos);
      }
    }
  }
}
