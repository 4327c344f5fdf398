// What the program says about how it read a scenario (config/notices.hpp): a
// size with a decimal prefix, VL arbitration tables written for more VLs than a
// port operates (skipped entries, with the shares the operated entries give),
// and an unknown up/down root, whose error lists the switches.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

const char* kBase = R"({
  "name": "notices",
  "workload": { "flows": [ { "src": "hca0.p1", "dst": "hca1.p1", "payload": "4KiB", "count": 20 } ] }
})";

const std::string kKiloNote =
    "hcasim: note: port.tx_buffer: \"64KB\" read as 64,000 bytes (decimal kilo); write \"64KiB\" for 65,536\n";

// Four saturating 4 KiB flows hca0 -> hca1 on SLs `sls` (SL n -> VL n on a 4-VL
// port), `vlarb` the port's tables, for 400 us.
std::string four_vl_scenario(const std::string& vlarb, const std::vector<int>& sls) {
  nlohmann::json s = {{"name", "vlarb"},
                      {"port", {{"data_vls", 4}, {"vlarb", nlohmann::json::parse(vlarb)}}},
                      {"run", {{"duration", "400us"}}}};
  for (int sl : sls)
    s["workload"]["flows"].push_back({{"src", "hca0.p1"}, {"dst", "hca1.p1"}, {"sl", sl}, {"payload", "4KiB"}});
  return s.dump();
}

// Share of hca0.p1's data bytes per VL 0-3 (a run folder's port_vls rows).
std::vector<double> vl_shares(const std::filesystem::path& run) {
  std::vector<double> bytes(4, 0.0);
  double total = 0;
  for (const auto& v : read_table(run, "port_vls")) {
    if (v["port"] != "hca0.p1" || v["vl"].get<int>() > 3) continue;
    bytes[v["vl"].get<std::size_t>()] = v["tx_bytes"].get<double>();
    total += v["tx_bytes"].get<double>();
  }
  for (double& b : bytes) b /= total;
  return bytes;
}

}  // namespace

TEST_CASE("a decimal size prefix: one notice line - the resolved scenario in bytes - KiB prints nothing") {
  const auto dir = scratch("notice-kilo");
  const std::string base = write_file(dir / "base.json", kBase);
  CommandResult r = run_command("validate " + base + " --set port.tx_buffer=64KB", dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err == kKiloNote);
  r = run_command("validate " + base + " --set port.tx_buffer=64KiB --set port.vl_buffer=1MiB", dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  // run prints it once (also with --quiet) and the resolved scenario says 64,000 bytes.
  r = run_command("run " + base + " --quiet --set port.tx_buffer=64KB --out " + (dir / "a").string(), dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err == kKiloNote);
  const auto resolved = nlohmann::json::parse(slurp(dir / "a" / "scenario.resolved.json"));
  REQUIRE(resolved["port"]["tx_buffer"] == "64000B");
  // A bad input still gives its one error line and no notice.
  r = run_command("validate " + base + " --set port.tx_buffer=64KB --set port.mtu=5000", dir);
  REQUIRE(r.exit_code == 2);
  REQUIRE(count_lines(r.err) == 1);
  REQUIRE(r.err.rfind("hcasim: port.mtu: ", 0) == 0);
}

TEST_CASE("many decimal sizes: ten notice lines and one that counts the rest") {
  const auto dir = scratch("notice-many");
  nlohmann::json s = nlohmann::json::parse(kBase);
  for (int i = 0; i < 14; ++i) s["port_overrides"].push_back({{"port", "hca*"}, {"vl_buffer", "64KB"}});
  const std::string file = write_file(dir / "s.json", s.dump());
  const CommandResult r = run_command("validate " + file, dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(count_lines(r.err) == 11);
  REQUIRE(r.err.find("hcasim: note: port_overrides.0.vl_buffer: \"64KB\" read as 64,000 bytes") == 0);
  REQUIRE(r.err.find("hcasim: note: 4 more notices like these (14 in all)\n") != std::string::npos);
}

TEST_CASE("a ConnectX-2's VL0-7 arbitration table on a 4-VL port: VL4-7 skipped with a notice - equal shares") {
  const auto dir = scratch("notice-cx2");
  const std::string file = write_file(
      dir / "s.json", four_vl_scenario(R"({"low": "0:32,1:32,2:32,3:32,4:32,5:32,6:32,7:32"})", {0, 1, 2, 3}));
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / "a").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err ==
          "hcasim: note: port.vlarb.low: entries for VL4-7 skipped: the port has 4 operational VLs (VL0-3)\n");
  // Equal weights over the four operated VLs: a quarter of the bytes each.
  const std::vector<double> share = vl_shares(dir / "a");
  for (int vl = 0; vl < 4; ++vl) {
    INFO("VL" << vl);
    CHECK(share[vl] == Approx(0.25).margin(0.01));
  }
}

