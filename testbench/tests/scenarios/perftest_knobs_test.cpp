// Issue 32, "What must be shown" item 5, and the perftest knobs (docs/perftest.md):
// each knob reaches the QPs, checked on the wire (the pcap read by the stock
// tshark) against the IBA's numbers; the per-size transport counters against
// the resends the pcap shows; the units of the printed table; and one error
// line (exit 2) for each bad value.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

namespace {

constexpr double kTimerUnitUs = 4.096;  // IBA: Local ACK timeout Ttr = 4.096 us x 2^timeout
constexpr uint64_t kPsnMask = 0xFFFFFF;

uint64_t num(const std::string& s) { return std::stoull(s, nullptr, 0); }

// A packet on the wire, from the pcap (flow-control packets left out).
struct WirePacket {
  double t_us = 0;
  uint64_t slid = 0, dest_qp = 0, psn = 0, opcode = 0, lnh = 0, sl = 0, vl = 0, pktlen = 0;
  std::string syndrome;  // AETH, "" without one
};

std::vector<WirePacket> wire(const std::filesystem::path& pcap) {
  const auto rows = tshark_fields(pcap.string(), {"frame.time_epoch", "infiniband.lrh.slid", "infiniband.bth.destqp",
                                                  "infiniband.bth.psn", "infiniband.bth.opcode", "infiniband.lrh.lnh",
                                                  "infiniband.lrh.sl", "infiniband.lrh.vl", "infiniband.lrh.pktlen",
                                                  "infiniband.aeth.syndrome"});
  std::vector<WirePacket> out;
  for (const auto& c : rows) {
    if (c[3].empty()) continue;
    WirePacket p;
    p.t_us = std::stod(c[0]) * 1e6;
    p.slid = num(c[1]);
    p.dest_qp = num(c[2]);
    p.psn = num(c[3]);
    p.opcode = num(c[4]);
    p.lnh = num(c[5]);
    p.sl = num(c[6]);
    p.vl = num(c[7]);
    p.pktlen = num(c[8]);
    p.syndrome = c[9];
    out.push_back(p);
  }
  return out;
}

// What the pcap shows of a requester's resends, for one message size.
struct Resends {
  uint64_t resent = 0;         // packets whose PSN that QP had already put on the wire
  uint64_t first = 0;          // of those, the first of each run of resends (the previous packet of that QP was not
                               // a resend of the PSN just before)
  uint64_t after_silence = 0;  // of the firsts, those after at least Ttr with nothing from that QP: timeouts (a
                               // NAK comes back within a round trip)
};

// Per size: packets from `starts[k]` up to the next size's start belong to size k.
std::vector<Resends> resends_by_size(const std::vector<WirePacket>& packets, const std::vector<double>& starts_us,
                                     double ttr_us) {
  std::vector<Resends> out(starts_us.size());
  struct QpSeen {
    std::set<uint64_t> psns;
    uint64_t last_psn = 0;
    bool last_resent = false;
    double last_t = 0;
  };
  std::map<std::pair<uint64_t, uint64_t>, QpSeen> qps;
  for (const WirePacket& p : packets) {
    std::size_t k = 0;
    while (k + 1 < starts_us.size() && starts_us[k + 1] <= p.t_us) ++k;
    QpSeen& q = qps[{p.slid, p.dest_qp}];
    const bool resent = !q.psns.insert(p.psn).second;
    if (resent) {
      ++out[k].resent;
      if (!(q.last_resent && p.psn == ((q.last_psn + 1) & kPsnMask))) {
        ++out[k].first;
        if (p.t_us - q.last_t >= ttr_us) ++out[k].after_silence;
      }
    }
    q.last_psn = p.psn;
    q.last_resent = resent;
    q.last_t = p.t_us;
  }
  return out;
}

struct Run {
  CommandResult result;
  nlohmann::json stats;
  std::filesystem::path out;
};

// hcasim run of a scenario text, in its own folder under dir.
Run run_scenario_text(const std::filesystem::path& dir, const std::string& name, const std::string& scenario,
                      const std::string& args = "") {
  Run r;
  r.out = dir / name;
  const std::string file = write_file(dir / (name + ".json"), scenario);
  r.result = run_command("run " + file + " --out " + r.out.string() + " " + args, dir);
  const auto stats = r.out / "stats.json";
  if (std::filesystem::exists(stats)) r.stats = nlohmann::json::parse(slurp(stats));
  return r;
}

// A back-to-back scenario with one perftest test (a JSON object's members) and extra top-level members.
std::string scenario(const std::string& test, const std::string& extra = "") {
  return R"({ "name": "knobs", "topology": { "pattern": "back_to_back" }, )" + extra +
         R"( "workload": { "perftest": [ { )" + test + " } ] } }";
}

uint64_t u(const nlohmann::json& j) { return j.get<uint64_t>(); }

}  // namespace

