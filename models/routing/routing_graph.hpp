#pragma once
// Internals of routing.cpp, shared with routing_updown.cpp: the switch graph
// and, per (switch, target switch), the output ports a routing algorithm
// allows. Not part of the library's interface.
//
// Rules:
// - Only switches forward; an HCA is a leaf of the graph. Parallel links
//   between two switches are separate ports.
// - Candidates of (s, t), s != t, are ports of s in port order, each leading to
//   a switch one hop closer to t under the algorithm's rules; empty = no path.

#include <cstdint>
#include <utility>
#include <vector>

#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing::detail {

struct SwitchGraph {
  std::vector<unsigned> node;                 // switch index -> node index
  std::vector<int> index;                     // node index -> switch index, or -1 for an HCA
  // adj[s]: (port of s, neighbour switch index), in port order.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> adj;
  std::vector<int> component;                 // switch index -> connected component number
  unsigned size() const { return static_cast<unsigned>(node.size()); }
};

SwitchGraph build_switch_graph(const topology::Topology& t, const topology::TopologyIndex& index);

// Hop distances from the nearest of `from` to every switch (-1 = unreachable).
std::vector<int> bfs_distances(const SwitchGraph& g, const std::vector<unsigned>& from);
inline std::vector<int> bfs_distances(const SwitchGraph& g, unsigned from) {
  return bfs_distances(g, std::vector<unsigned>{from});
}

// Candidate ports by (target, switch), stored target-major.
class Candidates {
 public:
  explicit Candidates(unsigned switches) : n_(switches) { offset_.reserve(std::size_t{n_} * n_ + 1); offset_.push_back(0); }
  // Appends the candidates of the next (target, switch) pair, in target-major order.
  void add(const std::vector<uint8_t>& ports) {
    ports_.insert(ports_.end(), ports.begin(), ports.end());
    offset_.push_back(static_cast<uint32_t>(ports_.size()));
  }
  const uint8_t* begin(unsigned s, unsigned target) const { return ports_.data() + offset_[std::size_t{target} * n_ + s]; }
  const uint8_t* end(unsigned s, unsigned target) const { return ports_.data() + offset_[std::size_t{target} * n_ + s + 1]; }

 private:
  unsigned n_;
  std::vector<uint32_t> offset_;
  std::vector<uint8_t> ports_;
};

// Min-hop: every port to a neighbour one hop closer to the target.
Candidates minhop_candidates(const SwitchGraph& g);

// Up/down from the given roots (switch indices); fills `roots` by the automatic
// rule for every component that has none. See routing.hpp for the rules.
Candidates updown_candidates(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                             std::vector<unsigned>& roots);

// The automatic up/down roots of one component (switch indices); see routing.hpp.
std::vector<unsigned> automatic_roots(const topology::Topology& t, const topology::TopologyIndex& index,
                                      const SwitchGraph& g, int component);

// The ports that hold LIDs (a switch as port 0), each once, in LID order.
std::vector<topology::LinkEnd> lid_holders(const Lids& lids);

// OpenSM's updn (routing_opensm.cpp): the automatic roots (switch indices) for
// the HCA ports among `ports`, and the candidates from OpenSM's up/down search.
std::vector<unsigned> updn_automatic_roots(const topology::Topology& t, const topology::TopologyIndex& index,
                                           const SwitchGraph& g, const std::vector<topology::LinkEnd>& ports);
Candidates updn_candidates(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                           const std::vector<unsigned>& roots);

// OpenSM's LFTs of every switch from the candidates (routing_opensm.cpp).
void opensm_lfts(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                 const Lids& lids, const Candidates& candidates, bool shifted,
                 std::vector<std::vector<uint8_t>>& lft);

}  // namespace hcasim::routing::detail
