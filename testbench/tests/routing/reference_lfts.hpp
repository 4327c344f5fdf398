#pragma once
// The oracle for the routing library's OpenSM engines: minhop and updn as the
// library computed them before it routed destination switch by destination
// switch (up to commit d6ee49a), in their plain per-LID form. For every switch,
// LID by LID in OpenSM's destination order, every port is tried round the ring
// and kept when it leads one hop closer to the destination's switch and has
// carried fewest HCA LIDs so far (osm_switch_recommend_path, rules in
// models/routing/routing.hpp). Costs switches x LIDs x ports and switches^2
// candidate lists: for small fabrics only. The graph code is written here again
// from the topology, so the tests do not check the library against itself.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing::test {

class ReferenceLfts {
 public:
  ReferenceLfts(const topology::Topology& t, const Lids& lids) : t_(t), index_(t), lids_(lids) {
    index_of_.assign(t.nodes.size(), -1);
    for (unsigned i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].kind != topology::NodeKind::Switch) continue;
      index_of_[i] = static_cast<int>(node_.size());
      node_.push_back(i);
    }
    adj_.resize(node_.size());
    for (unsigned s = 0; s < node_.size(); ++s)
      for (unsigned p = 1; p <= t.nodes[node_[s]].ports; ++p) {
        const auto peer = index_.peer(node_[s], p);
        if (peer && index_of_[peer->node] >= 0) adj_[s].emplace_back(p, static_cast<unsigned>(index_of_[peer->node]));
      }
  }

  // shifted: the ring search starts at port 1 + the switch's index (TieBreak::Shifted).
  // minhop: every port to a neighbour one hop closer (BFS from each target).
  // dor: OpenSM's dor engine, minhop with osm_switch_recommend_path's dor branch.
  std::vector<std::vector<uint8_t>> minhop(bool shifted = false, bool dor = false) {
    shifted_ = shifted;
    dor_ = dor;
    const unsigned n = size();
    candidates_.assign(std::size_t{n} * n, {});
    for (unsigned target = 0; target < n; ++target) {
      const std::vector<int> dist = distances({target});
      for (unsigned s = 0; s < n; ++s) {
        if (s == target || dist[s] <= 0) continue;
        for (const auto& [port, v] : adj_[s])
          if (dist[v] == dist[s] - 1) candidates_[std::size_t{target} * n + s].push_back(static_cast<uint8_t>(port));
      }
    }
    return lfts();
  }

  // updn from `roots` (node indices): OpenSM's updn_bfs_by_node from each target.
  std::vector<std::vector<uint8_t>> updn(const std::vector<unsigned>& root_nodes, bool shifted = false) {
    shifted_ = shifted;
    dor_ = false;
    const unsigned n = size();
    std::vector<unsigned> roots;
    for (unsigned r : root_nodes) roots.push_back(static_cast<unsigned>(index_of_[r]));
    std::vector<unsigned> rank(n, 0xFFFFFFFFu);
    const std::vector<int> dist = distances(roots);
    for (unsigned s = 0; s < n; ++s)
      if (dist[s] >= 0) rank[s] = static_cast<unsigned>(dist[s]);
    const auto up = [&](unsigned u, unsigned v) {  // updn_get_dir
      if (rank[u] == 0 && rank[v] == 0) return true;
      if (rank[u] != rank[v]) return rank[u] > rank[v];
      return topology::node_guid(t_, node_[u]) > topology::node_guid(t_, node_[v]);
    };
    constexpr uint8_t kNoHops = 0xFF;
    candidates_.assign(std::size_t{n} * n, {});
    for (unsigned target = 0; target < n; ++target) {
      std::vector<std::vector<uint8_t>> hops(n);
      for (unsigned s = 0; s < n; ++s) hops[s].assign(t_.nodes[node_[s]].ports + 1, kNoHops);
      std::vector<uint8_t> least(n, kNoHops);
      std::vector<char> down(n, 0), queued(n, 0);
      least[target] = 0;
      std::vector<unsigned> queue{target};
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const unsigned u = queue[head];
        queued[u] = 0;
        for (const auto& [port, v] : adj_[u]) {
          const unsigned v_port = index_.peer(node_[u], port)->port;
          const bool is_up = up(u, v);
          if (down[u] && is_up) continue;
          if (least[u] + 1 < hops[v][v_port]) {
            hops[v][v_port] = static_cast<uint8_t>(least[u] + 1);
            least[v] = std::min(least[v], hops[v][v_port]);
            if (!queued[v]) {
              down[v] = !is_up;
              queued[v] = 1;
              queue.push_back(v);
            }
          }
        }
      }
      for (unsigned s = 0; s < n; ++s) {
        if (s == target || least[s] == kNoHops) continue;
        for (unsigned p = 1; p < hops[s].size(); ++p)
          if (hops[s][p] == least[s]) candidates_[std::size_t{target} * n + s].push_back(static_cast<uint8_t>(p));
      }
    }
    return lfts();
  }

  // OpenSM's automatic updn roots (updn_find_root_nodes_by_min_hop), as node indices.
  std::vector<unsigned> updn_roots() const {
    std::vector<unsigned> cas(size(), 0);
    unsigned total = 0;
    for (unsigned lid = 1; lid <= lids_.top; ++lid) {
      const topology::LinkEnd o = lids_.owner[lid];
      if (o.node == topology::kNoNode || lids_.owner[lid - 1] == o || t_.nodes[o.node].kind != topology::NodeKind::Hca)
        continue;
      const auto peer = index_.peer(o.node, o.port);
      if (!peer || index_of_[peer->node] < 0) continue;
      ++cas[index_of_[peer->node]];
      ++total;
    }
    std::vector<unsigned> roots;
    for (unsigned s = 0; s < size(); ++s) {
      const std::vector<int> dist = distances({s});
      std::vector<unsigned> histogram(64, 0);
      for (unsigned x = 0; x < size(); ++x)
        if (cas[x] && dist[x] >= 0 && dist[x] < 64) histogram[dist[x]] += cas[x];
      unsigned bars90 = 0, bars5 = 0;
      for (unsigned h : histogram) {
        bars90 += h > total * 0.9;
        bars5 += h > total * 0.05;
      }
      if (bars90 == 1 && bars5 == 1) roots.push_back(node_[s]);
    }
    return roots;
  }

 private:
  unsigned size() const { return static_cast<unsigned>(node_.size()); }

  std::vector<int> distances(const std::vector<unsigned>& from) const {
    std::vector<int> dist(size(), -1);
    std::vector<unsigned> queue;
    for (unsigned f : from)
      if (dist[f] != 0) {
        dist[f] = 0;
        queue.push_back(f);
      }
    for (std::size_t head = 0; head < queue.size(); ++head)
      for (const auto& [port, v] : adj_[queue[head]])
        if (dist[v] < 0) {
          dist[v] = dist[queue[head]] + 1;
          queue.push_back(v);
        }
    return dist;
  }

  // osm_switch_recommend_path for one LID of one switch.
  struct Used {
    unsigned node;
    unsigned port;  // dor: the neighbour's port (find_and_add_remote_sys with dor); else 0
    uint32_t forwarded_to;
  };
  uint8_t choose(unsigned node, const std::vector<uint8_t>& candidates, unsigned start_from,
                 const std::vector<uint32_t>& load, const std::vector<Used>& used) const {
    const unsigned num_ports = t_.nodes[node].ports + 1;
    uint32_t least = UINT32_MAX, least_other_sys = UINT32_MAX, least_other_node = UINT32_MAX;
    uint32_t least_forwarded = UINT32_MAX;
    uint8_t best = 0, best_other_sys = 0, best_other_node = 0;
    bool found = false;
    const auto find = [&](auto match) -> const Used* {
      for (const Used& u : used)
        if (match(u)) return &u;
      return nullptr;
    };
    const Used none{0, 0, 0};
    int first_node = -1;
    for (unsigned i = start_from; i < start_from + num_ports; ++i) {
      const uint8_t port = static_cast<uint8_t>(i % num_ports);
      if (port == 0 || std::find(candidates.begin(), candidates.end(), port) == candidates.end()) continue;
      const uint32_t count = load[port];
      const Used* same = nullptr;
      if (dor_) {  // the first dimension only; earlier LIDs told apart by neighbour port
        const topology::LinkEnd remote = *index_.peer(node, port);
        if (first_node < 0) first_node = static_cast<int>(remote.node);
        else if (remote.node != static_cast<unsigned>(first_node)) continue;
        if (lids_.lmc > 0) {
          same = find([&](const Used& u) { return u.node == remote.node && u.port == remote.port; });
          if (!same) same = &none;
        }
      } else if (lids_.lmc > 0) {
        const unsigned remote = index_.peer(node, port)->node;
        same = find([&](const Used& u) { return topology::system_guid(t_, u.node) == topology::system_guid(t_, remote); });
        if (!same) {
          if (count < least_other_sys) {
            least_other_sys = count;
            best_other_sys = port;
            least_forwarded = 0;
          }
        } else {
          same = find([&](const Used& u) { return topology::node_guid(t_, u.node) == topology::node_guid(t_, remote); });
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
    if (lids_.lmc > 0 && best != 0) {
      if (best_other_sys) return best_other_sys;
      if (best_other_node) return best_other_node;
    }
    return best;
  }

  std::vector<std::vector<uint8_t>> lfts() const {
    std::vector<topology::LinkEnd> holders;
    for (unsigned lid = 1; lid <= lids_.top; ++lid) {
      const topology::LinkEnd o = lids_.owner[lid];
      if (o.node != topology::kNoNode && !(lids_.owner[lid - 1] == o)) holders.push_back(o);
    }
    const std::vector<topology::LinkEnd> order = destination_order(t_, index_, holders);
    std::vector<std::vector<uint8_t>> lft(t_.nodes.size());
    for (unsigned s = 0; s < size(); ++s) {
      const unsigned node = node_[s];
      std::vector<uint8_t>& table = lft[node];
      table.assign(std::size_t{lids_.top} + 1, kNoPath);
      std::vector<uint32_t> load(t_.nodes[node].ports + 1, 0);
      std::vector<std::vector<Used>> used(order.size());
      const auto count = [&](uint8_t port, std::vector<Used>& u) {
        ++load[port];
        const topology::LinkEnd remote = *index_.peer(node, port);
        const unsigned remote_port = dor_ ? remote.port : 0;
        auto it = std::find_if(u.begin(), u.end(), [&](const Used& x) { return x.node == remote.node && x.port == remote_port; });
        if (it == u.end()) it = u.insert(u.end(), Used{remote.node, remote_port, 0});
        ++it->forwarded_to;
      };
      for (unsigned offset = 0; offset < (1u << lids_.lmc); ++offset) {
        for (std::size_t k = 0; k < order.size(); ++k) {
          const topology::LinkEnd& e = order[k];
          const bool to_switch = t_.nodes[e.node].kind == topology::NodeKind::Switch;
          if (to_switch && offset > 0) continue;
          const unsigned lid = (to_switch ? lids_.base[e.node][0] : lids_.base[e.node][e.port - 1]) + offset;
          unsigned target;
          if (to_switch) {
            if (e.node == node) {
              table[lid] = 0;
              continue;
            }
            target = static_cast<unsigned>(index_of_[e.node]);
          } else {
            const auto attach = index_.peer(e.node, e.port);
            if (!attach || index_of_[attach->node] < 0) continue;
            if (attach->node == node) {
              table[lid] = static_cast<uint8_t>(attach->port);
              count(table[lid], used[k]);
              continue;
            }
            target = static_cast<unsigned>(index_of_[attach->node]);
          }
          const unsigned start_from = offset > 0 && !dor_ ? table[lid - 1] + 1u : 1u + (shifted_ ? s : 0u);
          table[lid] = choose(node, candidates_[std::size_t{target} * size() + s], start_from, load, used[k]);
          if (!to_switch && table[lid] != kNoPath) count(table[lid], used[k]);
        }
      }
    }
    return lft;
  }

  const topology::Topology& t_;
  topology::TopologyIndex index_;
  const Lids& lids_;
  std::vector<unsigned> node_;                                    // switch index -> node
  std::vector<int> index_of_;                                     // node -> switch index or -1
  std::vector<std::vector<std::pair<unsigned, unsigned>>> adj_;   // (port, neighbour switch)
  std::vector<std::vector<uint8_t>> candidates_;                  // [target * switches + s]
  bool shifted_ = false;
  bool dor_ = false;
};

}  // namespace hcasim::routing::test
