#include "models/routing/adaptive_groups.hpp"

#include <map>
#include <set>
#include <utility>

#include "models/routing/credit_loops.hpp"
#include "models/routing/route_turns.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing {

namespace {

using topology::LinkEnd;
using topology::NodeKind;
using Ports = std::vector<uint8_t>;

// The switch (index in g) each LID's port hangs on, or -1 (a switch's own
// LID, an HCA port linked to no switch, an unassigned LID).
std::vector<int> lid_switches(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                              const detail::SwitchGraph& g) {
  std::vector<int> at(lids.owner.size(), -1);
  for (std::size_t lid = 1; lid < lids.owner.size(); ++lid) {
    const LinkEnd& o = lids.owner[lid];
    if (o.node == UINT32_MAX || t.nodes[o.node].kind != NodeKind::Hca) continue;
    if (const auto peer = index.peer(o.node, o.port)) at[lid] = g.index[peer->node];
  }
  return at;
}

// For every switch d that holds a LID of `at`: body(d, dist), dist the hop
// counts to d (no group leads to another switch).
template <class Body>
void each_destination(const detail::SwitchGraph& g, const std::vector<int>& at, Body&& body) {
  std::vector<char> holds(g.size(), 0);
  for (int s : at)
    if (s >= 0) holds[static_cast<unsigned>(s)] = 1;
  for (unsigned d = 0; d < g.size(); ++d)
    if (holds[d]) body(d, detail::bfs_distances(g, d));
}

// The ports of switch s to a neighbour at distance `want` from d.
Ports ports_at(const detail::SwitchGraph& g, unsigned s, const std::vector<int>& dist, int want) {
  Ports out;
  for (const auto& [port, n] : g.adj[s])
    if (dist[n] == want) out.push_back(static_cast<uint8_t>(port));
  return out;
}

// The credit-loop text of the LFTs' turns and the adaptive turns `pairs`
// (per switch, its distinct (arrival ports, group ports)); "" when acyclic.
std::string credit_loop(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                        const Routes& routes, const detail::SwitchGraph& g,
                        const std::vector<std::set<std::pair<Ports, Ports>>>& pairs) {
  // A channel per switch port, out of it: first[s] + port - 1.
  std::vector<uint32_t> first(g.size() + 1, 0);
  for (unsigned s = 0; s < g.size(); ++s) first[s + 1] = first[s] + t.nodes[g.node[s]].ports;
  std::vector<uint64_t> edges;
  // The dependency of a packet arriving at node s on port `in` and leaving on
  // `out`, when both ports link switches (only those channels can close a cycle).
  const auto turn = [&](unsigned node, unsigned in, unsigned out) {
    const int s = g.index[node];
    const auto from = index.peer(node, in);
    const auto to = index.peer(node, out);
    if (s < 0 || !from || !to || g.index[from->node] < 0 || g.index[to->node] < 0) return;
    const unsigned f = static_cast<unsigned>(g.index[from->node]);
    edges.push_back(uint64_t{first[f] + from->port - 1} << 32 | (first[static_cast<unsigned>(s)] + out - 1));
  };
  used_turns(t, index, lids, routes).each(turn);
  for (unsigned s = 0; s < g.size(); ++s)
    for (const auto& [ins, outs] : pairs[s])
      for (uint8_t in : ins)
        for (uint8_t out : outs) turn(g.node[s], in, out);
  const std::vector<uint32_t> cycle = find_cycle(first.back(), edges);
  if (cycle.empty()) return "";
  std::string text;
  for (std::size_t i = 0; i <= cycle.size(); ++i) {
    const uint32_t c = cycle[i % cycle.size()];
    unsigned s = 0;
    while (first[s + 1] <= c) ++s;
    text += (i > 0 ? " -> " : "") + topology::port_name(t, {g.node[s], c - first[s] + 1});
  }
  return text;
}

// One pass: the groups and, with routes, the credit-loop check (one switch
// graph, one breadth-first search per destination switch).
AdaptivePlan plan(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                  const Routes* routes) {
  const detail::SwitchGraph g = detail::build_switch_graph(t, index);
  const std::vector<int> at = lid_switches(t, index, lids, g);
  std::vector<std::vector<uint16_t>> lids_at(g.size());  // destination switch -> its LIDs
  for (std::size_t lid = 0; lid < at.size(); ++lid)
    if (at[lid] >= 0) lids_at[static_cast<unsigned>(at[lid])].push_back(static_cast<uint16_t>(lid));
  AdaptivePlan out;
  out.groups.resize(t.nodes.size());
  std::vector<std::map<Ports, uint16_t>> interned(g.size());
  for (unsigned s = 0; s < g.size(); ++s) {
    out.groups[g.node[s]].ports.emplace_back();  // group 0: none
    out.groups[g.node[s]].of_lid.assign(at.size(), 0);
  }
  std::vector<std::set<std::pair<Ports, Ports>>> pairs(routes != nullptr ? g.size() : 0);
  each_destination(g, at, [&](unsigned d, const std::vector<int>& dist) {
    for (unsigned s = 0; s < g.size(); ++s) {
      if (dist[s] <= 0) continue;  // d itself, or unreachable
      Ports ports = ports_at(g, s, dist, dist[s] - 1);
      if (routes != nullptr) pairs[s].emplace(ports_at(g, s, dist, dist[s] + 1), ports);
      sw::ArGroupTable& table = out.groups[g.node[s]];
      const auto [it, fresh] = interned[s].try_emplace(std::move(ports), static_cast<uint16_t>(table.ports.size()));
      if (fresh) table.ports.push_back(it->first);
      for (uint16_t lid : lids_at[d]) table.of_lid[lid] = it->second;
    }
  });
  if (routes != nullptr) out.loop = credit_loop(t, index, lids, *routes, g, pairs);
  return out;
}

}  // namespace

std::vector<sw::ArGroupTable> adaptive_groups(const topology::Topology& t, const topology::TopologyIndex& index,
                                              const Lids& lids) {
  return plan(t, index, lids, nullptr).groups;
}

std::string adaptive_credit_loop(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                                 const Routes& routes) {
  return plan(t, index, lids, &routes).loop;
}

AdaptivePlan adaptive_plan(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                           const Routes& routes) {
  return plan(t, index, lids, &routes);
}

}  // namespace hcasim::routing
