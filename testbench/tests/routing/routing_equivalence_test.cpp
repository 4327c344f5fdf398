// OpenSM's minhop and updn route destination switch by destination switch (a
// block of destination switches searched at once, each switch taking a run of
// LIDs at a time); their tables must be, entry for entry, the ones of the plain
// per-LID form they replaced (reference_lfts.hpp), which the OpenSM oracle test
// (testbench/tests/mgmt/opensm_oracle_test.py) checked against OpenSM itself.
// Fat trees, tori (parallel links included), a mesh, dragonflies, random
// fabrics and the imported fabrics the oracle test uses; LMC 0, 1 and 2; both
// tie-breaks; automatic and named updn roots; the SM on different ports.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>

#include "models/config/ibnetdiscover.hpp"
#include "models/routing/routing.hpp"
#include "testbench/tests/routing/reference_lfts.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace config = hcasim::config;
namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
namespace ft = hcasim::routing::test;
using routing::RoutingAlgorithm;
using routing::TieBreak;

namespace {

topology::Topology imported(const std::string& path) {
  std::ifstream in(std::string(HCASIM_SOURCE_DIR) + "/" + path);
  REQUIRE(in);
  return config::read_ibnetdiscover(in, path);
}

// Two fat trees side by side (the SM reaches only the first: the second gets no
// LIDs, its switches no routes), a pair of HCAs linked to each other, and a
// dual-port HCA with one port unlinked on a switch hung off the first tree's top.
topology::Topology islands() {
  topology::Topology t;
  for (const char* prefix : {"a", "b"}) {
    const topology::Topology part = topology::fat_tree_topology(3, 2);
    const unsigned first = static_cast<unsigned>(t.nodes.size());
    for (topology::TopoNode n : part.nodes) {
      n.name = prefix + n.name;
      t.nodes.push_back(n);
    }
    for (topology::TopoLink l : part.links) {
      l.a.node += first;
      l.b.node += first;
      t.links.push_back(l);
    }
  }
  const unsigned x = static_cast<unsigned>(t.nodes.size());
  t.nodes.push_back({"x0", topology::NodeKind::Hca, 1, 0, ""});
  t.nodes.push_back({"x1", topology::NodeKind::Hca, 2, 0, ""});
  t.links.push_back({{x, 1}, {x + 1, 1}, {}});
  t.nodes.push_back({"dual", topology::NodeKind::Hca, 2, 0, ""});
  t.nodes.push_back({"asw", topology::NodeKind::Switch, 4, 0, ""});
  t.links.push_back({{x + 2, 1}, {x + 3, 1}, {}});
  t.links.push_back({{x + 3, 2}, {12, 4}, {}});  // to a free port of the first tree's top switch asw2_0
  return t;
}

std::vector<ft::NamedTopology> fabrics() {
  std::vector<ft::NamedTopology> out = {
      {"fat_tree k=4 n=2", topology::fat_tree_topology(4, 2)},
      {"fat_tree k=3 n=3", topology::fat_tree_topology(3, 3)},
      {"fat_tree k=4 n=3", topology::fat_tree_topology(4, 3)},
      {"fat_tree k=6 n=3", topology::fat_tree_topology(6, 3)},
      {"mesh 4x3", topology::mesh_topology(4, 3, 1, false)},
      {"torus 4x4", topology::mesh_topology(4, 4, 1, true)},
      {"torus 2x3 (parallel links)", topology::mesh_topology(2, 3, 2, true)},
      {"torus 5x3", topology::mesh_topology(5, 3, 2, true)},
      {"dragonfly a=4 p=2 h=2", topology::dragonfly_topology(4, 2, 2)},
      {"dragonfly a=6 p=1 h=3", topology::dragonfly_topology(6, 1, 3)},
      {"two islands, HCA to HCA, an unlinked port", islands()},
  };
  for (const char* path : {"configs/fabrics/small_cluster.ibnd", "configs/fabrics/torus3x3_irregular.ibnd",
                           "configs/fabrics/fat_tree_k4_shuffled.ibnd",
                           "testbench/tests/config/data/two_leaf_hdr.ibnetdiscover"})
    out.push_back({path, imported(path)});
  std::mt19937 rng(20260502);
  for (int i = 0; i < 12; ++i) {
    const unsigned switches = 2 + rng() % 12;
    out.push_back({"random fabric " + std::to_string(i), ft::random_topology(rng, switches, rng() % (2 * switches))});
  }
  return out;
}

// compute_routes against the reference, for one fabric, LID assignment and engine.
void check_equal(const topology::Topology& t, const routing::Lids& lids, RoutingAlgorithm algorithm, TieBreak tie_break,
                 const std::vector<std::string>& roots = {}) {
  routing::RoutingConfig config;
  config.algorithm = algorithm;
  config.tie_break = tie_break;
  config.roots = roots;
  const routing::Routes routes = routing::compute_routes(t, lids, config);
  ft::ReferenceLfts reference(t, lids);
  const bool shifted = tie_break == TieBreak::Shifted;
  std::vector<std::vector<uint8_t>> expected;
  if (algorithm == RoutingAlgorithm::MinHop || algorithm == RoutingAlgorithm::Dor) {
    expected = reference.minhop(shifted, algorithm == RoutingAlgorithm::Dor);
    CHECK(routes.algorithm == algorithm);
  } else {
    std::vector<unsigned> named;
    const topology::TopologyIndex index(t);
    for (const std::string& r : roots) named.push_back(static_cast<unsigned>(index.find(r)));
    std::vector<unsigned> root_nodes = roots.empty() ? reference.updn_roots() : named;
    std::sort(root_nodes.begin(), root_nodes.end());
    root_nodes.erase(std::unique(root_nodes.begin(), root_nodes.end()), root_nodes.end());
    CHECK(routes.roots == root_nodes);
    if (root_nodes.empty()) {
      CHECK(routes.algorithm == RoutingAlgorithm::MinHop);  // OpenSM's fallback
      expected = reference.minhop(shifted);
    } else {
      CHECK(routes.algorithm == RoutingAlgorithm::Updn);
      expected = reference.updn(root_nodes, shifted);
    }
  }
  REQUIRE(routes.lft.size() == expected.size());
  std::size_t differing = 0;
  for (std::size_t n = 0; n < expected.size(); ++n) differing += routes.lft[n] != expected[n];
  CHECK(differing == 0);
}

}  // namespace