TEST_CASE("perftest under 1% loss with timeout and retry_cnt set: each size's retries, resends and timeouts are the "
          "pcap's") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-loss");
  constexpr unsigned kTimeout = 10;  // Ttr = 4.19 ms
  const Run r = run_scenario_text(
      dir, "loss",
      scenario(R"("test": "write_bw", "sizes": ["4KiB", "16KiB", "64KiB"], "iterations": 300,
                  "timeout": 10, "retry_cnt": 5)",
               R"("hca": { "preset": "ideal" }, "link": { "faults": { "drop_rate": 0.01 } },
                  "outputs": { "pcap": true, "pcap_ports": ["hca0.p1"] },)"),
      "--seed 2");
  INFO(r.result.out << r.result.err);
  REQUIRE(r.result.exit_code == 0);
  const auto& t = r.stats["perftest"][0];
  REQUIRE(t["ok"] == true);
  CHECK(t["timeout"] == kTimeout);
  CHECK(t["retry_cnt"] == 5);
  // The table prints the counters of each size.
  CHECK(r.result.out.find("#retries  #timeouts  #resent") != std::string::npos);

  std::vector<double> starts;
  for (const auto& s : t["sizes"]) starts.push_back(static_cast<double>(u(s["start_ps"])) / 1e6);
  const double ttr = kTimerUnitUs * std::pow(2.0, kTimeout);
  const std::vector<Resends> pcap = resends_by_size(wire(r.out / "packets.pcap"), starts, ttr);

  uint64_t retries = 0, timeouts = 0, resent = 0, seq_naks = 0;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto& s = t["sizes"][k];
    const auto& c = s["transport"];
    INFO("size " << u(s["bytes"]) << ": retries " << u(c["retries"]) << " (pcap " << pcap[k].first << "), resent "
                 << u(c["resent_packets"]) << " (pcap " << pcap[k].resent << "), timeouts " << u(c["timeouts"])
                 << " (pcap " << pcap[k].after_silence << ")");
    CHECK(s["done"] == true);
    CHECK(u(c["naks_received"]["rnr"]) == 0);  // write_bw: no receive queue, no RNR
    CHECK(u(c["retries"]) == pcap[k].first);
    CHECK(u(c["resent_packets"]) == pcap[k].resent);
    CHECK(u(c["timeouts"]) == pcap[k].after_silence);
    retries += u(c["retries"]);
    timeouts += u(c["timeouts"]);
    resent += u(c["resent_packets"]);
    seq_naks += u(c["naks_received"]["psn_seq_err"]);
  }
  // The loss made both kinds of retry happen (run.seed 2).
  CHECK(seq_naks > 0);
  CHECK(timeouts > 0);
  // The sizes add up to the QP's own counters (the client's QP is the only requester).
  const auto& qp = r.stats["qps"]["first"][0];
  REQUIRE(qp["hca"] == "hca0");
  CHECK(u(qp["retries"]) == retries);
  CHECK(u(qp["timeouts"]) == timeouts);
  CHECK(u(qp["resent_packets"]) == resent);
  CHECK(u(qp["naks_received"]["psn_seq_err"]) == seq_naks);
}

