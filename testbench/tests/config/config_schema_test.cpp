// ConfigSchema: the JSON Schema made from a describe(), field by field, and the unit patterns
// checked against the parsers they describe.

#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "models/config/config_schema.hpp"
#include "models/config/units.hpp"
#include "testbench/tests/config/example_configs.hpp"

using nlohmann::json;
namespace config = hcasim::config;
namespace ex = hcasim::config::example;

TEST_CASE("schema: every kind of field with its type - range - allowed values - default and help") {
  const json s = config::config_schema<ex::LinkExample>();
  REQUIRE(s["type"] == "object");
  REQUIRE(s["additionalProperties"] == false);
  const json& p = s["properties"];
  CHECK(p.size() == 15);
  // bytes: an integer in range, or a size string
  CHECK(p["buffer"]["anyOf"][0] == json({{"type", "integer"}, {"minimum", 64}, {"maximum", 1ull << 30}}));
  CHECK(p["buffer"]["anyOf"][1]["pattern"] == config::bytes_pattern());
  CHECK(p["buffer"]["default"] == "64KiB");
  CHECK(p["mtu"]["enum"] == json({256, 512, 1024, 2048, 4096}));
  CHECK(p["vls"]["minimum"] == 1);
  CHECK(p["vls"]["maximum"] == 15);
  CHECK(p["vls"]["default"] == 8);
  CHECK(p["packets"]["maximum"] == 1000000000000ull);
  CHECK(p["load"] == json({{"type", "number"},
                           {"minimum", 0.0},
                           {"maximum", 1.0},
                           {"default", 0.5},
                           {"description",
                            "offered load as a fraction of the line rate (accepted: a number from 0.0 to 1.0)"}}));
  CHECK(p["lossless"]["type"] == "boolean");
  CHECK(p["name"]["type"] == "string");
  CHECK(p["latency"]["pattern"] == config::time_pattern());
  CHECK(p["latency"]["default"] == "90ns");
  CHECK(p["rate"]["pattern"] == config::rate_pattern());
  CHECK(p["length"]["pattern"] == config::length_pattern());
  CHECK(p["speed"]["enum"] == json({"SDR", "DDR", "QDR", "FDR", "EDR", "HDR"}));
  CHECK(p["speed"]["default"] == "HDR");
  // A custom field without a schema: its text only, no constraint.
  CHECK(p["width"] == json({{"default", "4x"}, {"description", "link width (accepted: 1x, 4x, 8x, 12x)"}}));
  CHECK(p["sl2vl"] == json({{"type", "array"},
                            {"items", {{"type", "integer"}, {"minimum", 0}, {"maximum", 14}}},
                            {"minItems", 1},
                            {"maxItems", 16},
                            {"default", {0, 1, 2, 3}},
                            {"description", "data VL for each SL (accepted: a list of 1 to 16 integers (each an "
                                            "integer from 0 to 14))"}}));
  // Lists of objects and nested objects: strict objects of their own fields.
  CHECK(p["entries"]["maxItems"] == 4);
  CHECK_FALSE(p["entries"].contains("minItems"));
  CHECK(p["entries"]["items"]["additionalProperties"] == false);
  CHECK(p["entries"]["items"]["properties"]["weight"]["minimum"] == 1);
  CHECK(p["sub"]["additionalProperties"] == false);
  CHECK(p["sub"]["description"] == "a nested block");
  CHECK(p["sub"]["properties"]["entries"]["items"]["properties"]["name"]["default"] == "entry");
}

namespace {
// A pattern as JSON Schema reads it (ECMAScript), compiled once per pattern: compiling it per
// string made the integer test 2 minutes long under the sanitizers.
std::regex schema_regex(const std::string& pattern) { return std::regex(pattern, std::regex::ECMAScript); }

bool matches(const std::regex& re, const std::string& text) { return std::regex_search(text, re); }

// The parser's verdict on the form: true when it reads the text, or refuses only its value
// (a fraction of a byte or picosecond, too large, too small), which no pattern states.
template <class Parse>
bool form_accepted(Parse parse, const std::string& text) {
  try {
    parse(json(text), "x");
    return true;
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    return what.find("whole number") != std::string::npos || what.find("too large") != std::string::npos ||
           what.find("too small") != std::string::npos;
  }
}
}  // namespace

TEST_CASE("schema: each unit pattern matches exactly the strings its parser reads") {
  const std::vector<std::string> numbers = {"64", "1.5", "0", ".5", "5.", "2e3", "1E-3", "1e+2", "007", "",
                                            ".",  "-1", "+1", "1e", "e3", "1.2.3", "0x10", "1,5", " 1", "1e400"};
  const std::vector<std::string> units = {"B",  "KiB", "MiB", "GiB", "KB",   "MB",  "GB",   "kB",  "ps",   "ns",
                                          "us", "µs",  "μs",  "ms",  "s",    "sec", "b/s",  "kb/s", "Mb/s", "Gb/s",
                                          "Tb/s", "B/s", "KB/s", "MB/s", "GB/s", "TB/s", "gb/s", "m", "cm", "mm",
                                          "km", "",    "  ns", " ns", "ns ", "Gbps"};
  struct Kind {
    const char* name;
    std::string pattern;
    uint64_t (*whole)(const json&, const std::string&);
    double (*real)(const json&, const std::string&);
  };
  const Kind kinds[] = {{"bytes", config::bytes_pattern(), config::parse_bytes, nullptr},
                        {"time", config::time_pattern(), config::parse_time_ps, nullptr},
                        {"rate", config::rate_pattern(), nullptr, config::parse_rate_bps},
                        {"length", config::length_pattern(), nullptr, config::parse_length_m}};
  int accepted = 0;
  for (const Kind& k : kinds) {
    const std::regex re = schema_regex(k.pattern);
    for (const std::string& n : numbers) {
      for (const std::string& u : units) {
        const std::string text = n + u;
        INFO(k.name << " \"" << text << "\"");
        const bool parser = k.whole ? form_accepted(k.whole, text) : form_accepted(k.real, text);
        CHECK(matches(re, text) == parser);
        accepted += parser;
      }
    }
  }
  CHECK(accepted > 100);  // the corpus reaches both verdicts
}

TEST_CASE("schema: integer_regex matches the decimal integers 0 to max and no others") {
  for (unsigned max : {0u, 7u, 9u, 10u, 14u, 15u, 99u, 100u, 255u, 1000u, 4095u}) {
    const std::string pattern = "^" + config::schema::integer_regex(max) + "$";
    const std::regex re = schema_regex(pattern);
    for (unsigned n = 0; n <= 2 * max + 20; ++n) {
      INFO(pattern << " " << n);
      CHECK(matches(re, std::to_string(n)) == (n <= max));
      CHECK(matches(re, "00" + std::to_string(n)) == (n <= max));  // leading zeros, as sscanf reads them
    }
    CHECK_FALSE(matches(re, ""));
    CHECK_FALSE(matches(re, "-1"));
  }
}
