// Saturating uniform traffic on the fabrics min-hop routes into a credit loop
// (a 6x6 torus, a 9-group dragonfly), 2 KiB packets on 8 KiB buffers: lash,
// dfsssp and nue (in its one layer, and in four) with every pair on its SA SL
// (sl "path") run to the end with the link checker clean; min-hop's loop
// closes and the fabric deadlocks, which the run reports (exit 1, one line)
// and the credit-loop check of validate predicts.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

constexpr uint64_t kDurationPs = 200'000'000;  // 200 us

std::string saturating_uniform(const nlohmann::json& topology, const nlohmann::json& routing) {
  nlohmann::json s = {
      {"name", "saturating_uniform"},
      {"topology", topology},
      {"routing", routing},
      {"port", {{"data_vls", 8}, {"mtu", 2048}, {"vl_buffer", "8KiB"}}},
      {"link", {{"speed", "EDR"}, {"width", "4x"}, {"propagation", "3m"}}},
      {"workload",
       {{"patterns", {{{"name", "uniform"}, {"kind", "uniform"}, {"payload", "2KiB"}, {"rate", "saturate"},
                       {"sl", "path"}}}}}},
      {"run", {{"duration", "200us"}, {"seed", 1}}}};
  return s.dump(1);
}

}  // namespace

TEST_CASE("under saturating uniform traffic lash, dfsssp and nue stay deadlock-free where min-hop deadlocks, checker clean") {
  const auto dir = scratch("deadlock_free");
  const std::vector<std::pair<std::string, nlohmann::json>> fabrics = {
      {"torus", {{"pattern", "torus"}, {"x", 6}, {"y", 6}, {"hosts_per_switch", 1}}},
      {"dragonfly", {{"pattern", "dragonfly"}, {"a", 4}, {"p", 2}, {"h", 2}}}};
  for (const auto& [fabric, topology] : fabrics) {
    // (name, routing, virtual layers: 0 = more than one)
    const std::vector<std::tuple<std::string, nlohmann::json, unsigned>> engines = {
        {"lash", {{"algorithm", "lash"}}, 0},
        {"dfsssp", {{"algorithm", "dfsssp"}}, 0},
        {"nue", {{"algorithm", "nue"}}, 1},  // Nue's point: deadlock-free in a single layer
        {"nue4", {{"algorithm", "nue"}, {"nue_max_num_vls", 4}}, 4},
        {"minhop", {{"algorithm", "minhop"}}, 1}};
    for (const auto& [engine, routing, expected_layers] : engines) {
      const std::string algorithm = routing["algorithm"];
      const std::string name = fabric + "_" + engine;
      INFO(name);
      const std::string file = write_file(dir / (name + ".json"), saturating_uniform(topology, routing));
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
        const unsigned layers = stats["routing"]["virtual_layers"];  // as validate counts them
        if (expected_layers == 0)
          CHECK(layers > 1);
        else
          CHECK(layers == expected_layers);
        if (layers > 1)
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
