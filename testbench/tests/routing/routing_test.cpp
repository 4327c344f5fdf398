// LID assignment and routing on every generated pattern, with LMC 0 and 2:
// every LID reachable from every HCA port, min-hop lengths equal to BFS
// distances computed here, up/down paths without a down -> up turn (ranks
// computed here from the reported roots), and OpenSM's port balancing.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "models/config/ibnetdiscover.hpp"
#include "models/routing/opensm_order.hpp"
#include "models/routing/routing.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace config = hcasim::config;
namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
namespace ft = hcasim::routing::test;
using topology::LinkEnd;
using routing::RoutingAlgorithm;

namespace {

std::size_t unreachable_pairs = 0;  // pairs check_all_paths found without a legal path

routing::Routes route(const topology::Topology& t, const routing::Lids& lids, RoutingAlgorithm algorithm,
                std::vector<std::string> roots = {}) {
  routing::RoutingConfig config;
  config.algorithm = algorithm;
  config.roots = std::move(roots);
  return routing::compute_routes(t, lids, config);
}

// Ranks by BFS from the roots over switch links, and the up/down rule of routing.hpp.
struct Ranks {
  Ranks(const topology::Topology& t, const std::vector<unsigned>& roots)
      : topo(t), peer(ft::peers(t)), rank(t.nodes.size(), -1) {
    std::vector<unsigned> queue(roots.begin(), roots.end());
    for (unsigned r : roots) rank[r] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const unsigned c = queue[head];
      for (unsigned p = 1; p <= t.nodes[c].ports; ++p) {
        const LinkEnd e = peer[c][p];
        if (e.node != topology::kNoNode && ft::is_switch(t, e.node) && rank[e.node] < 0) {
          rank[e.node] = rank[c] + 1;
          queue.push_back(e.node);
        }
      }
    }
  }
  bool up(unsigned from, unsigned to) const {
    if (rank[from] != rank[to]) return rank[to] < rank[from];
    const uint64_t a = topo.nodes[from].guid, b = topo.nodes[to].guid;
    return a != b ? b > a : to > from;
  }
  // Is there a path from switch a to switch b with no down -> up turn? Some
  // switch must be reachable from both by up moves alone.
  bool legal_path(unsigned a, unsigned b) const {
    const std::set<unsigned>& above_a = up_closure(a);
    const std::set<unsigned>& above_b = up_closure(b);
    for (unsigned s : above_a) {
      if (above_b.count(s)) return true;
    }
    return false;
  }
  const std::set<unsigned>& up_closure(unsigned from) const {
    if (closures.count(from)) return closures[from];
    std::set<unsigned>& seen = closures[from];
    seen.insert(from);
    std::vector<unsigned> stack{from};
    while (!stack.empty()) {
      const unsigned c = stack.back();
      stack.pop_back();
      for (unsigned p = 1; p <= topo.nodes[c].ports; ++p) {
        const LinkEnd e = peer[c][p];
        if (e.node == topology::kNoNode || !ft::is_switch(topo, e.node) || !up(c, e.node)) continue;
        if (seen.insert(e.node).second) stack.push_back(e.node);
      }
    }
    return seen;
  }
  mutable std::map<unsigned, std::set<unsigned>> closures;
  const topology::Topology& topo;
  const std::vector<std::vector<LinkEnd>> peer;
  std::vector<int> rank;
};

// The switches a path visits, in order, including a target switch that consumes the packet.
std::vector<unsigned> switches_on(const topology::Topology& t, const routing::Path& path, LinkEnd owner) {
  std::vector<unsigned> out;
  for (const LinkEnd& hop : path.hops) out.push_back(hop.node);
  if (ft::is_switch(t, owner.node)) out.push_back(owner.node);
  return out;
}

