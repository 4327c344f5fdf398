// Issue 52, "What must be shown" item 5 and the rules of hca_devices.hpp: hca.device
// applies a real HCA's parameter set under the scenario's own keys, hcasim params lists
// the devices one line each, and a wrong device is one line of error.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim::test;
using nlohmann::json;

namespace {

json resolved(const ScratchDir& dir, const std::string& name, const std::string& sets) {
  const CommandResult r = run_command("run " + config_path("perftest_write_bw.json") + " --quiet --out " +
                                          (dir / name).string() + " " + sets,
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(slurp(dir / name / "scenario.resolved.json"));
}

}  // namespace

TEST_CASE("hca.device: connect-ib on perftest_write_bw runs with the device's values under the scenario's keys") {
  const ScratchDir dir("device-models");
  const json ib = resolved(dir, "connect-ib", "--set hca.device=connect-ib");
  CHECK(ib["hca"]["device"] == "connect-ib");
  CHECK(ib["hca"]["pcie"]["gen"] == 3);  // the datasheet's Gen3 x16
  CHECK(ib["hca"]["pcie"]["lanes"] == 16);
  CHECK(ib["hca"]["caches"]["qpc_l1"]["entries"] == 168);
  CHECK(ib["hca"]["caches"]["qpc_l1"]["load"] == "26ns");
  CHECK(ib["hca"]["wqe_reads_kept"] == 4);
  CHECK(ib["hca"]["caches"]["wqe"]["entries"] == 4096);  // as the QPC and CQC: every WQE on chip, not fitted
  // The miss handling the device was fitted with (docs/devices/README.md), not the generic 64 and random.
  CHECK(ib["hca"]["caches"]["qpc"]["mshrs"] == 16);
  CHECK(ib["hca"]["caches"]["qpc"]["replacement"] == "lru");
  CHECK(ib["hca"]["caches"]["wqe"]["mshrs"] == 16);
  const json generic = resolved(dir, "generic", "");
  CHECK(generic["hca"]["caches"]["qpc"]["mshrs"] == 64);
  CHECK(generic["hca"]["caches"]["qpc"]["replacement"] == "random");
  CHECK(generic["hca"]["wqe_reads_kept"] == 0);  // no limit
  // The scenario sets transport.wqe_parse itself (50 ns): its key wins over the device's 40 ns.
  CHECK(ib["transport"]["wqe_parse"] == "50ns");
  // A key given beside the device wins, and the resolved file runs again to the same values.
  const json mine = resolved(dir, "mine", "--set hca.device=connect-ib --set hca.caches.qpc_l1.entries=64");
  CHECK(mine["hca"]["caches"]["qpc_l1"]["entries"] == 64);
  const json cx3 = resolved(dir, "connectx-3", "--set hca.device=connectx-3");
  CHECK(cx3["hca"]["pcie"]["lanes"] == 8);
  CHECK(cx3["hca"]["caches"]["qpc_l1"]["index"] == "hashed");  // set conflicts (docs/devices/connectx-3.md)
  CHECK(ib["hca"]["caches"]["qpc_l1"]["index"] == "modulo");
  CHECK(cx3["transport"]["tx_units"] == 4);  // the scenario's own tx_units
  // Without the scenario's transport keys the device's own apply.
  const json bare = json::parse(slurp(config_path("perftest_write_bw.json")));
  json no_transport = bare;
  no_transport.erase("transport");
  no_transport["hca"]["device"] = "connectx-3";
  const CommandResult r = run_command(
      "run " + write_file(dir / "bare.json", no_transport.dump()) + " --quiet --out " + (dir / "bare").string(), dir);
  REQUIRE(r.exit_code == 0);
  const json own = json::parse(slurp(dir / "bare" / "scenario.resolved.json"));
  CHECK(own["transport"]["tx_units"] == 1);
  CHECK(own["transport"]["wqe_parse"] == "50ns");
}

TEST_CASE("hca.device: hcasim params lists every device on one line, and a wrong device is one line naming the path") {
  const ScratchDir dir("device-errors");
  const CommandResult p = run_command("params", dir);
  REQUIRE(p.exit_code == 0);
  for (const char* d : {"generic", "connect-ib", "connectx-3"}) {
    INFO(d);
    const std::string row = std::string("| `") + d + "` |";
    const std::size_t at = p.out.find(row);
    REQUIRE(at != std::string::npos);
    CHECK(p.out.find(row, at + 1) == std::string::npos);  // one line each
  }
  const CommandResult bad =
      run_command("validate " + config_path("perftest_write_bw.json") + " --set hca.device=connectx-4", dir);
  CHECK(bad.exit_code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("hca.device") != std::string::npos);
  CHECK(bad.err.find("connect-ib") != std::string::npos);
  // An hca_overrides device whose transport timings differ from the scenario's is refused.
  json s = json::parse(slurp(config_path("perftest_write_bw.json")));
  s["hca_overrides"] = json::array({{{"hca", "hca1"}, {"device", "connectx-3"}}});
  const CommandResult mixed = run_command("validate " + write_file(dir / "mixed.json", s.dump()), dir);
  CHECK(mixed.exit_code == 2);
  CHECK(count_lines(mixed.err) == 1);
  CHECK(mixed.err.find("hca_overrides.0.device") != std::string::npos);
}
