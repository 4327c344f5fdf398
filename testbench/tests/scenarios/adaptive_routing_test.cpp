// routing.adaptive end to end (docs/adaptive-routing.md): on the 2-level
// 8-ary fat tree (64 hosts, full bisection) under random permutation traffic,
// free AR carries at least 85 % of the bisection where static min-hop
// routing carries far less (link sharing: Hoefler et al. measured 55 to 60 %
// on full-bisection InfiniBand clusters); bounded AR keeps a flow's burst on
// one port, so its packets arrive in sequence order, where free AR reorders
// them; every run lossless and within its credits.
#include <catch2/catch.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// The k=8 two-level tree, HDR, one data VL, 4 KiB packets, each host to one
// other by a random permutation, `rate` offered by Poisson arrivals.
nlohmann::json permutation_tree(const nlohmann::json& adaptive, const std::string& architecture,
                                const std::string& rate) {
  return {{"name", "ar_tree"},
          {"topology", {{"pattern", "fat_tree"}, {"k", 8}, {"levels", 2}}},
          {"routing", {{"algorithm", "minhop"}, {"adaptive", adaptive}}},
          {"port", {{"data_vls", 1}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "5m"}}},
          {"switch", {{"architecture", architecture}}},
          {"workload",
           {{"patterns",
             {{{"name", "perm"}, {"kind", "permutation"}, {"payload", "4KiB"}, {"rate", rate},
               {"source", {{"arrival", "poisson"}}}}}}}},
          {"run", {{"warmup", "20us"}, {"measure", "50us"}, {"drain_limit", "2ms"}, {"seed", 1}}}};
}

nlohmann::json run_tree(const nlohmann::json& root) {
  nlohmann::json stats = run_checked(root, "adaptive-routing");  // credits never overrun, buffers within bounds
  for (const auto& [why, n] : stats["ports"]["drops"].items()) {  // lossless
    INFO("dropped for " << why);
    REQUIRE(n == 0);
  }
  const nlohmann::json& m = stats["patterns"][0]["measured_packets"];
  REQUIRE(m["delivered"] == m["offered"].get<uint64_t>() - m["lost_at_source"].get<uint64_t>());
  return stats;
}

const nlohmann::json kOff = {{"mode", "off"}};
const nlohmann::json kFree = {{"mode", "free"}};

}  // namespace

TEST_CASE("AR free on the k=8 tree carries at least 85 % of the bisection under random permutation") {
  for (const std::string arch : {"voq", "cioq"}) {
    INFO("architecture " << arch);
    const nlohmann::json fixed = run_tree(permutation_tree(kOff, arch, "100%"));
    const nlohmann::json adaptive = run_tree(permutation_tree(kFree, arch, "100%"));
    const double static_load = fixed["patterns"][0]["accepted_load"].get<double>();
    const double ar_load = adaptive["patterns"][0]["accepted_load"].get<double>();
    INFO("static " << static_load << ", free AR " << ar_load);
    CHECK(ar_load >= 0.85);
    // Static min-hop shares links between flows of the permutation; AR spreads them.
    CHECK(static_load < 0.80);
    CHECK(ar_load > static_load + 0.1);
    REQUIRE(fixed["switches"]["totals"]["ar_routed"] == 0);
    REQUIRE(adaptive["switches"]["totals"]["ar_routed"] > 0);
  }
}

TEST_CASE("AR bounded keeps a flow's burst on one port: its packets arrive in order, where free AR reorders") {
  // At 100 % offered a flow is never idle for 30 us: one burst, one port per switch.
  const nlohmann::json bounded = run_tree(permutation_tree({{"mode", "bounded"}}, "voq", "100%"));
  const nlohmann::json& b = bounded["patterns"][0];
  REQUIRE(bounded["switches"]["totals"]["ar_routed"] > 0);
  CHECK(b["packets_out_of_order"] == 0);
  CHECK(bounded["switches"]["totals"]["ar_reroutes"] == 0);
  // Free: packets of a flow take different up ports and overtake each other.
  const nlohmann::json free_ar = run_tree(permutation_tree(kFree, "voq", "100%"));
  CHECK(free_ar["switches"]["totals"]["ar_reroutes"] > 0);
  CHECK(free_ar["patterns"][0]["packets_out_of_order"] > 0);
  // Static routing: one path per flow, never reordered.
  const nlohmann::json fixed = run_tree(permutation_tree(kOff, "voq", "100%"));
  CHECK(fixed["patterns"][0]["packets_out_of_order"] == 0);
  // Bounded with an ageing shorter than the gaps between a flow's packets (a
  // 4 KiB packet every 164 ns at 100 % HDR): every packet chooses again.
  const nlohmann::json aged = run_tree(permutation_tree({{"mode", "bounded"}, {"ageing", "1ns"}}, "voq", "100%"));
  CHECK(aged["switches"]["totals"]["ar_reroutes"] > 0);
}
