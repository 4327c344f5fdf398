// The experiments of docs/experiments: each sweep runs from its file with one
// command, its pictures are drawn again, and what its page says holds.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "testbench/tests/scenarios/cli_util.hpp"
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

}  // namespace

TEST_CASE("experiment doorbell_methods: BlueFlame removes one WQE fetch at every size, inline data the gather read "
          "up to inline_size") {
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

// One run of configs/rc_swarm.json with overrides; its stats.json.
json run_swarm(const ScratchDir& dir, const std::string& name, const std::string& sets) {
  const CommandResult r =
      run_command("run " + config_path("rc_swarm.json") + " --quiet --out " + (dir / name).string() + " " + sets, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

double reads_per_s(const json& stats) { return stats["swarm"][0]["ops_per_s_per_machine"].get<double>(); }

}  // namespace

TEST_CASE("experiment qp_scalability: flat while the contexts fit the QPC and CQC, falling past them, M = 1 within "
          "7 % of Connect-IB") {
  const ScratchDir dir("exp-qps");
  const json rows = run_sweep(dir, "qp_scalability");
  REQUIRE(rows.size() == 8);
  plot(dir, (dir / "qp_scalability").string() + " --x vms --y reads_per_s --reference " +
                (std::string(HCASIM_SOURCE_DIR) + "/docs/experiments/rc_swarm_connectib.csv") +
                " --reference-x vms --reference-y reads_per_s --reference-where window=24",
       "qp_scalability");
  constexpr double kConnectIbM1 = 50.25e6;  // rc_swarm_connectib.csv: M = 1, window 24
  constexpr unsigned kContexts = 768;       // configs/rc_swarm.json: QPC and CQC lines
  std::map<unsigned, json> at;
  for (const json& r : rows) at[r["vms"].get<unsigned>()] = r;
  CHECK(at[1]["reads_per_s"].get<double>() == Approx(kConnectIbM1).epsilon(0.07));
  double low = 1e18, high = 0;
  for (const auto& [vms, r] : at) {
    INFO("M = " << vms);
    CHECK(r["qps_per_machine"].get<unsigned>() == 84 * vms);  // 14 threads x 6 machines x M
    if (r["qps_per_machine"].get<unsigned>() > kContexts) continue;
    CHECK(r["qpc_hit_rate"].get<double>() >= 0.97);  // only first touches miss
    low = std::min(low, r["reads_per_s"].get<double>());
    high = std::max(high, r["reads_per_s"].get<double>());
  }
  CHECK(high <= low * 1.12);  // flat while the contexts fit
  CHECK(at[15]["qpc_hit_rate"].get<double>() < 0.85);
  CHECK(at[15]["reads_per_s"].get<double>() < 0.6 * at[9]["reads_per_s"].get<double>());
}

TEST_CASE("experiment qp_scalability: its page's calibration: a crossbar without speedup caps M = 1 by head-of-line "
          "blocking, and below wqe_parse 30 ns the rate no longer moves") {
  const ScratchDir dir("exp-qps-calibration");
  const json no_speedup = run_swarm(dir, "speedup1", "--set switch.speedup=1");
  CHECK(reads_per_s(no_speedup) < 0.87 * 50.25e6);                     // under Connect-IB's 50.25 M/s
  CHECK(no_speedup["ports"][0]["utilization"].get<double>() < 0.75);   // its link under 75 % busy
  const json at30 = run_swarm(dir, "parse30", "");
  const json at10 = run_swarm(dir, "parse10", "--set transport.wqe_parse=10ns");
  CHECK(reads_per_s(at10) == Approx(reads_per_s(at30)).epsilon(0.01));
  CHECK(reads_per_s(run_swarm(dir, "parse50", "--set transport.wqe_parse=50ns")) < 0.95 * reads_per_s(at30));
  // With the default cache sizes (the CQC misses from 252 QPs on), M = 15 falls below half of Connect-IB's 31.83 M/s.
  const json small = run_swarm(dir, "small-caches",
                               "--set workload.swarm.0.vms=15 --set hca.caches.qpc.entries=512 "
                               "--set hca.caches.cqc.entries=128");
  CHECK(reads_per_s(small) < 0.5 * 31.83e6);
}
