// The command line on fabrics: validate reports credit loops, import turns an
// ibnetdiscover dump into the explicit topology, and fabric config mistakes
// give one line naming the JSON path (exit 2).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;

namespace {

const char* kTorus = R"({
  "name": "torus",
  "topology": { "pattern": "torus", "x": 4, "y": 4 },
  "routing": { "algorithm": "minhop" },
  "workload": { "patterns": [ { "kind": "uniform", "count": 10 } ] }
})";

std::string config(const std::string& name) { return std::string(HCASIM_SOURCE_DIR) + "/configs/" + name; }

}  // namespace

TEST_CASE("validate finds the credit loop min-hop makes on a torus and none with up-down") {
  const auto dir = scratch("credit-loops");
  const std::string torus = write_file(dir / "torus.json", kTorus);
  const CommandResult minhop = run_command("validate " + torus, dir);
  INFO(minhop.out << minhop.err);
  REQUIRE(minhop.exit_code == 1);
  REQUIRE(minhop.out.find("credit loop on VL") != std::string::npos);
  const CommandResult updown = run_command("validate " + torus + " --set routing.algorithm=updown", dir);
  INFO(updown.out << updown.err);
  REQUIRE(updown.exit_code == 0);
  REQUIRE(updown.out.find("no credit loop") != std::string::npos);
}

