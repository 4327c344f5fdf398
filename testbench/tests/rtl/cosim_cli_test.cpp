// The co-simulation settings through the command line: strict validation of
// the selectors, RTL on chosen ports only, both blocks in the loop together,
// and the RTL waves with their GTKWave save file.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/rtl/rtl_fixture.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;

namespace {
const std::string kConfig = std::string(HCASIM_SOURCE_DIR) + "/configs/b2b_hdr.json" +
                            " --set outputs.pcap=false --set outputs.vcd=false";
}  // namespace

TEST_CASE("a bad vl_arbiter or credit_manager value is one error line naming the path and the accepted values") {
  const auto dir = scratch("cosim-bad");
  const std::vector<BadCase> cases = {
      {"unknown arbiter implementation", "--set port.vl_arbiter=verilog", "port.vl_arbiter"},
      {"arbiter implementation not a string", "--set port.vl_arbiter=1", "port.vl_arbiter"},
      {"unknown credit implementation", "--set port.credit_manager=rtl+chk", "port.credit_manager"},
      {"bad override", "--set 'port_overrides=[{\"port\": \"hca0.p1\", \"vl_arbiter\": \"RTL\"}]'",
       "port_overrides.0.vl_arbiter"},
  };
  check_bad_configs(kConfig, cases, dir);
  const CommandResult r = run_command("validate " + kConfig + " --set port.vl_arbiter=verilog", dir);
  CHECK(r.err.find("model, rtl, rtl+check") != std::string::npos);
}

TEST_CASE("both RTL blocks on one port only and checked: same stats as the model and exit 0") {
  const auto dir = scratch("cosim-one-port");
  const CommandResult model = run_command("run " + kConfig + " --quiet --out " + (dir / "model").string(), dir);
  REQUIRE(model.exit_code == 0);
  const CommandResult rtl = run_command(
      "run " + kConfig +
          " --quiet --set 'port_overrides=[{\"port\": \"hca0.p1\", \"vl_arbiter\": \"rtl+check\", \"credit_manager\": "
          "\"rtl+check\"}]' --out " + (dir / "rtl").string(),
      dir);
  INFO(rtl.err);
  REQUIRE(rtl.exit_code == 0);
  REQUIRE(stats_without_wall(dir / "model") == stats_without_wall(dir / "rtl"));
  const nlohmann::json resolved = nlohmann::json::parse(slurp(dir / "rtl" / "scenario.resolved.json"));
  REQUIRE(resolved["port_overrides"][0]["vl_arbiter"] == "rtl+check");
  REQUIRE(resolved["port"]["vl_arbiter"] == "model");
  fs::remove_all(dir);
}

TEST_CASE("outputs.rtl_vcd writes the RTL blocks' internal signals that waveforms/rtl_b2b.gtkw shows") {
  const auto dir = scratch("cosim-vcd");
  const CommandResult r = run_command("run " + kConfig +
                                          " --quiet --set port.vl_arbiter=rtl --set port.credit_manager=rtl "
                                          "--set outputs.rtl_vcd=true --set workload.flows.0.count=20 --out " +
                                          (dir / "out").string(),
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string vcd = slurp(dir / "out" / "rtl.vcd");
  REQUIRE(vcd.find("$timescale 1fs $end") != std::string::npos);
  // Every signal the save file names is in the VCD (GTKWave shows a missing one as nothing at all).
  const std::string gtkw = slurp(std::string(HCASIM_SOURCE_DIR) + "/waveforms/rtl_b2b.gtkw");
  std::istringstream lines(gtkw);
  std::string line;
  int signals = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '[' || line[0] == '@' || line[0] == '*' || line[0] == '-') continue;
    // "scope.module.name[i][hi:lo]": the VCD declares "name[i] [hi:lo]" in "$scope module scope".
    const std::size_t dot = line.rfind('.');
    const std::string scope = line.substr(0, line.rfind('.', dot - 1));
    std::string name = line.substr(dot + 1);
    if (name.back() == ']' && name.find(':', name.rfind('[')) != std::string::npos) name.erase(name.rfind('['));
    INFO(line);
    CHECK(vcd.find("$scope module " + scope + " $end") != std::string::npos);
    CHECK(vcd.find(" " + name + " ") != std::string::npos);
    ++signals;
  }
  REQUIRE(signals >= 10);
  // Without rtl_vcd, no rtl.vcd.
  const CommandResult plain = run_command(
      "run " + kConfig + " --quiet --set port.vl_arbiter=rtl --set workload.flows.0.count=20 --out " +
          (dir / "plain").string(),
      dir);
  REQUIRE(plain.exit_code == 0);
  REQUIRE_FALSE(fs::exists(dir / "plain" / "rtl.vcd"));
  fs::remove_all(dir);
}

TEST_CASE("every port of a switched fabric with both RTL blocks checked: same stats as the model") {
  // configs/vl_isolation.json: HCAs and a switch, traffic on several VLs; the
  // switch's output ports arbitrate and count credits in RTL too.
  const auto dir = scratch("cosim-switch");
  const std::string config = std::string(HCASIM_SOURCE_DIR) + "/configs/vl_isolation.json --quiet";
  REQUIRE(run_command("run " + config + " --out " + (dir / "model").string(), dir).exit_code == 0);
  const CommandResult rtl = run_command("run " + config +
                                            " --set port.vl_arbiter=rtl+check --set port.credit_manager=rtl+check --out " +
                                            (dir / "rtl").string(),
                                        dir);
  INFO(rtl.err);
  REQUIRE(rtl.exit_code == 0);
  const nlohmann::json model = stats_without_wall(dir / "model");
  REQUIRE(model["switches"]["count"] >= 1);
  REQUIRE(model == stats_without_wall(dir / "rtl"));
  fs::remove_all(dir);
}
