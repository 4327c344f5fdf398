// The single-description machinery: strict reading, writing that reads back, documentation,
// and one exact one-line error per kind of bad configuration.

#include <catch2/catch.hpp>

#include "models/config/config_io.hpp"
#include "testbench/tests/config/example_configs.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
namespace config = hcasim::config;
namespace ex = hcasim::config::example;

namespace {

// The ConfigError reading `text` as T throws; checks it is one line that starts with the path.
template <class T>
ConfigError read_error(const std::string& text, const std::string& prefix = "") {
  try {
    config::read_config<T>(json::parse(text), prefix);
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(what.find('\n') == std::string::npos);
    if (!e.path().empty()) CHECK(what.rfind(e.path() + ": ", 0) == 0);
    return e;
  }
  FAIL("no ConfigError for " << text);
  throw std::logic_error("unreachable");
}

struct BadCase {
  const char* input;
  const char* path;
  const char* what;  // the whole line
};

}  // namespace

TEST_CASE("reader: absent keys keep the in-class defaults") {
  CHECK(config::read_config<ex::LinkExample>(json::object()) == ex::LinkExample{});
  CHECK(config::read_config<ex::Root>(json::parse(R"({"a": {}, "links": []})")) == ex::Root{});
  // A partly given nested object keeps the defaults of the fields it does not name.
  const auto c = config::read_config<ex::LinkExample>(json::parse(R"({"sub": {"factor": 1.5}})"));
  CHECK(c.sub.factor == 1.5);
  CHECK(c.sub.enabled == false);
  CHECK(c.mtu == 4096);
}

TEST_CASE("reader: every kind of field is parsed") {
  const auto c = config::read_config<ex::LinkExample>(json::parse(R"({
    "buffer": "128KiB", "mtu": 2048, "vls": 15, "packets": 1000000000000, "load": 1,
    "lossless": false, "name": "spine-1", "latency": "4.096us", "rate": "25GB/s",
    "length": "50cm", "speed": "EDR", "width": "12x", "sl2vl": [14, 0, 7],
    "entries": [{"name": "a", "weight": 255}, {}],
    "sub": {"enabled": true, "factor": 0.25, "entries": [{"weight": 2}]}
  })"));
  CHECK(c.buffer == 131072);
  CHECK(c.mtu == 2048);
  CHECK(c.vls == 15);
  CHECK(c.packets == 1000000000000ull);
  CHECK(c.load == 1.0);
  CHECK(c.lossless == false);
  CHECK(c.name == "spine-1");
  CHECK(c.latency_ps == 4096000);
  CHECK(c.rate_bps == 200e9);
  CHECK(c.length_m == 0.5);
  CHECK(c.speed == ex::Speed::Edr);
  CHECK(c.width == 12);
  CHECK(c.sl2vl == std::vector<uint32_t>{14, 0, 7});
  REQUIRE(c.entries.size() == 2);
  CHECK(c.entries[0] == ex::Entry{"a", 255});
  CHECK(c.entries[1] == ex::Entry{});  // list elements start from their defaults
  CHECK(c.sub.enabled);
  CHECK(c.sub.factor == 0.25);
  CHECK(c.sub.entries == std::vector<ex::Entry>{ex::Entry{"entry", 2}});
}

TEST_CASE("reader: a given list replaces the default list") {
  CHECK(config::read_config<ex::LinkExample>(json::parse(R"({"sl2vl": [5]})")).sl2vl == std::vector<uint32_t>{5});
}

