// Workloads with sl "path" send each (source, destination) pair on the SL the
// SA's PathRecord carries for it: with lash, the layer of the pair, which the
// OpenSM oracle test proves equal to what OpenSM's SA answers. Read back by the
// stock tshark from the run's pcap: every data packet's LRH SL is its pair's
// entry of `validate --dump`'s hcasim-path-sl.dump, both ways of an RC
// connection (data and ACKs), for raw traffic to random destinations, in
// pre-configured and in-band runs; and the VL is the one the default SL2VL
// table maps the SL to.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim::test;

namespace {

// A 6x6 torus routed by lash (5 layers), 8 VLs: an RC write_bw from hca0 to
// hca2 and raw uniform traffic among the other hosts, all with sl "path".
std::string torus_scenario(const std::string& management) {
  nlohmann::json hosts = nlohmann::json::array();
  for (int i = 3; i < 35; ++i) hosts.push_back("hca" + std::to_string(i) + ".p1");
  nlohmann::json s = {
      {"name", "path_sl"},
      {"topology", {{"pattern", "torus"}, {"x", 6}, {"y", 6}, {"hosts_per_switch", 1}}},
      {"routing", {{"algorithm", "lash"}}},
      {"port", {{"data_vls", 8}, {"mtu", 2048}, {"vl_buffer", "32KiB"}}},
      {"link", {{"speed", "EDR"}, {"width", "4x"}, {"propagation", "3m"}}},
      {"management", {{"mode", management}, {"sm", "hca35.p1"}}},
      {"workload",
       {{"patterns", {{{"name", "uniform"}, {"kind", "uniform"}, {"hosts", hosts}, {"payload", "2KiB"},
                       {"rate", "20%"}, {"count", 40}, {"sl", "path"}}}},
        {"perftest", {{{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca2.p1"}, {"sl", "path"},
                       {"sizes", {16384}}, {"iterations", 10}}}}}},
      {"run", {{"duration", "2ms"}, {"seed", 1}}}};
  return s.dump(1);
}

// hcasim-path-sl.dump: (SLID, DLID) -> SL.
std::map<std::pair<uint64_t, uint64_t>, uint64_t> read_path_sls(const std::filesystem::path& file) {
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> sls;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string s, d;
    unsigned sl = 0;
    f >> s >> d >> sl;
    sls[{std::stoull(s, nullptr, 16), std::stoull(d, nullptr, 16)}] = sl;
  }
  return sls;
}

struct SlCounts {
  int rc_data = 0, rc_acks = 0, raw = 0;      // packets checked
  int rc_nonzero = 0, raw_nonzero = 0;        // of them, on an SL other than 0
};

// Runs the scenario with a pcap and checks each workload packet's SL and VL.
SlCounts check_run(const std::filesystem::path& dir, const std::string& management) {
  const std::string file = write_file(dir / (management + ".json"), torus_scenario(management));
  const auto dump = dir / (management + "-dump");
  const CommandResult v = run_command("validate " + file + " --dump " + dump.string(), dir);
  INFO(v.err);
  REQUIRE(v.exit_code == 0);
  REQUIRE(v.out.find("lash: 5 virtual layers") != std::string::npos);
  const auto sls = read_path_sls(dump / "hcasim-path-sl.dump");
  const CommandResult r = run_command("run " + file + " --quiet --pcap --out " + (dir / management).string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = tshark_fields((dir / management / "packets.pcap").string(),
                                  {"infiniband.lrh.slid", "infiniband.lrh.dlid", "infiniband.lrh.sl", "infiniband.lrh.vl",
                                   "infiniband.bth.opcode", "infiniband.bth.destqp"});
  SlCounts n;
  for (const auto& c : rows) {
    if (c[4].empty()) continue;                            // flow control
    const uint64_t qp = tshark_number(c[5]);
    if (qp <= 1) continue;                                 // management: SMPs and the SA's MADs
    const uint64_t slid = tshark_number(c[0]), dlid = tshark_number(c[1]), sl = tshark_number(c[2]);
    const uint64_t opcode = tshark_number(c[4]);
    INFO("SLID " << slid << " DLID " << dlid << " opcode " << opcode);
    REQUIRE(sls.count({slid, dlid}) == 1);
    REQUIRE(sl == sls.at({slid, dlid}));
    REQUIRE(tshark_number(c[3]) == sl);                    // default SL2VL with 8 VLs: SL n on VL n
    const bool raw = opcode == 0x64;                       // UD SEND only: the raw traffic
    const bool ack = opcode == 0x11;                       // RC ACKNOWLEDGE
    (raw ? n.raw : ack ? n.rc_acks : n.rc_data)++;
    (raw ? n.raw_nonzero : n.rc_nonzero) += sl != 0;
  }
  return n;
}

}  // namespace

TEST_CASE("sl path: RC and raw traffic carry the SA's SL of each pair in the LRH, pre-configured and in band") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);  // scripts/setup.sh installs it
  const auto dir = scratch("path_sl");
  for (const char* management : {"preconfigured", "in_band"}) {
    INFO(management);
    const SlCounts n = check_run(dir, management);
    CHECK(n.rc_data >= 10 * 16384 / 2048);  // every WRITE packet (retries only add)
    CHECK(n.rc_acks > 0);
    CHECK(n.rc_nonzero == n.rc_data + n.rc_acks);  // hca0 <-> hca2 is on layer 4 both ways (no SL 0 at all)
    CHECK(n.raw >= 32 * 40);
    CHECK(n.raw_nonzero > n.raw / 4);  // the pairs spread over 5 layers
    CHECK(n.raw_nonzero < n.raw);
  }
}

TEST_CASE("sl accepts 0 to 15 or \"path\", and says so for anything else") {
  const auto dir = scratch("path_sl_config");
  const std::string base = write_file(dir / "s.json", R"({ "name": "sl",
    "workload": { "flows": [ { "src": "hca0.p1", "dst": "hca1.p1", "count": 1 } ] } })");
  CHECK(run_command("validate " + base + " --set workload.flows.0.sl=path", dir).exit_code == 0);
  check_bad_configs(base,
                    {{"a word", "--set workload.flows.0.sl=fastest", "workload.flows.0.sl"},
                     {"above 15", "--set workload.flows.0.sl=16", "workload.flows.0.sl"},
                     {"negative", "--set workload.flows.0.sl=-1", "workload.flows.0.sl"}},
                    dir);
  const CommandResult r = run_command("validate " + base + " --set workload.flows.0.sl=fastest", dir);
  CHECK(r.err.find("an integer from 0 to 15, or \"path\"") != std::string::npos);
}