// Checks every (HCA port, LID) pair; returns the number of pairs traced. With
// `all_legal` an up/down pair only needs a path when one without a down -> up
// turn exists (several roots can leave pairs without one).
std::size_t check_all_paths(const topology::Topology& t, const routing::Lids& lids, const routing::Routes& routes,
                            bool all_legal = false) {
  const topology::TopologyIndex index(t);
  const auto peer = ft::peers(t);
  const auto dist = ft::switch_distances(t);
  const Ranks ranks(t, routes.roots);
  std::size_t traced = 0;
  for (const LinkEnd src : ft::linked_hca_ports(t)) {
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      const LinkEnd owner = lids.owner[lid];
      if (owner.node == topology::kNoNode) continue;
      const routing::Path path = routing::trace_path(t, index, lids, routes, src, static_cast<uint16_t>(lid));
      INFO("from " << topology::port_name(t, src) << " to LID " << lid << " of " << topology::port_name(t, owner));
      if (all_legal && owner.node != src.node) {
        const unsigned from = peer[src.node][src.port].node;
        const unsigned to = ft::is_switch(t, owner.node) ? owner.node : peer[owner.node][owner.port].node;
        const bool legal = ranks.legal_path(from, to);
        CHECK(path.ok == legal);
        if (!legal) {
          ++unreachable_pairs;
          continue;
        }
      }
      REQUIRE(path.ok);
      ++traced;
      // The hops are joined by links: each leaves the switch the previous one reached.
      LinkEnd at = peer[src.node][src.port];
      if (owner == src) {
        CHECK(path.hops.empty());
        continue;
      }
      for (const LinkEnd& hop : path.hops) {
        REQUIRE(at.node == hop.node);
        at = peer[hop.node][hop.port];
      }
      if (ft::is_switch(t, owner.node)) CHECK(at.node == owner.node);
      else CHECK(at == owner);
      // Min-hop length: switches forwarding = switch distance (+1 when the last one hands over to an HCA).
      const unsigned first = peer[src.node][src.port].node;
      if (!ft::is_switch(t, first)) {
        CHECK(path.hops.empty());
        continue;
      }
      const unsigned target = ft::is_switch(t, owner.node) ? owner.node : peer[owner.node][owner.port].node;
      const std::size_t shortest = static_cast<std::size_t>(dist[first][target]) + (ft::is_switch(t, owner.node) ? 0 : 1);
      if (routes.algorithm == RoutingAlgorithm::MinHop) CHECK(path.hops.size() == shortest);
      else CHECK(path.hops.size() >= shortest);
      if (routes.algorithm == RoutingAlgorithm::UpDown) {
        const std::vector<unsigned> sw = switches_on(t, path, owner);
        bool gone_down = false;
        for (std::size_t i = 0; i + 1 < sw.size(); ++i) {
          const bool up = ranks.up(sw[i], sw[i + 1]);
          CHECK_FALSE((gone_down && up));
          gone_down = gone_down || !up;
        }
      }
    }
  }
  // From every switch too (what its management agent sends goes by its own
  // LFT): each LID is reached, and under min-hop in as many forwardings as
  // the switch distance (plus one into an HCA). Up/down has no legal path
  // between some switches (two roots: down, then up); an HCA's LID it reaches
  // from every switch unless several roots leave no legal path (all_legal).
  for (unsigned from = 0; from < t.nodes.size(); ++from) {
    if (!ft::is_switch(t, from)) continue;
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      const LinkEnd owner = lids.owner[lid];
      if (owner.node == topology::kNoNode) continue;
      const unsigned target = ft::is_switch(t, owner.node) ? owner.node : peer[owner.node][owner.port].node;
      INFO("from switch " << t.nodes[from].name << " to LID " << lid << " of " << topology::port_name(t, owner));
      if (routes.algorithm == RoutingAlgorithm::UpDown && !ranks.legal_path(from, target)) {
        CHECK((all_legal || ft::is_switch(t, owner.node)));
        continue;
      }
      const routing::Path path = routing::trace_from_switch(t, index, lids, routes, from, static_cast<uint16_t>(lid));
      REQUIRE(path.ok);
      ++traced;
      const std::size_t shortest = static_cast<std::size_t>(dist[from][target]) + (ft::is_switch(t, owner.node) ? 0 : 1);
      if (routes.algorithm == RoutingAlgorithm::MinHop) CHECK(path.hops.size() == shortest);
      else CHECK(path.hops.size() >= shortest);
    }
  }
  return traced;
}

}  // namespace

