// OpenSM's nue (opensm_nue.cpp) against facts that do not come from its own
// output: Nue's claim (Domke et al., "Routing on the Dependency Graph", HPDC
// 2016) that its paths are deadlock-free in any number of virtual layers,
// down to one, on any topology, checked by an independent trace of each
// layer's channel dependencies where min-hop's paths on the same fabrics
// close a cycle (the paths between HCA ports; those to switches' own LIDs
// only with nue_include_switches, as OpenSM routes them outside the layers
// otherwise); every LID reached; OpenSM's round-robin deal of destination
// LIDs onto layers and its nue_max_num_vls rule; and complib's heap, which
// nue's tie order rests on, against a hand-worked sequence. The OpenSM oracle
// test compares nue's tables and PathRecord SLs with OpenSM itself.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "models/routing/cl_heap.hpp"
#include "models/routing/credit_loops.hpp"
#include "models/routing/opensm_order.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology_generators.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
using routing::RoutingAlgorithm;

namespace {

routing::Routes nue_route(const topology::Topology& t, const routing::Lids& lids, unsigned max_vls = 1,
                          bool include_switches = false, RoutingAlgorithm a = RoutingAlgorithm::Nue) {
  routing::RoutingConfig c;
  c.algorithm = a;
  c.vls = 8;
  c.nue_max_num_vls = max_vls;
  c.nue_include_switches = include_switches;
  return routing::compute_routes(t, lids, c);
}

// Every HCA port reaches every LID of every other port and switch.
void check_all_reached(const topology::Topology& t, const routing::Lids& lids, const routing::Routes& routes) {
  const topology::TopologyIndex index(t);
  for (const topology::LinkEnd& src : routing::test::linked_hca_ports(t))
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      if (lids.owner[lid].node == topology::kNoNode) continue;
      INFO("from node " << src.node << " port " << src.port << " to LID " << lid);
      CHECK(routing::trace_path(t, index, lids, routes, src, static_cast<uint16_t>(lid)).ok);
    }
}

}  // namespace

TEST_CASE("nue's paths reach every LID and are free of channel-dependency cycles in a single layer") {
  struct Case {
    std::string name;
    topology::Topology t;
    bool minhop_loops;  // min-hop's paths on it close a cycle
  };
  std::vector<Case> cases;
  cases.push_back({"6x6 torus", routing::test::imported_fabric("configs/fabrics/torus6x6.ibnd"), true});
  cases.push_back({"dragonfly a4", routing::test::imported_fabric("configs/fabrics/dragonfly_a4.ibnd"), true});
  cases.push_back({"irregular 3x3 torus", routing::test::imported_fabric("configs/fabrics/torus3x3_irregular.ibnd"), true});
  cases.push_back({"4x4 torus", topology::mesh_topology(4, 4, 1, true), true});
  cases.push_back({"fat tree k=4", topology::fat_tree_topology(4, 2), false});
  std::mt19937 rng(7);
  for (unsigned i = 0; i < 4; ++i)
    cases.push_back({"random fabric " + std::to_string(i), routing::test::random_topology(rng, 10, 8), false});
  for (const Case& c : cases) {
    for (unsigned lmc : {0u, 1u}) {
      INFO(c.name << ", LMC " << lmc);
      const routing::Lids lids = routing::assign_lids(c.t, lmc);
      const routing::Routes nue = nue_route(c.t, lids);
      REQUIRE(nue.algorithm == RoutingAlgorithm::Nue);
      CHECK(nue.refusals.empty());
      CHECK_FALSE(nue.has_path_sls());  // one layer: the SA answers the SL asked for
      check_all_reached(c.t, lids, nue);
      CHECK(nue.switch_lids_outside_layers);
      CHECK_FALSE(routing::test::layer_has_cycle(c.t, lids, nue, -1, false));
      const routing::CreditLoopReport report = routing::find_credit_loop(c.t, lids, nue, routing::test::identity_sl2vl);
      CHECK_FALSE(report.loop);
      CHECK(report.switch_lids_left_out);
      // With the switches inside the layer, every path is in it.
      const routing::Routes all = nue_route(c.t, lids, 1, true);
      CHECK_FALSE(all.switch_lids_outside_layers);
      check_all_reached(c.t, lids, all);
      CHECK_FALSE(routing::test::layer_has_cycle(c.t, lids, all, -1, true));
      CHECK_FALSE(routing::find_credit_loop(c.t, lids, all, routing::test::identity_sl2vl).loop);
      if (c.minhop_loops)
        CHECK(routing::find_credit_loop(c.t, lids, nue_route(c.t, lids, 1, false, RoutingAlgorithm::MinHop),
                                        routing::test::identity_sl2vl)
                  .loop);
    }
  }
}

