// The scenario's congestion_control section: off by default, the attributes
// it installs (switch setting, CA setting, the generated or explicit table)
// worked out by hand, and each mistake one line naming its JSON path.
#include <catch2/catch.hpp>

#include <string>

#include "models/config/config_error.hpp"
#include "models/config/scenario.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
using namespace hcasim;

namespace {

json scenario(const json& cc) {
  json s = json::parse(R"({"topology": {"pattern": "single_switch", "hosts": 2, "switch_ports": 4}})");
  s["congestion_control"] = cc;
  return s;
}

std::string load_error(const json& cc) {
  try {
    config::load_scenario(scenario(cc));
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    return what;
  }
  FAIL("no ConfigError for " << cc.dump());
  return "";
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

TEST_CASE("congestion_control: off by default and carried into the fabric spec", "[config][cc]") {
  const config::Scenario off = config::load_scenario(scenario(json::object()));
  CHECK_FALSE(off.congestion_control.enabled);
  CHECK_FALSE(config::fabric_spec(off).congestion_control.enabled);
  const config::Scenario on = config::load_scenario(scenario(json::parse(R"({"enabled": true, "switch": {"threshold": 12}})")));
  CHECK(config::fabric_spec(on).congestion_control.enabled);
  CHECK(config::fabric_spec(on).congestion_control.switches.threshold == 12);
  const config::Scenario again = config::load_scenario(config::resolved_json(on));
  CHECK(again.congestion_control.switches.threshold == 12);
}

TEST_CASE("congestion_control: the attributes it installs", "[config][cc]") {
  config::CongestionControlConfig c;
  c.switches.threshold = 9;
  c.switches.marking_rate = 3;
  c.switches.packet_size = 4;
  const ib::SwitchCongestionSetting s = config::switch_setting(c.switches);
  CHECK(s.threshold == 9);
  CHECK(s.marking_rate == 3);
  CHECK(s.packet_size == 4);
  CHECK_FALSE(s.victim_mask.test(1));
  c.switches.victim_marking = true;
  CHECK(config::switch_setting(c.switches).victim_mask.test(1));
  CHECK(config::switch_setting(c.switches).victim_mask.test(36));

  c.ca.control_type = config::CcControlType::PerSl;
  c.ca.ccti_increase = 3;
  c.ca.ccti_timer = 50;
  c.ca.ccti_min = 1;
  const ib::CaCongestionSetting ca = config::ca_setting(c.ca);
  CHECK(ca.port_control == ib::kCaPortControlPerSl);
  CHECK(ca.entries[0].ccti_increase == 3);
  CHECK(ca.entries[15].ccti_timer == 50);
  CHECK(ca.entries[7].ccti_min == 1);

  // Generated: entry i = {2, i} by default; 128 entries for CCTI_Limit 127.
  const auto t = config::cct_entries(config::CaCcConfig{});
  REQUIRE(t.size() == 128);
  CHECK(t[0] == ib::CctEntry{2, 0});
  CHECK(t[5] == ib::CctEntry{2, 5});
  CHECK(t[127] == ib::CctEntry{2, 127});
  // Explicit words: 0x4003 is shift 1, multiplier 3.
  config::CaCcConfig e;
  e.ccti_limit = 1;
  e.cct = {0x0000, 0x4003};
  const auto t2 = config::cct_entries(e);
  REQUIRE(t2.size() == 2);
  CHECK(t2[1] == ib::CctEntry{1, 3});
}

TEST_CASE("congestion_control: a bad value is one line naming its path", "[config][cc]") {
  CHECK(starts_with(load_error(json::parse(R"({"switch": {"threshold": 16}})")), "congestion_control.switch.threshold"));
  CHECK(starts_with(load_error(json::parse(R"({"ca": {"control_type": "per_port"}})")), "congestion_control.ca.control_type"));
  CHECK(starts_with(load_error(json::parse(R"({"ca": {"ccti_limit": 10, "ccti_min": 11}})")), "congestion_control.ca.ccti_min"));
  CHECK(starts_with(load_error(json::parse(R"({"ca": {"ccti_limit": 3, "cct": [0, 1]}})")), "congestion_control.ca.cct"));
  CHECK(starts_with(load_error(json::parse(R"({"enable": true})")), "congestion_control"));
}