TEST_CASE("reader: every kind of bad configuration is one exact line at its path") {
  const std::string keys =
      "buffer, mtu, vls, packets, load, lossless, name, latency, rate, length, speed, width, sl2vl, entries, sub";
  const std::string mtus = "256, 512, 1024, 2048, 4096";
  const std::string speeds = "SDR, DDR, QDR, FDR, EDR, HDR";
  const std::string time_forms = std::string("accepted: ") + config::kTimeForms;
  const std::vector<BadCase> cases = {
      // misspelt key, with a suggestion; unrelated key, without
      {R"({"sped": "HDR"})", "sped", "unknown key 'sped' (did you mean 'speed'?); accepted keys: "},
      {R"({"colour": 1})", "colour", "unknown key 'colour'; accepted keys: "},
      // wrong unit, missing unit, bare number where units are required
      {R"({"latency": "90 nsec"})", "latency", "\"90 nsec\" has unknown unit 'nsec'; "},
      {R"({"latency": "90"})", "latency", "\"90\" has no unit; "},
      {R"({"latency": 90})", "latency", "90 has no unit (units are required); "},
      {R"({"rate": 200})", "rate", "200 has no unit (units are required); "},
      {R"({"length": "3ft"})", "length", "\"3ft\" has unknown unit 'ft'; "},
      // negative size, fraction of a byte
      {R"({"buffer": -64})", "buffer", "-64 is negative; "},
      {R"({"buffer": "0.5B"})", "buffer", "\"0.5B\" is not a whole number of bytes; "},
      // out of range
      {R"({"vls": 16})", "vls", "16 is out of range; accepted: an integer from 1 to 15"},
      {R"({"vls": 0})", "vls", "0 is out of range; accepted: an integer from 1 to 15"},
      {R"({"vls": 1099511627776})", "vls", "1099511627776 is out of range; accepted: an integer from 1 to 15"},
      {R"({"packets": 1000000000001})", "packets",
       "1000000000001 is out of range; accepted: an integer from 0 to 1000000000000"},
      {R"({"load": 1.5})", "load", "1.5 is out of range; accepted: a number from 0.0 to 1.0"},
      {R"({"buffer": "32B"})", "buffer", "\"32B\" is out of range; accepted: a size from 64B to 1GiB"},
      {R"({"latency": "2ms"})", "latency", "\"2ms\" is out of range; accepted: a time from 0ns to 1ms"},
      {R"({"rate": "100Tb/s"})", "rate", "\"100Tb/s\" is out of range; accepted: a rate from 1Mb/s to 10Tb/s"},
      {R"({"length": "2km"})", "length", "\"2km\" is out of range; accepted: a length from 0m to 1km"},
      {R"({"length": "2mi"})", "length", "\"2mi\" has unknown unit 'mi'; "},
      // not in the allowed set, unknown choice
      {R"({"mtu": 5000})", "mtu", "5000 is not an allowed value; accepted: 256, 512, 1024, 2048, 4096"},
      {R"({"speed": "XDR"})", "speed", "\"XDR\" is not a known name; accepted: SDR, DDR, QDR, FDR, EDR, HDR"},
      {R"({"speed": "hdr"})", "speed",
       "\"hdr\" is not a known name (names are case-sensitive: 'HDR'); accepted: SDR, DDR, QDR, FDR, EDR, HDR"},
      {R"({"width": "3x"})", "width", "\"3x\" is not a link width; accepted: 1x, 4x, 8x, 12x"},
      // wrong types
      {R"({"mtu": "4096"})", "mtu", "expected an integer, got string \"4096\"; accepted: 256, 512, 1024, 2048, 4096"},
      {R"({"vls": 3.5})", "vls", "expected an integer, got number 3.5; accepted: an integer from 1 to 15"},
      {R"({"vls": 4.0})", "vls", "expected an integer, got number 4.0; accepted: an integer from 1 to 15"},
      {R"({"packets": true})", "packets", "expected an integer, got true; accepted: an integer from 0 to 1000000000000"},
      {R"({"vls": null})", "vls", "expected an integer, got null; accepted: an integer from 1 to 15"},
      {R"({"load": "50%"})", "load", "expected a number, got string \"50%\"; accepted: a number from 0.0 to 1.0"},
      {R"({"lossless": "yes"})", "lossless", "expected true or false, got string \"yes\"; accepted: true or false"},
      {R"({"name": 5})", "name", "expected a string, got number 5; accepted: a string"},
      {R"({"speed": 3})", "speed", "expected a string, got number 3; accepted: SDR, DDR, QDR, FDR, EDR, HDR"},
      {R"({"sub": []})", "sub", "expected an object, got a list; accepted: an object with keys enabled, factor, entries"},
      {R"({"entries": {}})", "entries", "expected a list, got an object; accepted: a list of 0 to 4 objects"},
      {R"({"entries": [3]})", "entries.0",
       "expected an object, got number 3; accepted: an object with keys name, weight"},
      {R"({"sl2vl": "0,1"})", "sl2vl",
       "expected a list, got string \"0,1\"; accepted: a list of 1 to 16 integers from 0 to 14"},
      // list length and list elements
      {R"({"entries": [{}, {}, {}, {}, {}]})", "entries",
       "has 5 elements, more than 4; accepted: a list of 0 to 4 objects"},
      {R"({"sl2vl": []})", "sl2vl", "has 0 elements, fewer than 1; accepted: a list of 1 to 16 integers from 0 to 14"},
      {R"({"sl2vl": [0, 15]})", "sl2vl.1", "15 is out of range; accepted: an integer from 0 to 14"},
      {R"({"sl2vl": [0, -1]})", "sl2vl.1", "-1 is negative; accepted: an integer from 0 to 14"},
      {R"({"entries": [{"weight": 0}]})", "entries.0.weight", "0 is out of range; accepted: an integer from 1 to 255"},
      // unknown keys in nested objects and list elements
      {R"({"sub": {"enable": true}})", "sub.enable",
       "unknown key 'enable' (did you mean 'enabled'?); accepted keys: enabled, factor, entries"},
      {R"({"sub": {"entries": [{}, {"bogus": 1}]}})", "sub.entries.1.bogus",
       "unknown key 'bogus'; accepted keys: name, weight"},
  };
  for (const BadCase& c : cases) {
    INFO(c.input);
    const ConfigError e = read_error<ex::LinkExample>(c.input);
    CHECK(e.path() == c.path);
    const std::string what = e.what();
    const std::string expected = std::string(c.path) + ": " + c.what;
    // Cases ending in "; " or "keys: " are checked up to there, then for the accepted list.
    if (expected.back() == ' ') {
      CHECK(what.substr(0, expected.size()) == expected);
      CHECK(what.find("accepted") != std::string::npos);
    } else {
      CHECK(what == expected);
    }
  }
  // The accepted lists cut off above, in full.
  CHECK(std::string(read_error<ex::LinkExample>(R"({"sped": 1})").what()).find("accepted keys: " + keys) !=
        std::string::npos);
  CHECK(std::string(read_error<ex::LinkExample>(R"({"latency": "90 nsec"})").what()).find(time_forms) !=
        std::string::npos);
}

