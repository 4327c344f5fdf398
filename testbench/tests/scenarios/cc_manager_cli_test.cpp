// The CC manager in a run (docs/congestion-control.md "CC manager"): in band
// with congestion control on, stats.json counts its MADs, and the pcap holds
// them as class 0x21 GMPs that the stock tshark decodes (tshark 4.0 dissects
// the class's common MAD header only).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

TEST_CASE("in band the CC manager's MADs are counted in stats.json and tshark reads them as class 0x21", "[cc][tshark]") {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) FAIL("tshark is missing (Debian package 'tshark')");
  const auto dir = scratch("cc-manager");
  // One switch, three HCAs of one port; the SM (and the manager) on hca2.p1,
  // so the MADs to hca0.p1, hca1.p1 and the switch cross the wire and those
  // to hca2.p1 do not. ccti_limit 127: CCT blocks 0 and 1.
  const nlohmann::json s = nlohmann::json::parse(R"({
    "name": "cc-manager",
    "topology": {"pattern": "single_switch", "hosts": 3},
    "management": {"mode": "in_band", "sm": "hca2.p1"},
    "congestion_control": {"enabled": true, "cc_key": 4660, "ca": {"ccti_limit": 127}}
  })");
  constexpr uint64_t kBlocks = 127 / 64 + 1;
  constexpr uint64_t kPerCaPort = 1 + kBlocks;
  constexpr uint64_t kMads = 1 + 3 * kPerCaPort;  // the switch, then three CA ports
  const std::string file = write_file(std::filesystem::path(dir) / "cc.json", s.dump());
  const CommandResult r = run_command("run " + file + " --quiet --pcap --out " + (std::filesystem::path(dir) / "out").string(), dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json stats = nlohmann::json::parse(slurp(std::filesystem::path(dir) / "out" / "stats.json"));
  const nlohmann::json& m = stats["congestion_control"]["manager"];
  CHECK(m["mads_sent"] == kMads);
  CHECK(m["answered"] == kMads);
  CHECK(m["timeouts"] == 0);
  CHECK(m["unavailable_ports"] == 0);

  const auto rows = tshark_fields((std::filesystem::path(dir) / "out" / "packets.pcap").string(),
                                  {"infiniband.mad.mgmtclass", "infiniband.mad.classversion", "infiniband.mad.method",
                                   "infiniband.mad.attributeid", "infiniband.mad.transactionid",
                                   "infiniband.bth.destqp", "infiniband.deth.q_key"});
  // The pcap holds a packet once per link it crosses: count each MAD once (method, TID).
  std::set<std::pair<uint64_t, std::string>> seen;
  uint64_t sets = 0, answers = 0, switch_sets = 0, ca_sets = 0, cct_sets = 0;
  for (const auto& row : rows) {
    if (row[0].empty() || tshark_number(row[0]) != 0x21) continue;
    CHECK(tshark_number(row[1]) == 2);           // class version 2
    CHECK(tshark_number(row[5]) == 1);           // to QP1
    CHECK(tshark_number(row[6]) == 0x80010000);  // the GSI Q_Key
    const uint64_t method = tshark_number(row[2]);
    if (!seen.emplace(method, row[4]).second) continue;
    if (method == 0x81) {
      ++answers;
      continue;
    }
    REQUIRE(method == 0x02);
    ++sets;
    const uint64_t attr = tshark_number(row[3]);
    switch_sets += attr == 0x0014;
    ca_sets += attr == 0x0016;
    cct_sets += attr == 0x0017;
  }
  // On the wire: all but hca2.p1's 1 + kBlocks, which its own agent answers.
  CHECK(sets == kMads - kPerCaPort);
  CHECK(answers == sets);
  CHECK(switch_sets == 1);
  CHECK(ca_sets == 2);
  CHECK(cct_sets == 2 * kBlocks);
}