TEST_CASE("LIDs: OpenSM's order, the SM's port first, 2^LMC aligned per HCA port, one unaligned per switch") {
  // fat_tree_topology(3, 2): hosts 0-8, then switches 9-14, derived GUIDs base + (index + 1) * 256.
  // OpenSM's port table runs in byte-reversed GUID order: a switch's port GUID ends in 0x00,
  // an HCA port's in 0x01, so the switches come first, then the HCA ports, each in index order.
  const topology::Topology t = topology::fat_tree_topology(3, 2);
  REQUIRE(t.nodes[8].kind == topology::NodeKind::Hca);
  REQUIRE(t.nodes[9].kind == topology::NodeKind::Switch);
  for (unsigned lmc : {0u, 1u, 2u}) {
    INFO("LMC " << lmc);
    const unsigned block = 1u << lmc;
    const routing::Lids lids = routing::assign_lids(t, lmc, {0, 1});  // the SM on hca 0
    // The SM's port: the first aligned LID (LMC 1: 2-3, LID 1 stays unused).
    CHECK(lids.base[0][0] == block);
    // The 6 switches, one LID each from the next free one, not aligned.
    for (unsigned sw = 0; sw < 6; ++sw) CHECK(lids.base[9 + sw][0] == 2 * block + sw);
    // Hosts 1-8: aligned blocks from the first aligned LID after the switches.
    const unsigned first = (2 * block + 6 + block - 1) / block * block;
    for (unsigned h = 1; h <= 8; ++h) CHECK(lids.base[h][0] == first + (h - 1) * block);
    CHECK(lids.top == first + 8 * block - 1);
    for (unsigned l = lids.base[4][0]; l < lids.base[4][0] + block; ++l) CHECK(lids.owner[l] == LinkEnd{4, 1});
    CHECK(lids.owner[lids.base[9][0]] == LinkEnd{9, 0});
  }
  // The SM elsewhere: its port takes LID 1 and the order of the rest does not change.
  const routing::Lids moved = routing::assign_lids(t, 0, {5, 1});
  CHECK(moved.base[5][0] == 1);
  CHECK(moved.base[9][0] == 2);
  CHECK(moved.base[0][0] == 8);
  CHECK(moved.base[6][0] == 13);
  const routing::Lids b2b = routing::assign_lids(topology::back_to_back_topology(), 0);
  CHECK(b2b.base[0][0] == 1);
  CHECK(b2b.base[1][0] == 2);
  CHECK(b2b.top == 2);
}

TEST_CASE("LIDs: ports the SM cannot reach get none") {
  topology::Topology t = topology::back_to_back_topology();
  t.nodes[0].ports = 2;  // hca0.p2 is linked to nothing
  topology::TopoNode lonely;
  lonely.name = "lonely";
  lonely.kind = topology::NodeKind::Hca;
  t.nodes.push_back(lonely);
  const routing::Lids lids = routing::assign_lids(t, 0, {0, 1});
  CHECK(lids.base[0] == std::vector<uint16_t>{1, 0});
  CHECK(lids.base[1] == std::vector<uint16_t>{2});
  CHECK(lids.base[2] == std::vector<uint16_t>{0});
  CHECK(lids.top == 2);
}

TEST_CASE("OpenSM's table order is the byte-reversed GUID order of a little-endian host") {
  CHECK(routing::guid_table_less(0x0100, 0x0001));
  CHECK_FALSE(routing::guid_table_less(0x0001, 0x0100));
  CHECK(routing::guid_table_less(0x0002c90300a1b000, 0x0002c90300a1c001));
  // ibsim's net.2sw2path4hca: OpenSM (SM on Switch1, 0x200000) gave Hca1 0x100001 LID 2,
  // Switch2 0x200001 LID 3, Hca2 0x100004 LID 4: 0x100001 before 0x200001 before 0x100004.
  CHECK(routing::guid_table_less(0x100001, 0x200001));
  CHECK(routing::guid_table_less(0x200001, 0x100004));
}

TEST_CASE("LIDs: LMC above 7 and fabrics beyond 0xBFFF LIDs are refused") {
  CHECK_THROWS_AS(routing::assign_lids(topology::back_to_back_topology(), 8), std::invalid_argument);
  // 4096 hosts x 16 LIDs = 65536 > 49151.
  CHECK_THROWS_AS(routing::assign_lids(topology::fat_tree_topology(16, 3), 4), std::invalid_argument);
  CHECK_NOTHROW(routing::assign_lids(topology::fat_tree_topology(16, 3), 3));
}

TEST_CASE("min-hop reaches every LID from every HCA port and every switch along shortest paths") {
  for (const auto& [name, t] : ft::small_topologies()) {
    for (unsigned lmc : {0u, 2u}) {
      INFO(name << " LMC " << lmc);
      const routing::Lids lids = routing::assign_lids(t, lmc);
      const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
      CHECK(routes.roots.empty());
      CHECK(check_all_paths(t, lids, routes) > 0);
    }
  }
}

