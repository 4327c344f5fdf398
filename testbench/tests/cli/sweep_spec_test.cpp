// The sweep file (sweep_spec.hpp), metric paths (metric_paths.hpp) and the
// results table (sweep_table.hpp): pure logic, no runs.
#include <catch2/catch.hpp>

#include <string>

#include "models/config/config_error.hpp"
#include "testbench/cli/metric_paths.hpp"
#include "testbench/cli/sweep_spec.hpp"
#include "testbench/cli/sweep_table.hpp"

using namespace hcasim;
using nlohmann::json;

namespace {

json base() {
  return json::parse(R"({
    "scenario": "../b2b.json",
    "set": ["run.duration=1us"],
    "axes": [ { "path": "link.speed", "name": "speed", "values": ["EDR", "HDR"] },
              { "path": "port.vl_buffer", "values": ["8KiB", "16KiB", 32768] } ],
    "seeds": [7, 9],
    "metrics": [ { "name": "tput", "path": "flows.*.data_throughput_bps" } ] })");
}

std::string error_of(const json& j) {
  try {
    parse_sweep(j, "/x/sweeps/s.json");
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a sweep file: defaults, the scenario beside the sweep file, points in product order, one run per seed") {
  const SweepSpec s = parse_sweep(base(), "/x/sweeps/s.json");
  CHECK(s.name == "s");
  CHECK(s.scenario == "/x/b2b.json");
  CHECK(s.axes[1].name == "port.vl_buffer");
  const std::vector<SweepRun> runs = expand_runs(s);
  REQUIRE(runs.size() == 2 * 3 * 2);
  // The last axis changes fastest; seeds innermost.
  CHECK(runs[0].id == "p0000-s00");
  CHECK(runs[1].id == "p0000-s01");
  CHECK(*runs[1].seed == 9);
  CHECK(runs[2].values == std::vector<json>{"EDR", "16KiB"});
  CHECK(runs[11].id == "p0005-s01");
  CHECK(runs[11].values == std::vector<json>{"HDR", 32768});
  // The fixed sets first, then each axis as JSON text: a string stays a string.
  CHECK(runs[11].sets == std::vector<std::string>{"run.duration=1us", "link.speed=\"HDR\"", "port.vl_buffer=32768"});
}

TEST_CASE("a sweep file: zipped axes go together, and without seeds each point runs once with the scenario's seed") {
  json j = base();
  j["combine"] = "zip";
  j["axes"][1]["values"] = {"8KiB", "16KiB"};
  j.erase("seeds");
  const std::vector<SweepRun> runs = expand_runs(parse_sweep(j, "s.json"));
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].values == std::vector<json>{"HDR", "16KiB"});
  CHECK_FALSE(runs[0].seed.has_value());
}

TEST_CASE("a sweep file's mistakes name their path and what is accepted") {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* path;
  };
  const std::vector<Case> cases = {
      {"unknown key", [](json& j) { j["axis"] = json::array(); }, "axis:"},
      {"no scenario", [](json& j) { j.erase("scenario"); }, "scenario:"},
      {"no axes", [](json& j) { j.erase("axes"); }, "axes:"},
      {"empty values", [](json& j) { j["axes"][0]["values"] = json::array(); }, "axes.0.values:"},
      {"axis without path", [](json& j) { j["axes"][1].erase("path"); }, "axes.1.path:"},
      {"unknown axis key", [](json& j) { j["axes"][0]["value"] = 1; }, "axes.0.value:"},
      {"zip of unequal axes", [](json& j) { j["combine"] = "zip"; }, "axes.1.values:"},
      {"bad combine", [](json& j) { j["combine"] = "cartesian"; }, "combine:"},
      {"negative seed", [](json& j) { j["seeds"] = {1, -2}; }, "seeds.1:"},
      {"seed twice", [](json& j) { j["seeds"] = {3, 3}; }, "seeds.1:"},
      {"set without =", [](json& j) { j["set"] = {"run.duration"}; }, "set.0:"},
      {"metric without path", [](json& j) { j["metrics"][0].erase("path"); }, "metrics.0.path:"},
      {"two columns of one name", [](json& j) { j["metrics"][0]["name"] = "speed"; }, "metrics.0.name:"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    json j = base();
    c.edit(j);
    const std::string e = error_of(j);
    INFO(e);
    CHECK(e.rfind(c.path, 0) == 0);
    CHECK(e.find("accepted") != std::string::npos);
  }
}

TEST_CASE("metric paths: wildcards label columns by name, key or index, and a path that leads nowhere gives nothing") {
  const json doc = json::parse(R"({
    "flows": [ { "name": "a", "t": 1.5 }, { "name": "b", "t": 2 }, { "t": 3 } ],
    "run": { "seed": 4, "parts": { "x": { "n": 1 }, "y": { "n": 2 } } } })");
  std::vector<MetricCell> c = pick_metric(doc, "t", "flows.*.t");
  REQUIRE(c.size() == 3);
  CHECK(c[0].column == "t[a]");
  CHECK(c[1].column == "t[b]");
  CHECK(c[2].column == "t[2]");
  CHECK(c[0].value == 1.5);
  c = pick_metric(doc, "n", "run.parts.*.n");
  REQUIRE(c.size() == 2);
  CHECK(c[1].column == "n[y]");
  c = pick_metric(doc, "second", "flows.1.t");
  REQUIRE(c.size() == 1);
  CHECK(c[0].column == "second");
  CHECK(c[0].value == 2);
  CHECK(pick_metric(doc, "none", "flows.7.t").empty());
  CHECK(pick_metric(doc, "none", "run.missing").empty());
}

TEST_CASE("the results table: axes then metrics then the outcome, in run order, and CSV quotes what needs quoting") {
  const SweepSpec s = parse_sweep(base(), "s.json");
  const std::vector<SweepRun> runs = expand_runs(s);
  std::vector<SweepOutcome> out(runs.size());
  out[0] = {0, "", 7, {{"tput[a]", 1.5}}};
  out[1] = {2, "hcasim: link.speed: \"X\", no; accepted: EDR", 9, {}};
  const SweepTable t = make_table(s, runs, out);
  CHECK(t.columns == std::vector<std::string>{"run", "point", "seed", "speed", "port.vl_buffer", "tput[a]", "exit_code", "error"});
  const std::string csv = table_csv(t);
  CHECK(csv.rfind("run,point,seed,speed,port.vl_buffer,tput[a],exit_code,error\n"
                  "p0000-s00,0,7,EDR,8KiB,1.5,0,\n"
                  "p0000-s01,0,9,EDR,8KiB,,2,\"hcasim: link.speed: \"\"X\"\", no; accepted: EDR\"\n", 0) == 0);
  CHECK(table_json(s, t)["metrics"] == json::array({"tput[a]"}));
}