TEST_CASE("every example fabric config validates") {
  const auto dir = scratch("fabric-configs");
  for (const char* name : {"incast_8to1.json", "vl_isolation.json", "fat_tree_permutation.json", "torus_updown.json",
                           "dragonfly_hotspot.json", "ibnetdiscover_cluster.json", "bench/fat_tree2_1024.json",
                           "bench/fat_tree3_1331.json"}) {
    const CommandResult r = run_command("validate " + config(name), dir);
    INFO(name << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("import writes an ibnetdiscover dump as a topology that runs as an explicit fabric") {
  const auto dir = scratch("import");
  const CommandResult r = run_command("import " + config("fabrics/small_cluster.ibnd") + " --out " +
                                          (dir / "cluster.json").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json graph = nlohmann::json::parse(slurp(dir / "cluster.json"));
  REQUIRE(graph["nodes"].size() == 9);
  REQUIRE(graph["links"].size() == 10);
  // The file is never overwritten.
  const CommandResult again = run_command("import " + config("fabrics/small_cluster.ibnd") + " --out " +
                                              (dir / "cluster.json").string(), dir);
  REQUIRE(again.exit_code == 2);
  // As an explicit topology it runs, all-to-all, with nothing lost.
  nlohmann::json scenario = nlohmann::json::parse(slurp(config("ibnetdiscover_cluster.json")));
  scenario["topology"] = {{"pattern", "explicit"}, {"file", "cluster.json"}};
  const std::string path = write_file(dir / "explicit.json", scenario.dump());
  const CommandResult run = run_command("run " + path + " --quiet --out " + (dir / "out").string(), dir);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  REQUIRE(stats["flows"]["count"] == 7);
  const nlohmann::json flows = read_table(dir / "out", "flows");
  REQUIRE(flows.size() == 7);
  for (const auto& f : flows) REQUIRE(f["packets_delivered"] == 200);
  REQUIRE(stats["routing"]["credit_loop"] == false);
}

TEST_CASE("fabric config mistakes each give one line naming the JSON path - and exit 2") {
  const auto dir = scratch("bad-fabric-configs");
  const std::string base = write_file(dir / "base.json", kTorus);
  const std::vector<BadCase> cases = {
      {"a key of another pattern", "--set topology.k=4", "topology.k"},
      {"unknown pattern", "--set topology.pattern=hypercube", "topology.pattern"},
      {"a root that is not a switch", "--set routing.algorithm=updown --set 'routing.roots=[\"hca0\"]'",
       "routing.roots.0"},
      {"LMC over 7", "--set routing.lmc=8", "routing.lmc"},
      {"a link override matching no port", "--set 'link_overrides=[{\"port\":\"spine*\",\"speed\":\"EDR\"}]'",
       "link_overrides.0.port"},
      {"an unknown link key", "--set 'link_overrides=[{\"port\":\"sw0_0.p1\",\"sped\":\"EDR\"}]'",
       "link_overrides.0.sped"},
      {"incast without targets", "--set workload.patterns.0.kind=incast", "workload.patterns.0.targets"},
      {"a target that is a switch port", "--set workload.patterns.0.kind=incast --set 'workload.patterns.0.targets=[\"sw0_0.p1\"]'",
       "workload.patterns.0.targets.0"},
      {"a speedup below 1", "--set switch.speedup=0.5", "switch.speedup"},
      {"a crossbar speedup on input FIFOs", "--set switch.speedup=2", "switch.speedup"},
      {"an unknown switch architecture", "--set switch.architecture=crossbar", "switch.architecture"},
      {"max_concurrent_reads without voq", "--set switch.max_concurrent_reads=2", "switch.max_concurrent_reads"},
      {"max_concurrent_reads 0", "--set switch.architecture=voq --set switch.max_concurrent_reads=0",
       "switch.max_concurrent_reads"},
      {"a shared reserve below one packet", "--set switch.architecture=shared --set switch.shared.reserved=1KiB",
       "switch.shared.reserved"},
      {"a shared pool below the reserves", "--set switch.architecture=shared --set switch.shared.pool=16KiB",
       "switch.shared.pool"},
      {"a shared reserve above the ports' buffers", "--set switch.architecture=shared --set switch.shared.reserved=128KiB",
       "switch.shared.reserved"},
      {"a shared alpha of 0", "--set switch.architecture=shared --set switch.shared.alpha=0", "switch.shared.alpha"},
      {"an SL2VL rule for no switch", "--set 'switch.sl2vl=[{\"switch\":\"core*\",\"sl2vl\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}]'",
       "switch.sl2vl.0.switch"},
      {"an ibnetdiscover file that cannot be read",
       "--set 'topology={\"pattern\":\"ibnetdiscover\",\"file\":\"nowhere.ibnd\"}'", "topology.file"},
      {"an explicit topology with neither graph nor file", "--set 'topology={\"pattern\":\"explicit\"}'", "topology"},
      {"adaptive routing on a torus (its minimum-hop ports close a credit loop)", "--set routing.adaptive.mode=free",
       "routing.adaptive.mode"},
      {"an unknown adaptive mode", "--set routing.adaptive.mode=adaptive", "routing.adaptive.mode"},
      {"k without least_queued_of_k", "--set routing.adaptive.mode=free --set routing.adaptive.k=3",
       "routing.adaptive.k"},
      {"an ageing without bounded mode", "--set routing.adaptive.mode=free --set routing.adaptive.ageing=10us",
       "routing.adaptive.ageing"},
      {"an adaptive SL above 15", "--set 'routing.adaptive.sls=[16]'", "routing.adaptive.sls.0"},
      {"adaptive routing with an outside SM (OpenSM has no AR)",
       "--set routing.adaptive.mode=free --set management.mode=external", "routing.adaptive.mode"},
  };
  check_bad_configs(base, cases, dir);
}

TEST_CASE("a shift pattern sends host i to host i + shift of its list, and refuses a shift onto itself") {
  const auto dir = scratch("shift-pattern");
  const std::string file = write_file(dir / "s.json", R"({ "name": "shift",
    "topology": { "pattern": "single_switch", "hosts": 5 },
    "workload": { "patterns": [ { "name": "s", "kind": "shift", "shift": 7, "count": 3 } ] } })");
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / "out").string() + kWithDetails, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json flows = read_details(dir / "out")["flows"];
  REQUIRE(flows.size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(flows[i]["name"] == "s.hca" + std::to_string(i) + ".p1");
    CHECK(flows[i]["dst"] == "hca" + std::to_string((i + 7) % 5) + ".p1");
  }
  check_bad_configs(file,
                    {{"a multiple of the hosts", "--set workload.patterns.0.shift=10", "workload.patterns.0.shift"},
                     {"of the 2 listed hosts", "--set workload.patterns.0.shift=4 --set 'workload.patterns.0.hosts=[\"hca0.p1\",\"hca3.p1\"]'",
                      "workload.patterns.0.shift"},
                     {"zero", "--set workload.patterns.0.shift=0", "workload.patterns.0.shift"}},
                    dir);
}
