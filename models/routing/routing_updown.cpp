// Up/down routing (iba-facts 7, OpenSM osm_ucast_updn.c): ranks, automatic
// roots and, per target switch, the ports each switch may use. Rules in
// routing.hpp.

#include <algorithm>
#include <limits>

#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

namespace {

// Ranks by BFS from the roots, and the direction of every move.
class Orientation {
 public:
  Orientation(const topology::Topology& t, const SwitchGraph& g, const std::vector<unsigned>& roots)
      : t_(t), g_(g), rank_(bfs_distances(g, roots)) {}

  // Is the move from switch u to its neighbour v an up move? Lower rank is
  // up; at equal rank the larger GUID is up, or the larger node index when the
  // GUIDs are equal (0 = none given).
  bool up(unsigned u, unsigned v) const {
    if (rank_[u] != rank_[v]) return rank_[v] < rank_[u];
    const uint64_t gu = t_.nodes[g_.node[u]].guid, gv = t_.nodes[g_.node[v]].guid;
    if (gu != gv) return gv > gu;
    return g_.node[v] > g_.node[u];
  }

  // Sorts switches so that every up move goes to an earlier one.
  bool before(unsigned u, unsigned v) const {
    if (rank_[u] != rank_[v]) return rank_[u] < rank_[v];
    const uint64_t gu = t_.nodes[g_.node[u]].guid, gv = t_.nodes[g_.node[v]].guid;
    if (gu != gv) return gu > gv;
    return g_.node[u] > g_.node[v];
  }

 private:
  const topology::Topology& t_;
  const SwitchGraph& g_;
  std::vector<int> rank_;
};

class UpDown {
 public:
  UpDown(const SwitchGraph& g, const Orientation& orientation) : g_(g), o_(orientation) {
    for (unsigned s = 0; s < g.size(); ++s) {
      if (component_size_.size() <= static_cast<std::size_t>(g.component[s])) component_size_.resize(g.component[s] + 1);
      ++component_size_[g.component[s]];
    }
  }

  bool up(unsigned u, unsigned v) const { return o_.up(u, v); }

  // Candidates of every switch towards `target`, appended to `out`.
  void route(unsigned target, Candidates& out) {
    const std::size_t reached = layered(target);
    if (reached < component_size_[g_.component[target]]) {
      // Some switch has no path: with several roots some cannot have one (a
      // root cannot reach another root below it). Take "down first" only if it
      // reaches more.
      std::vector<int> hops = hops_;
      std::vector<uint8_t> down_only = down_only_;
      if (down_first(target) <= reached) {
        hops_.swap(hops);
        down_only_.swap(down_only);
      }
    }
    std::vector<uint8_t> ports;
    for (unsigned s = 0; s < g_.size(); ++s) {
      ports.clear();
      if (s != target && hops_[s] > 0) {
        for (const auto& [port, n] : g_.adj[s]) {
          if (hops_[n] != hops_[s] - 1) continue;
          const bool is_up = up(s, n);
          if (down_only_[s] ? (!is_up && down_only_[n]) : is_up) ports.push_back(static_cast<uint8_t>(port));
        }
      }
      out.add(ports);
    }
  }

 private:
  // Min-hop legal paths, BFS outward from the target layer by layer. A switch
  // is "down-only" when it reaches the target by down moves alone; only such a
  // switch may be entered by a down move. A switch that can be down-only at its
  // minimum distance is. Returns the number of switches reached; it may miss
  // some that have a legal path (in odd graphs a switch that is not down-only
  // cuts off a switch above it).
  std::size_t layered(unsigned target) {
    hops_.assign(g_.size(), -1);
    down_only_.assign(g_.size(), 0);
    hops_[target] = 0;
    down_only_[target] = 1;
    std::vector<unsigned> layer{target}, next;
    std::size_t reached = 1;
    while (!layer.empty()) {
      next.clear();
      for (unsigned c : layer) {
        for (const auto& [port, n] : g_.adj[c]) {
          if (hops_[n] >= 0 && hops_[n] != hops_[c] + 1) continue;
          const bool down = !up(n, c);  // the move n -> c
          if (down && !down_only_[c]) continue;  // would be a down -> up turn after c
          if (hops_[n] < 0) {
            hops_[n] = hops_[c] + 1;
            next.push_back(n);
          }
          if (down) down_only_[n] = 1;
        }
      }
      reached += next.size();
      layer.swap(next);
    }
    return reached;
  }

