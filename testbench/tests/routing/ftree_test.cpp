// OpenSM's fat-tree engine (routing.hpp, ftree): a two-level tree small enough
// to route by hand with ftree's rules, and the fabrics it refuses (falling
// back to min-hop, as OpenSM does). The oracle test (mgmt/opensm_oracle_test.py)
// compares larger trees with OpenSM itself.

#include <catch2/catch.hpp>

#include "models/routing/routing.hpp"
#include "models/topology/topology_generators.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
using routing::RoutingAlgorithm;
using topology::NodeKind;

namespace {

// Spines s0, s1; leaves l0 (h0 on port 1, h1 on port 2) and l1 (h2 on port
// 1); each leaf's port 3 goes to s0, port 4 to s1; a spine's port 1 to l0,
// port 2 to l1. The GUIDs differ in their lowest byte, so OpenSM's table
// order (byte-reversed GUIDs) is s0, s1, l0, l1, and h0, h1, h2.
enum Node : unsigned { s0, s1, l0, l1, h0, h1, h2 };

topology::Topology tiny_tree() {
  topology::Topology t;
  const auto add = [&](const char* name, NodeKind kind, unsigned ports, uint64_t guid) {
    topology::TopoNode n;
    n.name = name;
    n.kind = kind;
    n.ports = ports;
    n.guid = guid;
    t.nodes.push_back(n);
  };
  add("s0", NodeKind::Switch, 4, 0x0002c90300000010);
  add("s1", NodeKind::Switch, 4, 0x0002c90300000011);
  add("l0", NodeKind::Switch, 4, 0x0002c90300000020);
  add("l1", NodeKind::Switch, 4, 0x0002c90300000021);
  add("h0", NodeKind::Hca, 2, 0x0002c90300000030);
  add("h1", NodeKind::Hca, 1, 0x0002c90300000040);
  add("h2", NodeKind::Hca, 2, 0x0002c90300000050);
  const auto link = [&](unsigned a, unsigned pa, unsigned b, unsigned pb) {
    topology::TopoLink l;
    l.a = {a, pa};
    l.b = {b, pb};
    t.links.push_back(l);
  };
  link(h0, 1, l0, 1);
  link(h1, 1, l0, 2);
  link(h2, 1, l1, 1);
  for (unsigned leaf : {l0, l1}) {
    link(leaf, 3, s0, leaf == l0 ? 1 : 2);
    link(leaf, 4, s1, leaf == l0 ? 1 : 2);
  }
  return t;
}

routing::Routes ftree(const topology::Topology& t, const routing::Lids& lids) {
  routing::RoutingConfig config;
  config.algorithm = RoutingAlgorithm::Ftree;
  return routing::compute_routes(t, lids, config);
}

routing::Routes minhop(const topology::Topology& t, const routing::Lids& lids) {
  routing::RoutingConfig config;
  config.algorithm = RoutingAlgorithm::MinHop;
  return routing::compute_routes(t, lids, config);
}

}  // namespace

TEST_CASE("ftree routes a two-level tree by its rules: CNs leaf by leaf, up groups by load, then switches") {
  const topology::Topology t = tiny_tree();
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = ftree(t, lids);
  REQUIRE(routes.refusals.empty());
  REQUIRE(routes.algorithm == RoutingAlgorithm::Ftree);
  const auto port = [&](unsigned sw, unsigned node) {
    const uint16_t lid = lids.base[node][0];
    REQUIRE(lid != 0);
    return unsigned{routes.lft[sw][lid]};
  };
  // A leaf reaches its own CNs directly.
  CHECK(port(l0, h0) == 1);
  CHECK(port(l0, h1) == 2);
  CHECK(port(l1, h2) == 1);
  // l0's CNs in port order: h0's main path down comes from the least loaded up
  // group, equal loads going to the lower index (s0, tuple 0.0, before s1,
  // 0.1); h1's then from s1, which has carried none. The other leaf goes up to
  // the spine of the main path: its down route is the only one counted.
  CHECK(port(s0, h0) == 1);
  CHECK(port(l1, h0) == 3);
  CHECK(port(l1, h1) == 4);
  // The other spine reaches them by a secondary path straight down.
  CHECK(port(s1, h0) == 1);
  CHECK(port(s0, h1) == 1);
  CHECK(port(s1, h1) == 1);
  // l1 has counted nothing yet: h2's main path is s0 again, so l0 reaches it by s0.
  CHECK(port(l0, h2) == 3);
  CHECK(port(s0, h2) == 2);
  CHECK(port(s1, h2) == 2);
  // Switch LIDs: a switch itself 0; leaves reach a spine directly; a leaf's
  // LID from the other leaf by the first up group in order (equal loads: s0).
  for (unsigned sw : {s0, s1, l0, l1}) CHECK(port(sw, sw) == 0);
  CHECK(port(l0, s0) == 3);
  CHECK(port(l0, s1) == 4);
  CHECK(port(l1, s0) == 3);
  CHECK(port(l1, s1) == 4);
  CHECK(port(l0, l1) == 3);
  CHECK(port(l1, l0) == 3);
  CHECK(port(s0, l0) == 1);
  CHECK(port(s0, l1) == 2);
  // One spine to the other would go down then up: ftree leaves it unrouted.
  CHECK(port(s0, s1) == routing::kNoPath);
  CHECK(port(s1, s0) == routing::kNoPath);
  // LID 0 (the dummy CN l1 routes for its missing second CN) stays unrouted.
  for (unsigned sw : {s0, s1, l0, l1}) CHECK(routes.lft[sw][0] == routing::kNoPath);
}

