// The scenario's link_events list: read with its defaults (training 100 us,
// up 0 = never), carried into the fabric description, and every mistake one
// line naming its JSON path (an unknown or unlinked port, a wildcard, up not
// after down, a misspelt key).
#include <catch2/catch.hpp>

#include "models/config/config_error.hpp"
#include "models/config/scenario.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
using namespace hcasim;

namespace {

json scenario(const json& events) {
  json s = json::parse(R"({"topology": {"pattern": "single_switch", "hosts": 2, "switch_ports": 4}})");
  s["link_events"] = events;
  return s;
}

std::string load_error(const json& events) {
  try {
    config::load_scenario(scenario(events));
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    return what;
  }
  FAIL("no ConfigError for " << events.dump());
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("link_events config: entries are read with their defaults and reach the fabric description") {
  const config::Scenario s = config::load_scenario(scenario(json::parse(
      R"([{"link": "hca1.p1", "down": "50us", "up": "200us"}, {"link": "hca0.p1", "down": "1us", "training": "2us"}])")));
  REQUIRE(s.link_events.size() == 2);
  CHECK(s.link_events[0].link == "hca1.p1");
  CHECK(s.link_events[0].down_ps == 50'000'000);
  CHECK(s.link_events[0].up_ps == 200'000'000);
  CHECK(s.link_events[0].training_ps == link::kDefaultTrainingPs);
  CHECK(s.link_events[1].up_ps == 0);
  CHECK(s.link_events[1].training_ps == 2'000'000);
  const config::FabricSpec spec = config::fabric_spec(s);
  REQUIRE(spec.link_events.size() == 2);
  CHECK(spec.link_events[1].link == "hca0.p1");
  // Written back, the list reads to the same events.
  const config::Scenario again = config::load_scenario(config::resolved_json(s));
  REQUIRE(again.link_events.size() == 2);
  CHECK(again.link_events[0].up_ps == 200'000'000);
}

TEST_CASE("link_events config: mistakes name their JSON path") {
  CHECK(starts_with(load_error(json::parse(R"([{"link": "hca9.p1", "down": "1us"}])")), "link_events.0.link"));
  CHECK(starts_with(load_error(json::parse(R"([{"link": "hca*.p1", "down": "1us"}])")), "link_events.0.link"));
  CHECK(starts_with(load_error(json::parse(R"([{"link": "hca0.p1", "down": "5us", "up": "5us"}])")), "link_events.0.up"));
  CHECK(starts_with(load_error(json::parse(R"([{"link": "hca0.p1", "down": "5us", "up": "2us"}])")), "link_events.0.up"));
  CHECK(starts_with(load_error(json::parse(R"([{"link": "hca0.p1", "dwon": "5us"}])")), "link_events.0.dwon"));
  // A switch port with no cable.
  CHECK(starts_with(load_error(json::parse(R"([{"link": "sw0.p4", "down": "5us"}])")), "link_events.0.link"));
  // Parallel simulation has no link events.
  json p = scenario(json::parse(R"([{"link": "hca0.p1", "down": "5us"}])"));
  p["run"]["partitions"] = 2;
  try {
    config::load_scenario(p);
    FAIL("no ConfigError with run.partitions 2");
  } catch (const ConfigError& e) {
    CHECK(starts_with(e.what(), "link_events"));
  }
}