TEST_CASE("perftest timeout: a lost last packet is resent 4.096us x 2^timeout later (within the timer's Ttr/4 tick) - "
          "0 = never") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-timeout");
  const std::string faults = R"("link": { "faults": { "drops": [ { "opcode": "RC_WRITE_ONLY", "nth": 1 } ] } },
                                "outputs": { "pcap": true, "pcap_ports": ["hca0.p1"] },)";
  for (const unsigned n : {6u, 9u, 12u}) {
    INFO("timeout " << n);
    const Run r = run_scenario_text(dir, "t" + std::to_string(n),
                                    scenario(R"("test": "write_bw", "sizes": ["4KiB"], "iterations": 1, "timeout": )" +
                                                 std::to_string(n),
                                             faults));
    INFO(r.result.err);
    REQUIRE(r.result.exit_code == 0);
    const std::vector<WirePacket> p = wire(r.out / "packets.pcap");
    REQUIRE(p.size() == 2);  // the lost WRITE and its resend, both PSN 0
    CHECK(p[0].psn == p[1].psn);
    const double ttr = kTimerUnitUs * std::pow(2.0, n);
    const double gap = p[1].t_us - p[0].t_us;
    INFO("resent " << gap << " us later; Ttr " << ttr << " us");
    CHECK(gap >= ttr);
    CHECK(gap <= 1.25 * ttr + 1.0);  // detected on the next Ttr/4 tick; the packet's way to the wire < 1 us
    const auto& c = r.stats["perftest"][0]["sizes"][0]["transport"];
    CHECK(u(c["timeouts"]) == 1);
    CHECK(u(c["retries"]) == 1);
    CHECK(u(c["resent_packets"]) == 1);
  }
  // timeout 0: no transport timer, the lost packet is never resent and the size never ends.
  const Run r = run_scenario_text(
      dir, "t0", scenario(R"("test": "write_bw", "sizes": ["4KiB"], "iterations": 1, "timeout": 0)", faults));
  CHECK(r.result.exit_code == 1);
  CHECK(r.result.err.find("stopped after 0 of 1 messages") != std::string::npos);
  CHECK(wire(r.out / "packets.pcap").size() == 1);
  CHECK(u(r.stats["perftest"][0]["sizes"][0]["transport"]["timeouts"]) == 0);
}

TEST_CASE("perftest retry_cnt: a packet lost every time is sent retry_cnt + 1 times, then retry_exc_err") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-retry-cnt");
  for (const unsigned n : {0u, 3u}) {
    INFO("retry_cnt " << n);
    const Run r = run_scenario_text(
        dir, "r" + std::to_string(n),
        scenario(R"("test": "write_bw", "sizes": ["4KiB"], "iterations": 1, "timeout": 6, "retry_cnt": )" +
                     std::to_string(n),
                 R"("link": { "faults": { "drops": [ { "opcode": "RC_WRITE_ONLY", "every": true } ] } },
                    "outputs": { "pcap": true, "pcap_ports": ["hca0.p1"] },)"));
    INFO(r.result.err);
    CHECK(r.result.exit_code == 1);
    CHECK(r.result.err.find("completed with retry_exc_err") != std::string::npos);
    CHECK(wire(r.out / "packets.pcap").size() == n + 1);
    const auto& c = r.stats["perftest"][0]["sizes"][0]["transport"];
    CHECK(u(c["retries"]) == n);
    CHECK(u(c["timeouts"]) == n + 1);  // the last expiry finds no retry left
  }
}

