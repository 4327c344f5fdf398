// hcasim schema: the JSON Schema of scenario files, checked with Debian's python3-jsonschema
// (schema_check.py): valid draft 2020-12, kept in docs/, accepting every shipped scenario and
// its resolved form, and rejecting the kinds of bad scenario that hcasim validate rejects.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "models/config/overrides.hpp"
#include "models/config/scenario.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;
namespace config = hcasim::config;

namespace {

const fs::path kSource = HCASIM_SOURCE_DIR;
const fs::path kSchema = kSource / "docs" / "scenario.schema.json";

// schema_check.py SCHEMA [--check-schema] FILES...; its lines by file.
CommandResult schema_check(const std::string& args, const fs::path& dir) {
  return run_shell("/usr/bin/python3 " + (kSource / "testbench/tests/scenarios/schema_check.py").string() + " " +
                       kSchema.string() + " " + args,
                   dir);
}

std::vector<std::string> shipped_scenarios() {
  std::vector<std::string> files;
  for (const fs::path& folder :
       {kSource / "configs", kSource / "configs" / "bench", kSource / "configs" / "bench" / "routing"})
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += " " + s;
  return out;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

const char* kBase = R"({
  "name": "schema",
  "port": { "data_vls": 8, "mtu": 4096, "vl_buffer": "64KiB" },
  "link": { "speed": "HDR", "width": "4x", "propagation": "2m" },
  "workload": { "flows": [ { "src": "hca0.p1", "dst": "hca1.p1", "sl": 1, "payload": "4KiB", "count": 200 },
                           { "src": "hca1.p1", "dst": "hca0.p1", "rate": "25%", "count": 50 } ] }
})";

}  // namespace