TEST_CASE("reader: deep paths through objects and lists") {
  ConfigError e = read_error<ex::Root>(R"({"a": {"entries": [{"name": "x"}, {"wieght": 2}]}})");
  CHECK(e.path() == "a.entries.1.wieght");
  CHECK(std::string(e.what()) ==
        "a.entries.1.wieght: unknown key 'wieght' (did you mean 'weight'?); accepted keys: name, weight");

  e = read_error<ex::Root>(R"({"links": [{}, {}, {"sub": {"entries": [{"weight": "2"}]}}]})");
  CHECK(std::string(e.what()) ==
        "links.2.sub.entries.0.weight: expected an integer, got string \"2\"; accepted: an integer from 1 to 255");

  e = read_error<ex::Sub>(R"({"factor": 3})", "ports.defaults");
  CHECK(std::string(e.what()) == "ports.defaults.factor: 3 is out of range; accepted: a number from 0.0 to 2.0");

  e = read_error<ex::Root>("[1]");
  CHECK(e.path() == "");
  CHECK(std::string(e.what()) == "expected an object, got a list; accepted: an object with keys a, links");
}

TEST_CASE("reader: the first unknown key is reported even after valid ones") {
  const ConfigError e = read_error<ex::LinkExample>(R"({"mtu": 1024, "zzz": 1, "aaa": 2})");
  CHECK(e.path() == "aaa");
}

TEST_CASE("reader: cross-field rules through present() and fail()") {
  const auto by_length = config::read_config<ex::Cable>(json::parse(R"({"length": "5m"})"));
  CHECK(by_length.length_m == 5.0);
  const auto by_delay = config::read_config<ex::Cable>(json::parse(R"({"propagation": "25ns"})"));
  CHECK(by_delay.propagation_ps == 25000);

  ConfigError e = read_error<ex::Cable>(R"({"length": "5m", "propagation": "25ns"})", "links.3");
  CHECK(std::string(e.what()) ==
        "links.3.propagation: given together with length; accepted: length or propagation, not both");

  e = read_error<ex::Cable>(R"({"min_rate": "200Gb/s"})");
  CHECK(std::string(e.what()) == "min_rate: 200Gb/s is above max_rate 100Gb/s; accepted: min_rate <= max_rate");
}

TEST_CASE("writer: every field with its current value - units formatted") {
  const json expected = json::parse(R"({
    "buffer": "64KiB", "mtu": 4096, "vls": 8, "packets": 1000, "load": 0.5, "lossless": true,
    "name": "link", "latency": "90ns", "rate": "200Gb/s", "length": "3m", "speed": "HDR",
    "width": "4x", "sl2vl": [0, 1, 2, 3], "entries": [],
    "sub": {"enabled": false, "factor": 1.0, "entries": []}
  })");
  CHECK(config::write_config(ex::LinkExample{}) == expected);
}