TEST_CASE("perftest min_rnr_timer: the server's RNR NAKs carry the code and the client waits the IBA table's delay - "
          "rnr_retry 0 ends in rnr_retry_exc_err") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-rnr");
  // send_bw with one receive posted ahead and eight sends outstanding: receives run out (RNR).
  const std::string test = R"("test": "send_bw", "sizes": ["4KiB"], "iterations": 20, "tx_depth": 8, "rx_depth": 1)";
  const std::string pcap = R"("outputs": { "pcap": true },)";
  // IBA RNR NAK timer table (iba-facts 5): code -> delay in ms.
  const std::map<unsigned, double> delay_ms = {{1, 0.01}, {12, 0.64}, {18, 5.12}};
  for (const auto& [code, ms] : delay_ms) {
    INFO("min_rnr_timer " << code);
    const Run r = run_scenario_text(dir, "m" + std::to_string(code),
                                    scenario(test + R"(, "min_rnr_timer": )" + std::to_string(code), pcap));
    INFO(r.result.err);
    REQUIRE(r.result.exit_code == 0);
    const std::vector<WirePacket> p = wire(r.out / "packets.pcap");
    uint64_t naks = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i].opcode != 0x11 || p[i].syndrome.empty() || (num(p[i].syndrome) & 0x60) != 0x20) continue;
      ++naks;
      CHECK((num(p[i].syndrome) & 31) == code);
      // The client's next packet of that PSN: at least the table's delay after the NAK left.
      std::size_t j = i + 1;
      while (j < p.size() && (p[j].slid == p[i].slid || p[j].psn != p[i].psn)) ++j;
      REQUIRE(j < p.size());
      const double wait = p[j].t_us - p[i].t_us;
      INFO("resent " << wait << " us after the RNR NAK");
      CHECK(wait >= ms * 1000);
      CHECK(wait <= ms * 1000 + 2.0);
    }
    CHECK(naks > 0);
    CHECK(u(r.stats["perftest"][0]["sizes"][0]["transport"]["naks_received"]["rnr"]) == naks);
    CHECK(r.stats["perftest"][0]["min_rnr_timer"] == code);
  }
  const Run r = run_scenario_text(dir, "rnr0", scenario(test + R"(, "rnr_retry": 0)", pcap));
  CHECK(r.result.exit_code == 1);
  CHECK(r.result.err.find("completed with rnr_retry_exc_err") != std::string::npos);
}

TEST_CASE("perftest sl: the QPs' packets carry the SL and travel on the VL the ports' sl2vl maps it to") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-sl");
  const Run r = run_scenario_text(
      dir, "sl",
      scenario(R"("test": "write_bw", "sizes": ["4KiB"], "iterations": 20, "sl": 5)",
               R"("port": { "sl2vl": [0, 1, 2, 3, 4, 3, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7] },
                  "outputs": { "pcap": true },)"));
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  const std::vector<WirePacket> p = wire(r.out / "packets.pcap");
  std::set<uint64_t> slids;
  for (const WirePacket& w : p) {
    slids.insert(w.slid);
    CHECK(w.sl == 5);
    CHECK(w.vl == 3);
  }
  CHECK(slids.size() == 2);  // requests and ACKs: both QPs use the SL
  CHECK(r.stats["perftest"][0]["sl"] == 5);
}

TEST_CASE("perftest mtu: packets per message follow the path MTU - 0 takes the ports' MTU") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-mtu");
  constexpr uint64_t kIterations = 20, kSize = 65536;
  struct Case {
    const char* name;
    std::string test, extra;
    uint64_t mtu;
  };
  const std::vector<Case> cases = {
      {"mtu1024", R"("test": "write_bw", "sizes": ["64KiB"], "iterations": 20, "mtu": 1024)", "", 1024},
      {"port2048", R"("test": "write_bw", "sizes": ["64KiB"], "iterations": 20)", R"("port": { "mtu": 2048 },)", 2048}};
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string pcap = R"("outputs": { "pcap": true, "pcap_ports": ["hca0.p1"] },)";
    const Run r = run_scenario_text(dir, c.name, scenario(c.test, c.extra + pcap));
    INFO(r.result.err);
    REQUIRE(r.result.exit_code == 0);
    const uint64_t packets = kIterations * (kSize / c.mtu);
    CHECK(r.stats["perftest"][0]["mtu"] == c.mtu);
    CHECK(u(r.stats["perftest"][0]["sizes"][0]["transport"]["request_packets"]) == packets);
    const std::vector<WirePacket> p = wire(r.out / "packets.pcap");
    CHECK(p.size() == packets);
    uint64_t longest = 0;
    for (const WirePacket& w : p) longest = std::max(longest, w.pktlen);
    CHECK(longest == (8 + 12 + 16 + c.mtu + 4) / 4);  // WRITE_FIRST: LRH, BTH, RETH, an MTU of payload, ICRC
    const auto resolved = nlohmann::json::parse(slurp(r.out / "scenario.resolved.json"));
    CHECK(resolved["workload"]["perftest"][0]["mtu"] == c.mtu);
  }
}

