// Link faults from a scenario file: "link.faults" for every link or
// "link_overrides" for one, counted in stats.json, shown by validate and in the
// resolved config, repeatable by seed, and strict about mistakes (exit 2).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
using nlohmann::json;

namespace {

const char* kLossy = R"({
  "name": "lossy",
  "topology": { "pattern": "back_to_back" },
  "link": { "faults": { "drop_rate": 0.05, "drops": [ { "opcode": "UD_SEND_ONLY", "psn": 2, "nth": 1 } ] } },
  "workload": { "flows": [
    { "src": "hca0.p1", "dst": "hca1.p1", "payload": "1KiB", "count": 2000 },
    { "src": "hca1.p1", "dst": "hca0.p1", "payload": "256B", "count": 1000 } ] }
})";

const char* kSwitch = R"({
  "name": "one_lossy_link",
  "topology": { "pattern": "single_switch", "hosts": 3 },
  "link_overrides": [ { "port": "hca2.p1", "faults": { "bit_error_rate": 1e-6 } } ],
  "workload": { "patterns": [ { "kind": "all_to_all", "payload": "4KiB", "count": 500 } ] }
})";

// Drops for a reason, from every port's VLs; stats.json's summary must say the same.
uint64_t drops(const json& stats, const std::string& reason) {
  uint64_t n = 0;
  for (const json& p : stats["objects"]["ports"])
    for (const json& v : p["vls"]) n += v["drops"][reason].get<uint64_t>();
  CHECK(stats["ports"]["drops"][reason] == n);
  return n;
}

uint64_t lost(const json& stats) {
  uint64_t n = 0;
  for (const json& f : stats["objects"]["flows"])
    n += f["packets_sent"].get<uint64_t>() - f["packets_delivered"].get<uint64_t>();
  const json& t = stats["flows"]["totals"];
  CHECK(t["packets_sent"].get<uint64_t>() - t["packets_delivered"].get<uint64_t>() == n);
  return n;
}

json run_stats(const std::string& args, const std::filesystem::path& dir, const std::string& out) {
  const CommandResult r = run_command("run " + args + " --quiet --out " + (dir / out).string() + kWithDetails, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  json s = json::parse(slurp(dir / out / "stats.json"));
  s.erase("wall");
  s["objects"] = read_details(dir / out);  // every port and flow in full
  return s;
}

}  // namespace

TEST_CASE("faults from a scenario: counted in stats.json - in the resolved config - repeatable by seed") {
  const auto dir = scratch("faults-cli");
  const std::string base = write_file(dir / "lossy.json", kLossy);
  const CommandResult v = run_command("validate " + base, dir);
  INFO(v.out << v.err);
  REQUIRE(v.exit_code == 0);
  REQUIRE(v.out.find("link faults on 1 of 1 links") != std::string::npos);

  const json a = run_stats(base, dir, "a");
  REQUIRE(a["checker"]["ok"] == true);
  const uint64_t dropped = drops(a, "fault_drop");
  REQUIRE(dropped > 50);  // about 5% of 3,000
  REQUIRE(dropped == lost(a));
  REQUIRE(a["checker"]["announced_losses"] == dropped);
  // Both ends judge their arrivals; PSN 2 of UD SEND-only is dropped once per direction.
  for (const json& p : a["objects"]["ports"]) {
    REQUIRE(p.contains("faults"));
    CHECK(p["faults"]["dropped_targeted"] == 1);
    CHECK(p["faults"]["rule_matches"][0] == 1);
  }
  // The resolved config names every fault key; it reruns to the same numbers.
  const json resolved = json::parse(slurp(dir / "a" / "scenario.resolved.json"));
  const json& faults = resolved["link"]["faults"];
  CHECK(faults["drop_rate"] == 0.05);
  CHECK(faults["bit_error_rate"] == 0);
  CHECK(faults["seed"] == 0);
  CHECK(faults["drops"][0]["opcode"] == "UD_SEND_ONLY");
  CHECK(faults["drops"][0]["psn"] == 2);
  CHECK(faults["drops"][0]["dest_qp"].is_null());
  CHECK(faults["drops"][0]["count"] == 1);
  CHECK(run_stats((dir / "a" / "scenario.resolved.json").string(), dir, "b") == a);
  // The same seed repeats the run; another run seed draws other faults.
  CHECK(run_stats(base, dir, "c") == a);
  const json d = run_stats(base + " --seed 2", dir, "d");
  CHECK(drops(d, "fault_drop") == lost(d));
  CHECK(d["objects"]["ports"] != a["objects"]["ports"]);
  // An explicit faults.seed wins over the run seed.
  CHECK(run_stats(base + " --set link.faults.seed=9", dir, "e")["objects"]["ports"] ==
        run_stats(base + " --set link.faults.seed=9 --seed 3", dir, "f")["objects"]["ports"]);
}

TEST_CASE("faults through link_overrides: only the named link loses packets - to CRC errors") {
  const auto dir = scratch("faults-override");
  const std::string base = write_file(dir / "switch.json", kSwitch);
  const json s = run_stats(base, dir, "a");
  REQUIRE(s["checker"]["ok"] == true);
  const uint64_t bad = drops(s, "crc_error");
  REQUIRE(bad > 0);  // 1 - (1 - 1e-6)^(8 x 4,130) = 3.3% of the 1,000 packets crossing that link
  REQUIRE(bad == lost(s));
  REQUIRE(drops(s, "fault_drop") == 0);
  for (const json& p : s["objects"]["ports"]) {
    const std::string name = p["name"];
    INFO(name);
    CHECK(p.contains("faults") == (name == "hca2.p1" || name == "sw0.p3"));
  }
}

TEST_CASE("fault config mistakes each give one line naming the JSON path - and exit 2") {
  const auto dir = scratch("bad-fault-configs");
  const std::string base = write_file(dir / "lossy.json", kLossy);
  const std::vector<BadCase> cases = {
      {"a drop rate over 1", "--set link.faults.drop_rate=2", "link.faults.drop_rate"},
      {"a negative BER", "--set link.faults.bit_error_rate=-1e-9", "link.faults.bit_error_rate"},
      {"an unknown fault key", "--set link.faults.drop=0.1", "link.faults.drop"},
      {"an unknown opcode name", "--set link.faults.drops.0.opcode=RC_ACKNOWLEDGE", "link.faults.drops.0.opcode"},
      {"an opcode over 255", "--set link.faults.drops.0.opcode=256", "link.faults.drops.0.opcode"},
      {"a PSN over 24 bits", "--set link.faults.drops.0.psn=16777216", "link.faults.drops.0.psn"},
      {"a VL over 15", "--set link.faults.drops.0.vl=16", "link.faults.drops.0.vl"},
      {"nth 0", "--set link.faults.drops.0.nth=0", "link.faults.drops.0.nth"},
      {"a rule that is not an object", "--set 'link.faults.drops=[3]'", "link.faults.drops.0"},
      {"faults that are not an object", "--set link.faults=0.1", "link.faults"},
      {"an override's bad fault key", "--set 'link_overrides=[{\"port\":\"hca0.p1\",\"faults\":{\"rate\":1}}]'",
       "link_overrides.0.faults.rate"},
  };
  check_bad_configs(base, cases, dir);
}