TEST_CASE("nue routes the paths to switches' own LIDs outside its layer, where on a torus they close a cycle") {
  const topology::Topology t = routing::test::imported_fabric("configs/fabrics/torus6x6.ibnd");
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes nue = nue_route(t, lids);
  CHECK_FALSE(routing::test::layer_has_cycle(t, lids, nue, -1, false));
  CHECK(routing::test::layer_has_cycle(t, lids, nue, -1, true));
}

TEST_CASE("nue deals destination LIDs round robin onto its layers, each layer free of cycles, switches on layer 0") {
  const topology::Topology t = routing::test::imported_fabric("configs/fabrics/torus6x6.ibnd");
  for (bool include_switches : {false, true}) {
    INFO("nue_include_switches " << include_switches);
    const routing::Lids lids = routing::assign_lids(t, 1);
    const routing::Routes routes = nue_route(t, lids, 4, include_switches);
    REQUIRE(routes.algorithm == RoutingAlgorithm::Nue);
    REQUIRE(routes.has_path_sls());
    // OpenSM's port table order (GUIDs byte-reversed); the HCA ports (and with
    // include_switches the switches) take layers 0, 1, 2, 3, 0, ...; every LID of a
    // port its port's layer.
    std::vector<topology::LinkEnd> ports;
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      const topology::LinkEnd o = lids.owner[lid];
      if (o.node == topology::kNoNode) continue;
      const bool sw = routing::test::is_switch(t, o.node);
      if ((sw ? lids.base[o.node][0] : lids.base[o.node][o.port - 1]) == lid) ports.push_back(o);
    }
    routing::sort_port_table(t, ports);
    unsigned next = 0;
    for (const topology::LinkEnd& p : ports) {
      const bool sw = routing::test::is_switch(t, p.node);
      const uint16_t base = sw ? lids.base[p.node][0] : lids.base[p.node][p.port - 1];
      const unsigned expected = sw && !include_switches ? 0 : next++ % 4;
      for (unsigned k = 0; k < (sw ? 1u : 2u); ++k) {
        INFO("LID " << base + k);
        CHECK(routes.dlid_sls[base + k] == expected);
        CHECK(routing::path_sl(t, topology::TopologyIndex(t), lids, routes, 1, static_cast<uint16_t>(base + k)) ==
              expected);
      }
    }
    check_all_reached(t, lids, routes);
    for (int sl = 0; sl < 4; ++sl) {
      INFO("SL " << sl);
      CHECK_FALSE(routing::test::layer_has_cycle(t, lids, routes, sl, include_switches));
    }
    CHECK_FALSE(routing::find_credit_loop(t, lids, routes, routing::test::identity_sl2vl).loop);
  }
}

TEST_CASE("nue takes nue_max_num_vls layers when the ports have them, else every VL they have") {
  const topology::Topology t = topology::mesh_topology(4, 4, 1, true);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const auto layers = [&](unsigned max_vls, unsigned vls) {
    routing::RoutingConfig c;
    c.algorithm = RoutingAlgorithm::Nue;
    c.vls = vls;
    c.nue_max_num_vls = max_vls;
    const routing::Routes r = routing::compute_routes(t, lids, c);
    return r.dlid_sls.empty() ? 1u : 1u + *std::max_element(r.dlid_sls.begin(), r.dlid_sls.end());
  };
  CHECK(layers(1, 8) == 1);  // OpenSM's default
  CHECK(layers(3, 8) == 3);
  CHECK(layers(0, 4) == 4);  // 0: every operational VL
  CHECK(layers(6, 4) == 4);  // more than the ports have: what they have
}