  // Fallback that always reaches every switch with a rank: a switch with a
  // down-only path takes its shortest one; every other switch goes up, to the
  // neighbour nearest the target. Up moves only lead to lower ranks (or equal
  // rank and larger GUID), so this reaches exactly the switches that have a
  // legal path: those whose up-closure meets the target's. Returns their number.
  std::size_t down_first(unsigned target) {
    hops_.assign(g_.size(), -1);
    down_only_.assign(g_.size(), 0);
    hops_[target] = 0;
    down_only_[target] = 1;
    std::vector<unsigned> queue{target};
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const unsigned c = queue[head];
      for (const auto& [port, n] : g_.adj[c]) {
        if (hops_[n] < 0 && !up(n, c)) {
          hops_[n] = hops_[c] + 1;
          down_only_[n] = 1;
          queue.push_back(n);
        }
      }
    }
    // Unit-weight Dijkstra by buckets over up moves into any reached switch.
    std::vector<std::vector<unsigned>> bucket;
    for (unsigned s : queue) {
      if (bucket.size() <= static_cast<std::size_t>(hops_[s])) bucket.resize(hops_[s] + 1);
      bucket[hops_[s]].push_back(s);
    }
    for (std::size_t d = 0; d < bucket.size(); ++d) {
      for (std::size_t i = 0; i < bucket[d].size(); ++i) {
        const unsigned c = bucket[d][i];
        if (static_cast<std::size_t>(hops_[c]) != d) continue;  // stale entry
        for (const auto& [port, n] : g_.adj[c]) {
          if (down_only_[n] || !up(n, c)) continue;
          if (hops_[n] < 0 || hops_[n] > hops_[c] + 1) {
            hops_[n] = hops_[c] + 1;
            if (bucket.size() <= d + 1) bucket.resize(d + 2);
            bucket[d + 1].push_back(n);
          }
        }
      }
    }
    std::size_t reached = 0;
    for (int h : hops_) reached += h >= 0;
    return reached;
  }

  const SwitchGraph& g_;
  const Orientation& o_;
  std::vector<std::size_t> component_size_;
  std::vector<int> hops_;
  std::vector<uint8_t> down_only_;
};

// Does every switch of `from` have an up/down path to every switch of `to`?
// A path exists when the up-closures (switches reachable by up moves) of the
// two ends meet.
bool all_reach(const SwitchGraph& g, const Orientation& o, const std::vector<unsigned>& from,
               const std::vector<unsigned>& to) {
  std::vector<unsigned> order = to;
  std::sort(order.begin(), order.end(), [&o](unsigned u, unsigned v) { return o.before(u, v); });
  const std::size_t words = (g.size() + 63) / 64;
  std::vector<uint64_t> closure(g.size() * words, 0);
  for (unsigned s : order) {  // up moves lead to earlier switches: their closures are complete
    uint64_t* mine = &closure[s * words];
    mine[s / 64] |= uint64_t{1} << (s % 64);
    for (const auto& [port, n] : g.adj[s]) {
      if (!o.up(s, n)) continue;
      const uint64_t* theirs = &closure[n * words];
      for (std::size_t w = 0; w < words; ++w) mine[w] |= theirs[w];
    }
  }
  for (unsigned a : from) {
    for (unsigned b : to) {
      bool meet = false;
      for (std::size_t w = 0; w < words && !meet; ++w) meet = (closure[a * words + w] & closure[b * words + w]) != 0;
      if (!meet) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<unsigned> automatic_roots(const topology::Topology& t, const topology::TopologyIndex& index,
                                      const SwitchGraph& g, int component) {
  std::vector<unsigned> members, with_hosts;
  for (unsigned s = 0; s < g.size(); ++s) {
    if (g.component[s] != component) continue;
    members.push_back(s);
    const unsigned node = g.node[s];
    for (unsigned p = 1; p <= t.nodes[node].ports; ++p) {
      const auto peer = index.peer(node, p);
      if (peer && t.nodes[peer->node].kind == topology::NodeKind::Hca) {
        with_hosts.push_back(s);
        break;
      }
    }
  }
  const std::vector<unsigned>& reference = with_hosts.empty() ? members : with_hosts;
  std::vector<int> farthest(g.size(), 0);
  for (unsigned r : reference) {
    const std::vector<int> dist = bfs_distances(g, r);
    for (unsigned s : members) farthest[s] = std::max(farthest[s], dist[s]);
  }
  int best = std::numeric_limits<int>::max();
  for (unsigned s : members) best = std::min(best, farthest[s]);
  std::vector<unsigned> roots;
  for (unsigned s : members) {
    if (farthest[s] == best) roots.push_back(s);
  }
  // Every switch equally central (a torus, a dragonfly): one root, the first.
  if (roots.size() == members.size() && roots.size() > 1) roots.resize(1);
  // Several roots, but some switch with an HCA could not reach some switch: one root.
  if (roots.size() > 1 && !all_reach(g, Orientation(t, g, roots), with_hosts, members)) roots.resize(1);
  return roots;
}

Candidates updown_candidates(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                             std::vector<unsigned>& roots) {
  std::vector<char> has_root(g.size() + 1, 0);
  for (unsigned r : roots) has_root[g.component[r]] = 1;
  for (unsigned s = 0; s < g.size(); ++s) {
    if (has_root[g.component[s]]) continue;
    has_root[g.component[s]] = 1;
    for (unsigned r : automatic_roots(t, index, g, g.component[s])) roots.push_back(r);
  }
  std::sort(roots.begin(), roots.end());
  const Orientation orientation(t, g, roots);
  UpDown updown(g, orientation);
  Candidates out(g.size());
  for (unsigned target = 0; target < g.size(); ++target) updown.route(target, out);
  return out;
}

}  // namespace hcasim::routing::detail
