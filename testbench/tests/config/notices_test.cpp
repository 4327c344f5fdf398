// Notices: what a size with a decimal prefix was read as (and nothing for binary
// prefixes), VL arbitration entries for VLs a port does not operate, one notice
// per path, nothing without a collector, and the cap on printed lines.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "models/config/link_config_io.hpp"
#include "models/config/notices.hpp"
#include "models/config/scenario.hpp"
#include "models/config/units.hpp"

using nlohmann::json;
namespace config = hcasim::config;

namespace {
std::vector<std::string> lines_of(const config::NoticeCollector& c) {
  std::vector<std::string> out;
  for (const config::Notice& n : c.notices()) out.push_back(n.line());
  return out;
}
}  // namespace

TEST_CASE("a decimal size prefix is read as powers of 1000 and says so - binary prefixes say nothing") {
  const config::NoticeCollector c;
  // 64 x 1000 and 64 x 1024, 1.5 x 10^6 and 1.5 x 2^20, 10^9 and 2^30.
  REQUIRE(config::parse_bytes(json("64KB"), "port.tx_buffer") == 64000);
  REQUIRE(config::parse_bytes(json("1.5 MB"), "port.vl_buffer") == 1500000);
  REQUIRE(config::parse_bytes(json("1GB"), "hca.rx_buffer") == 1000000000);
  REQUIRE(config::parse_bytes(json("0.3KB"), "a") == 300);  // 0.3 KiB is no whole number of bytes
  // Binary prefixes, bytes, integers and zero are unambiguous.
  REQUIRE(config::parse_bytes(json("64KiB"), "b") == 65536);
  REQUIRE(config::parse_bytes(json("2MiB"), "c") == 2097152);
  REQUIRE(config::parse_bytes(json("4096B"), "d") == 4096);
  REQUIRE(config::parse_bytes(json(4096), "e") == 4096);
  REQUIRE(config::parse_bytes(json("0KB"), "f") == 0);
  REQUIRE(lines_of(c) ==
          std::vector<std::string>{
              "port.tx_buffer: \"64KB\" read as 64,000 bytes (decimal kilo); write \"64KiB\" for 65,536",
              "port.vl_buffer: \"1.5 MB\" read as 1,500,000 bytes (decimal mega); write \"1.5 MiB\" for 1,572,864",
              "hca.rx_buffer: \"1GB\" read as 1,000,000,000 bytes (decimal giga); write \"1GiB\" for 1,073,741,824",
              "a: \"0.3KB\" read as 300 bytes (decimal kilo); KiB would be 1,024 bytes each"});
}

TEST_CASE("notices: one per path - none without a collector - nested collectors - a capped list of lines") {
  config::parse_bytes(json("64KB"), "p");  // no collector: dropped, nothing printed
  const config::NoticeCollector outer;
  config::parse_bytes(json("64KB"), "p");
  config::parse_bytes(json("32KB"), "p");  // the same path again: the first notice stands
  {
    const config::NoticeCollector inner;
    config::parse_bytes(json("8KB"), "q");
    REQUIRE(inner.notices().size() == 1);
  }
  config::parse_bytes(json("8KB"), "r");
  REQUIRE(lines_of(outer) == std::vector<std::string>{
                                 "p: \"64KB\" read as 64,000 bytes (decimal kilo); write \"64KiB\" for 65,536",
                                 "r: \"8KB\" read as 8,000 bytes (decimal kilo); write \"8KiB\" for 8,192"});

  std::vector<config::Notice> many;
  for (int i = 0; i < 25; ++i) many.push_back({"n" + std::to_string(i), "t"});
  const auto lines = config::notice_lines(many, "hcasim: note: ", 10);
  REQUIRE(lines.size() == 11);
  REQUIRE(lines.front() == "hcasim: note: n0: t");
  REQUIRE(lines.back() == "hcasim: note: 15 more notices like these (25 in all)");
  REQUIRE(config::notice_lines(std::vector<config::Notice>(many.begin(), many.begin() + 10), "", 10).size() == 10);
  REQUIRE(config::grouped(0) == "0");
  REQUIRE(config::grouped(999) == "999");
  REQUIRE(config::grouped(1000) == "1,000");
  REQUIRE(config::grouped(18446744073709551615ull) == "18,446,744,073,709,551,615");
}

TEST_CASE("VL arbitration entries for VLs a port does not operate are kept and named in one notice per table") {
  const config::NoticeCollector c;
  // A ConnectX-2's default table lists VL0-7; OpenSM's defaults list VL0-14 (VL0 high, VL1-14 low).
  const config::Scenario s = config::load_scenario(json::parse(R"({
    "port": {"data_vls": 4, "vlarb": {"low": "0:32,1:32,2:32,3:32,4:32,5:32,6:32,7:32"}},
    "port_overrides": [{"port": "hca*", "data_vls": 8, "operational_vls": 2,
      "vlarb": {"high": "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0",
                "low": "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"}}]
  })"));
  REQUIRE(lines_of(c) == std::vector<std::string>{
                             "port.vlarb.low: entries for VL4-7 skipped: the port has 4 operational VLs (VL0-3)",
                             "port_overrides.0.vlarb.low: entries for VL2-14 skipped: the port has 2 operational VLs "
                             "(VL0-1)"});  // weight-0 entries (the high table's VL1-14) are skipped anyway
  // The tables stay as written: the resolved scenario reads back to them.
  REQUIRE(s.port.vlarb.low.size() == 8);
  REQUIRE(s.port_overrides[0].config.vlarb.low.size() == 15);
  const json resolved = config::resolved_json(s);
  REQUIRE(resolved["port"]["vlarb"]["low"] == "0:32,1:32,2:32,3:32,4:32,5:32,6:32,7:32");
  REQUIRE(config::resolved_json(config::load_scenario(resolved)) == resolved);
}

TEST_CASE("the resolved scenario states a decimal size in bytes and a binary one in KiB") {
  const config::Scenario s = config::load_scenario(json::parse(R"({"port": {"tx_buffer": "64KB", "vl_buffer": "64KiB"}})"));
  const json resolved = config::resolved_json(s);
  REQUIRE(resolved["port"]["tx_buffer"] == "64000B");
  REQUIRE(resolved["port"]["vl_buffer"] == "64KiB");
}
