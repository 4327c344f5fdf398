// Wall time of LID assignment, routing and the credit-loop check on the fabric
// sizes `hcasim validate` meets: fat_tree k=32 n=2 (1,024 hosts, 64 switches)
// and k=11 n=3 (1,331 hosts, 363 switches). Printed, not asserted (a loaded
// machine must not fail the suite); the results are checked for sense only.
// The whole case takes about 1.5 s here and 4.6 s in the ASan+UBSan build.

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "models/routing/credit_loops.hpp"
#include "models/topology/topology_generators.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void time_fat_tree(unsigned k, unsigned levels) {
  const topology::Topology t = topology::fat_tree_topology(k, levels);
  const routing::Sl2VlLookup sl2vl = [](unsigned, unsigned, unsigned) {
    std::array<uint8_t, 16> table{};
    for (unsigned sl = 0; sl < 16; ++sl) table[sl] = static_cast<uint8_t>(sl % 8);
    return table;
  };
  const routing::Sl2VlLookup per_hop_vls = [](unsigned, unsigned in, unsigned out) {
    std::array<uint8_t, 16> table{};
    for (unsigned sl = 0; sl < 16; ++sl) table[sl] = static_cast<uint8_t>((sl + in + out) % 8);
    return table;
  };
  for (auto algorithm : {routing::RoutingAlgorithm::MinHop, routing::RoutingAlgorithm::Updn, routing::RoutingAlgorithm::UpDown}) {
    routing::RoutingConfig config;
    config.algorithm = algorithm;
    const auto start = std::chrono::steady_clock::now();
    const routing::Lids lids = routing::assign_lids(t, 0);
    const routing::Routes routes = routing::compute_routes(t, lids, config);
    const double route_s = seconds_since(start);
    const auto check_start = std::chrono::steady_clock::now();
    const routing::CreditLoopReport report = routing::find_credit_loop(t, lids, routes, sl2vl);
    const double check_s = seconds_since(check_start);
    // VLs that change at every hop: the check needs the graph with VLs.
    const auto vl_start = std::chrono::steady_clock::now();
    const routing::CreditLoopReport per_hop = routing::find_credit_loop(t, lids, routes, per_hop_vls);
    const double vl_s = seconds_since(vl_start);
    std::cout << "fat_tree k=" << k << " n=" << levels << " ("
              << (algorithm == routing::RoutingAlgorithm::MinHop ? "minhop"
                  : algorithm == routing::RoutingAlgorithm::Updn ? "updn"
                                                                  : "updown") << "): routes " << route_s * 1e3
              << " ms, credit-loop check " << check_s * 1e3 << " ms (" << report.dependencies
              << " dependencies), with per-hop VLs " << vl_s * 1e3 << " ms (" << per_hop.dependencies
              << " dependencies)\n";
    CHECK_FALSE(report.loop);
    CHECK(report.dependencies > 0);
    CHECK_FALSE(per_hop.loop);
    CHECK(per_hop.dependencies > report.dependencies);
  }
}

}  // namespace

TEST_CASE("timing of routing and credit-loop check on large fat trees", "[timing]") {
  time_fat_tree(32, 2);
  time_fat_tree(11, 3);
}
