#pragma once
// Topologies and independent graph computations shared by the routing and
// credit-loop tests. Written from the topology alone (plain BFS over links), so
// the tests do not reuse the routing library's own graph code.

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <array>
#include <fstream>

#include "models/config/ibnetdiscover.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"
#include "models/topology/topology_generators.hpp"

namespace hcasim::routing::test {

struct NamedTopology {
  std::string name;
  topology::Topology topology;
};

// A fabric of configs/fabrics (an ibnetdiscover file), by its path in the source tree.
inline topology::Topology imported_fabric(const std::string& path) {
  std::ifstream in(std::string(HCASIM_SOURCE_DIR) + "/" + path);
  REQUIRE(in);
  return config::read_ibnetdiscover(in, path);
}

// hcasim's default SL-to-VL tables on 8 data VLs: SL n -> VL n (each layer of
// an engine on its own VL), SLs 8 to 15 dropped.
inline std::array<uint8_t, 16> identity_sl2vl(unsigned, unsigned, unsigned) {
  std::array<uint8_t, 16> table{};
  for (uint8_t sl = 0; sl < 16; ++sl) table[sl] = sl < 8 ? sl : 15;
  return table;
}

// One of each pattern, small enough to trace every pair.
inline std::vector<NamedTopology> small_topologies() {
  return {{"back_to_back", topology::back_to_back_topology()},
          {"single_switch", topology::single_switch_topology(5, 8)},
          {"fat_tree k=4 n=2", topology::fat_tree_topology(4, 2)},
          {"fat_tree k=3 n=3", topology::fat_tree_topology(3, 3)},
          {"fat_tree k=4 n=3", topology::fat_tree_topology(4, 3)},
          {"mesh 4x3", topology::mesh_topology(4, 3, 1, false)},
          {"torus 4x4", topology::mesh_topology(4, 4, 1, true)},
          {"torus 2x3", topology::mesh_topology(2, 3, 2, true)},
          {"dragonfly a=4 p=2 h=2", topology::dragonfly_topology(4, 2, 2)}};
}

// Far end of every port: peer[node][port], node kNoNode when unlinked.
inline std::vector<std::vector<topology::LinkEnd>> peers(const topology::Topology& t) {
  std::vector<std::vector<topology::LinkEnd>> peer(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    peer[i].assign(t.nodes[i].ports + 1, topology::LinkEnd{topology::kNoNode, 0});
  for (const topology::TopoLink& l : t.links) {
    peer[l.a.node][l.a.port] = l.b;
    peer[l.b.node][l.b.port] = l.a;
  }
  return peer;
}

inline bool is_switch(const topology::Topology& t, unsigned node) {
  return t.nodes[node].kind == topology::NodeKind::Switch;
}

// Hop distances between switches over switch-to-switch links: dist[a][b], -1 unreachable.
inline std::vector<std::vector<int>> switch_distances(const topology::Topology& t) {
  const auto peer = peers(t);
  const std::size_t n = t.nodes.size();
  std::vector<std::vector<int>> dist(n);
  for (unsigned from = 0; from < n; ++from) {
    if (!is_switch(t, from)) continue;
    dist[from].assign(n, -1);
    std::vector<unsigned> queue{from};
    dist[from][from] = 0;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const unsigned c = queue[head];
      for (unsigned p = 1; p <= t.nodes[c].ports; ++p) {
        const topology::LinkEnd e = peer[c][p];
        if (e.node == topology::kNoNode || !is_switch(t, e.node) || dist[from][e.node] >= 0) continue;
        dist[from][e.node] = dist[from][c] + 1;
        queue.push_back(e.node);
      }
    }
  }
  return dist;
}

// Every HCA port of the topology that has a link.
inline std::vector<topology::LinkEnd> linked_hca_ports(const topology::Topology& t) {
  const auto peer = peers(t);
  std::vector<topology::LinkEnd> out;
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    if (is_switch(t, n)) continue;
    for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
      if (peer[n][p].node != topology::kNoNode) out.push_back({n, p});
    }
  }
  return out;
}

