// --set path=value: every accepted form, every rejected one, and overrides feeding the reader.

#include <catch2/catch.hpp>

#include "models/config/config_io.hpp"
#include "models/config/overrides.hpp"
#include "testbench/tests/config/example_configs.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
namespace config = hcasim::config;
namespace ex = hcasim::config::example;

namespace {

json scenario() {
  return json::parse(R"({
    "workload": {"flows": [{"sl": 0}, {"sl": 1}]},
    "ports": {"defaults": {"mtu": 4096}},
    "links": {"speed": "HDR"},
    "run": {"duration": "1ms"}
  })");
}

json applied(const std::string& assignment) {
  json root = scenario();
  config::apply_override(root, assignment);
  return root;
}

// The one-line error for `assignment`, at path "--set", saying the accepted form.
std::string override_error(const std::string& assignment, json root = scenario()) {
  const json before = root;
  try {
    config::apply_override(root, assignment);
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(e.path() == "--set");
    CHECK(what.rfind("--set: ", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find("; accepted: --set <path>=<value>") != std::string::npos);
    CHECK(root == before);  // a rejected override changes nothing
    return what;
  }
  FAIL("no ConfigError for " << assignment);
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("overrides: list index - nested object - JSON and plain-string values") {
  CHECK(applied("workload.flows.0.sl=3")["workload"]["flows"][0]["sl"] == 3);
  CHECK(applied("workload.flows.1.sl=3")["workload"]["flows"][0]["sl"] == 0);
  CHECK(applied("ports.defaults.mtu=2048")["ports"]["defaults"]["mtu"] == 2048);
  CHECK(applied("links.speed=\"EDR\"")["links"]["speed"] == "EDR");
  CHECK(applied("links.speed=EDR")["links"]["speed"] == "EDR");
  CHECK(applied("run.duration=2ms")["run"]["duration"] == "2ms");
  CHECK(applied("run.quiet=true")["run"]["quiet"] == true);
  CHECK(applied("run.seed=-3")["run"]["seed"] == -3);
  CHECK(applied("run.load=0.25")["run"]["load"] == 0.25);
  CHECK(applied("run.tags=[1, 2]")["run"]["tags"] == json::array({1, 2}));
  CHECK(applied("run.opts={\"a\": 1}")["run"]["opts"] == json{{"a", 1}});
  CHECK(applied("run.label=")["run"]["label"] == "");
  CHECK(applied("run.expr=a=b")["run"]["expr"] == "a=b");  // split at the first '='
  CHECK(applied("run.text=[1, 2")["run"]["text"] == "[1, 2");  // not JSON: a string
  CHECK(applied("workload.flows.1={\"sl\": 7}")["workload"]["flows"][1] == json{{"sl", 7}});
}

TEST_CASE("overrides: missing intermediate objects are created") {
  CHECK(applied("switches.defaults.vls=4")["switches"]["defaults"]["vls"] == 4);
  json empty;  // null root
  config::apply_override(empty, "a.b.c=1");
  CHECK(empty == json::parse(R"({"a": {"b": {"c": 1}}})"));
  json with_null = json::parse(R"({"a": null})");
  config::apply_override(with_null, "a.b=1");
  CHECK(with_null == json::parse(R"({"a": {"b": 1}})"));
}

TEST_CASE("overrides: every rejected form is one line at --set") {
  CHECK(contains(override_error("ports.defaults.mtu"), "missing '=' in 'ports.defaults.mtu'"));
  CHECK(contains(override_error(""), "missing '='"));
  CHECK(contains(override_error("=3"), "empty path in '=3'"));
  CHECK(contains(override_error("ports..mtu=3"), "empty path segment in 'ports..mtu=3'"));
  CHECK(contains(override_error("ports.defaults.=3"), "empty path segment"));
  CHECK(contains(override_error(".mtu=3"), "empty path segment"));
  CHECK(contains(override_error("workload.flows.2.sl=3"),
                 "index 2 is beyond the end of the list 'workload.flows' (2 elements)"));
  CHECK(contains(override_error("workload.flows.99999999999999999999.sl=3"),
                 "index 99999999999999999999 is beyond the end of the list 'workload.flows' (2 elements)"));
  CHECK(contains(override_error("a.2=1", json::parse(R"({"a": [0]})")), "(1 element)"));
  CHECK(contains(override_error("workload.flows.x.sl=3"), "'x' is not an index into the list 'workload.flows'"));
  CHECK(contains(override_error("workload.flows.-1.sl=3"), "'-1' is not an index"));
  CHECK(contains(override_error("run.duration.unit=ns"),
                 "cannot set 'unit' inside 'run.duration', which is string \"1ms\", not an object or list"));
  CHECK(contains(override_error("workload.flows.0.sl.x=1"), "inside 'workload.flows.0.sl', which is number 0"));
  CHECK(contains(override_error("0=1", json::array()), "index 0 is beyond the end of the top-level list (0 elements)"));
  CHECK(contains(override_error("a=1", json(5)), "inside the top level, which is number 5"));
}

TEST_CASE("overrides feed the strict reader: values land - unknown keys are caught") {
  json j = config::write_config(ex::Root{});
  j["links"] = json::array({json::object(), json::object()});
  config::apply_override(j, "a.mtu=2048");
  config::apply_override(j, "a.speed=EDR");
  config::apply_override(j, "a.latency=4.096us");
  config::apply_override(j, "links.1.sub.factor=0.5");
  config::apply_override(j, "a.sl2vl=[3,2,1]");
  const auto root = config::read_config<ex::Root>(j);
  CHECK(root.a.mtu == 2048);
  CHECK(root.a.speed == ex::Speed::Edr);
  CHECK(root.a.latency_ps == 4096000);
  CHECK(root.links[1].sub.factor == 0.5);
  CHECK(root.a.sl2vl == std::vector<uint32_t>{3, 2, 1});

  json misspelt = config::write_config(ex::Root{});
  config::apply_override(misspelt, "a.sub.fator=0.5");
  try {
    config::read_config<ex::Root>(misspelt);
    FAIL("misspelt override accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "a.sub.fator: unknown key 'fator' (did you mean 'factor'?); accepted keys: enabled, factor, entries");
  }

  json unquoted_number = config::write_config(ex::Root{});
  config::apply_override(unquoted_number, "a.mtu=2048x");  // not JSON: a string, which the reader rejects
  CHECK_THROWS_WITH(config::read_config<ex::Root>(unquoted_number),
                    "a.mtu: expected an integer, got string \"2048x\"; accepted: 256, 512, 1024, 2048, 4096");
}
