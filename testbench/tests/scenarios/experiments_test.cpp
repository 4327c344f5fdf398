// The experiments of docs/experiments: each sweep runs from its file with one
// command, its pictures are drawn again, and what its page says holds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/pcie_analytic.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Runs a sweep file of configs/experiments; its results.json rows.
json run_sweep(const ScratchDir& dir, const std::string& name) {
  const CommandResult s = run_command("sweep " + config_path("experiments/" + name + ".json") + " --quiet --out " +
                                          (dir / name).string(), dir);
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "results.json"))["rows"];
}

void plot(const ScratchDir& dir, const std::string& args, const std::string& out) {
  const CommandResult r = run_command("plot sweep " + args + " --out " + (dir / out).string() + ".png", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(dir / (out + ".png")).rfind("\x89PNG", 0) == 0);
}

// Draws an rc-swarm sweep's reads_per_s against axis x beside Kalia et al.'s
// Connect-IB points (docs/devices/connect-ib-rc-swarm-reads.csv) that match where.
void plot_against_connect_ib(const ScratchDir& dir, const std::string& name, const std::string& x,
                             const std::string& where) {
  plot(dir, (dir / name).string() + " --x " + x + " --y reads_per_s --reference " + HCASIM_SOURCE_DIR +
                "/docs/devices/connect-ib-rc-swarm-reads.csv --reference-x " + x +
                " --reference-y reads_per_s --reference-where " + where,
       name);
}

}  // namespace

TEST_CASE("experiment doorbell_methods: BlueFlame removes one WQE fetch at every size, inline data the gather read "
          "up to inline_size", "[slow]") {
  const ScratchDir dir("exp-doorbell");
  const json rows = run_sweep(dir, "doorbell_methods");
  REQUIRE(rows.size() == 40);
  for (const char* inl : {"0B", "220B"})
    plot(dir, (dir / "doorbell_methods").string() + " --x size --y latency_ns --series doorbell --where inline=" + inl,
         std::string("inline_") + inl);
  std::map<std::tuple<std::string, std::string, std::string>, json> at;  // (inline, doorbell, size)
  for (const json& r : rows) at[{r["inline"], r["doorbell"], r["size"]}] = r;
  const double saving = at[{"0B", "mmio", "8B"}]["latency_ns"].get<double>() -
                        at[{"0B", "blueflame", "8B"}]["latency_ns"].get<double>();
  CHECK(saving > 0);
  for (const char* inl : {"0B", "220B"})
    for (const auto& [size, bytes] : std::map<std::string, unsigned>{{"8B", 8},      {"16B", 16},   {"32B", 32},
                                                                    {"64B", 64},    {"128B", 128}, {"256B", 256},
                                                                    {"512B", 512},  {"1KiB", 1024}, {"2KiB", 2048},
                                                                    {"4KiB", 4096}}) {
      INFO(inl << " " << size);
      const json& mmio = at[{inl, "mmio", size}];
      const json& bf = at[{inl, "blueflame", size}];
      const bool inlined = std::string(inl) == "220B" && bytes <= 220;
      // The same saving at every size; an inline WQE's BlueFlame write carries its bytes, a few ns more.
      const double saved = mmio["latency_ns"].get<double>() - bf["latency_ns"].get<double>();
      if (inlined) {
        CHECK(saved <= saving + 1.0);
        CHECK(saved > saving - 10);
      } else {
        CHECK(saved == Approx(saving).margin(1.0));  // within 1 ns: the caches' first-touch misses move single samples
      }
      CHECK(bf["wqe_fetches"].get<double>() == 0);
      CHECK(mmio["wqe_fetches"].get<double>() == 1000);  // one send ring read a message
      CHECK((bf["gather_reads"].is_null() ? 0.0 : bf["gather_reads"].get<double>()) == (inlined ? 0 : 1000));
      if (!inlined)  // above the inline limit both pictures are the same
        CHECK(bf["latency_ns"].get<double>() == at[{"0B", "blueflame", size}]["latency_ns"].get<double>());
    }
}