TEST_CASE("perftest over UD needs no GID: no GRH on the wire, sizes \"all\" stop at the MTU, the default size is the "
          "MTU") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("perftest-ud");
  const Run r = run_scenario_text(
      dir, "all",
      scenario(R"("test": "send_bw", "qp_type": "ud", "sizes": "all", "mtu": 1024, "iterations": 20)",
               R"("outputs": { "pcap": true },)"));
  INFO(r.result.err);
  REQUIRE(r.result.exit_code == 0);
  const auto& t = r.stats["perftest"][0];
  CHECK(t["ok"] == true);
  REQUIRE(t["sizes"].size() == 10);  // 2 B .. 1 KiB, as perftest -a over UD
  for (std::size_t k = 0; k < 10; ++k) {
    CHECK(u(t["sizes"][k]["bytes"]) == uint64_t{2} << k);
    CHECK(t["sizes"][k]["done"] == true);
  }
  const std::vector<WirePacket> p = wire(r.out / "packets.pcap");
  CHECK(p.size() == 10 * 20);
  for (const WirePacket& w : p) {
    CHECK(w.lnh == 2);  // IBA local: LRH then BTH, no GRH
    CHECK(w.opcode == 0x64);
  }
  const Run d = run_scenario_text(dir, "default",
                                  scenario(R"("test": "send_bw", "qp_type": "ud", "mtu": 2048, "iterations": 20)"));
  INFO(d.result.err);
  REQUIRE(d.result.exit_code == 0);
  REQUIRE(d.stats["perftest"][0]["sizes"].size() == 1);
  CHECK(d.stats["perftest"][0]["sizes"][0]["bytes"] == 2048);  // perftest's 64 KiB, clamped to the MTU
}

namespace {

// The numbers of the first row under the header line that contains `header`.
std::vector<double> table_row(const std::string& out, const std::string& header) {
  const auto at = out.find(header);
  REQUIRE(at != std::string::npos);
  const auto row = out.find('\n', at) + 1;
  std::istringstream line(out.substr(row, out.find('\n', row) - row));
  std::vector<double> v;
  double x;
  while (line >> x) v.push_back(x);
  return v;
}

}  // namespace

TEST_CASE("perftest report_gbits: the table in Gb/sec (10^9 bits) instead of MiB/sec (2^20 bytes) - stats.json has "
          "both") {
  const auto dir = scratch("perftest-gbits");
  const std::string test = R"("test": "write_bw", "sizes": ["64KiB"], "iterations": 200)";
  const Run mib = run_scenario_text(dir, "mib", scenario(test));
  const Run gb = run_scenario_text(dir, "gb", scenario(test + R"(, "report_gbits": true)"));
  REQUIRE(mib.result.exit_code == 0);
  REQUIRE(gb.result.exit_code == 0);
  for (const Run* r : {&mib, &gb}) {
    const auto& s = r->stats["perftest"][0]["sizes"][0];
    const double bytes = static_cast<double>(u(s["messages"]) * u(s["bytes"]));
    const double seconds = static_cast<double>(u(s["duration_ps"])) / 1e12;
    const bool gbits = r == &gb;
    const std::string unit = gbits ? "Gb/sec" : "MiB/sec";
    const double expected = gbits ? bytes * 8 / seconds / 1e9 : bytes / seconds / (1024.0 * 1024.0);
    const std::vector<double> row = table_row(r->result.out, "BW average[" + unit + "]");
    REQUIRE(row.size() >= 3);
    INFO(unit << ": printed " << row[2] << ", from the run's bytes and time " << expected);
    CHECK(row[0] == 65536);
    CHECK(std::abs(row[2] - expected) <= 0.005);  // printed with two decimals
    CHECK(r->stats["perftest"][0]["bw_unit"] == unit);
    CHECK(std::abs(s["bw_average"].get<double>() - expected) < 1e-9 * expected);
    CHECK(std::abs(s["bw_MBps"].get<double>() - bytes / seconds / (1024.0 * 1024.0)) < 1e-9 * expected);
    CHECK(std::abs(s["bw_Gbps"].get<double>() - bytes * 8 / seconds / 1e9) < 1e-9 * expected);
  }
  // perftest's help: MiB = Gb x 10^9 / (2^20 x 8) = Gb x 119.2.
  const double ratio = mib.stats["perftest"][0]["sizes"][0]["bw_average"].get<double>() /
                       gb.stats["perftest"][0]["sizes"][0]["bw_average"].get<double>();
  CHECK(std::abs(ratio - 119.209) < 0.001);
}

