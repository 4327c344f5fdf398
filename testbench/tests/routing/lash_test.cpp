// OpenSM's LASH (opensm_lash.cpp) against facts that do not come from its own
// output: glibc's random() sequence (the C library itself), shortest paths,
// the theory of virtual layers (a tree needs one, a ring of five or more
// switches more than one; each layer alone is free of credit loops, checked
// here by an independent trace), and its refusals. The OpenSM oracle test
// compares tables, layers and PathRecord SLs with OpenSM itself.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "models/routing/credit_loops.hpp"
#include "models/routing/routing.hpp"
#include "models/routing/routing_graph.hpp"
#include "models/topology/topology_generators.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
using routing::RoutingAlgorithm;

namespace {

routing::Routes lash(const topology::Topology& t, const routing::Lids& lids, unsigned vls = 8, unsigned start = 0) {
  routing::RoutingConfig c;
  c.algorithm = RoutingAlgorithm::Lash;
  c.vls = vls;
  c.lash_start_vl = start;
  return routing::compute_routes(t, lids, c);
}


}  // namespace

TEST_CASE("LASH draws from glibc's random() as the C library does, seeded with 1") {
  std::srand(1);  // glibc: srand and rand are srandom and random
  routing::detail::GlibcRandom ours(1);
  for (int i = 0; i < 2000; ++i) REQUIRE(ours.next() == std::rand());
  std::srand(12345);
  routing::detail::GlibcRandom seeded(12345);
  for (int i = 0; i < 100; ++i) REQUIRE(seeded.next() == std::rand());
}

TEST_CASE("LASH routes shortest paths, and each virtual layer is free of credit loops") {
  struct Case {
    const char* name;
    topology::Topology t;
    unsigned least_layers, most_layers;
  };
  // A fat tree's shortest paths never turn down then up: one layer. A ring of
  // six switches (each row of a 6x2 torus) has shortest paths that chain round
  // it in each direction: more than one layer.
  Case cases[] = {{"fat tree k=4", topology::fat_tree_topology(4, 2), 1, 1},
                  {"6x2 torus", topology::mesh_topology(6, 2, 1, true), 2, 8},
                  {"torus 4x4", topology::mesh_topology(4, 4, 1, true), 2, 8},
                  {"dragonfly", topology::dragonfly_topology(4, 2, 2), 2, 8}};
  for (Case& c : cases) {
    INFO(c.name);
    const routing::Lids lids = routing::assign_lids(c.t, 0);
    const routing::Routes routes = lash(c.t, lids);
    REQUIRE(routes.algorithm == RoutingAlgorithm::Lash);
    CHECK(routes.sls.layers >= c.least_layers);
    CHECK(routes.sls.layers <= c.most_layers);
    // Every HCA reaches every LID by a shortest path between its switch and the destination's.
    const topology::TopologyIndex index(c.t);
    const auto dist = routing::test::switch_distances(c.t);
    for (unsigned src = 0; src < c.t.nodes.size(); ++src) {
      if (c.t.nodes[src].kind != topology::NodeKind::Hca) continue;
      const unsigned a = index.peer(src, 1)->node;
      for (unsigned dst = 0; dst < c.t.nodes.size(); ++dst) {
        if (dst == src || c.t.nodes[dst].kind != topology::NodeKind::Hca) continue;
        const routing::Path p = routing::trace_path(c.t, index, lids, routes, {src, 1}, lids.base[dst][0]);
        REQUIRE(p.ok);
        CHECK(p.hops.size() == static_cast<std::size_t>(dist[a][index.peer(dst, 1)->node]) + 1);
      }
    }
    // Each layer alone: no cycle; and the paths per layer add up to the ordered pairs of switches.
    int paths = 0;
    for (int n : routes.sls.lanes_after) paths += n;
    unsigned switches = 0;
    for (const auto& n : c.t.nodes) switches += n.kind == topology::NodeKind::Switch;
    CHECK(paths == static_cast<int>(switches * (switches - 1)));
    for (int sl = 0; sl < static_cast<int>(routes.sls.layers); ++sl) {
      INFO("SL " << sl);
      CHECK_FALSE(routing::test::layer_has_cycle(c.t, lids, routes, sl));
    }
    // The same paths on one VL would have a loop wherever LASH needed more than one layer.
    CHECK(routing::test::layer_has_cycle(c.t, lids, routes, -1) == (routes.sls.layers > 1));
    // The credit-loop check, with the default SL n -> VL n tables, agrees: no loop.
    const auto identity = [](unsigned, unsigned, unsigned) {
      std::array<uint8_t, 16> table{};
      for (uint8_t sl = 0; sl < 16; ++sl) table[sl] = sl < 8 ? sl : 15;
      return table;
    };
    CHECK_FALSE(routing::find_credit_loop(c.t, lids, routes, identity).loop);
  }
}

TEST_CASE("LASH's SLs start at lash_start_vl, and it refuses too few VLs as OpenSM does") {
  const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
  const routing::Lids lids = routing::assign_lids(torus, 0);
  const routing::Routes from0 = lash(torus, lids);
  const routing::Routes from2 = lash(torus, lids, 8, 2);
  REQUIRE(from0.sls.layers == 2);  // as OpenSM's log has it for this torus (oracle test)
  CHECK(from2.lft == from0.lft);
  CHECK(from2.sls.local == 2);
  for (std::size_t i = 0; i < from0.sls.sl.size(); ++i) CHECK(from2.sls.sl[i] == from0.sls.sl[i] + 2);
  // Two layers needed, one VL: refused, and min-hop routes (the chain's fallback).
  const routing::Routes one_vl = lash(torus, lids, 1);
  CHECK(one_vl.algorithm == RoutingAlgorithm::MinHop);
  REQUIRE(one_vl.refusals.size() == 1);
  CHECK(one_vl.refusals[0].why == "lane requirements (2) exceed available lanes (1) with starting lane (0)");
  CHECK(one_vl.sls.sl.empty());
  const routing::Routes high = lash(torus, lids, 4, 4);
  REQUIRE(high.refusals.size() == 1);
  CHECK(high.refusals[0].why == "start VL (4) too high for min operational VL (4)");
}

TEST_CASE("PathSlTable answers every pair as path_sl does, and SL 0 for an engine without SLs") {
  const topology::Topology torus = topology::mesh_topology(4, 4, 2, true);
  const topology::TopologyIndex index(torus);
  const routing::Lids lids = routing::assign_lids(torus, 1);
  const routing::Routes routes = lash(torus, lids);
  const routing::PathSlTable table(torus, lids, routes);
  std::set<unsigned> seen;
  for (unsigned s = 0; s <= lids.top + 1u; ++s)
    for (unsigned d = 0; d <= lids.top + 1u; ++d) {
      const auto slid = static_cast<uint16_t>(s), dlid = static_cast<uint16_t>(d);
      REQUIRE(table(slid, dlid) == routing::path_sl(torus, index, lids, routes, slid, dlid));
      seen.insert(table(slid, dlid));
    }
  CHECK(seen.size() == routes.sls.layers);  // every layer is some pair's SL
  routing::RoutingConfig c;
  c.algorithm = RoutingAlgorithm::MinHop;
  const routing::PathSlTable none(torus, lids, routing::compute_routes(torus, lids, c));
  CHECK(none(1, lids.top) == 0);
  CHECK(routing::PathSlTable()(1, 2) == 0);
}