TEST_CASE("up/down reaches every LID from every HCA port without a down-to-up turn, and from every switch") {
  for (const auto& [name, t] : ft::small_topologies()) {
    for (unsigned lmc : {0u, 2u}) {
      INFO(name << " LMC " << lmc);
      const routing::Lids lids = routing::assign_lids(t, lmc);
      const routing::Routes routes = route(t, lids, RoutingAlgorithm::UpDown);
      const bool has_switch = t.nodes.size() > 2;
      CHECK(routes.roots.empty() == !has_switch);
      CHECK(check_all_paths(t, lids, routes) > 0);
    }
  }
}

TEST_CASE("LFT entries: own LID 0, attached HCA LIDs to their port, everything else a linked port") {
  const topology::Topology t = topology::mesh_topology(3, 3, 1, true);
  const routing::Lids lids = routing::assign_lids(t, 1);
  const auto peer = ft::peers(t);
  for (auto algorithm : {RoutingAlgorithm::MinHop, RoutingAlgorithm::UpDown}) {
    const routing::Routes routes = route(t, lids, algorithm);
    REQUIRE(routes.lft.size() == t.nodes.size());
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      if (!ft::is_switch(t, n)) {
        CHECK(routes.lft[n].empty());
        continue;
      }
      REQUIRE(routes.lft[n].size() == lids.top + 1u);
      CHECK(routes.lft[n][0] == routing::kNoPath);
      CHECK(routes.lft[n][lids.base[n][0]] == 0);
      for (unsigned lid = 1; lid <= lids.top; ++lid) {
        const LinkEnd owner = lids.owner[lid];
        const uint8_t port = routes.lft[n][lid];
        if (owner.node == topology::kNoNode) {
          CHECK(port == routing::kNoPath);
        } else if (owner.node != n) {
          REQUIRE(port >= 1);
          REQUIRE(port <= t.nodes[n].ports);
          CHECK(peer[n][port].node != topology::kNoNode);
          if (!ft::is_switch(t, owner.node) && peer[owner.node][owner.port].node == n)
            CHECK(peer[n][port] == owner);
        }
      }
    }
  }
}

TEST_CASE("automatic up/down roots: top level of a fat tree, the centre of a mesh, one switch of a torus") {
  for (unsigned levels : {2u, 3u}) {
    const topology::Topology t = topology::fat_tree_topology(4, levels);
    const routing::Routes routes = route(t, routing::assign_lids(t, 0), RoutingAlgorithm::UpDown);
    std::vector<std::string> names;
    for (unsigned r : routes.roots) names.push_back(t.nodes[r].name);
    std::vector<std::string> expected;
    for (unsigned i = 0; i < (levels == 2 ? 4u : 16u); ++i) expected.push_back("sw" + std::to_string(levels) + "_" + std::to_string(i));
    std::sort(names.begin(), names.end());
    std::sort(expected.begin(), expected.end());
    CHECK(names == expected);
  }
  const topology::Topology mesh = topology::mesh_topology(4, 4, 1, false);
  std::set<std::string> centre;
  for (unsigned r : route(mesh, routing::assign_lids(mesh, 0), RoutingAlgorithm::UpDown).roots)
    centre.insert(mesh.nodes[r].name);
  CHECK(centre == std::set<std::string>{"sw1_1", "sw2_1", "sw1_2", "sw2_2"});
  const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
  const auto torus_roots = route(torus, routing::assign_lids(torus, 0), RoutingAlgorithm::UpDown).roots;
  REQUIRE(torus_roots.size() == 1);
  CHECK(torus.nodes[torus_roots[0]].name == "sw0_0");
}

TEST_CASE("up/down with named roots uses them, and on a fat tree its paths are shortest") {
  const topology::Topology t = topology::fat_tree_topology(3, 3);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = route(t, lids, RoutingAlgorithm::UpDown, {"sw3_0", "sw3_4"});
  REQUIRE(routes.roots.size() == 2);
  CHECK(t.nodes[routes.roots[0]].name == "sw3_0");
  CHECK(t.nodes[routes.roots[1]].name == "sw3_4");
  check_all_paths(t, lids, routes);
  // Automatic roots on a fat tree: every up/down path is a min-hop path.
  const routing::Routes automatic = route(t, lids, RoutingAlgorithm::UpDown);
  const routing::Routes minhop = route(t, lids, RoutingAlgorithm::MinHop);
  const topology::TopologyIndex index(t);
  for (const LinkEnd src : ft::linked_hca_ports(t)) {
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      const auto a = routing::trace_path(t, index, lids, automatic, src, static_cast<uint16_t>(lid));
      const auto b = routing::trace_path(t, index, lids, minhop, src, static_cast<uint16_t>(lid));
      CHECK(a.hops.size() == b.hops.size());
    }
  }
  CHECK_THROWS_AS(route(t, lids, RoutingAlgorithm::UpDown, {"hca0"}), std::invalid_argument);
  CHECK_THROWS_AS(route(t, lids, RoutingAlgorithm::UpDown, {"nope"}), std::invalid_argument);
}

