#include "models/fabric/partitioning.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>

namespace hcasim::fabric {

std::vector<unsigned> partition_nodes(const config::FabricSpec& spec, unsigned parts) {
  const std::size_t n = spec.nodes.size();
  std::vector<unsigned> of_node(n, 0);
  if (parts <= 1 || n == 0) return of_node;
  constexpr unsigned kUnplaced = UINT32_MAX;
  std::fill(of_node.begin(), of_node.end(), kUnplaced);
  std::vector<std::vector<unsigned>> neighbours(n);
  for (const config::LinkSpec& l : spec.links) {
    neighbours[l.node_a].push_back(l.node_b);
    neighbours[l.node_b].push_back(l.node_a);
  }
  // Sorted, for the breadth-first order below; a host's first link is its first neighbour.
  std::vector<unsigned> first(n, UINT32_MAX);
  for (unsigned i = 0; i < n; ++i) {
    if (!neighbours[i].empty()) first[i] = neighbours[i].front();
    std::sort(neighbours[i].begin(), neighbours[i].end());
  }
  uint64_t total = 0;
  for (const config::NodeSpec& node : spec.nodes) total += node.ports.size();
  std::vector<uint64_t> load(parts, 0);

  std::vector<unsigned> hcas;
  for (unsigned i = 0; i < n; ++i)
    if (spec.nodes[i].kind == topology::NodeKind::Hca) hcas.push_back(i);
  std::deque<unsigned> frontier;
  std::vector<bool> seen(n, false);
  // Runs of hosts on the same switch stay together (a cut host link would
  // shorten the window to a bare cable's flight): each run goes where its
  // middle falls.
  for (std::size_t start = 0, end = 0; start < hcas.size(); start = end) {
    while (end < hcas.size() && first[hcas[end]] == first[hcas[start]]) ++end;
    const auto p = static_cast<unsigned>((start + end) * parts / (2 * hcas.size()));
    for (std::size_t h = start; h < end; ++h) {
      of_node[hcas[h]] = p;
      load[p] += spec.nodes[hcas[h]].ports.size();
      frontier.push_back(hcas[h]);
      seen[hcas[h]] = true;
    }
  }
  // Switches in breadth-first order from the hosts; unreachable ones last.
  std::vector<unsigned> order;
  while (!frontier.empty()) {
    const unsigned v = frontier.front();
    frontier.pop_front();
    if (spec.nodes[v].kind == topology::NodeKind::Switch) order.push_back(v);
    for (unsigned w : neighbours[v])
      if (!seen[w]) {
        seen[w] = true;
        frontier.push_back(w);
      }
  }
  for (unsigned i = 0; i < n; ++i)
    if (!seen[i]) order.push_back(i);

  const double share = static_cast<double>(total) / parts;
  for (unsigned v : order) {
    const uint64_t work = spec.nodes[v].ports.size();
    std::vector<unsigned> affinity(parts, 0);
    for (unsigned w : neighbours[v])
      if (of_node[w] != kUnplaced) ++affinity[of_node[w]];
    unsigned best = kUnplaced;
    for (unsigned p = 0; p < parts; ++p) {
      if (static_cast<double>(load[p] + work) > share + static_cast<double>(work) / 2) continue;
      if (best == kUnplaced || affinity[p] > affinity[best]) best = p;
    }
    if (best == kUnplaced) best = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
    of_node[v] = best;
    load[best] += work;
  }
  return of_node;
}

unsigned cut_links(const config::FabricSpec& spec, const std::vector<unsigned>& of_node) {
  unsigned cut = 0;
  for (const config::LinkSpec& l : spec.links) cut += of_node[l.node_a] != of_node[l.node_b];
  return cut;
}

}  // namespace hcasim::fabric
