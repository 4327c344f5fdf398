// Issue 33 (docs/hca-processing.md): receive units and how QPs map to them.
// With receive_parse 1 us a unit parses 1 M packets/s; the responder ACKs
// every request (ack_coalescing off), so the ACKs the requester receives in a
// 2 ms run count the packets the responder's units parsed: 2,000 per unit a
// QP can use. any_free keeps a QP on one unit at a time (one QP: one unit's
// rate however many units); qpn_hash puts QPs 2 and 3 on units 0 and 1.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

// ACKs hca0 received: request packets hca1's receive units parsed.
double parsed(const std::filesystem::path& dir, unsigned rx_units, const std::string& mapping, unsigned qps) {
  const std::string text = R"({ "name": "rx", "topology": { "pattern": "back_to_back" },
  "port": { "data_vls": 2, "mtu": 4096 }, "link": { "speed": "HDR", "width": "4x", "propagation": "2m" },
  "hca": { "preset": "ideal" },
  "transport": { "rx_units": )" + std::to_string(rx_units) +
                           R"(, "unit_mapping": ")" + mapping + R"(", "receive_parse": "1us" },
  "workload": { "perftest": [ { "test": "write_bw", "client": "hca0.p1", "server": "hca1.p1", "sizes": ["64KiB"],
                                "iterations": 1000000, "qps": )" +
                           std::to_string(qps) + R"( } ] }, "run": { "duration": "2ms" } })";
  const std::string file = write_file(dir / "rx.json", text);
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  REQUIRE(stats["engines"]["first"][0]["hca"] == "hca0");
  return stats["engines"]["first"][0]["packets_received"].get<double>();
}

}  // namespace

TEST_CASE("receive units: each parses one packet per receive_parse, and a QP uses one unit at a time under any_free") {
  const auto dir = scratch("rx-units");
  constexpr double kPerUnit = 2e-3 / 1e-6;  // 2 ms of 1 us parses
  CHECK(parsed(dir, 1, "any_free", 1) == Approx(kPerUnit).epsilon(0.01));
  CHECK(parsed(dir, 2, "any_free", 1) == Approx(kPerUnit).epsilon(0.01));      // one QP: one unit at a time
  CHECK(parsed(dir, 2, "any_free", 2) == Approx(2 * kPerUnit).epsilon(0.01));  // two QPs: both units
  CHECK(parsed(dir, 2, "qpn_hash", 2) == Approx(2 * kPerUnit).epsilon(0.01));  // QPs 2 and 3: units 0 and 1
  CHECK(parsed(dir, 2, "qpn_hash", 1) == Approx(kPerUnit).epsilon(0.01));
}
