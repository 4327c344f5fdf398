// The VL arbitration scenarios of testbench/tests/scenarios/arbitration_test.cpp
// (weights 1:3 and 64:192, a VL absent from the tables, high limits finite and
// 255, VL15, both weight policies), run by hcasim with the RTL arbiter under
// lock step: every grant is the C++ arbiter's (the run fails at the first
// that is not), and stats.json and waves.vcd (which holds each port's granted
// VL) are those of the model's own run, byte for byte apart from wall-clock
// figures and the VCD's date.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/rtl/rtl_fixture.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;

namespace {

std::string b2b_scenario(const std::string& port, const std::string& flows, const std::string& duration) {
  return R"({"name": "arb", "topology": {"pattern": "back_to_back"}, "port": )" + port +
         R"(, "workload": {"flows": [)" + flows + R"(]}, "run": {"seed": 1, "duration": ")" + duration +
         R"("}, "outputs": {"vcd": true}})";
}

std::string saturating(unsigned sl, const std::string& payload) {
  return R"({"name": "sl)" + std::to_string(sl) + R"(", "src": "hca0.p1", "dst": "hca1.p1", "sl": )" +
         std::to_string(sl) + R"(, "payload": ")" + payload + R"("})";
}

std::string two_vl_port(const std::string& high, const std::string& low, unsigned limit,
                        const std::string& policy = "overshoot") {
  return R"({"data_vls": 4, "vlarb": {"high": ")" + high + R"(", "low": ")" + low + R"(", "high_limit": )" +
         std::to_string(limit) + R"(, "policy": ")" + policy + R"("}})";
}

std::string vcd_without_date(const fs::path& dir) {
  std::string v = slurp(dir / "waves.vcd");
  const std::size_t from = v.find("$date");
  const std::size_t to = v.find("$end", from);
  REQUIRE(from != std::string::npos);
  return v.erase(from, to - from);
}

// Runs the scenario with the model's arbiter and with `mode`; both pass, and
// their outputs are the same.
void same_as_model(const std::string& name, const std::string& scenario, const std::string& mode = "rtl+check") {
  const auto dir = scratch("arb-cosim-" + name);
  const std::string file = write_file(dir / "scenario.json", scenario);
  const CommandResult model = run_command("run " + file + " --quiet --out " + (dir / "model").string(), dir);
  REQUIRE(model.exit_code == 0);
  const CommandResult rtl =
      run_command("run " + file + " --quiet --set port.vl_arbiter=" + mode + " --out " + (dir / "rtl").string(), dir);
  INFO(rtl.err);
  REQUIRE(rtl.exit_code == 0);
  const nlohmann::json a = stats_without_wall(dir / "model");
  const nlohmann::json b = stats_without_wall(dir / "rtl");
  REQUIRE(a["run"]["packet_hops"].get<uint64_t>() > 1000);
  REQUIRE(a == b);
  REQUIRE(vcd_without_date(dir / "model") == vcd_without_date(dir / "rtl"));
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("rtl+check: weights 1:3 with one-block packets - same grants and stats as the C++ arbiter") {
  same_as_model("w13-1block", b2b_scenario(two_vl_port("", "0:1,1:3", 0), saturating(0, "28B") + "," + saturating(1, "28B"),
                                           "200us"));
}

TEST_CASE("rtl+check: weights 64:192 with 4 KiB packets - same grants and stats as the C++ arbiter") {
  same_as_model("w64-192", b2b_scenario(two_vl_port("", "0:64,1:192", 0),
                                        saturating(0, "4KiB") + "," + saturating(1, "4KiB"), "2ms"));
}

TEST_CASE("rtl+check: weights 1:3 with 4 KiB packets under overshoot - same grants and stats as the C++ arbiter") {
  same_as_model("w13-4k", b2b_scenario(two_vl_port("", "0:1,1:3", 0),
                                       saturating(0, "4KiB") + "," + saturating(1, "4KiB"), "2ms"));
}

TEST_CASE("rtl+check: weights 16:48 with 4 KiB packets under deficit - same grants and stats as the C++ arbiter") {
  same_as_model("w16-48-deficit", b2b_scenario(two_vl_port("", "0:16,1:48", 0, "deficit"),
                                               saturating(0, "4KiB") + "," + saturating(1, "4KiB"), "2ms"));
}

TEST_CASE("rtl+check: a VL absent from both tables - same grants and stats as the C++ arbiter") {
  same_as_model("absent", b2b_scenario(two_vl_port("", "0:64,1:64", 0),
                                       saturating(0, "4KiB") + "," + saturating(1, "4KiB") + "," + saturating(2, "4KiB"),
                                       "500us"));
}

TEST_CASE("rtl+check: high limit 255 - same grants and stats as the C++ arbiter") {
  same_as_model("limit255", b2b_scenario(two_vl_port("0:255", "1:255", 255),
                                         saturating(0, "4KiB") + "," + saturating(1, "4KiB"), "500us"));
}

TEST_CASE("rtl+check: high limits 0 - 1 - 4 and 10 - same grants and stats as the C++ arbiter") {
  for (unsigned limit : {0u, 1u, 4u, 10u})
    same_as_model("limit" + std::to_string(limit), b2b_scenario(two_vl_port("0:255", "1:255", limit),
                                                                saturating(0, "4KiB") + "," + saturating(1, "4KiB"),
                                                                "1ms"));
}

TEST_CASE("rtl+check: VL15 ahead of saturated data - same grants and stats as the C++ arbiter") {
  const std::string mgmt =
      R"({"name": "mgmt", "src": "hca0.p1", "dst": "hca1.p1", "vl15": true, "payload": "256B", "rate": "100Mb/s", "count": 50})";
  same_as_model("vl15", b2b_scenario(R"({"data_vls": 8})", saturating(0, "4KiB") + "," + mgmt, "2ms"));
}

TEST_CASE("rtl without the check: weights 64:192 - same grants and stats as the C++ arbiter") {
  same_as_model("w64-192-rtl", b2b_scenario(two_vl_port("", "0:64,1:192", 0),
                                            saturating(0, "4KiB") + "," + saturating(1, "4KiB"), "2ms"),
                "rtl");
}