TEST_CASE("ftree refuses LMC > 0, a torus and a CA linked to a CA, and min-hop routes instead") {
  SECTION("LMC 1") {
    const topology::Topology t = tiny_tree();
    const routing::Lids lids = routing::assign_lids(t, 1);
    const routing::Routes routes = ftree(t, lids);
    CHECK(routes.refusals.at(0).why == "LMC > 0 is not supported by fat-tree routing");
    CHECK(routes.algorithm == RoutingAlgorithm::MinHop);
    CHECK(routes.lft == minhop(t, lids).lft);
  }
  SECTION("a torus: every switch has CAs, so every switch ranks as a root") {
    const topology::Topology t = topology::mesh_topology(4, 4, 1, true);
    const routing::Lids lids = routing::assign_lids(t, 0);
    const routing::Routes routes = ftree(t, lids);
    CHECK(routes.refusals.at(0).why == "Found more than one root on fabric with maximum rank 0");
    CHECK(routes.algorithm == RoutingAlgorithm::MinHop);
    CHECK(routes.lft == minhop(t, lids).lft);
  }
  SECTION("a CA port linked to another CA's, both found (given LIDs as an SM that saw them would)") {
    topology::Topology t = tiny_tree();
    topology::TopoLink l;
    l.a = {h0, 2};
    l.b = {h2, 2};
    t.links.push_back(l);
    routing::Lids lids = routing::assign_lids(t, 0);
    REQUIRE(lids.base[h0][1] == 0);  // OpenSM's sweep never crosses a CA: neither end has a LID
    for (auto [node, port] : {std::pair{h0, 1u}, std::pair{h2, 1u}}) {
      lids.owner.push_back({node, port + 1});
      lids.base[node][port] = ++lids.top;
    }
    const routing::Routes routes = ftree(t, lids);
    CHECK_THAT(routes.refusals.at(0).why,
               Catch::StartsWith("Failed ranking the tree: CA connected directly to another CA"));
    CHECK(routes.algorithm == RoutingAlgorithm::MinHop);
  }
  SECTION("one leaf switch is not a tree") {
    const topology::Topology t = topology::single_switch_topology(4, 4);
    const routing::Routes routes = ftree(t, routing::assign_lids(t, 0));
    CHECK(routes.refusals.at(0).why == "Fabric has 1 switches - topology is not fat-tree");
  }
}

TEST_CASE("ftree routes generated k-ary n-trees, every CA reaching every CA's LID", "[ftree]") {
  for (const auto& kn : {std::pair{4u, 2u}, std::pair{3u, 3u}, std::pair{4u, 3u}}) {
    const unsigned k = kn.first, n = kn.second;
    CAPTURE(k, n);
    const topology::Topology t = topology::fat_tree_topology(k, n);
    const topology::TopologyIndex index(t);
    const routing::Lids lids = routing::assign_lids(t, 0);
    const routing::Routes routes = ftree(t, lids);
    REQUIRE(routes.refusals.empty());
    std::size_t paths = 0;
    for (unsigned src = 0; src < t.nodes.size(); ++src) {
      if (t.nodes[src].kind != NodeKind::Hca) continue;
      for (unsigned dst = 0; dst < t.nodes.size(); ++dst) {
        if (t.nodes[dst].kind != NodeKind::Hca || dst == src) continue;
        const routing::Path path = routing::trace_path(t, index, lids, routes, {src, 1}, lids.base[dst][0]);
        CHECK(path.ok);
        CHECK(path.hops.size() <= 2 * n - 1);  // up to a common ancestor and down: at most 2n - 1 switches
        ++paths;
      }
    }
    CHECK(paths > 0);
  }
}