TEST_CASE("port balancing: HCA LIDs routed up from a leaf spread evenly over its up ports") {
  for (unsigned levels : {2u, 3u}) {
    for (unsigned lmc : {0u, 1u, 2u}) {
      for (auto algorithm : {RoutingAlgorithm::MinHop, RoutingAlgorithm::UpDown}) {
        const unsigned k = 4;
        const topology::Topology t = topology::fat_tree_topology(k, levels);
        const routing::Lids lids = routing::assign_lids(t, lmc);
        const routing::Routes routes = route(t, lids, algorithm);
        INFO("levels " << levels << " LMC " << lmc);
        for (unsigned n = 0; n < t.nodes.size(); ++n) {
          if (t.nodes[n].name.rfind("sw1_", 0) != 0) continue;
          std::map<unsigned, unsigned> per_port;
          for (unsigned p = k + 1; p <= 2 * k; ++p) per_port[p] = 0;
          unsigned up = 0;
          for (unsigned lid = 1; lid <= lids.top; ++lid) {
            const LinkEnd owner = lids.owner[lid];
            if (owner.node == topology::kNoNode || ft::is_switch(t, owner.node)) continue;
            const uint8_t port = routes.lft[n][lid];
            if (port > k) {
              ++per_port[port];
              ++up;
            }
          }
          const unsigned hosts = levels == 2 ? k * k : k * k * k;
          CHECK(up == (hosts - k) * (1u << lmc));  // every host not on this leaf
          unsigned lo = ~0u, hi = 0;
          for (const auto& entry : per_port) {
            lo = std::min(lo, entry.second);
            hi = std::max(hi, entry.second);
          }
          CHECK(hi - lo <= 1);
        }
      }
    }
  }
}

TEST_CASE("with LMC 2 the four LIDs of a remote host leave a leaf through four different spines") {
  const unsigned k = 4;
  const topology::Topology t = topology::fat_tree_topology(k, 2);
  const routing::Lids lids = routing::assign_lids(t, 2);
  const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  const topology::TopologyIndex index(t);
  const unsigned leaf0 = static_cast<unsigned>(index.find("sw1_0"));
  for (unsigned host = k; host < k * k; ++host) {
    std::set<unsigned> ports;
    for (unsigned i = 0; i < 4; ++i) ports.insert(routes.lft[leaf0][lids.base[host][0] + i]);
    CHECK(ports.size() == 4);
  }
}

TEST_CASE("the sample dump routes: dual-port HCA, parallel spine links") {
  std::ifstream in(std::string(HCASIM_SOURCE_DIR) + "/testbench/tests/config/data/two_leaf_hdr.ibnetdiscover");
  const topology::Topology t = config::read_ibnetdiscover(in, "sample");
  for (unsigned lmc : {0u, 2u}) {
    const routing::Lids lids = routing::assign_lids(t, lmc);
    for (auto algorithm : {RoutingAlgorithm::MinHop, RoutingAlgorithm::UpDown}) check_all_paths(t, lids, route(t, lids, algorithm));
  }
}

TEST_CASE("random fabrics: both algorithms reach everything, min-hop shortest, up/down turn-free") {
  std::mt19937 rng(20260301);
  for (int i = 0; i < 150; ++i) {
    const unsigned switches = 2 + rng() % 14;
    const topology::Topology t = ft::random_topology(rng, switches, rng() % (2 * switches));
    REQUIRE(topology::check_topology(t).empty());
    INFO("random fabric " << i);
    const routing::Lids lids = routing::assign_lids(t, i % 2);
    check_all_paths(t, lids, route(t, lids, RoutingAlgorithm::MinHop));
    check_all_paths(t, lids, route(t, lids, RoutingAlgorithm::UpDown));
    check_all_paths(t, lids, route(t, lids, RoutingAlgorithm::UpDown, {t.nodes.back().name}));
  }
}

