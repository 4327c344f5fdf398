// The MAD keys and actions of link.faults.drops[i]: read strictly, written
// back so that the written config reads to the same rules, and every mistake
// one line naming its JSON path and what is accepted.
#include <catch2/catch.hpp>

#include "models/config/link_config_io.hpp"
#include "models/ib/mad.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
using namespace hcasim;
namespace config = hcasim::config;

namespace {

std::string read_error(const std::string& text) {
  try {
    config::read_config<link::FaultConfig>(json::parse(text), "link.faults");
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    return what;
  }
  FAIL("no ConfigError for " << text);
  return "";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("fault config: MAD filters and actions are read and written back to the same rules") {
  const json in = json::parse(R"({"drops": [
    {"action": "delay", "delay": "5us", "mad_kind": "sa_ack", "every": true},
    {"action": "duplicate", "mad_class": "0x03", "mad_method": 146, "mad_attribute": "0x0035",
     "sa_segment": 7, "sa_flags": ["first", "last"], "sa_flags_clear": 160},
    {"mad_kind": "smp", "mad_class": "0x81", "nth": 2}
  ]})");
  const link::FaultConfig c = config::read_config<link::FaultConfig>(in, "link.faults");
  REQUIRE(c.drops.size() == 3);
  const link::DropRule& d = c.drops[0];
  CHECK(d.action == link::RuleAction::Delay);
  CHECK(d.delay_ps == 5'000'000);
  CHECK(d.mad.kind == link::MadKind::SaAck);
  CHECK(d.every);
  const link::DropRule& u = c.drops[1];
  CHECK(u.action == link::RuleAction::Duplicate);
  CHECK(u.mad.mgmt_class == std::optional<uint8_t>(ib::kClassSubnAdm));
  CHECK(u.mad.method == std::optional<uint8_t>(ib::kMethodGetTableResp));  // 146 = 0x92
  CHECK(u.mad.attribute == std::optional<uint16_t>(ib::kAttrPathRecord));
  CHECK(u.mad.sa_segment == std::optional<uint32_t>(7));
  CHECK(u.mad.sa_flags == std::optional<uint8_t>(ib::kFragFirst | ib::kFragLast));
  CHECK(u.mad.sa_flags_clear == std::optional<uint8_t>(ib::kFragAck | ib::kFragKeepAlive));  // 160 = 0xA0
  const link::DropRule& s = c.drops[2];
  CHECK(s.action == link::RuleAction::Drop);
  CHECK(s.mad.kind == link::MadKind::Smp);
  CHECK(s.mad.mgmt_class == std::optional<uint8_t>(ib::kClassSubnDr));
  CHECK(s.nth == 2);

  const json out = config::write_config(c);
  CHECK(out["drops"][0]["action"] == "delay");
  CHECK(out["drops"][0]["mad_kind"] == "sa_ack");
  CHECK(out["drops"][1]["mad_method"] == "0x92");
  CHECK(out["drops"][1]["mad_attribute"] == "0x0035");
  CHECK(out["drops"][1]["sa_flags"] == json::array({"first", "last"}));
  CHECK(out["drops"][1]["sa_flags_clear"] == json::array({"ack", "keepalive"}));
  CHECK(out["drops"][2]["sa_segment"].is_null());
  CHECK(out["drops"][2]["mad_kind"] == "smp");
  CHECK(config::read_config<link::FaultConfig>(out, "link.faults") == c);
  // A rule without the new keys reads as before: a drop with no MAD filter.
  const link::FaultConfig plain = config::read_config<link::FaultConfig>(json::parse(R"({"drops": [{"psn": 2}]})"));
  CHECK(plain.drops[0].action == link::RuleAction::Drop);
  CHECK_FALSE(plain.drops[0].mad.given());
}

TEST_CASE("fault config: a Fragment Flag mask without names for all its bits is written as a number") {
  link::FaultConfig c;
  link::DropRule r;
  r.mad.sa_flags = 0x02;  // bit 1 is reserved in seeds/000 Table 33-11: no name
  c.drops.push_back(r);
  const json out = config::write_config(c);
  CHECK(out["drops"][0]["sa_flags"] == 2);
  CHECK(config::read_config<link::FaultConfig>(out) == c);
}

TEST_CASE("fault config: each MAD rule mistake is one line naming its path and the accepted values") {
  struct Bad {
    const char* rule;
    const char* path;
    const char* accepted;
  };
  const std::vector<Bad> cases = {
      {R"({"action": "delayed"})", "link.faults.drops.0.action", "drop, delay, duplicate"},
      {R"({"action": "delay"})", "link.faults.drops.0.delay", "\"5us\""},
      {R"({"action": "delay", "delay": "0ns"})", "link.faults.drops.0.delay", "above 0"},
      {R"({"delay": "5us"})", "link.faults.drops.0.delay", "only for \"action\": \"delay\""},
      {R"({"action": "duplicate", "delay": "1us"})", "link.faults.drops.0.delay", "\"duplicate\""},
      {R"({"action": "delay", "delay": "fast"})", "link.faults.drops.0.delay", "accepted"},
      {R"({"mad_kind": "ack"})", "link.faults.drops.0.mad_kind", "sa_ack"},
      {R"({"mad_class": "0x100"})", "link.faults.drops.0.mad_class", "from 0 to 255"},
      {R"({"mad_class": "SubnAdm"})", "link.faults.drops.0.mad_class", "hexadecimal"},
      {R"({"mad_method": -1})", "link.faults.drops.0.mad_method", "from 0 to 255"},
      {R"({"mad_attribute": 65536})", "link.faults.drops.0.mad_attribute", "from 0 to 65535"},
      {R"({"sa_segment": "one"})", "link.faults.drops.0.sa_segment", "0 to 4294967295"},
      {R"({"sa_flags": ["ack", "nack"]})", "link.faults.drops.0.sa_flags.1", "\"keepalive\""},
      {R"({"sa_flags": 256})", "link.faults.drops.0.sa_flags", "0-255"},
      {R"({"sa_flags_clear": "ack"})", "link.faults.drops.0.sa_flags_clear", "bit names"},
      {R"({"mad_clas": 3})", "link.faults.drops.0.mad_clas", "mad_class"},
  };
  for (const Bad& b : cases) {
    const std::string what = read_error(std::string(R"({"drops": [)") + b.rule + "]}");
    INFO(b.rule << " -> " << what);
    CHECK(starts_with(what, std::string(b.path) + ": "));
    CHECK(contains(what, b.accepted));
  }
}