TEST_CASE("OpenSM's default VLArb tables (VL0-14) on a 4-VL port: pre-configured and programmed in band alike") {
  // qos_vlarb_high 0:4,1:0,...,14:0 and qos_vlarb_low 0:0,1:4,...,14:4 (iba-facts 3). Flows on
  // SL1-3 (VL1-3): equal weights of the low table, a third of the bytes each.
  const auto dir = scratch("notice-opensm");
  std::string high = "0:4", low = "0:0";
  for (int vl = 1; vl <= 14; ++vl) {
    high += "," + std::to_string(vl) + ":0";
    low += "," + std::to_string(vl) + ":4";
  }
  const std::string file = write_file(
      dir / "s.json", four_vl_scenario(R"({"high": ")" + high + R"(", "low": ")" + low + R"(", "high_limit": 0})",
                                       {1, 2, 3}));
  for (const char* mode : {"preconfigured", "in_band"}) {
    INFO(mode);
    const std::string out = (dir / mode).string();
    const CommandResult r =
        run_command("run " + file + " --quiet --set management.mode=" + mode + " --out " + out, dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE(r.err ==
            "hcasim: note: port.vlarb.low: entries for VL4-14 skipped: the port has 4 operational VLs (VL0-3)\n");
    const std::vector<double> share = vl_shares(out);
    CHECK(share[0] == 0.0);
    for (int vl = 1; vl < 4; ++vl) {
      INFO("VL" << vl);
      CHECK(share[vl] == Approx(1.0 / 3).margin(0.01));
    }
  }
}

TEST_CASE("an unknown up/down root: the error lists the switches - the first six and the count") {
  const auto dir = scratch("roots");
  const std::string base = write_file(dir / "base.json", kBase);
  const std::string fat_tree = " --set topology.pattern=fat_tree --set topology.k=4 --set routing.algorithm=updown";
  const CommandResult r = run_command("validate " + base + fat_tree + " --set 'routing.roots=[\"spine\"]'", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 2);
  REQUIRE(count_lines(r.err) == 1);
  const std::string head = "hcasim: routing.roots.0: no switch named 'spine'; accepted: a switch of the topology: ";
  REQUIRE(r.err.rfind(head, 0) == 0);
  // A two-level 4-ary fat tree has 2 x 4 switches: six names, then the count.
  const std::string tail = ", ... (8 switches)\n";
  REQUIRE(r.err.size() > head.size() + tail.size());
  REQUIRE(r.err.compare(r.err.size() - tail.size(), tail.size(), tail) == 0);
  std::vector<std::string> names;
  std::stringstream listed(r.err.substr(head.size(), r.err.size() - head.size() - tail.size()));
  for (std::string name; std::getline(listed, name, ',');) names.push_back(name.substr(name.find_first_not_of(' ')));
  REQUIRE(names.size() == 6);
  for (const std::string& name : names) {  // each one listed is a root the scenario accepts
    INFO(name);
    REQUIRE(run_command("validate " + base + fat_tree + " --set 'routing.roots=[\"" + name + "\"]'", dir).exit_code ==
            0);
  }
  // Without switches the error says so.
  const CommandResult none = run_command(
      "validate " + base + " --set routing.algorithm=updown --set 'routing.roots=[\"sw0\"]'", dir);
  REQUIRE(none.exit_code == 2);
  REQUIRE(none.err.find("routing.roots.0: no switch named 'sw0'; accepted: none: the topology has no switches") !=
          std::string::npos);
}

TEST_CASE("a routing-engine chain: each refusal is one note, and no engine at all one error") {
  const auto dir = scratch("chain");
  const std::string base = write_file(dir / "base.json", kBase);
  const std::string torus = " --set topology.pattern=torus --set topology.x=4 --set topology.y=4";
  const CommandResult chained = run_command("validate " + base + torus + " --set routing.algorithm=updn,dor", dir);
  INFO(chained.err);
  CHECK(chained.err ==
        "hcasim: note: routing.algorithm: updn refused the fabric (no root nodes were found); dor routed it\n");
  const CommandResult fallback = run_command("validate " + base + torus + " --set routing.algorithm=updn", dir);
  CHECK(fallback.err == "hcasim: note: routing.algorithm: updn refused the fabric (no root nodes were found); "
                        "minhop routed it (OpenSM's fallback)\n");
  const CommandResult none = run_command("validate " + base + torus + " --set routing.algorithm=updn,no_fallback", dir);
  CHECK(none.exit_code == 2);
  CHECK(count_lines(none.err) == 1);
  CHECK(none.err.rfind("hcasim: routing.algorithm: no routing engine routes this fabric (updn: no root nodes were "
                       "found)", 0) == 0);
  // A run says which engine routed, and which refused, in stats.json.
  const CommandResult run = run_command(
      "run " + base + torus + " --set routing.algorithm=updn,dor --quiet --out " + (dir / "run").string(), dir);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "run" / "stats.json"));
  CHECK(stats["routing"]["algorithm"] == nlohmann::json({"updn", "dor"}));
  CHECK(stats["routing"]["engine"] == "dor");
  CHECK(stats["routing"]["refusals"] ==
        nlohmann::json::parse(R"([{"engine": "updn", "why": "no root nodes were found"}])"));
  // A fat tree has roots: updn routes it, without a note.
  const CommandResult tree = run_command(
      "validate " + base + " --set topology.pattern=fat_tree --set topology.k=4 --set routing.algorithm=updn,dor", dir);
  CHECK(tree.exit_code == 0);
  CHECK(tree.err.empty());
}