TEST_CASE("perftest knob mistakes each give one line naming the JSON path - and exit 2") {
  const auto dir = scratch("perftest-bad-knobs");
  const std::string base = write_file(dir / "base.json", R"({
    "name": "bad",
    "topology": { "pattern": "single_switch", "hosts": 3 },
    "port_overrides": [ { "port": "hca2.p1", "mtu": 1024 } ],
    "workload": { "perftest": [ { "test": "write_bw", "client": "hca0.p1", "server": "hca1.p1" } ] }
  })");
  REQUIRE(run_command("validate " + base, dir).exit_code == 0);
  const std::string at = "workload.perftest.0.";
  const std::vector<BadCase> cases = {
      {"timeout above 31", "--set " + at + "timeout=32", "workload.perftest.0.timeout"},
      {"timeout not a number", "--set " + at + "timeout=long", "workload.perftest.0.timeout"},
      {"retry_cnt above 7", "--set " + at + "retry_cnt=8", "workload.perftest.0.retry_cnt"},
      {"rnr_retry above 7", "--set " + at + "rnr_retry=8", "workload.perftest.0.rnr_retry"},
      {"min_rnr_timer above 31", "--set " + at + "min_rnr_timer=32", "workload.perftest.0.min_rnr_timer"},
      {"sl above 15", "--set " + at + "sl=16", "workload.perftest.0.sl"},
      {"mtu not an IBA MTU", "--set " + at + "mtu=3000", "workload.perftest.0.mtu"},
      {"mtu above the ports'", "--set " + at + "server=hca2.p1 --set " + at + "mtu=2048",
       "workload.perftest.0.mtu"},
      {"report_gbits not a boolean", "--set " + at + "report_gbits=yes", "workload.perftest.0.report_gbits"},
      {"report_gbits on a latency test", "--set " + at + "test=send_lat --set " + at + "report_gbits=true",
       "workload.perftest.0.report_gbits"},
      {"timeout on a UC test", "--set " + at + "qp_type=uc --set " + at + "timeout=10",
       "workload.perftest.0.timeout"},
      {"retry_cnt on a UC test", "--set " + at + "qp_type=uc --set " + at + "retry_cnt=3",
       "workload.perftest.0.retry_cnt"},
      {"min_rnr_timer on a UD test",
       "--set " + at + "test=send_bw --set " + at + "qp_type=ud --set " + at + "min_rnr_timer=1",
       "workload.perftest.0.min_rnr_timer"},
      {"rnr_retry on a UD test", "--set " + at + "test=send_bw --set " + at + "qp_type=ud --set " + at + "rnr_retry=1",
       "workload.perftest.0.rnr_retry"},
      {"UD message over the test's MTU",
       "--set " + at + "test=send_bw --set " + at + "qp_type=ud --set " + at + "mtu=1024 --set '" + at +
           "sizes=[\"2KiB\"]'",
       "workload.perftest.0.sizes.0"},
  };
  check_bad_configs(base, cases, dir);
}
