// Adaptive routing's groups and their credit-loop check (adaptive_groups.hpp),
// against distances computed here from the links alone (routing_fixtures.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "models/routing/adaptive_groups.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

using namespace hcasim;
using topology::LinkEnd;

TEST_CASE("AR groups: every port one hop closer to the LID's switch, none on that switch or for a switch's LID") {
  for (const routing::test::NamedTopology& n : routing::test::small_topologies()) {
    INFO(n.name);
    const topology::Topology& t = n.topology;
    const topology::TopologyIndex index(t);
    const routing::Lids lids = routing::assign_lids(t, 0);
    const std::vector<sw::ArGroupTable> groups = routing::adaptive_groups(t, index, lids);
    const auto peer = routing::test::peers(t);
    const auto dist = routing::test::switch_distances(t);
    REQUIRE(groups.size() == t.nodes.size());
    for (unsigned s = 0; s < t.nodes.size(); ++s) {
      if (!routing::test::is_switch(t, s)) {
        REQUIRE(groups[s].ports.empty());
        continue;
      }
      for (uint16_t lid = 1; lid <= lids.top; ++lid) {
        const LinkEnd& o = lids.owner[lid];
        const uint16_t g = groups[s].group(lid);
        const LinkEnd at = o.node == topology::kNoNode ? LinkEnd{topology::kNoNode, 0} : peer[o.node][o.port];
        if (o.node == topology::kNoNode || routing::test::is_switch(t, o.node) || at.node == topology::kNoNode ||
            !routing::test::is_switch(t, at.node) || at.node == s) {
          REQUIRE(g == 0);
          continue;
        }
        std::vector<uint8_t> want;
        for (unsigned p = 1; p <= t.nodes[s].ports; ++p) {
          const LinkEnd e = peer[s][p];
          if (e.node != topology::kNoNode && routing::test::is_switch(t, e.node) &&
              dist[e.node][at.node] == dist[s][at.node] - 1)
            want.push_back(static_cast<uint8_t>(p));
        }
        INFO("switch " << t.nodes[s].name << " LID " << lid);
        REQUIRE(g != 0);
        REQUIRE(groups[s].ports[g] == want);
      }
    }
  }
}

TEST_CASE("AR groups: in a 2-level 8-ary tree a leaf's group towards another leaf is its 8 up ports") {
  const topology::Topology t = topology::fat_tree_topology(8, 2);
  const topology::TopologyIndex index(t);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const auto groups = routing::adaptive_groups(t, index, lids);
  const auto peer = routing::test::peers(t);
  unsigned checked = 0;
  for (unsigned s = 0; s < t.nodes.size(); ++s) {
    if (!routing::test::is_switch(t, s)) continue;
    std::vector<uint8_t> up;  // ports to switches
    bool leaf = false;
    for (unsigned p = 1; p <= t.nodes[s].ports; ++p) {
      const LinkEnd e = peer[s][p];
      if (e.node == topology::kNoNode) continue;
      if (routing::test::is_switch(t, e.node)) up.push_back(static_cast<uint8_t>(p));
      else leaf = true;
    }
    if (!leaf) continue;
    REQUIRE(up.size() == 8);  // a k-ary n-tree's switch: k ports down, k up
    for (uint16_t lid = 1; lid <= lids.top; ++lid) {
      const LinkEnd& o = lids.owner[lid];
      if (o.node == topology::kNoNode || routing::test::is_switch(t, o.node) || peer[o.node][o.port].node == s) continue;
      REQUIRE(groups[s].ports[groups[s].group(lid)] == up);
      ++checked;
    }
  }
  REQUIRE(checked == 8 * (64 - 8));  // 8 leaves of 8 hosts, each to the other leaves' 56
}

TEST_CASE("AR groups' credit-loop check: fat trees pass, a torus's and a mesh's minimum-hop ports close a loop") {
  for (const auto& [name, t, loop] :
       std::vector<std::tuple<std::string, topology::Topology, bool>>{
           {"fat_tree k=4 n=2", topology::fat_tree_topology(4, 2), false},
           {"fat_tree k=3 n=3", topology::fat_tree_topology(3, 3), false},
           {"fat_tree k=4 n=3", topology::fat_tree_topology(4, 3), false},
           {"fat_tree k=8 n=2", topology::fat_tree_topology(8, 2), false},
           {"single_switch", topology::single_switch_topology(5, 8), false},
           {"torus 4x4", topology::mesh_topology(4, 4, 1, true), true},
           {"mesh 4x3", topology::mesh_topology(4, 3, 1, false), true}}) {
    INFO(name);
    const topology::TopologyIndex index(t);
    const routing::Lids lids = routing::assign_lids(t, 0);
    const routing::Routes routes = routing::compute_routes(t, lids, routing::RoutingConfig{});
    const std::string cycle = routing::adaptive_credit_loop(t, index, lids, routes);
    REQUIRE(cycle.empty() == !loop);
    if (!loop) continue;
    // "a -> b -> ... -> a": a closed list of switch ports.
    const std::string first = cycle.substr(0, cycle.find(" -> "));
    REQUIRE(cycle.size() > first.size());
    REQUIRE(cycle.substr(cycle.size() - first.size()) == first);
  }
}
