// The pcap a run writes, read back by the stock tshark: every data packet's
// LRH and BTH fields are what the model sent (iba-facts "Looking at packets").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

namespace {

uint64_t num(const std::string& s) { return std::stoull(s, nullptr, 0); }

}  // namespace

TEST_CASE("tshark reads the model's pcap with the field values the model put in") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);  // scripts/setup.sh installs it
  const auto dir = scratch("pcap");
  const std::string scenario = write_file(dir / "s.json", R"({
    "name": "pcap",
    "workload": { "flows": [
      { "src": "hca0.p1", "dst": "hca1.p1", "sl": 1, "payload": "4KiB", "count": 40 },
      { "src": "hca1.p1", "dst": "hca0.p1", "sl": 0, "payload": "101B", "count": 30 },
      { "src": "hca0.p1", "dst": "hca1.p1", "vl15": true, "payload": "256B", "count": 5 } ] }
  })");
  const CommandResult r = run_command("run " + scenario + " --quiet --pcap --out " + (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = tshark_fields((dir / "out" / "packets.pcap").string(),
                                  {"infiniband.lrh.vl", "infiniband.lrh.sl", "infiniband.lrh.dlid",
                                   "infiniband.lrh.slid", "infiniband.lrh.pktlen", "infiniband.bth.opcode",
                                   "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.deth.q_key",
                                   "infiniband.bth.padcnt"});
  // Per (SLID, VL): packets in PSN order with the expected headers.
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> next_psn;
  int data = 0;
  for (const auto& c : rows) {
    if (c[0].empty()) continue;  // a flow-control packet
    ++data;
    const uint64_t vl = num(c[0]), sl = num(c[1]), dlid = num(c[2]), slid = num(c[3]), pktlen = num(c[4]);
    INFO("vl " << vl << " sl " << sl << " dlid " << dlid << " slid " << slid << " pktlen " << pktlen);
    REQUIRE(num(c[5]) == 0x64);                 // UD SEND only
    REQUIRE(num(c[8]) == (vl == 15 ? 0 : 0x80010000));  // SMPs carry Q_Key 0, the rest the GSI's
    if (slid == 1 && vl == 1) {                 // flow 0: hca0 (LID 1) -> hca1 (LID 2), SL1 -> VL1
      REQUIRE(sl == 1);
      REQUIRE(dlid == 2);
      REQUIRE(pktlen == (8 + 12 + 8 + 4096 + 4) / 4);
      REQUIRE(num(c[6]) == 0x100);
      REQUIRE(num(c[9]) == 0);
    } else if (slid == 2) {                     // flow 1: hca1 -> hca0, SL0 -> VL0, 101 bytes + 3 pad
      REQUIRE(vl == 0);
      REQUIRE(dlid == 1);
      REQUIRE(pktlen == (8 + 12 + 8 + 101 + 3 + 4) / 4);
      REQUIRE(num(c[6]) == 0x101);
      REQUIRE(num(c[9]) == 3);
    } else {                                    // flow 2: management on VL15 to QP0
      REQUIRE(vl == 15);
      REQUIRE(dlid == 2);
      REQUIRE(num(c[6]) == 0);
      REQUIRE(pktlen == (8 + 12 + 8 + 256 + 4) / 4);
    }
    REQUIRE(num(c[7]) == next_psn[{slid, vl}]++);
  }
  REQUIRE(data == 40 + 30 + 5);
}

TEST_CASE("a raw flow's VL15 packets are SubnGet(NodeInfo) SMPs that tshark dissects without a malformed mark") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("pcap-vl15");
  const std::string scenario = write_file(dir / "s.json", R"({
    "name": "vl15",
    "workload": { "flows": [
      { "src": "hca0.p1", "dst": "hca1.p1", "payload": "4KiB", "count": 3 },
      { "src": "hca1.p1", "dst": "hca0.p1", "vl15": true, "payload": "256B", "count": 4 } ] }
  })");
  const CommandResult r = run_command("run " + scenario + " --quiet --pcap --out " + (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = tshark_fields((dir / "out" / "packets.pcap").string(),
                                  {"infiniband.lrh.vl", "infiniband.bth.destqp", "infiniband.lrh.pktlen",
                                   "infiniband.mad.baseversion", "infiniband.mad.mgmtclass",
                                   "infiniband.mad.classversion", "infiniband.mad.method",
                                   "infiniband.mad.attributeid", "infiniband.mad.transactionid",
                                   "infiniband.smplid.mkey", "_ws.malformed"});
  std::vector<uint64_t> tids;
  int data = 0;
  for (const auto& c : rows) {
    INFO("vl " << c[0] << " malformed '" << c[10] << "'");
    REQUIRE(c[10].empty());  // no packet of the capture is malformed
    if (c[0].empty()) continue;  // a flow-control packet
    ++data;
    if (num(c[0]) != 15) continue;
    REQUIRE(num(c[1]) == 0);                      // to QP0
    REQUIRE(num(c[2]) == (8 + 12 + 8 + 256 + 4) / 4);  // LRH, BTH, DETH, one 256-byte MAD, ICRC
    REQUIRE(num(c[3]) == 1);                      // BaseVersion 1
    REQUIRE(num(c[4]) == 0x01);                   // SubnLid: LID-routed SMP
    REQUIRE(num(c[5]) == 1);                      // ClassVersion 1
    REQUIRE(num(c[6]) == 0x01);                   // SubnGet
    REQUIRE(num(c[7]) == 0x0011);                 // NodeInfo
    REQUIRE(num(c[9]) == 0);                      // M_Key 0
    tids.push_back(num(c[8]));
  }
  REQUIRE(data == 3 + 4);
  REQUIRE(tids.size() == 4);
  std::sort(tids.begin(), tids.end());
  REQUIRE(std::adjacent_find(tids.begin(), tids.end()) == tids.end());  // one transaction per packet
}
