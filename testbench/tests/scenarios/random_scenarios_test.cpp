// Random scenarios through the command line: topologies, VL counts and
// weights, MTUs, buffer sizes, link speeds, forwarding modes, switch architectures, speedups, LMC,
// traffic patterns and partitions drawn from a fixed seed. Every one must run
// to its end with the link checker satisfied (credits, buffer bounds, no loss)
// and deliver every packet it sent: the routes are loop-free (up/down wherever
// min-hop could close a credit loop), so nothing may stay stuck.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <random>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
using nlohmann::json;

namespace {

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& from) {
  return from[rng() % from.size()];
}

// adaptive: a fat tree under adaptive routing (docs/adaptive-routing.md), its
// mode and choice drawn too.
json random_scenario(std::mt19937& rng, unsigned index, bool adaptive = false) {
  const auto between = [&](unsigned lo, unsigned hi) { return lo + rng() % (hi - lo + 1); };
  json topology;
  std::string routing = "minhop";
  switch (adaptive ? 2 : rng() % 6) {
    case 0: topology = {{"pattern", "back_to_back"}}; break;
    case 1: topology = {{"pattern", "single_switch"}, {"hosts", between(2, 12)}}; break;
    case 2: topology = {{"pattern", "fat_tree"}, {"k", pick<unsigned>(rng, {2, 4})}, {"levels", between(2, 3)}}; break;
    case 3:
      topology = {{"pattern", "torus"}, {"x", between(2, 4)}, {"y", between(2, 4)}, {"hosts_per_switch", between(1, 2)}};
      routing = "updown";
      break;
    case 4:
      topology = {{"pattern", "mesh"}, {"x", between(2, 4)}, {"y", between(2, 3)}, {"hosts_per_switch", between(1, 2)}};
      routing = "updown";
      break;
    default:
      topology = {{"pattern", "dragonfly"}, {"a", 2}, {"p", between(1, 2)}, {"h", between(1, 2)}};
      routing = "updown";
  }
  const bool two_hosts = topology["pattern"] == "back_to_back";
  const unsigned vls = pick<unsigned>(rng, {1, 2, 4, 8});
  const unsigned mtu = pick<unsigned>(rng, {256, 512, 1024, 2048, 4096});
  std::string low;
  for (unsigned v = 0; v < vls; ++v) low += (v ? "," : "") + std::to_string(v) + ":" + std::to_string(between(1, 255));
  std::string kind = pick<std::string>(rng, {"uniform", "permutation", "all_to_all", "hotspot", "incast"});
  if (two_hosts && (kind == "hotspot" || kind == "incast")) kind = "uniform";
  json pattern = {{"name", "p"},
                  {"kind", kind},
                  {"payload", std::to_string(std::min(mtu, pick<unsigned>(rng, {64, 256, 1024, 4096}))) + "B"},
                  {"rate", pick<std::string>(rng, {"saturate", "30%", "90%", "10Gb/s"})},
                  {"count", between(5, 60)},
                  {"sl", between(0, 3)}};
  const std::string architecture = pick<std::string>(rng, {"input_fifo", "cioq", "voq", "shared"});
  if (kind == "incast" || kind == "hotspot") pattern["targets"] = {"hca0.p1"};
  if (kind == "hotspot") pattern["hot_fraction"] = (rng() % 100) / 100.0;
  json s = {{"name", "random" + std::to_string(index)},
            {"topology", topology},
            {"routing", {{"algorithm", routing}, {"lmc", pick<unsigned>(rng, {0, 0, 1, 2})}}},
            {"port",
             {{"data_vls", vls},
              {"mtu", mtu},
              {"vl_buffer", pick<std::string>(rng, {"8KiB", "16KiB", "64KiB"})},
              {"vlarb", {{"low", low}, {"high", pick<std::string>(rng, {"", "0:10"})}, {"high_limit", between(0, 5)}}}}},
            {"link",
             {{"speed", pick<std::string>(rng, {"SDR", "QDR", "EDR", "HDR", "NDR"})},
              {"width", pick<std::string>(rng, {"1x", "4x"})},
              {"propagation", pick<std::string>(rng, {"1m", "5m", "30m"})}}},
            {"switch",
             {{"forwarding", pick<std::string>(rng, {"cut_through", "store_and_forward"})},
              {"architecture", architecture},
              {"speedup", architecture == "input_fifo" ? 1.0 : pick<double>(rng, {1.0, 1.5, 2.0})},
              {"latency", pick<std::string>(rng, {"0ns", "100ns"})}}},
            {"workload", {{"patterns", {pattern}}}},
            {"run", {{"seed", between(1, 100)}}}};
  if (!two_hosts && rng() % 3 == 0) s["run"]["partitions"] = 2;
  if (adaptive) {
    s["routing"]["adaptive"] = {{"mode", pick<std::string>(rng, {"free", "bounded"})},
                                {"choice", pick<std::string>(rng, {"least_queued", "random", "least_queued_of_k"})}};
    if (s["routing"]["adaptive"]["mode"] == "bounded") s["routing"]["adaptive"]["ageing"] = pick<std::string>(rng, {"100ns", "30us"});
    if (rng() % 2 == 0) s["routing"]["adaptive"]["sls"] = {0, 1};
  }
  return s;
}

}  // namespace

namespace {

void run_random_scenarios(const char* scratch_name, uint32_t seed, unsigned count, bool adaptive) {
  const auto dir = scratch(scratch_name);
  std::mt19937 rng(seed);
  for (unsigned i = 0; i < count; ++i) {
    const json s = random_scenario(rng, i, adaptive);
    INFO("scenario " << s.dump());
    const std::string file = write_file(dir / ("s" + std::to_string(i) + ".json"), s.dump(2));
    const std::string out = (dir / ("o" + std::to_string(i))).string();
    // Two threads even on one core: the partitioned runs are the parallel tests' (ThreadSanitizer's).
    const std::string threads = s["run"].contains("partitions") ? " --threads 2" : "";
    const CommandResult r = run_command("run " + file + " --quiet --out " + out + threads, dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const json stats = json::parse(slurp(out + "/stats.json"));
    REQUIRE(stats["checker"]["ok"] == true);
    for (const json& f : read_table(out, "flows")) {
      INFO("flow " << f["name"]);
      REQUIRE(f["packets_dropped_at_source"] == 0);
      REQUIRE(f["packets_sent"] == s["workload"]["patterns"][0]["count"]);
      REQUIRE(f["packets_delivered"] == f["packets_sent"]);
    }
    for (const auto& [why, n] : stats["ports"]["drops"].items()) {
      INFO("dropped for " << why);
      REQUIRE(n == 0);
    }
  }
}

}  // namespace

TEST_CASE("random scenarios run to their end losslessly and deliver every packet they send", "[parallel]") {
  run_random_scenarios("random-scenarios", 2026, 24, false);
}

TEST_CASE("random fat trees under adaptive routing run to their end losslessly and deliver every packet they send",
          "[parallel]") {
  run_random_scenarios("random-scenarios-ar", 2027, 16, true);
}
