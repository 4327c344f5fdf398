// OpenSM's up/down engine (opensm 3.3: osm_ucast_updn.c): automatic roots and
// the up/down search from each destination switch. The LFTs from the
// candidates are opensm_lfts.cpp's. Rules in routing.hpp.

#include <algorithm>

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
  DistanceBlock block;
  std::vector<unsigned> sources;
  std::vector<unsigned> histogram;  // [b * kMaxHops + hops]: CA ports at that distance from sources[b]
  for (unsigned first = 0; first < g.size(); first += DistanceBlock::kWidth) {
    sources.clear();
    for (unsigned s = first; s < g.size() && sources.size() < DistanceBlock::kWidth; ++s) sources.push_back(s);
    block.compute(g, sources);
    histogram.assign(sources.size() * kMaxHops, 0);
    for (unsigned d = 0; d < std::min(block.levels(), kMaxHops); ++d) {
      const uint64_t* level = block.level(d);
      for (unsigned x = 0; x < g.size(); ++x)
        if (cas[x])
          for (uint64_t b = level[x]; b != 0; b &= b - 1) histogram[__builtin_ctzll(b) * kMaxHops + d] += cas[x];
    }
    for (unsigned b = 0; b < sources.size(); ++b) {
      unsigned bars90 = 0, bars5 = 0;
      for (unsigned d = 0; d < kMaxHops; ++d) {
        bars90 += histogram[b * kMaxHops + d] > over90;
        bars5 += histogram[b * kMaxHops + d] > over5;
      }
      if (bars90 == 1 && bars5 == 1) roots.push_back(sources[b]);
    }
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

UpdnCandidates::UpdnCandidates(const Topology& t, const TopologyIndex& index, const SwitchGraph& g,
                               const std::vector<unsigned>& roots)
    : g_(g), first_port_(g.size() + 1, 0), first_move_(g.size() + 1, 0) {
  const unsigned n = g.size();
  std::vector<unsigned> rank(n, 0xFFFFFFFFu);
  const std::vector<int> dist = bfs_distances(g, roots);
  for (unsigned s = 0; s < n; ++s)
    if (dist[s] >= 0) rank[s] = static_cast<unsigned>(dist[s]);
  std::vector<uint64_t> id(n);  // NodeGUIDs
  for (unsigned s = 0; s < n; ++s) {
    id[s] = topology::node_guid(t, g.node[s]);
    first_port_[s + 1] = first_port_[s] + t.nodes[g.node[s]].ports + 1;
  }
  for (unsigned s = 0; s < n; ++s) {
    for (const auto& [port, v] : g.adj[s])
      moves_.push_back({v, first_port_[v] + index.peer(g.node[s], port)->port, move_up(rank[s], rank[v], id[s], id[v])});
    first_move_[s + 1] = static_cast<uint32_t>(moves_.size());
  }
  least_.assign(n, kNoHops);
  down_.assign(n, 0);
  queued_.assign(n, 0);
}

void UpdnCandidates::compute(const std::vector<unsigned>& targets, CandidateBlock& out) {
  out.start(targets, g_);
  for (unsigned b = 0; b < targets.size(); ++b) {
    search(targets[b]);
    // The candidates: the ports with the switch's fewest hops (only ports to
    // switches have hop counts).
    for (unsigned s = 0; s < g_.size(); ++s) {
      if (s != targets[b] && least_[s] != kNoHops) {
        const uint8_t* hops = &hops_[first_port_[s]];
        for (const auto& [port, v] : g_.adj[s])
          if (hops[port] == least_[s]) out.add(b, static_cast<uint8_t>(port));
      }
      out.end_switch(b, s);
    }
  }
}

void UpdnCandidates::search(unsigned target) {
  hops_.assign(first_port_.back(), kNoHops);
  std::fill(least_.begin(), least_.end(), kNoHops);
  std::fill(queued_.begin(), queued_.end(), 0);
  least_[target] = 0;
  down_[target] = 0;
  queue_.assign(1, target);
  // updn_bfs_by_node: a switch is queued when one of its ports gets a hop
  // count and it is not queued already; it keeps the direction it was
  // queued with.
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const unsigned u = queue_[head];
    queued_[u] = 0;
    for (uint32_t k = first_move_[u]; k < first_move_[u + 1]; ++k) {
      const Move& m = moves_[k];
      if (down_[u] && m.up) continue;  // down then up: illegal
      uint8_t& hops = hops_[m.port];
      if (least_[u] + 1 < hops) {
        hops = static_cast<uint8_t>(least_[u] + 1);
        least_[m.to] = std::min(least_[m.to], hops);
        if (!queued_[m.to]) {
          down_[m.to] = !m.up;
          queued_[m.to] = 1;
          queue_.push_back(m.to);
        }
      }
    }
  }
}

}  // namespace hcasim::routing::detail