TEST_CASE("docs/scenario.schema.json is what hcasim schema prints") {
  const auto dir = scratch("schema-docs");
  const CommandResult r = run_command("schema", dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  INFO("docs/scenario.schema.json is stale; regenerate it with: build/hcasim schema > docs/scenario.schema.json");
  REQUIRE(r.out == slurp(kSchema));
}

TEST_CASE("the schema is valid draft 2020-12 - its patterns compile - its defaults are valid") {
  const auto dir = scratch("schema-valid");
  const CommandResult r = schema_check("--check-schema", dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out.empty());
  // The schema of the scenario root is strict and documents itself.
  const nlohmann::json s = read_json(kSchema.string());
  CHECK(s["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(s["additionalProperties"] == false);
  CHECK(s["properties"]["port"]["properties"]["mtu"]["enum"] == nlohmann::json({256, 512, 1024, 2048, 4096}));
  CHECK(s["properties"]["port"]["properties"]["mtu"]["default"] == 4096);
  const nlohmann::json& sl = s["properties"]["workload"]["properties"]["flows"]["items"]["properties"]["sl"];
  CHECK(sl["anyOf"][0]["maximum"] == 15);
  CHECK(sl["anyOf"][1]["const"] == "path");
  CHECK(s["properties"]["switch"]["properties"]["sl2vl"]["items"]["properties"]["sl2vl"]["minItems"] == 16);
}

TEST_CASE("every shipped scenario and its resolved form validate against the schema") {
  const auto dir = scratch("schema-shipped");
  const std::vector<std::string> files = shipped_scenarios();
  REQUIRE(files.size() >= 19);
  std::vector<std::string> checked = files;
  // The resolved form (every default explicit, as run writes it) is what the writer writes:
  // every value in the form the schema states.
  for (const std::string& f : files) {
    const config::Scenario s = config::load_scenario(read_json(f), fs::path(f).parent_path().string());
    checked.push_back(write_file(dir / (fs::path(f).stem().string() + ".resolved.json"),
                                 config::resolved_json(s).dump(2)));
  }
  checked.push_back(write_file(dir / "base.json", kBase));
  const CommandResult r = schema_check(joined(checked), dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(count_lines(r.out) == static_cast<int>(checked.size()));
}

TEST_CASE("a $schema key names the schema for editors - hcasim accepts it as a string") {
  const auto dir = scratch("schema-key");
  nlohmann::json j = nlohmann::json::parse(kBase);
  j["$schema"] = kSchema.string();
  const std::string with_key = write_file(dir / "with_key.json", j.dump(2));
  CHECK(schema_check(with_key, dir).exit_code == 0);
  const CommandResult ok = run_command("validate " + with_key, dir);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  j["$schema"] = 5;
  const std::string bad = write_file(dir / "bad_key.json", j.dump(2));
  CHECK(schema_check(bad, dir).exit_code == 1);
  const CommandResult r = run_command("validate " + bad, dir);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("hcasim: $schema: expected a string", 0) == 0);
}

// The kinds of bad scenario of the foundation tests (config_io_test.cpp, cli_test.cpp) that a
// schema can state. Each is refused by the schema at (or inside) `schema_path` and by hcasim
// validate with exit 2 naming `path`.
TEST_CASE("the schema rejects each kind of bad scenario that hcasim validate rejects") {
  struct Kind {
    const char* what;
    std::vector<std::string> sets;
    const char* path;         // hcasim's error path
    const char* schema_path;  // the schema error's path: the value, or the object holding a bad key
  };
  const std::vector<Kind> kinds = {
      {"unknown key", {"port.mtuu=4096"}, "port.mtuu", "port"},
      {"unknown key in a list element", {R"(port_overrides=[{"port":"hca1.p1","mtuu":1}])"}, "port_overrides.0.mtuu",
       "port_overrides.0"},
      {"wrong type: a string for an integer", {"workload.flows.0.count=many"}, "workload.flows.0.count",
       "workload.flows.0.count"},
      {"wrong type: a list for an object", {"port=[]"}, "port", "port"},
      {"a fraction for an integer", {"workload.flows.0.count=2.5"}, "workload.flows.0.count",
       "workload.flows.0.count"},
      {"integer out of range", {"workload.flows.0.sl=16"}, "workload.flows.0.sl", "workload.flows.0.sl"},
      {"number out of range", {"link.faults.drop_rate=1.5"}, "link.faults.drop_rate", "link.faults.drop_rate"},
      {"value not in the allowed set", {"port.mtu=5000"}, "port.mtu", "port.mtu"},
      {"unknown name", {"link.speed=XDR"}, "link.speed", "link.speed"},
      {"name in the wrong case", {"management.mode=IN_BAND"}, "management.mode", "management.mode"},
      {"unknown unit", {"link.propagation=3parsec"}, "link.propagation", "link.propagation"},
      {"time without a unit", {"link.fc_period=90"}, "link.fc_period", "link.fc_period"},
      {"negative size", {"port.vl_buffer=-64"}, "port.vl_buffer", "port.vl_buffer"},
      {"size below its minimum", {"port.vl_buffer=32"}, "port.vl_buffer", "port.vl_buffer"},
      {"bad rate", {"workload.flows.0.rate=fast"}, "workload.flows.0.rate", "workload.flows.0.rate"},
      {"VL 16 in an OpenSM qos_sl2vl string", {R"(port.sl2vl="0,1,16")"}, "port.sl2vl.2", "port.sl2vl"},
      {"VLArb weight over 255", {"port.vlarb.low=0:300"}, "port.vlarb.low", "port.vlarb.low"},
      {"list of the wrong length", {R"(switch.sl2vl=[{"sl2vl":[0,1]}])"}, "switch.sl2vl.0.sl2vl",
       "switch.sl2vl.0.sl2vl"},
      {"list element without a required key", {R"(switch.sl2vl=[{"switch":"*"}])"}, "switch.sl2vl.0.sl2vl",
       "switch.sl2vl.0"},
      {"scenario name that is a path", {"name=../x"}, "name", "name"},
      {"topology key of another pattern", {"topology.k=4"}, "topology.k", "topology.k"},
      {"wildcard where one port is needed", {"workload.flows.0.dst=hca*"}, "workload.flows.0.dst",
       "workload.flows.0.dst"},
  };
  REQUIRE(kinds.size() >= 12);
  const auto dir = scratch("schema-bad");
  std::vector<std::string> files;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    nlohmann::json j = nlohmann::json::parse(kBase);
    for (const std::string& set : kinds[i].sets) config::apply_override(j, set);
    files.push_back(write_file(dir / ("bad" + std::to_string(i) + ".json"), j.dump(2)));
  }
  const CommandResult r = schema_check(joined(files), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 1);
  std::istringstream lines(r.out);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    INFO(kinds[i].what);
    std::string line;
    REQUIRE(std::getline(lines, line));
    INFO(line);
    // "invalid FILE PATH: MESSAGE"
    const std::string prefix = "invalid " + files[i] + " ";
    REQUIRE(line.rfind(prefix, 0) == 0);
    const std::string path = line.substr(prefix.size(), line.find(": ", prefix.size()) - prefix.size());
    CHECK(path == kinds[i].schema_path);
    const CommandResult v = run_command("validate " + files[i], dir);
    INFO(v.err);
    CHECK(v.exit_code == 2);
    CHECK(count_lines(v.err) == 1);
    CHECK(v.err.find(std::string(kinds[i].path) + ":") != std::string::npos);
  }
}

TEST_CASE("--help lists every command - COMMAND --help prints its usage - --version its version and revision") {
  const auto dir = scratch("help");
  const std::vector<std::string> commands = {"run", "validate", "import", "params", "schema", "calibrate"};
  const CommandResult overview = run_command("--help", dir);
  REQUIRE(overview.exit_code == 0);
  for (const std::string& c : commands) {
    INFO(c);
    CHECK(overview.out.find("\n  " + c + " ") != std::string::npos);  // one line each, with its summary
    const CommandResult r = run_command(c + " --help", dir);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.rfind("usage: hcasim " + c, 0) == 0);
    CHECK(r.out.find("--help") != std::string::npos);
  }
  // Options of run, one line each.
  const std::string run_help = run_command("run --help", dir).out;
  for (const char* option : {"--out", "--seed", "--set", "--pcap", "--vcd", "--quiet", "--threads"})
    CHECK(run_help.find(std::string("\n  ") + option + " ") != std::string::npos);
  // --help wins over a missing scenario; bad arguments still exit 2.
  CHECK(run_command("validate --help", dir).exit_code == 0);
  CHECK(run_command("schema --frobnicate", dir).exit_code == 2);

  // hcasim 0.31.0 (git <describe>): the version of CMakeLists.txt's project(), and the revision
  // the sources are at (`git describe --always` names HEAD by its abbreviated hash, after "-g"
  // when a tag precedes it), or "unknown" outside a git checkout.
  const CommandResult v = run_command("--version", dir);
  REQUIRE(v.exit_code == 0);
  const std::string cmake = slurp(kSource / "CMakeLists.txt");
  const std::size_t at = cmake.find("project(hcasim VERSION ");
  REQUIRE(at != std::string::npos);
  const std::size_t from = at + std::string("project(hcasim VERSION ").size();
  const std::string version = cmake.substr(from, cmake.find(' ', from) - from);
  const std::string prefix = "hcasim " + version + " (git ";
  REQUIRE(v.out.rfind(prefix, 0) == 0);
  std::string revision = v.out.substr(prefix.size(), v.out.find(')') - prefix.size());
  const CommandResult head = run_shell("git -C " + kSource.string() + " rev-parse HEAD", dir);
  if (head.exit_code != 0) {
    CHECK(revision == "unknown");
    return;
  }
  if (revision.size() > 6 && revision.compare(revision.size() - 6, 6, "-dirty") == 0)
    revision.resize(revision.size() - 6);
  if (const std::size_t g = revision.rfind("-g"); g != std::string::npos) revision = revision.substr(g + 2);
  CHECK(revision.size() >= 4);
  CHECK(head.out.rfind(revision, 0) == 0);
}
