// Link events from the command line: the stock tshark decodes the Trap 128 and
// its TrapRepress in the run's pcap with the Notice fields the model put in
// (generic, urgent, producer switch, trap 128, IssuerLID = LIDADDR = the
// switch's LID); stats.json reports the trap and the re-sweep; a link_events
// mistake is one line naming its JSON path, exit code 2.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

TEST_CASE("link events: tshark decodes the Trap 128 and its TrapRepress, stats.json reports the re-sweep") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);  // scripts/setup.sh installs it
  const auto dir = scratch("link-events-cli");
  const CommandResult r = run_scenario_json(dir, "trap", R"({
    "name": "trap",
    "topology": {"pattern": "single_switch", "hosts": 2, "switch_ports": 2},
    "management": {"mode": "in_band"},
    "link_events": [{"link": "hca1.p1", "down": "200us"}],
    "outputs": {"pcap": true}
  })");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp((dir / "trap") / "stats.json"));
  const auto& traps = stats["management"]["traps"];
  CHECK(traps["traps_sent"] == 1);
  CHECK(traps["traps_at_sm"] == 1);
  CHECK(traps["represses"] == 1);
  CHECK(traps["trap_repeats"] == 0);
  REQUIRE(traps["resweeps"].size() == 1);
  CHECK(traps["resweeps"][0]["trigger"] == "trap");
  CHECK(traps["resweeps"][0]["lft_blocks"] == 1);
  CHECK(traps["resweeps"][0]["requested_us"].get<double>() >= 200.0);
  const auto rows = tshark_fields(((dir / "trap") / "packets.pcap").string(),
                                  {"infiniband.mad.method", "infiniband.mad.mgmtclass", "infiniband.mad.attributeid",
                                   "infiniband.notice.isgeneric", "infiniband.notice.type",
                                   "infiniband.notice.producertypevendorid", "infiniband.notice.trapnumberdeviceid",
                                   "infiniband.notice.issuerlid", "infiniband.trap.lidaddr", "infiniband.lrh.slid",
                                   "infiniband.lrh.dlid"});
  int trap = 0, repress = 0;
  std::string trap_slid, trap_dlid;
  for (const auto& row : rows) {
    if (row[0] != "0x05" && row[0] != "0x07") continue;
    INFO(row[0]);
    CHECK(row[1] == "0x01");          // LID-routed SMP class
    CHECK(row[2] == "0x0002");        // Notice
    CHECK(row[3] == "0x01");          // IsGeneric
    CHECK(row[4] == "0x01");          // urgent
    CHECK(row[5] == "0x000002");      // producer: switch
    CHECK(row[6] == "0x0080");        // trap 128
    CHECK(row[7] == row[8]);          // IssuerLID = LIDADDR
    if (row[0] == "0x05") {
      ++trap;
      trap_slid = row[9];
      trap_dlid = row[10];
      CHECK(std::stoul(row[7], nullptr, 16) == std::stoul(row[9]));  // the switch's own LID
    } else {
      ++repress;
      CHECK(row[9] == trap_dlid);     // from the SM back to the switch
      CHECK(row[10] == trap_slid);
    }
  }
  CHECK(trap == 1);
  CHECK(repress == 1);
}

TEST_CASE("link events: a mistake in link_events is one line naming its JSON path, exit code 2") {
  const auto dir = scratch("link-events-bad");
  const CommandResult r = run_scenario_json(dir, "bad", R"({
    "name": "bad",
    "link_events": [{"link": "hca0.p1", "down": "50us", "up": "20us"}]
  })");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("hcasim: link_events.0.up: ", 0) == 0);
  CHECK(count_lines(r.err) == 1);
}