TEST_CASE("writer: output reads back to an equal struct") {
  ex::LinkExample c;
  c.buffer = 4100;
  c.mtu = 256;
  c.vls = 1;
  c.packets = 0;
  c.load = 0.1;
  c.lossless = false;
  c.name = "a \"quoted\" name\n";
  c.latency_ps = 4096001;
  c.rate_bps = 53.125e9;
  c.length_m = 0.0003;
  c.speed = ex::Speed::Sdr;
  c.width = 1;
  c.sl2vl = {14, 14, 0};
  c.entries = {{"x", 3}, {"y", 255}};
  c.sub.enabled = true;
  c.sub.factor = 2.0 / 3.0;
  c.sub.entries = {{"z", 9}};

  const json written = config::write_config(c);
  CHECK(config::read_config<ex::LinkExample>(written) == c);
  CHECK(config::read_config<ex::LinkExample>(json::parse(written.dump(2))) == c);  // through text too

  ex::Root root;
  root.a = c;
  root.links = {ex::LinkExample{}, c};
  CHECK(config::read_config<ex::Root>(json::parse(config::write_config(root).dump())) == root);
}

TEST_CASE("doc: one row per field with path - accepted values - default and help") {
  const std::vector<config::DocRow> rows = config::document_rows<ex::Root>();
  std::vector<std::string> paths;
  for (const config::DocRow& r : rows) paths.push_back(r.path);
  const std::vector<std::string> link_fields = {
      "buffer", "mtu",     "vls",        "packets",    "load",  "lossless",      "name",
      "latency", "rate",   "length",     "speed",      "width", "sl2vl",         "entries",
      "entries[].name", "entries[].weight", "sub", "sub.enabled", "sub.factor", "sub.entries",
      "sub.entries[].name", "sub.entries[].weight"};
  std::vector<std::string> expected = {"a"};
  for (const std::string& p : link_fields) expected.push_back("a." + p);
  expected.push_back("links");
  for (const std::string& p : link_fields) expected.push_back("links[]." + p);
  CHECK(paths == expected);

  const auto row = [&](const std::string& path) {
    for (const config::DocRow& r : rows) {
      if (r.path == path) return r;
    }
    FAIL("no row " << path);
    return config::DocRow{};
  };
  CHECK(row("a.buffer").default_value == "\"64KiB\"");
  CHECK(row("a.buffer").accepted == "a size from 64B to 1GiB");
  CHECK(row("a.buffer").help == "receive buffer per VL");
  CHECK(row("a.mtu").default_value == "4096");
  CHECK(row("a.mtu").accepted == "256, 512, 1024, 2048, 4096");
  CHECK(row("a.speed").default_value == "\"HDR\"");
  CHECK(row("a.speed").accepted == "SDR, DDR, QDR, FDR, EDR, HDR");
  CHECK(row("a.latency").default_value == "\"90ns\"");
  CHECK(row("a.width").default_value == "\"4x\"");
  CHECK(row("a.width").accepted == "1x, 4x, 8x, 12x");
  CHECK(row("a.sl2vl").default_value == "[0,1,2,3]");
  CHECK(row("a.sl2vl").accepted == "a list of 1 to 16 integers from 0 to 14");
  CHECK(row("a.entries").accepted == "a list of 0 to 4 objects");
  CHECK(row("links[].entries[].weight").default_value == "1");
  CHECK(row("links[].sub.factor").default_value == "1.0");
  CHECK(row("a.sub").accepted == "an object");
  for (const config::DocRow& r : rows) {
    INFO(r.path);
    CHECK(!r.help.empty());
    CHECK(!r.accepted.empty());
  }
}

TEST_CASE("doc: every documented default reads back to the in-class default") {
  for (const config::DocRow& r : config::document_rows<ex::LinkExample>()) {
    if (r.default_value.empty() || r.path.find_first_of(".[") != std::string::npos) continue;
    INFO(r.path);
    json one = json::object();
    one[r.path] = json::parse(r.default_value);
    CHECK(config::read_config<ex::LinkExample>(one) == ex::LinkExample{});
  }
}

TEST_CASE("doc: Markdown table") {
  const std::string md = config::document_config<ex::LinkExample>("Link example");
  CHECK(md.rfind("## Link example\n\n| key | accepted | default | meaning |\n|---|---|---|---|\n", 0) == 0);
  CHECK(md.find("| `buffer` | a size from 64B to 1GiB | `\"64KiB\"` | receive buffer per VL |\n") !=
        std::string::npos);
  CHECK(md.find("| `sub` | an object |  | a nested block |\n") != std::string::npos);
  CHECK(md.find("| `entries[].weight` | an integer from 1 to 255 | `1` | arbitration weight |\n") !=
        std::string::npos);
  CHECK(md.find(std::string("Times: ") + config::kTimeForms) != std::string::npos);
}

TEST_CASE("writer and doc ignore present() and fail()") {
  ex::Cable c;
  c.min_rate_bps = 1e12;  // breaks min_rate <= max_rate: only the reader objects
  CHECK_NOTHROW(config::write_config(c));
  CHECK_NOTHROW(config::document_rows<ex::Cable>());
}
