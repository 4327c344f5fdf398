// OpenSM's dfsssp and sssp (opensm_dfsssp.cpp) against facts that do not come
// from their own output: paths are shortest; a fat tree's shortest paths need
// one layer and a ring or torus more (the theory of channel dependencies),
// each layer alone free of cycles by an independent trace; VLs spread over
// layers as OpenSM's balancing rule gives them; sssp is dfsssp without
// layers; its refusal when VLs are too few; and hcasim's credit-loop check
// with dfsssp's per-pair SLs on the 6x6 torus and the dragonfly of the oracle
// test. The OpenSM oracle test compares tables, layer counts and PathRecord
// SLs with OpenSM itself.

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>

#include "models/routing/credit_loops.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology_generators.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
using routing::RoutingAlgorithm;

namespace {

routing::Routes dfsssp_route(const topology::Topology& t, const routing::Lids& lids, RoutingAlgorithm a, unsigned vls = 8) {
  routing::RoutingConfig c;
  c.algorithm = a;
  c.vls = vls;
  return routing::compute_routes(t, lids, c);
}

}  // namespace

TEST_CASE("dfsssp routes shortest paths, and each of its layers is free of channel-dependency cycles") {
  struct Case {
    const char* name;
    topology::Topology t;
    unsigned least_layers, most_layers;
  };
  // A fat tree's shortest paths never turn down then up: one layer. A ring of
  // six switches (each row of a 6x2 torus) chains shortest paths round it: more.
  Case cases[] = {{"fat tree k=4", topology::fat_tree_topology(4, 2), 1, 1},
                  {"6x2 torus", topology::mesh_topology(6, 2, 1, true), 2, 8},
                  {"torus 4x4", topology::mesh_topology(4, 4, 1, true), 2, 8},
                  {"dragonfly", topology::dragonfly_topology(4, 2, 2), 2, 8}};
  for (Case& c : cases) {
    INFO(c.name);
    const routing::Lids lids = routing::assign_lids(c.t, 0);
    const routing::Routes routes = dfsssp_route(c.t, lids, RoutingAlgorithm::Dfsssp);
    REQUIRE(routes.algorithm == RoutingAlgorithm::Dfsssp);
    REQUIRE(routes.has_path_sls());
    CHECK(routes.sls.layers >= c.least_layers);
    CHECK(routes.sls.layers <= c.most_layers);
    // Every HCA reaches every HCA by a shortest path between their switches.
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
    // Every ordered pair of LIDs (one per port at LMC 0) is a path of some layer.
    uint64_t paths = 0;
    for (int n : routes.sls.lanes_before) paths += static_cast<uint64_t>(n);
    const uint64_t n_lids = lids.top;  // LMC 0: LIDs 1..top, one per port, none skipped
    CHECK(paths == n_lids * (n_lids - 1));
    // Each layer alone (the pairs of one base SL): no cycle; all on one VL: a cycle
    // exactly when more than one layer was needed.
    for (int sl = 0; sl < 8; ++sl) {
      INFO("SL " << sl);
      CHECK_FALSE(routing::test::layer_has_cycle(c.t, lids, routes, sl));
    }
    CHECK(routing::test::layer_has_cycle(c.t, lids, routes, -1) == (routes.sls.layers > 1));
    CHECK_FALSE(routing::find_credit_loop(c.t, lids, routes, routing::test::identity_sl2vl).loop);
  }
}

TEST_CASE("dfsssp spreads one layer over every VL, and a layer's base SL starts its share") {
  const topology::Topology tree = topology::fat_tree_topology(4, 2);
  const routing::Lids lids = routing::assign_lids(tree, 0);
  const routing::Routes one = dfsssp_route(tree, lids, RoutingAlgorithm::Dfsssp, 8);
  REQUIRE(one.sls.layers == 1);
  // Seven spare VLs, all to the only layer: SL 0 spread over SLs 0-7.
  CHECK(one.lid_sls.spread == std::vector<uint8_t>{8, 0, 0, 0, 0, 0, 0, 0});
  for (uint8_t sl : one.lid_sls.sl) CHECK(sl == 0);
  CHECK(one.lid_sls.width(0) == 8);
  // A torus needs more layers; on 8 VLs each spare VL goes to the layer with
  // the most paths per VL, and the layers' base SLs start their shares: as
  // many distinct bases as layers, the first 0, all below 8.
  const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
  const routing::Lids tl = routing::assign_lids(torus, 0);
  const routing::Routes two = dfsssp_route(torus, tl, RoutingAlgorithm::Dfsssp, 8);
  const unsigned layers = two.sls.layers;
  REQUIRE(layers >= 2);
  REQUIRE(layers < 8);
  std::set<uint8_t> bases(two.lid_sls.sl.begin(), two.lid_sls.sl.end());
  CHECK(bases.size() == layers);
  CHECK(*bases.begin() == 0);
  CHECK(*bases.rbegin() < 8);
  unsigned shares = 0;
  for (uint8_t b : bases) shares += two.lid_sls.width(b);
  CHECK(shares <= 8);
  // Without spare VLs no spreading: SLs 0 to layers - 1.
  const routing::Routes tight = dfsssp_route(torus, tl, RoutingAlgorithm::Dfsssp, layers);
  REQUIRE(tight.algorithm == RoutingAlgorithm::Dfsssp);
  CHECK(tight.lid_sls.spread == std::vector<uint8_t>(layers, 1));
  std::set<uint8_t> tight_bases(tight.lid_sls.sl.begin(), tight.lid_sls.sl.end());
  CHECK(tight_bases.size() == layers);
  CHECK(*tight_bases.rbegin() == layers - 1);
  CHECK(tight.lft == two.lft);
}

