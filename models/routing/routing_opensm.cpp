// OpenSM's min-hop and up/down engines (opensm 3.3: osm_ucast_mgr.c,
// osm_switch.c osm_switch_recommend_path, osm_ucast_updn.c), as decision
// procedures on the switch graph. Rules in routing.hpp.

#include <algorithm>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint8_t kNoHops = 0xFF;  // OpenSM's OSM_NO_PATH in a hop table
constexpr unsigned kMaxHops = 64;  // IB_SUBNET_PATH_HOPS_MAX: longer hop counts are not in the histogram

// OpenSM's up/down direction of the move from u to its neighbour v
// (updn_get_dir): two roots: up; else lower rank up, equal rank the larger id
// (NodeGUID) up.
bool move_up(unsigned rank_u, unsigned rank_v, uint64_t id_u, uint64_t id_v) {
  if (rank_u == 0 && rank_v == 0) return true;
  if (rank_u != rank_v) return rank_u > rank_v;
  return id_u > id_v;
}

}  // namespace

std::vector<unsigned> updn_automatic_roots(const Topology& t, const TopologyIndex& index, const SwitchGraph& g,
                                           const std::vector<LinkEnd>& ports) {
  // CA ports linked to each switch (osm_ucast_updn.c, updn_find_root_nodes_by_min_hop).
  std::vector<unsigned> cas(g.size(), 0);
  unsigned total = 0;
  for (const LinkEnd& e : ports) {
    if (t.nodes[e.node].kind != NodeKind::Hca) continue;
    const auto peer = index.peer(e.node, e.port);
    if (!peer || g.index[peer->node] < 0) continue;
    ++cas[g.index[peer->node]];
    ++total;
  }
  const double over90 = total * 0.9, over5 = total * 0.05;
  std::vector<unsigned> roots;
  for (unsigned s = 0; s < g.size(); ++s) {
    const std::vector<int> dist = bfs_distances(g, s);
    std::vector<unsigned> histogram(kMaxHops, 0);
    for (unsigned x = 0; x < g.size(); ++x)
      if (cas[x] && dist[x] >= 0 && static_cast<unsigned>(dist[x]) < kMaxHops) histogram[dist[x]] += cas[x];
    unsigned bars90 = 0, bars5 = 0;
    for (unsigned h : histogram) {
      bars90 += h > over90;
      bars5 += h > over5;
    }
    if (bars90 == 1 && bars5 == 1) roots.push_back(s);
  }
  return roots;
}

std::vector<LinkEnd> lid_holders(const Lids& lids) {
  std::vector<LinkEnd> ports;
  for (unsigned lid = 1; lid <= lids.top; ++lid) {
    const LinkEnd o = lids.owner[lid];
    if (o.node != topology::kNoNode && !(lids.owner[lid - 1] == o)) ports.push_back(o);
  }
  return ports;
}

Candidates updn_candidates(const Topology& t, const TopologyIndex& index, const SwitchGraph& g,
                           const std::vector<unsigned>& roots) {
  const unsigned n = g.size();
  std::vector<unsigned> rank(n, 0xFFFFFFFFu);
  {
    const std::vector<int> dist = bfs_distances(g, roots);
    for (unsigned s = 0; s < n; ++s)
      if (dist[s] >= 0) rank[s] = static_cast<unsigned>(dist[s]);
  }
  std::vector<uint64_t> id(n);
  for (unsigned s = 0; s < n; ++s) id[s] = topology::node_guid(t, g.node[s]);
  // The port of the far switch that a link (s, port) arrives on.
  std::vector<std::vector<std::pair<unsigned, uint8_t>>> far(n);  // per adj entry: (switch, its port)
  for (unsigned s = 0; s < n; ++s)
    for (const auto& [port, v] : g.adj[s])
      far[s].emplace_back(v, static_cast<uint8_t>(index.peer(g.node[s], port)->port));

  Candidates out(n);
  std::vector<std::vector<uint8_t>> hops(n);
  std::vector<uint8_t> least(n);
  std::vector<char> down(n), visited(n);
  std::vector<unsigned> queue;
  std::vector<uint8_t> ports;
  for (unsigned target = 0; target < n; ++target) {
    for (unsigned s = 0; s < n; ++s) hops[s].assign(t.nodes[g.node[s]].ports + 1, kNoHops);
    least.assign(n, kNoHops);
    std::fill(visited.begin(), visited.end(), 0);
    least[target] = 0;
    down[target] = 0;
    queue.assign(1, target);
    // updn_bfs_by_node: a switch is queued when one of its ports gets a hop
    // count and it is not queued already; it keeps the direction it was
    // queued with.
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const unsigned u = queue[head];
      visited[u] = 0;
      for (std::size_t k = 0; k < g.adj[u].size(); ++k) {
        const auto [v, v_port] = far[u][k];
        const bool up = move_up(rank[u], rank[v], id[u], id[v]);
        if (down[u] && up) continue;  // down then up: illegal
        if (least[u] + 1 < hops[v][v_port]) {
          hops[v][v_port] = static_cast<uint8_t>(least[u] + 1);
          least[v] = std::min(least[v], hops[v][v_port]);
          if (!visited[v]) {
            down[v] = !up;
            visited[v] = 1;
            queue.push_back(v);
          }
        }
      }
    }
    for (unsigned s = 0; s < n; ++s) {
      ports.clear();
      if (s != target && least[s] != kNoHops)
        for (unsigned p = 1; p < hops[s].size(); ++p)
          if (hops[s][p] == least[s]) ports.push_back(static_cast<uint8_t>(p));
      out.add(ports);
    }
  }
  return out;
}