TEST_CASE("random fabrics with several named roots: every pair with a legal up/down path is routed") {
  // Two roots that no equal-rank links join cannot reach each other (OpenSM's
  // connect_roots is not modelled), and switches below only one of them may
  // not reach switches below only the other.
  std::mt19937 rng(7);
  unreachable_pairs = 0;
  for (int i = 0; i < 500; ++i) {  // fabrics 364, 370 and 459 need routing.hpp's "down first"
    const unsigned switches = 3 + rng() % 12;
    const topology::Topology t = ft::random_topology(rng, switches, rng() % (3 * switches));
    INFO("random fabric " << i);
    std::vector<std::string> roots;
    for (unsigned r = 0; r < 2 + rng() % 2; ++r) roots.push_back("sw" + std::to_string(rng() % switches));
    const routing::Lids lids = routing::assign_lids(t, 0);
    check_all_paths(t, lids, route(t, lids, RoutingAlgorithm::UpDown, roots), true);
  }
  CHECK(unreachable_pairs > 0);  // the case does occur
}

TEST_CASE("trace_path reports kNoPath, dead ends, wrong hosts and loops") {
  const topology::Topology t = topology::single_switch_topology(3, 4);
  const topology::TopologyIndex index(t);
  const routing::Lids lids = routing::assign_lids(t, 0);
  routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  const unsigned sw = 3;
  const uint16_t dst = lids.base[1][0];  // hca1, on switch port 2
  REQUIRE(routes.lft[sw][dst] == 2);
  CHECK(routing::trace_path(t, index, lids, routes, {0, 1}, dst).ok);
  CHECK(routing::trace_path(t, index, lids, routes, {0, 1}, lids.base[0][0]).ok);  // own LID
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, 0).ok);
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, lids.top + 1).ok);
  routes.lft[sw][dst] = routing::kNoPath;
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, dst).ok);
  routes.lft[sw][dst] = 4;  // unlinked port
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, dst).ok);
  routes.lft[sw][dst] = 3;  // the wrong host
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, dst).ok);
  routes.lft[sw][dst] = 0;  // consumed by a switch that does not own the LID
  CHECK_FALSE(routing::trace_path(t, index, lids, routes, {0, 1}, dst).ok);

  const topology::Topology ring = topology::mesh_topology(3, 2, 1, true);
  const routing::Lids ring_lids = routing::assign_lids(ring, 0);
  routing::Routes looped = route(ring, ring_lids, RoutingAlgorithm::MinHop);
  const topology::TopologyIndex ring_index(ring);
  const uint16_t target = ring_lids.base[0][0];  // hca0 on sw0_0
  // Every switch sends it +x: round and round.
  for (unsigned n = 0; n < ring.nodes.size(); ++n) {
    if (ft::is_switch(ring, n)) looped.lft[n][target] = 1;
  }
  const routing::Path path = routing::trace_path(ring, ring_index, ring_lids, looped, {1, 1}, target);
  CHECK_FALSE(path.ok);
  CHECK(path.hops.size() <= 6);
}

TEST_CASE("tie break: on a 3-level fat tree the lowest-port rule uses one top switch per column, shifted uses them all") {
  // k-ary 3-tree: k^2 top switches. With the lowest-port rule every leaf and
  // every middle switch send a LID up the same column, so the paths to all
  // LIDs cross only the k top switches whose two index digits are equal.
  const unsigned k = 4;
  const topology::Topology t = topology::fat_tree_topology(k, 3);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const topology::TopologyIndex index(t);
  auto top_switches_used = [&](routing::TieBreak tb) {
    routing::RoutingConfig c;
    c.tie_break = tb;
    const routing::Routes r = routing::compute_routes(t, lids, c);
    std::set<unsigned> used;
    for (unsigned src = 0; src < k * k * k; ++src)
      for (unsigned dst = 0; dst < k * k * k; ++dst) {
        if (src == dst) continue;
        const routing::Path p = routing::trace_path(t, index, lids, r, {src, 1}, lids.base[dst][0]);
        REQUIRE(p.ok);
        for (const topology::LinkEnd& h : p.hops)
          if (t.nodes[h.node].name.rfind("sw3_", 0) == 0) used.insert(h.node);
      }
    return used.size();
  };
  CHECK(top_switches_used(routing::TieBreak::LowestPort) == k);
  CHECK(top_switches_used(routing::TieBreak::Shifted) == k * k);
}