TEST_CASE("minhop, updn and dor per destination switch: the tables of the per-LID form, entry for entry") {
  for (const ft::NamedTopology& f : fabrics()) {
    INFO(f.name);
    REQUIRE(topology::check_topology(f.topology).empty());
    for (unsigned lmc : {0u, 1u}) {
      const routing::Lids lids = routing::assign_lids(f.topology, lmc);
      for (auto algorithm : {RoutingAlgorithm::MinHop, RoutingAlgorithm::Updn, RoutingAlgorithm::Dor}) {
        for (auto tie_break : {TieBreak::LowestPort, TieBreak::Shifted}) {
          INFO(f.name << ", LMC " << lmc
                      << (algorithm == RoutingAlgorithm::MinHop ? ", minhop"
                          : algorithm == RoutingAlgorithm::Dor  ? ", dor"
                                                                : ", updn")
                      << (tie_break == TieBreak::Shifted ? ", shifted" : ", lowest port"));
          check_equal(f.topology, lids, algorithm, tie_break);
        }
      }
    }
  }
}

TEST_CASE("the islands fabric: one tree without LIDs, LIDs no switch reaches") {
  const topology::Topology t = islands();
  const routing::Lids lids = routing::assign_lids(t, 0);
  const topology::TopologyIndex index(t);
  CHECK(lids.base[static_cast<unsigned>(index.find("bhca0"))][0] == 0);           // the second tree: none
  CHECK(lids.base[static_cast<unsigned>(index.find("dual"))][1] == 0);            // unlinked
  CHECK(lids.base[static_cast<unsigned>(index.find("dual"))][0] != 0);
  const routing::Routes routes = routing::compute_routes(t, lids, routing::RoutingConfig{});
  for (uint8_t entry : routes.lft[static_cast<unsigned>(index.find("bsw1_0"))]) CHECK(entry == routing::kNoPath);
}

TEST_CASE("per destination switch, LMC 2, the SM elsewhere and named updn roots: still the per-LID tables") {
  const topology::Topology tree = topology::fat_tree_topology(4, 3);
  const topology::Topology torus = topology::mesh_topology(4, 3, 1, true);
  const topology::Topology cluster = imported("configs/fabrics/small_cluster.ibnd");
  for (const topology::Topology* t : {&tree, &torus, &cluster}) {
    const routing::Lids lids = routing::assign_lids(*t, 2);
    INFO(t->nodes.size() << " nodes, LMC 2");
    check_equal(*t, lids, RoutingAlgorithm::MinHop, TieBreak::LowestPort);
    check_equal(*t, lids, RoutingAlgorithm::Updn, TieBreak::Shifted);
    check_equal(*t, lids, RoutingAlgorithm::Dor, TieBreak::LowestPort);
  }
  // LIDs in another order: the SM on the last HCA port, then on a switch.
  for (const topology::Topology* t : {&tree, &torus}) {
    const std::vector<topology::LinkEnd> hosts = ft::linked_hca_ports(*t);
    for (const topology::LinkEnd sm : {hosts.back(), topology::LinkEnd{static_cast<unsigned>(t->nodes.size() - 1), 0}}) {
      const routing::Lids lids = routing::assign_lids(*t, 1, sm);
      INFO(t->nodes.size() << " nodes, SM at node " << sm.node);
      check_equal(*t, lids, RoutingAlgorithm::MinHop, TieBreak::LowestPort);
      check_equal(*t, lids, RoutingAlgorithm::Updn, TieBreak::LowestPort);
    }
  }
  // Named roots: one top switch, two leaves (a down -> up turn OpenSM allows between roots).
  const routing::Lids lids = routing::assign_lids(tree, 0);
  check_equal(tree, lids, RoutingAlgorithm::Updn, TieBreak::LowestPort, {"sw3_0"});
  check_equal(tree, lids, RoutingAlgorithm::Updn, TieBreak::LowestPort, {"sw1_0", "sw1_5"});
  check_equal(torus, routing::assign_lids(torus, 1), RoutingAlgorithm::Updn, TieBreak::Shifted, {"sw1_1"});
}