TEST_CASE("dfsssp's SA answers each pair an SL of its layer's share, spread about evenly over it, the same every run") {
  // One layer on the fat tree spread over all 8 VLs: the pairs' SLs cover 0-7, each
  // near an eighth of the pairs (OpenSM draws rand() % 8 per PathRecord).
  const topology::Topology tree = topology::fat_tree_topology(4, 2);
  const routing::Lids lids = routing::assign_lids(tree, 0);
  const routing::Routes one = dfsssp_route(tree, lids, RoutingAlgorithm::Dfsssp, 8);
  const topology::TopologyIndex index(tree);
  std::map<uint8_t, unsigned> count;
  unsigned pairs = 0;
  for (uint16_t s = 1; s <= lids.top; ++s)
    for (uint16_t d = 1; d <= lids.top; ++d) {
      if (s == d) continue;
      const uint8_t sl = routing::path_sl(tree, index, lids, one, s, d);
      CHECK(sl == routing::path_sl(tree, index, lids, one, s, d));  // reproducible
      ++count[sl];
      ++pairs;
    }
  REQUIRE(count.size() == 8);
  for (const auto& [sl, n] : count) {
    INFO("SL " << unsigned{sl});
    CHECK(n > pairs / 8 * 3 / 4);
    CHECK(n < pairs / 8 * 5 / 4);
  }
  // On the 6x6 torus every pair's SL lies in its layer's share.
  const topology::Topology torus = routing::test::imported_fabric("configs/fabrics/torus6x6.ibnd");
  const routing::Lids tl = routing::assign_lids(torus, 0);
  const routing::Routes layered = dfsssp_route(torus, tl, RoutingAlgorithm::Dfsssp, 8);
  const topology::TopologyIndex ti(torus);
  for (uint16_t s = 1; s <= tl.top; ++s)
    for (uint16_t d = 1; d <= tl.top; ++d) {
      const int base = layered.lid_sls.base(s, d);
      if (base < 0 || s == d) continue;
      const uint8_t sl = routing::path_sl(torus, ti, tl, layered, s, d);
      CHECK(sl >= base);
      CHECK(sl < base + static_cast<int>(layered.lid_sls.width(static_cast<unsigned>(base))));
    }
}

TEST_CASE("sssp is dfsssp's tables without layers or SLs") {
  for (const topology::Topology& t : {topology::mesh_topology(4, 4, 1, true), topology::fat_tree_topology(4, 2)}) {
    for (unsigned lmc : {0u, 1u}) {
      const routing::Lids lids = routing::assign_lids(t, lmc);
      const routing::Routes d = dfsssp_route(t, lids, RoutingAlgorithm::Dfsssp);
      const routing::Routes s = dfsssp_route(t, lids, RoutingAlgorithm::Sssp);
      REQUIRE(s.algorithm == RoutingAlgorithm::Sssp);
      CHECK(s.lft == d.lft);
      CHECK_FALSE(s.has_path_sls());
      CHECK(s.sls.layers == 0);
    }
  }
}

TEST_CASE("dfsssp refuses a fabric that needs more VLs than its switch ports have, as OpenSM does") {
  const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
  const routing::Lids lids = routing::assign_lids(torus, 0);
  const routing::Routes one_vl = dfsssp_route(torus, lids, RoutingAlgorithm::Dfsssp, 1);
  CHECK(one_vl.algorithm == RoutingAlgorithm::MinHop);  // the chain's fallback
  REQUIRE(one_vl.refusals.size() == 1);
  CHECK(one_vl.refusals[0].engine == RoutingAlgorithm::Dfsssp);
  CHECK(one_vl.refusals[0].why == "Not enough VLs available (avail=1, needed=2); Stopping dfsssp routing!");
  CHECK_FALSE(one_vl.has_path_sls());
  // A fat tree needs one layer: one VL is enough.
  const topology::Topology tree = topology::fat_tree_topology(4, 2);
  const routing::Lids tl = routing::assign_lids(tree, 0);
  CHECK(dfsssp_route(tree, tl, RoutingAlgorithm::Dfsssp, 1).algorithm == RoutingAlgorithm::Dfsssp);
}

TEST_CASE("dfsssp's SLs pass the credit-loop check on the 6x6 torus and the dragonfly, where min-hop fails on the torus") {
  for (const char* file : {"configs/fabrics/torus6x6.ibnd", "configs/fabrics/dragonfly_a4.ibnd"}) {
    INFO(file);
    const topology::Topology t = routing::test::imported_fabric(file);
    for (unsigned lmc : {0u, 1u}) {
      const routing::Lids lids = routing::assign_lids(t, lmc);
      const routing::Routes d = dfsssp_route(t, lids, RoutingAlgorithm::Dfsssp);
      REQUIRE(d.algorithm == RoutingAlgorithm::Dfsssp);
      CHECK(d.sls.layers > 1);
      CHECK_FALSE(routing::find_credit_loop(t, lids, d, routing::test::identity_sl2vl).loop);
      // The same paths with every pair on SL 0 (sssp) loop.
      CHECK(routing::find_credit_loop(t, lids, dfsssp_route(t, lids, RoutingAlgorithm::Sssp), routing::test::identity_sl2vl).loop);
    }
  }
  const topology::Topology torus = routing::test::imported_fabric("configs/fabrics/torus6x6.ibnd");
  const routing::Lids lids = routing::assign_lids(torus, 0);
  CHECK(routing::find_credit_loop(torus, lids, dfsssp_route(torus, lids, RoutingAlgorithm::MinHop), routing::test::identity_sl2vl).loop);
}