TEST_CASE("complib's heap: equal keys, extraction and removal by slot, stale slots included, as cl_heap moves them") {
  std::vector<std::size_t> where(8, 0);
  routing::detail::ClHeap heap(where, 8);
  // 4-ary: inserting keys 5, 3, 8, 1 (vertices 0..3) gives [1, 5, 8, 3]: 3
  // rises over 5, then 1 over 3.
  for (auto [key, v] : {std::pair{5u, 0u}, {3u, 1u}, {8u, 2u}, {1u, 3u}}) REQUIRE(heap.insert(key, v));
  CHECK(where[3] == 0);
  CHECK(where[0] == 1);
  CHECK(where[2] == 2);
  CHECK(where[1] == 3);
  // The root leaves; the last (3) fills slot 0 and stays (3 <= 5). The root is
  // told it moved to slot 3, just past the heap.
  CHECK(heap.extract_root() == 3);
  CHECK(where[3] == 3);
  CHECK(where[1] == 0);
  // Two more: 9 goes to slot 3, 4 to slot 4. Vertex 3's stale slot 3 now holds 9.
  REQUIRE(heap.insert(9, 4));
  REQUIRE(heap.insert(4, 5));
  CHECK(where[4] == 3);
  CHECK(where[5] == 4);
  CHECK(heap.remove(where[3]) == 4);  // whatever is in the slot
  CHECK(heap.remove(7) == routing::detail::ClHeap::kNone);  // past the heap
  // Equal keys: the smallest child, the last of equals, moves up first.
  std::vector<std::size_t> w2(8, 0);
  routing::detail::ClHeap ties(w2, 8);
  for (uint32_t v = 0; v < 5; ++v) REQUIRE(ties.insert(v == 0 ? 0 : 7, v));
  CHECK(ties.extract_root() == 0);
  // The last, vertex 4, filled the root: its key 7 is not above the smallest
  // child's (7; the last of the equal ones, vertex 3), so it stays: [4, 1, 2, 3].
  CHECK(ties.extract_root() == 4);
  // Vertex 3 fills the root and stays the same way: [3, 1, 2].
  CHECK(ties.extract_root() == 3);
  // A full heap refuses more (cl_heap_insert's CL_INSUFFICIENT_RESOURCES).
  std::vector<std::size_t> w3(2, 0);
  routing::detail::ClHeap full(w3, 1);
  CHECK(full.insert(1, 0));
  CHECK_FALSE(full.insert(1, 1));
}

TEST_CASE("nue's paths need not be shortest: on a dragonfly in 8 layers some take more hops than the fewest") {
  const topology::Topology t = topology::dragonfly_topology(4, 2, 2);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = nue_route(t, lids, 0);  // every VL: 8
  const topology::TopologyIndex index(t);
  const auto dist = routing::test::switch_distances(t);
  unsigned pairs = 0, longer = 0;
  for (unsigned src = 0; src < t.nodes.size(); ++src) {
    if (t.nodes[src].kind != topology::NodeKind::Hca) continue;
    const unsigned a = index.peer(src, 1)->node;
    for (unsigned dst = 0; dst < t.nodes.size(); ++dst) {
      if (t.nodes[dst].kind != topology::NodeKind::Hca || index.peer(dst, 1)->node == a) continue;
      const routing::Path p = routing::trace_path(t, index, lids, routes, {src, 1}, lids.base[dst][0]);
      REQUIRE(p.ok);
      const std::size_t fewest = static_cast<std::size_t>(dist[a][index.peer(dst, 1)->node]) + 1;
      REQUIRE(p.hops.size() >= fewest);
      ++pairs;
      longer += p.hops.size() > fewest;
    }
  }
  CHECK(longer > 0);  // 68 of 5,040 (docs/experiments/routing_engines.md)
  CHECK(longer < pairs);
  // dfsssp's are all shortest (its weights start at P^2: a hop outweighs any load).
  const routing::Routes shortest = [&] {
    routing::RoutingConfig c;
    c.algorithm = RoutingAlgorithm::Dfsssp;
    return routing::compute_routes(t, lids, c);
  }();
  for (unsigned src = 0; src < t.nodes.size(); ++src) {
    if (t.nodes[src].kind != topology::NodeKind::Hca) continue;
    const unsigned a = index.peer(src, 1)->node;
    for (unsigned dst = 0; dst < t.nodes.size(); ++dst) {
      if (t.nodes[dst].kind != topology::NodeKind::Hca || dst == src) continue;
      const routing::Path p = routing::trace_path(t, index, lids, shortest, {src, 1}, lids.base[dst][0]);
      CHECK(p.hops.size() == static_cast<std::size_t>(dist[a][index.peer(dst, 1)->node]) + 1);
    }
  }
}