namespace {

// One run of configs/rc_swarm.json (or another scenario) with overrides; its stats.json.
json run_swarm(const ScratchDir& dir, const std::string& name, const std::string& sets,
               const std::string& scenario = "rc_swarm.json") {
  const CommandResult r = run_command(
      "run " + config_path(scenario) + " --quiet --out " + (dir / name).string() + " " + sets + kWithDetails, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

double ops_per_s(const json& stats) { return stats["swarm"][0]["ops_per_s_per_machine"].get<double>(); }

}  // namespace

// Kalia et al.'s Connect-IB rc-swarm points (docs/devices/connect-ib-rc-swarm-reads.csv, the
// means over the six machines of rdma_bench's rc-swarm/sweep/osdi files).
double connect_ib_reads(unsigned vms, unsigned window) {
  static const std::map<std::pair<unsigned, unsigned>, double> points = [] {
    std::map<std::pair<unsigned, unsigned>, double> m;
    const std::string csv = slurp(fs::path(HCASIM_SOURCE_DIR) / "docs/devices/connect-ib-rc-swarm-reads.csv");
    std::istringstream in(csv);
    std::string line;
    std::getline(in, line);  // vms,qps_per_machine,window,reads_per_s
    while (std::getline(in, line)) {
      unsigned v = 0, q = 0, w = 0;
      double r = 0;
      if (std::sscanf(line.c_str(), "%u,%u,%u,%lf", &v, &q, &w, &r) == 4) m[{v, w}] = r;
    }
    return m;
  }();
  const auto it = points.find({vms, window});
  REQUIRE(it != points.end());
  return it->second;
}

TEST_CASE("device connect-ib: rc-swarm 32-byte READs at window 24 for M = 1..15 and at M = 1 for windows 8 to 32 "
          "within 10 % of Connect-IB, 8- to 392-byte READs at windows 24 and 32, never rising with M or size", "[slow]") {
  const ScratchDir dir("exp-connect-ib");
  const json qps = run_sweep(dir, "connect_ib_qps");
  REQUIRE(qps.size() == 8);
  plot_against_connect_ib(dir, "connect_ib_qps", "vms", "window=24");
  double previous = 1e18;
  for (const json& r : qps) {
    const unsigned vms = r["vms"].get<unsigned>();
    INFO("M = " << vms);
    CHECK(r["qps_per_machine"].get<unsigned>() == 84 * vms);  // 14 threads x 6 machines x M
    const double rate = r["reads_per_s"].get<double>();
    CHECK(rate == Approx(connect_ib_reads(vms, 24)).epsilon(0.10));
    CHECK(rate <= 1.01 * previous);  // more QPs are never faster
    previous = rate;
    CHECK(r["qpc_hit_rate"].get<double>() > 0.95);  // the decline is the units' store, not PCIe fills
  }
  const json windows = run_sweep(dir, "connect_ib_window");
  REQUIRE(windows.size() == 4);
  plot_against_connect_ib(dir, "connect_ib_window", "window", "vms=1");
  std::map<unsigned, double> at;
  for (const json& r : windows) at[r["window"].get<unsigned>()] = r["reads_per_s"].get<double>();
  for (unsigned w : {8u, 16u, 24u, 32u}) {
    INFO("window " << w);
    CHECK(at[w] == Approx(connect_ib_reads(1, w)).epsilon(0.10));
  }
  // The fall at 32 is hca.wqe_reads_kept's: without it the rate is the four transmit units'
  // bound, 4 / 80 ns = 50 M/s (docs/devices/connect-ib.md).
  CHECK(at[32] < 0.9 * at[24]);  // Connect-IB: 0.76
  const json unkept = run_swarm(dir, "window32-all-kept", "--set workload.swarm.0.window=32 --set hca.wqe_reads_kept=0");
  CHECK(ops_per_s(unkept) == Approx(50e6).epsilon(0.02));
  // READs of 8 to 392 bytes at 84 QPs, windows 24 and 32 (connect-ib-rc-swarm-read-sizes.csv).
  const json sizes = run_sweep(dir, "connect_ib_read_sizes");
  REQUIRE(sizes.size() == 26);
  for (const char* w : {"24", "32"})
    plot(dir, (dir / "connect_ib_read_sizes").string() + " --x size --y reads_per_s --where window=" + w +
                  " --reference " + HCASIM_SOURCE_DIR + "/docs/devices/connect-ib-rc-swarm-read-sizes.csv" +
                  " --reference-x size --reference-y reads_per_s --reference-where window=" + w,
         std::string("connect_ib_read_sizes_window") + w);
  std::map<std::pair<unsigned, unsigned>, double> measured;  // (window, size)
  std::istringstream in(slurp(fs::path(HCASIM_SOURCE_DIR) / "docs/devices/connect-ib-rc-swarm-read-sizes.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    unsigned size = 0, window = 0;
    double r = 0;
    if (std::sscanf(line.c_str(), "%uB,%u,%lf", &size, &window, &r) == 3) measured[{window, size}] = r;
  }
  std::map<unsigned, double> last;  // window -> the previous size's rate
  for (const json& r : sizes) {
    const std::string size = r["size"].get<std::string>();
    const unsigned window = r["window"].get<unsigned>();
    INFO("size " << size << ", window " << window);
    const double rate = r["reads_per_s"].get<double>();
    // Window 32 is predicted with nothing fitted on it but M = 1 at 32 bytes.
    CHECK(rate == Approx(measured.at({window, std::stoul(size)})).epsilon(0.10));
    if (last.count(window) != 0) CHECK(rate <= 1.01 * last[window]);  // larger READs are never more
    last[window] = rate;
  }
}

TEST_CASE("device connect-ib: rc-swarm 32-byte inline WRITEs at 84 QPs within 10 % of Connect-IB at every window and "
          "from 2 to 11 threads within 15 %", "[slow]") {
  const ScratchDir dir("exp-connect-ib-writes");
  const json rows = run_sweep(dir, "connect_ib_writes");
  REQUIRE(rows.size() == 25);
  // The file's rows: threads, QPs, window, signaling batch (all signaled: the batch does not matter), rate.
  std::map<std::pair<unsigned, unsigned>, std::vector<double>> measured;
  std::istringstream in(slurp(fs::path(HCASIM_SOURCE_DIR) / "docs/devices/connect-ib-rc-swarm-writes.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    unsigned threads = 0, qps = 0, window = 0, batch = 0;
    double r = 0;
    if (std::sscanf(line.c_str(), "%u,%u,%u,%u,%lf", &threads, &qps, &window, &batch, &r) == 5)
      measured[{threads, window}].push_back(r);
  }
  for (const json& r : rows) {
    const unsigned threads = r["threads"].get<unsigned>(), window = r["window"].get<unsigned>();
    INFO(threads << " threads, window " << window);
    const std::vector<double>& m = measured.at({threads, window});
    double mean = 0;
    for (double v : m) mean += v / static_cast<double>(m.size());
    // 14 threads are the file's 84 QPs per machine, the points issue 52 lists; fewer threads
    // are predicted with 15 % (docs/devices/connect-ib.md: the model's WRITE round trip grows
    // less with the machine's rate than Connect-IB's there).
    CHECK(r["writes_per_s"].get<double>() == Approx(mean).epsilon(threads == 14 ? 0.10 : 0.15));
  }
}

TEST_CASE("device connect-ib: the WQE cache's size is not fitted: with 1536 lines and with four times the device's 4096 "
          "the WRITE rate at 84 QPs is within 1 % of the device's at windows 48 and 64", "[slow]") {
  // 14 threads x 64 WRITEs outstanding, two 64-byte lines each (a 68-byte inline WQE): at most
  // 1,792 lines of BlueFlame WQEs wait for their first use; from 1,536 lines few are refused.
  const ScratchDir dir("exp-connect-ib-wqe-size");
  const std::string writes =
      "--set workload.swarm.0.op=write --set hca.inline_threshold=64B --set hca.max_inline=64B "
      "--set workload.swarm.0.threads=14 ";
  for (unsigned window : {48u, 64u}) {
    const std::string w = writes + "--set workload.swarm.0.window=" + std::to_string(window);
    const double device = ops_per_s(run_swarm(dir, "device-w" + std::to_string(window), w));
    for (unsigned entries : {1536u, 16384u}) {
      INFO("window " << window << ", " << entries << " lines");
      const std::string name = "wqe" + std::to_string(entries) + "-w" + std::to_string(window);
      const json stats = run_swarm(dir, name, w + " --set hca.caches.wqe.entries=" + std::to_string(entries));
      CHECK(ops_per_s(stats) == Approx(device).epsilon(0.01));
    }
  }
  // Half of 1,536 refuses most BlueFlame WQEs, and their reads bound the rate far below.
  const json small = run_swarm(dir, "wqe768", writes + "--set workload.swarm.0.window=64 --set hca.caches.wqe.entries=768");
  CHECK(ops_per_s(small) < 0.85 * ops_per_s(run_swarm(dir, "wqe4096", writes + "--set workload.swarm.0.window=64")));
}

namespace {

// For each cache of a device (its size in that device) and each M: rc-swarm's rate with the cache at
// half, once, twice and four times its size never falls as it grows. 2 %: one run's rate moves by
// up to 0.7 % with the seed (connect-ib, M = 7, seeds 1-5: 34.48-34.92 M/s), and a cache's size
// moves the random trajectory as a seed does.
void check_caches_monotone(const ScratchDir& dir, const std::string& scenario,
                           const std::vector<std::pair<std::string, unsigned>>& caches,
                           const std::vector<unsigned>& vms_values) {
  for (const auto& [cache, entries] : caches)
    for (unsigned vms : vms_values) {
      INFO(cache << " at M = " << vms);
      std::vector<double> rates;
      for (unsigned times4 : {2u, 4u, 8u, 16u}) {  // x / 4
        const std::string n = std::to_string(entries * times4 / 4);
        rates.push_back(ops_per_s(run_swarm(dir, cache + "-" + n + "-m" + std::to_string(vms),
                                              "--set workload.swarm.0.vms=" + std::to_string(vms) +
                                                  " --set hca.caches." + cache + ".entries=" + n,
                                              scenario)));
      }
      for (std::size_t i = 1; i < rates.size(); ++i) CHECK(rates[i] >= 0.98 * rates[i - 1]);
    }
}

}  // namespace

TEST_CASE("device connect-ib: no cache from half to four times its size makes rc-swarm slower as it grows, at "
          "M = 1, 7 and 15", "[slow]") {
  const ScratchDir dir("exp-connect-ib-caches");
  // The device's sizes (docs/devices/connect-ib.md) and the defaults it keeps.
  check_caches_monotone(dir, "rc_swarm.json",
                        {{"qpc_l1", 168}, {"qpc", 4096}, {"cqc", 4096}, {"mpt", 256}, {"mtt", 2048}, {"wqe", 640}},
                        {1, 7, 15});
}

TEST_CASE("device connect-ib: its page's calibration: a crossbar without speedup caps 392-byte READs by head-of-line "
          "blocking, and the transmit units bound M = 1", "[slow]") {
  const ScratchDir dir("exp-qps-calibration");
  // 392-byte READs load the links: a one-speed crossbar caps them by head-of-line blocking well under
  // Connect-IB's 22.96 M/s, with the HCA's links under 70 % busy.
  const json no_speedup = run_swarm(dir, "speedup1", "--set switch.speedup=1 --set workload.swarm.0.size=392B");
  CHECK(ops_per_s(no_speedup) < 0.75 * 22.96e6);
  CHECK(read_details(dir / "speedup1")["ports"][0]["utilization"].get<double>() < 0.70);
  // At M = 1 the four transmit units bound the rate: 80 ns of unit time per READ a machine issues
  // and answers at wqe_parse 40 ns, 4 / 80 ns = 50 M/s, with the 14 threads' CPU under half busy
  // (with every READ's WQE kept: the refetches of those past wqe_reads_kept take 3 % more).
  const json m1 = run_swarm(dir, "m1", "--set hca.wqe_reads_kept=0");
  CHECK(ops_per_s(m1) == Approx(4 / 80e-9).epsilon(0.01));
  CHECK(m1["hosts"]["first"][0]["driver"]["cpu_utilization"].get<double>() < 0.5);
  const json at50 = run_swarm(dir, "parse50", "--set transport.wqe_parse=50ns --set hca.wqe_reads_kept=0");
  CHECK(ops_per_s(at50) < 0.9 * 50.25e6);
  CHECK(at50["engines"]["first"][0]["utilization"].get<double>() > 0.98);  // the four units always busy
  // With the generic cache sizes (the CQC misses from 252 QPs on), M = 15 falls below half of Connect-IB's
  // 31.83 M/s: the cliff of PCIe fills the device's large QPC and CQC avoid.
  const json small = run_swarm(dir, "small-caches",
                               "--set workload.swarm.0.vms=15 --set hca.caches.qpc.entries=512 "
                               "--set hca.caches.cqc.entries=128");
  CHECK(ops_per_s(small) < 0.5 * 31.83e6);
  // Without the units' context store the rate stays flat from M = 1 to 15 (within 3 %): the store is the decline.
  const json flat1 = run_swarm(dir, "no-l1-m1", "--set hca.caches.qpc_l1.entries=0");
  const json flat15 = run_swarm(dir, "no-l1-m15", "--set hca.caches.qpc_l1.entries=0 --set workload.swarm.0.vms=15");
  CHECK(ops_per_s(flat15) == Approx(ops_per_s(flat1)).epsilon(0.03));
}

// The Apt cluster's ConnectX-3 rc-swarm points (docs/devices/connectx-3-rc-swarm-reads.csv): six or
// eleven machines, eight threads each, 32-byte READs, window 16; six machines' M = 1 is not in that
// file: the 8-byte READs at M = 1 and window 16 (connectx-3-rc-swarm-read-sizes.csv) stand for it.
double connectx3_reads(unsigned machines, unsigned vms) {
  const bool sizes = machines == 6 && vms == 1;
  const std::string file = sizes ? "connectx-3-rc-swarm-read-sizes.csv" : "connectx-3-rc-swarm-reads.csv";
  std::istringstream in(slurp(fs::path(HCASIM_SOURCE_DIR) / "docs/devices" / file));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    double r = 0;
    if (sizes && std::sscanf(line.c_str(), "%uB,%u,%lf", &a, &b, &r) == 3 && a == 8 && b == 16) return r;
    if (!sizes && std::sscanf(line.c_str(), "%u,%u,%u,%u,%lf", &a, &b, &c, &d, &r) == 5 && a == machines &&
        b == vms && d == 16)
      return r;
  }
  FAIL("no ConnectX-3 point for " << machines << " machines at M = " << vms);
  return 0;
}

// The sweep's rows within 15 % of ConnectX-3, never rising with M (within 1 %); the rates by M.
std::map<unsigned, double> check_connectx3_sweep(const ScratchDir& dir, const std::string& name, unsigned machines,
                                                 std::size_t points) {
  const json rows = run_sweep(dir, name);
  REQUIRE(rows.size() == points);
  plot(dir, (dir / name).string() + " --x qps_per_machine --y reads_per_s --reference " + HCASIM_SOURCE_DIR +
                "/docs/devices/connectx-3-rc-swarm-reads.csv --reference-x qps_per_machine --reference-y reads_per_s "
                "--reference-where machines=" + std::to_string(machines) + " --reference-where window=16",
       name);
  double previous = 1e18;
  std::map<unsigned, double> at;
  for (const json& r : rows) {
    const unsigned vms = r["vms"].get<unsigned>();
    INFO(machines << " machines, M = " << vms);
    CHECK(r["qps_per_machine"].get<unsigned>() == 8 * machines * vms);  // 8 threads x machines x M
    const double rate = r["reads_per_s"].get<double>();
    CHECK(rate == Approx(connectx3_reads(machines, vms)).epsilon(0.15));
    CHECK(rate <= 1.01 * previous);
    previous = rate;
    at[vms] = rate;
    // With fewer busy QPs (8 x (machines - 1) x M) than the store's 96 lines it is never full:
    // every eviction is a set conflict.
    const uint64_t evictions = r["qpc_l1_evictions"].get<uint64_t>();
    if (8 * (machines - 1) * vms < 96) CHECK(r["qpc_l1_conflict_evictions"].get<uint64_t>() == evictions);
    if (vms == 1 && machines == 6) CHECK(evictions == 0);  // 40 QPs fill no set of 12
    if (vms == 1 && machines == 11) CHECK(evictions > 0);
  }
  return at;
}

TEST_CASE("device connectx-3: rc-swarm 32-byte READs at window 16 for M = 1..15 within 15 % of ConnectX-3, "
          "collapsing by M = 3 (144 QPs), never rising with M", "[slow]") {
  const ScratchDir dir("exp-connectx3");
  std::map<unsigned, double> at = check_connectx3_sweep(dir, "connectx3_qps", 6, 8);
  // The collapse: at 144 QPs a third of 48 QPs' rate (Connect-IB keeps 86 % at 252), an order of magnitude at 720.
  CHECK(at[3] < 0.4 * at[1]);
  CHECK(at[15] < 0.12 * at[1]);
}

TEST_CASE("device connectx-3: eleven machines at M = 1..9 within 15 % of ConnectX-3: 88 QPs already lose a "
          "third by set conflicts in a store of 96", "[slow]") {
  const ScratchDir dir("exp-connectx3-11");
  std::map<unsigned, double> at = check_connectx3_sweep(dir, "connectx3_qps_11_machines", 11, 9);
  // 80 QPs carry traffic, fewer than the store's 96 lines: a fully associative store (or the modulo
  // index over consecutive QPNs) keeps them all and six machines' M = 1 rate, 11.06 M/s; the hashed
  // sets of 12 lose about a third, as ConnectX-3 does (7.67).
  CHECK(at[1] < 0.8 * 11.06e6);
  const json modulo = run_swarm(dir, "modulo", "--set topology.hosts=11 --set workload.swarm.0.vms=1 "
                                               "--set hca.caches.qpc_l1.index=modulo", "rc_swarm_connectx3.json");
  CHECK(ops_per_s(modulo) == Approx(11.06e6).epsilon(0.02));
  CHECK(modulo["hosts"]["first"][0]["caches"]["qpc_l1"]["hit_rate"].get<double>() > 0.99);
  // Fewer, larger sets conflict less: 8, 12 and 16 ways (expected miss shares 0.071, 0.046, 0.031)
  // give a rising rate, 16 ways more than ConnectX-3's 7.67 M/s and 8 ways less.
  std::vector<double> by_ways;
  for (unsigned ways : {8u, 12u, 16u})
    by_ways.push_back(ops_per_s(run_swarm(dir, "ways" + std::to_string(ways),
                                            "--set topology.hosts=11 --set workload.swarm.0.vms=1 "
                                            "--set hca.caches.qpc_l1.ways=" + std::to_string(ways),
                                            "rc_swarm_connectx3.json")));
  CHECK(by_ways[0] < by_ways[1]);
  CHECK(by_ways[1] < by_ways[2]);
  CHECK(by_ways[0] < 7.67e6);
  CHECK(by_ways[2] > 7.67e6);
}

TEST_CASE("device connectx-3: no cache from half to four times its size makes rc-swarm slower as it grows, at "
          "M = 3, 7 and 15", "[slow]") {
  const ScratchDir dir("exp-connectx3-caches");
  check_caches_monotone(dir, "rc_swarm_connectx3.json",
                        {{"qpc_l1", 96}, {"qpc", 512}, {"cqc", 128}, {"mpt", 256}, {"mtt", 2048}, {"wqe", 640}},
                        {3, 7, 15});
}

namespace {

// One entry read by a context cache over the memory_regions scenario's link
// (Gen3 x16, 250 ns each way, 80 ns of memory), a 64-byte MPT entry or MTT line.
double entry_read_ns() {
  hcasim::pcie::PcieConfig c;
  c.gen = 3;
  c.lanes = 16;
  return hcasim::test::entry_read_ns(c, 64, 250, 80);
}

// Per row of a memory_regions sweep: the rate against the first point while the
// footprint fits (n <= capacity), the miss ratio against 1 - C/N and the rate
// against the MSHR bound beyond it.
void check_footprint(const json& rows, const char* cache, double capacity, unsigned mshrs,
                     const std::function<double(const json&)>& footprint, double lowest_share_of_bound) {
  const double flat = rows[0]["writes_per_s"].get<double>();
  for (const json& r : rows) {
    const double n = footprint(r);
    INFO(cache << ": footprint " << n);
    const double rate = r["writes_per_s"].get<double>();
    const double ops = r[std::string(cache) + "_lookups"].get<double>() / 2;  // a local and a remote lookup each
    const double misses_per_op = r[std::string(cache) + "_misses"].get<double>() / ops;
    if (n <= capacity) {
      CHECK(rate == Approx(flat).epsilon(0.01));
      continue;
    }
    CHECK(misses_per_op == Approx(1 - capacity / n).margin(0.09));
    const double bound = mshrs / (entry_read_ns() * 1e-9 * misses_per_op);
    CHECK(rate <= 1.02 * std::min(bound, flat));
    CHECK(rate >= lowest_share_of_bound * std::min(bound, flat));
  }
}

}  // namespace

TEST_CASE("experiment memory_regions: flat while the MRs and pages fit the MPT and MTT, then misses at 1 - C/N, "
          "MPT-bound at the MSHR bound", "[slow]") {
  const ScratchDir dir("exp-mr");
  CHECK(entry_read_ns() == Approx(588).margin(3));  // the page's 588 ns
  const json count = run_sweep(dir, "memory_regions_count");
  REQUIRE(count.size() == 8);
  plot(dir, (dir / "memory_regions_count").string() + " --x regions --y writes_per_s --logx", "count");
  // 14 threads' regions per HCA; the MPT holds 256.
  check_footprint(count, "mpt", 256, 8, [](const json& r) { return 14.0 * r["regions"].get<double>(); }, 0.85);
  const json span = run_sweep(dir, "memory_regions_span");
  REQUIRE(span.size() == 8);
  plot(dir, (dir / "memory_regions_span").string() + " --x buffer --y writes_per_s --logx", "span");
  // 14 threads' buffers per HCA, an MTT line of 8 entries of 4 KiB pages: 32 KiB; the MTT holds 2,048 lines.
  check_footprint(span, "mtt", 2048, 16, [](const json& r) {
    const std::string b = r["buffer"].get<std::string>();
    return 14.0 * std::stod(b.substr(0, b.size() - 3)) * 32;
  }, 0.70);
}

// docs/experiments/cc_parameters.md. B is the payload bound of one HDR 4x link
// for 4 KiB packets; a victim's fair rate is 2B/3 (cc_hotspot_test.cpp).
TEST_CASE("experiment cc_parameters: threshold 0 leaves the victims at half their fair rate - from 2 on they get it - "
          "a larger CCTI_Increase costs the hot link", "[slow]") {
  const ScratchDir dir("exp-cc-parameters");
  const json rows = run_sweep(dir, "cc_parameters");
  plot(dir, (dir / "cc_parameters").string() + " --x threshold --y 'throughput_bps[victim8]' --series ccti_increase",
       "cc_parameters_victim");
  plot(dir, (dir / "cc_parameters").string() + " --x threshold --y hot_link_utilization --series ccti_increase",
       "cc_parameters_hot_link");
  REQUIRE(rows.size() == 30);
  const auto s = load_config("cc_hotspot.json");
  const double fair = 2 * analytic_bound(s.link, 4096).data_bps / 3;
  std::map<int, std::vector<double>> busy;  // by CCTI_Increase, Threshold >= 2
  for (const json& r : rows) {
    const int increase = r["ccti_increase"], threshold = r["threshold"];
    INFO("ccti_increase " << increase << " threshold " << threshold);
    REQUIRE(r["hot_link"] == "sw1_0.p1");
    double slowest = 1e300;
    for (const char* v : {"victim4", "victim8", "victim12"})
      slowest = std::min(slowest, r[std::string("throughput_bps[") + v + "]"].get<double>() / fair);
    const double util = r["hot_link_utilization"];
    if (threshold == 0) {  // no marking: head-of-line blocking, as with control off
      CHECK(std::abs(slowest - 0.5) < 0.02);
      CHECK(util > 0.99);
    } else if (threshold >= 2) {
      CHECK(slowest >= 0.95);
      busy[increase].push_back(util);
    }
  }
  auto mean = [](const std::vector<double>& v) {
    double t = 0;
    for (double x : v) t += x;
    return t / static_cast<double>(v.size());
  };
  INFO("hot link busy " << mean(busy[1]) << ", " << mean(busy[2]) << ", " << mean(busy[4]));
  CHECK(mean(busy[1]) >= 0.94);
  CHECK(mean(busy[2]) < mean(busy[1]) - 0.03);
  CHECK(mean(busy[4]) < mean(busy[2]) - 0.03);
}

TEST_CASE("experiment switch_architectures: input_fifo saturates at 0.60, the others above 0.9, and voq's and "
          "shared's saturation grows with the buffer, shared's above voq's at the same memory", "[slow]") {
  const ScratchDir dir("exp-switch-architectures");
  const json load = run_sweep(dir, "switch_architectures");
  REQUIRE(load.size() == 48);
  plot(dir, (dir / "switch_architectures").string() + " --x offered_load --y accepted_load --series architecture",
       "switch_architectures_accepted");
  std::map<std::pair<std::string, std::string>, json> at;
  for (const json& r : load) at[{r["architecture"], r["offered"]}] = r;
  for (const char* arch : {"input_fifo", "cioq", "voq", "shared"}) {
    INFO(arch);
    for (const char* offered : {"10%", "30%", "50%"}) {  // below every saturation: all of it carried
      const json& r = at.at({arch, offered});
      CHECK(r["accepted_load"].get<double>() == Approx(r["offered_load"].get<double>()).epsilon(0.01));
    }
  }
  for (const char* offered : {"70%", "80%", "90%", "100%"}) {
    INFO(offered);
    const double fifo = at.at({"input_fifo", offered})["accepted_load"].get<double>();
    CHECK(fifo > 0.586);  // Karol et al.: 0.586 as N grows, 0.600 at N = 16
    CHECK(fifo < 0.618);
  }
  for (const char* arch : {"cioq", "voq", "shared"}) CHECK(at.at({arch, "100%"})["accepted_load"].get<double>() > 0.9);
  // At 80 %, past input_fifo's saturation, its latency is the highest, cioq's (a crossbar twice as fast) the lowest.
  const auto p99 = [&](const char* arch) { return at.at({arch, "80%"})["latency_p99_ns"].get<double>(); };
  CHECK(p99("input_fifo") > p99("voq"));
  CHECK(p99("voq") > p99("shared"));
  CHECK(p99("shared") > p99("cioq"));

  const json buffers = run_sweep(dir, "switch_buffers");
  REQUIRE(buffers.size() == 28);
  std::map<std::string, std::vector<double>> by_arch;  // in the sweep's buffer order, 16 KiB to 1 MiB
  for (const json& r : buffers) by_arch[r["architecture"]].push_back(r["accepted_load"].get<double>());
  const auto& fifo = by_arch.at("input_fifo");
  CHECK(*std::max_element(fifo.begin(), fifo.end()) - *std::min_element(fifo.begin(), fifo.end()) < 0.01);
  const auto& voq = by_arch.at("voq");
  const auto& shared = by_arch.at("shared");
  for (std::size_t i = 1; i < voq.size(); ++i) {
    CHECK(voq[i] > voq[i - 1]);
    CHECK(shared[i] >= shared[i - 1]);
  }
  for (std::size_t i = 0; i < voq.size(); ++i) CHECK(shared[i] > voq[i]);  // the same memory, drawn where it is needed
  CHECK(voq.back() >= 0.97);
  CHECK(voq.front() < by_arch.at("cioq").front());  // 16 KiB: 4 packets over 16 queues
}

TEST_CASE("experiment fat_tree_architectures: on the k=8 tree uniform traffic depends on the switch, a permutation "
          "on the routing alone", "[slow]") {
  const ScratchDir dir("exp-fat-tree-architectures");
  const json rows = run_sweep(dir, "fat_tree_architectures");
  REQUIRE(rows.size() == 168);
  plot(dir, (dir / "fat_tree_architectures").string() +
                " --x offered_load --y accepted_load --series architecture --where traffic=uniform",
       "fat_tree_architectures_uniform");
  std::map<std::tuple<std::string, std::string, int>, double> full;  // (architecture, traffic, seed) at 100 %
  for (const json& r : rows)
    if (r["offered"] == "100%") full[{r["architecture"], r["traffic"], r["seed"].get<int>()}] = r["accepted_load"];
  for (int seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const double fifo = full.at({"input_fifo", "uniform", seed});
    CHECK(fifo > 0.62);  // head-of-line blocking: the experiments page's 0.66
    CHECK(fifo < 0.70);
    for (const char* arch : {"cioq", "voq", "shared"}) CHECK(full.at({arch, "uniform", seed}) > 0.93);
    // One permutation, four switch organisations: the routing's link sharing alone decides.
    const double perm = full.at({"input_fifo", "permutation", seed});
    CHECK(perm > 0.55);
    CHECK(perm < 0.85);
    for (const char* arch : {"cioq", "voq", "shared"})
      CHECK(full.at({arch, "permutation", seed}) == Approx(perm).margin(0.02));
  }
}

TEST_CASE("experiment fat_tree_adaptive: free AR lifts a permutation to 0.9 of the links, bounded AR stays "
          "where static routing is, and only free AR reorders", "[slow]") {
  const ScratchDir dir("exp-fat-tree-adaptive");
  const json rows = run_sweep(dir, "fat_tree_adaptive");
  REQUIRE(rows.size() == 126);
  plot(dir, (dir / "fat_tree_adaptive").string() +
                " --x offered_load --y accepted_load --series adaptive --where traffic=permutation",
       "fat_tree_adaptive_permutation");
  std::map<std::tuple<std::string, std::string, int>, json> full;  // (adaptive, traffic, seed) at 100 %
  for (const json& r : rows)
    if (r["offered"] == "100%") full[{r["adaptive"], r["traffic"], r["seed"].get<int>()}] = r;
  for (int seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const double fixed = full.at({"off", "permutation", seed})["accepted_load"];
    const double free_ar = full.at({"free", "permutation", seed})["accepted_load"];
    const double bounded = full.at({"bounded", "permutation", seed})["accepted_load"];
    CHECK(free_ar >= 0.90);
    CHECK(fixed < 0.80);
    CHECK(bounded < 0.80);  // a flow never idle 30 us keeps one path: static routing by another rule
    CHECK(full.at({"free", "permutation", seed})["out_of_order"] > 0);
    CHECK(full.at({"bounded", "permutation", seed})["out_of_order"] == 0);
    CHECK(full.at({"off", "permutation", seed})["out_of_order"] == 0);
    // Uniform traffic already spreads: AR gains nothing there.
    CHECK(full.at({"free", "uniform", seed})["accepted_load"].get<double>() ==
          Approx(full.at({"off", "uniform", seed})["accepted_load"].get<double>()).margin(0.02));
  }
}

TEST_CASE("experiment ar_out_of_order: free AR without out-of-order placement collapses RC write_bw, with it "
          "beats static routing, and no NAK", "[slow]") {
  const ScratchDir dir("exp-ar-out-of-order");
  const json rows = run_sweep(dir, "ar_out_of_order");
  REQUIRE(rows.size() == 6);
  std::map<std::pair<std::string, bool>, json> at;
  for (const json& r : rows) at[{r["adaptive"], r["out_of_order"].get<bool>()}] = r;
  const auto time_of = [&](const std::string& mode, bool ooo) { return at.at({mode, ooo})["sim_time_ps"].get<double>(); };
  // Every run moves the same bytes: 64 clients x 50 x 64 KiB.
  for (const json& r : rows) CHECK(r["bytes_sent"].get<uint64_t>() == 64ull * 50 * 65536);
  CHECK(at.at({"free", true})["psn_seq_naks"] == 0);
  CHECK(at.at({"free", true})["taken_out_of_order"] > 0);
  CHECK(time_of("free", true) < 0.6 * time_of("off", false));
  CHECK(at.at({"free", false})["psn_seq_naks"] > 0);
  CHECK(time_of("free", false) > 10 * time_of("off", false));
  // Static and bounded paths never reorder: the flag changes nothing.
  for (const char* mode : {"off", "bounded"}) {
    CHECK(time_of(mode, true) == time_of(mode, false));
    CHECK(at.at({mode, false})["psn_seq_naks"] == 0);
  }
}

// docs/adaptive-routing.md, experiment (d). B is the payload bound of one HDR 4x link for
// 4 KiB packets; max-min shares: hot flows B/3 (hca0's link), victims 2B/3, bystanders B.
TEST_CASE("experiment ar_congestion_control: AR leaves the hot spot and spreads its tree - congestion control "
          "frees the victims - free AR with it keeps the hot link", "[slow]") {
  const ScratchDir dir("exp-ar-congestion-control");
  const json rows = run_sweep(dir, "ar_congestion_control");
  REQUIRE(rows.size() == 12);
  for (const char* flow : {"victim4", "bystander6"})
    plot(dir, (dir / "ar_congestion_control").string() + " --x adaptive --y 'throughput_bps[" + flow +
                  "]' --series cc --where architecture=input_fifo",
         std::string("ar_congestion_control_") + flow);
  const auto s = load_config("ar_cc_hotspot.json");
  const double b = analytic_bound(s.link, 4096).data_bps;
  const double fair = 2 * b / 3;
  const std::vector<std::string> victims{"victim4", "victim8", "victim12"};
  const std::vector<std::string> off_tree{"bystander6", "bystander10", "bystander14"};  // LFTs: spines 1 to 3
  const std::vector<std::string> via_hot{"bystander7", "bystander11", "bystander15"};   // LFTs: spine 0, as hca0
  std::map<std::tuple<std::string, std::string, bool>, json> at;  // (architecture, adaptive, cc)
  for (const json& r : rows) at[{r["architecture"], r["adaptive"], r["cc"].get<bool>()}] = r;
  const auto tput = [](const json& r, const std::string& f) { return r["throughput_bps[" + f + "]"].get<double>(); };
  const auto lowest = [&](const json& r, const std::vector<std::string>& flows) {
    double m = 1e300;
    for (const std::string& f : flows) m = std::min(m, tput(r, f));
    return m;
  };
  const auto highest = [&](const json& r, const std::vector<std::string>& flows) {
    double m = 0;
    for (const std::string& f : flows) m = std::max(m, tput(r, f));
    return m;
  };
  const auto hot = [&](const json& r) { return tput(r, "hot4") + tput(r, "hot8") + tput(r, "hot12"); };
  // Leaf up-links credit-stalled for more than a quarter of the 500 us window (the run's results.db).
  const auto uplinks_stalled = [&](const json& r) {
    int n = 0;
    for (const json& p : read_table(dir / "ar_congestion_control" / "runs" / r["run"].get<std::string>(), "ports"))
      if (p["level"] == 1 && p["peer_level"] == 2 && p["measured_credit_stall_ps"].get<double>() > 0.25 * 500e6) ++n;
    return n;
  };
  for (const json& r : rows) {
    const std::string arch = r["architecture"], mode = r["adaptive"];
    const bool cc = r["cc"];
    INFO(arch << " " << mode << " cc " << cc);
    REQUIRE(r["exit_code"] == 0);
    CHECK(r["drops"] == 0);
    REQUIRE(r["hot_link"] == "sw1_0.p1");
    CHECK(hot(r) <= 1.01 * b);  // every path to hca0 ends on its link
    bool reordered = false;
    for (const auto& [key, value] : r.items())
      if (key.rfind("out_of_order[", 0) == 0 && value.get<double>() > 0) reordered = true;
    CHECK(reordered == (mode == "free"));
    if (mode != "free" || cc) CHECK(uplinks_stalled(r) <= 3);
    if (!cc) {
      CHECK(hot(r) >= 0.99 * b);
      for (const std::string& v : victims) CHECK(tput(r, v) == Approx(b / 3).epsilon(0.05));  // head-of-line at the leaf
      if (mode != "free") CHECK(r["ar_reroutes"].get<double>() == 0);  // bounded: no flow idle 30 us re-chooses
    } else {
      CHECK(r["marked"].get<double>() > 0);
      CHECK(r["cnps"].get<double>() > 0);
      CHECK(r["cnps"].get<double>() <= r["marked"].get<double>());  // a packet marked twice gets one CNP
    }
  }
  for (const char* arch : {"input_fifo", "voq"}) {
    INFO(arch);
    const json& off = at.at({arch, "off", false});
    const json& free_ar = at.at({arch, "free", false});
    const json& bounded = at.at({arch, "bounded", false});
    // Free AR spreads the tree over every leaf up-link; static and bounded routing do not.
    CHECK(uplinks_stalled(free_ar) == 12);
    CHECK(lowest(off, off_tree) >= 0.99 * b);
    CHECK(highest(free_ar, off_tree) < 0.75 * b);
    CHECK(highest(off, via_hot) <= 1.01 * 2 * b / 3);  // the spine-0 up-link, shared with a hot flow at B/3
    CHECK(lowest(bounded, off_tree) >= 0.99 * b);
    CHECK(lowest(bounded, via_hot) >= 0.99 * b);
    for (const char* name : {"victim4", "victim8", "victim12", "bystander6", "bystander10", "bystander14",
                             "bystander7", "bystander11", "bystander15"}) {
      const std::string f = name;
      INFO(f);
      CHECK(free_ar["p99_ns[" + f + "]"].get<double>() > off["p99_ns[" + f + "]"].get<double>());
    }
    // With congestion control.
    const json& off_cc = at.at({arch, "off", true});
    const json& free_cc = at.at({arch, "free", true});
    const json& bounded_cc = at.at({arch, "bounded", true});
    CHECK(lowest(free_cc, victims) >= 0.93 * fair);
    CHECK(lowest(bounded_cc, victims) >= 0.93 * fair);
    CHECK(hot(off_cc) < 0.9 * b);
    CHECK(hot(free_cc) >= 0.95 * b);
    CHECK(hot(bounded_cc) >= 0.95 * b);
    CHECK(highest(off_cc, via_hot) < 0.6 * b);  // marked on the shared up-link, below their share without control
    if (std::string(arch) == "input_fifo") {
      CHECK(lowest(off_cc, victims) >= 0.75 * fair);
      CHECK(lowest(off_cc, victims) < lowest(free_cc, victims));
      CHECK(highest(free_cc, off_tree) < 0.9 * b);
      CHECK(highest(free_cc, via_hot) < 0.9 * b);
    } else {  // only the queues towards a port count (docs/congestion-control.md)
      CHECK(lowest(off_cc, victims) >= 0.98 * fair);
      CHECK(highest(off_cc, via_hot) < 0.3 * b);
      CHECK(lowest(free_cc, off_tree) >= 0.93 * b);
      CHECK(lowest(free_cc, via_hot) >= 0.93 * b);
    }
  }
}