// A random connected fabric: `switches` switches in a random spanning tree plus
// `extra` random switch links, and 0-2 single-port hosts per switch.
inline topology::Topology random_topology(std::mt19937& rng, unsigned switches, unsigned extra) {
  topology::Topology t;
  const unsigned ports = 16;
  std::vector<unsigned> hosts_of(switches);
  unsigned hosts = 0;
  for (unsigned s = 0; s < switches; ++s) {
    hosts_of[s] = rng() % 3;
    hosts += hosts_of[s];
  }
  for (unsigned h = 0; h < hosts; ++h)
    t.nodes.push_back({"hca" + std::to_string(h), topology::NodeKind::Hca, 1, 0, ""});
  std::vector<unsigned> next_port(switches, 1);
  for (unsigned s = 0; s < switches; ++s) {
    // Some switches get GUIDs, some keep 0 (the tie-break then uses the node index).
    t.nodes.push_back(
        {"sw" + std::to_string(s), topology::NodeKind::Switch, ports, rng() % 2 ? uint64_t{rng() % 5} : 0, ""});
  }
  unsigned h = 0;
  for (unsigned s = 0; s < switches; ++s) {
    for (unsigned i = 0; i < hosts_of[s]; ++i, ++h) t.links.push_back({{h, 1}, {hosts + s, next_port[s]++}, {}});
  }
  const auto join = [&](unsigned a, unsigned b) {
    if (next_port[a] > ports || next_port[b] > ports) return;
    t.links.push_back({{hosts + a, next_port[a]++}, {hosts + b, next_port[b]++}, {}});
  };
  for (unsigned s = 1; s < switches; ++s) join(rng() % s, s);
  for (unsigned i = 0; i < extra; ++i) {
    const unsigned a = rng() % switches, b = rng() % switches;
    if (a != b) join(a, b);
  }
  return t;
}

// A cycle in the channel dependencies of the paths on one SL, traced path by
// path with trace_path (not the credit-loop checker's turn tables): channel =
// (switch, output port); sl -1: all paths, as on one VL. Without
// `to_switches`, only the paths to HCA ports' LIDs.
inline bool layer_has_cycle(const topology::Topology& t, const Lids& lids, const Routes& routes, int sl,
                            bool to_switches = true) {
  const topology::TopologyIndex index(t);
  using Channel = std::pair<unsigned, unsigned>;
  std::map<Channel, std::set<Channel>> deps;
  for (unsigned src = 0; src < t.nodes.size(); ++src) {
    if (t.nodes[src].kind != topology::NodeKind::Hca) continue;
    const uint16_t slid = lids.base[src][0];
    for (unsigned dlid = 1; dlid <= lids.top; ++dlid) {
      if (lids.owner[dlid].node == topology::kNoNode || dlid == slid) continue;
      if (!to_switches && t.nodes[lids.owner[dlid].node].kind == topology::NodeKind::Switch) continue;
      if (sl >= 0 && path_sl(t, index, lids, routes, slid, static_cast<uint16_t>(dlid)) != sl) continue;
      const Path path = trace_path(t, index, lids, routes, {src, 1}, static_cast<uint16_t>(dlid));
      REQUIRE(path.ok);
      for (std::size_t h = 1; h < path.hops.size(); ++h)
        deps[{path.hops[h - 1].node, path.hops[h - 1].port}].insert({path.hops[h].node, path.hops[h].port});
    }
  }
  std::map<Channel, int> state;  // 1 on the stack, 2 done
  std::function<bool(const Channel&)> visit = [&](const Channel& c) {
    state[c] = 1;
    for (const Channel& n : deps[c]) {
      if (state[n] == 1) return true;
      if (state[n] == 0 && visit(n)) return true;
    }
    state[c] = 2;
    return false;
  };
  for (const auto& entry : deps)
    if (state[entry.first] == 0 && visit(entry.first)) return true;
  return false;
}

}  // namespace hcasim::routing::test