namespace {

// One switch's choices (osm_switch_recommend_path with OpenSM's defaults: no
// scatter, no port shifting, no existing LFT honoured on a first sweep).
class OpensmChooser {
 public:
  OpensmChooser(const Topology& t, const TopologyIndex& index, unsigned node, unsigned lmc, unsigned shift)
      : t_(t), index_(index), node_(node), lmc_(lmc), shift_(shift), load_(t.nodes[node].ports + 1, 0) {}

  // Remote systems used by earlier LIDs of one destination port on this switch
  // (OpenSM's port->priv, osm_remote_guids_count).
  struct Used {
    unsigned node;
    uint32_t forwarded_to;
  };

  // The port for one LID among `candidates` (ports in port order), searching
  // the ring of ports from start_from.
  uint8_t choose(const uint8_t* begin, const uint8_t* end, unsigned start_from, const std::vector<Used>& used) const {
    const unsigned num_ports = t_.nodes[node_].ports + 1;
    uint32_t least = UINT32_MAX, least_other_sys = UINT32_MAX, least_other_node = UINT32_MAX;
    uint32_t least_forwarded = UINT32_MAX;
    uint8_t best = 0, best_other_sys = 0, best_other_node = 0;
    bool found = false;
    for (unsigned i = start_from; i < start_from + num_ports; ++i) {
      const uint8_t port = static_cast<uint8_t>(i % num_ports);
      if (port == 0 || !std::binary_search(begin, end, port)) continue;
      const uint32_t count = load_[port];
      const Used* same = nullptr;
      if (lmc_ > 0) {
        const unsigned remote = index_.peer(node_, port)->node;
        same = find(used, [&](unsigned n) { return topology::system_guid(t_, n) == topology::system_guid(t_, remote); });
        if (!same) {
          if (count < least_other_sys) {
            least_other_sys = count;
            best_other_sys = port;
            least_forwarded = 0;
          }
        } else {
          same = find(used, [&](unsigned n) { return topology::node_guid(t_, n) == topology::node_guid(t_, remote); });
          if (!same && count < least_other_node) {
            least_other_node = count;
            best_other_node = port;
            least_forwarded = 0;
          }
        }
      }
      if (count < least) {
        found = true;
        best = port;
        least = count;
        if (same && same->forwarded_to < least_forwarded) least_forwarded = same->forwarded_to;
      } else if (same && count == least && same->forwarded_to < least_forwarded) {
        least_forwarded = same->forwarded_to;
        best = port;
      }
    }
    if (!found) return kNoPath;
    if (lmc_ > 0 && best != 0) {
      if (best_other_sys) return best_other_sys;
      if (best_other_node) return best_other_node;
    }
    return best;
  }

  // Counts a route to an HCA port through `port` (osm_switch_count_path) and
  // the remote system it leads to (find_and_add_remote_sys).
  void count(uint8_t port, std::vector<Used>& used) {
    ++load_[port];
    const unsigned remote = index_.peer(node_, port)->node;
    auto it = std::find_if(used.begin(), used.end(), [&](const Used& u) { return u.node == remote; });
    if (it == used.end()) it = used.insert(used.end(), Used{remote, 0});
    ++it->forwarded_to;
  }

  unsigned shift() const { return shift_; }

 private:
  template <class Match>
  static const Used* find(const std::vector<Used>& used, Match match) {
    for (const Used& u : used)
      if (match(u.node)) return &u;
    return nullptr;
  }

  const Topology& t_;
  const TopologyIndex& index_;
  unsigned node_;
  unsigned lmc_;
  unsigned shift_;
  std::vector<uint32_t> load_;
};

}  // namespace

void opensm_lfts(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids,
                 const Candidates& candidates, bool shifted, std::vector<std::vector<uint8_t>>& lft) {
  const std::vector<LinkEnd> order = destination_order(t, index, lid_holders(lids));
  std::vector<uint16_t> base(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const LinkEnd& e = order[k];
    base[k] = t.nodes[e.node].kind == NodeKind::Switch ? lids.base[e.node][0] : lids.base[e.node][e.port - 1];
  }
  const unsigned per_port = 1u << lids.lmc;
  for (unsigned s = 0; s < g.size(); ++s) {
    const unsigned node = g.node[s];
    std::vector<uint8_t>& table = lft[node];
    table.assign(std::size_t{lids.top} + 1, kNoPath);
    OpensmChooser chooser(t, index, node, lids.lmc, shifted ? s : 0);
    std::vector<std::vector<OpensmChooser::Used>> used(order.size());
    for (unsigned offset = 0; offset < per_port; ++offset) {
      for (std::size_t k = 0; k < order.size(); ++k) {
        const LinkEnd& e = order[k];
        const bool to_switch = t.nodes[e.node].kind == NodeKind::Switch;
        if (to_switch && offset > 0) continue;  // a switch has one LID
        const unsigned lid = base[k] + offset;
        uint8_t port = kNoPath;
        unsigned target = 0;
        bool routed = true;
        if (to_switch) {
          if (e.node == node) {
            table[lid] = 0;
            continue;
          }
          target = static_cast<unsigned>(g.index[e.node]);
        } else {
          const auto attach = index.peer(e.node, e.port);
          if (!attach || g.index[attach->node] < 0) {
            routed = false;
          } else if (attach->node == node) {
            port = static_cast<uint8_t>(attach->port);
            routed = false;
            chooser.count(port, used[k]);
          } else {
            target = static_cast<unsigned>(g.index[attach->node]);
          }
        }
        if (routed) {
          const unsigned start_from = offset > 0 ? table[lid - 1] + 1u : 1u + chooser.shift();
          port = chooser.choose(candidates.begin(s, target), candidates.end(s, target), start_from, used[k]);
          if (!to_switch && port != kNoPath) chooser.count(port, used[k]);
        }
        table[lid] = port;
      }
    }
  }
}

}  // namespace hcasim::routing::detail
