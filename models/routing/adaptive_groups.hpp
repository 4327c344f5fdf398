#pragma once
// Adaptive routing's groups (docs/adaptive-routing.md): what a subnet manager
// hands each switch beside its LFT, and the credit-loop check of the paths
// they open. Pure C++.
//
// Rules:
// - The group of switch s for a LID is the set of s's ports to a neighbour
//   switch one hop closer to the LID's switch (the switch its HCA port is
//   linked to), in port order: every minimum-hop port. In a fat tree that is
//   every up port towards a destination in another subtree (OpenSM has no AR;
//   NVIDIA's AR group in a fat tree is this set). One port is a group too, so
//   an adaptively routed packet takes minimum-hop paths only.
// - No group: on the LID's own switch, for a switch's own LID, for a LID of an
//   HCA port linked to no switch, and towards a switch s cannot reach.
// - Groups are interned per switch (a fat-tree switch has a handful); group 0
//   is "none".
// - Credit loops: the channels (a switch port's direction out) an adaptively
//   routed packet may hold while it waits for the next: at each switch s and
//   destination switch d, from every port a packet for d arrives on (from a
//   neighbour one hop farther from d) to every port of s's group for d, and at
//   d from its neighbours to its HCA ports; with the LFTs' own turns (the SLs
//   AR leaves to them). A cycle in that graph, VLs ignored (the check is
//   conservative: it holds on every VL assignment), refuses the groups.

#include <string>
#include <vector>

#include "models/routing/routing.hpp"
#include "models/switch/adaptive_router.hpp"

namespace hcasim::routing {

// The groups of every node (empty for an HCA), by node index.
std::vector<sw::ArGroupTable> adaptive_groups(const topology::Topology& t, const topology::TopologyIndex& index,
                                              const Lids& lids);

// "" when the groups and the LFTs together close no cycle of channel
// dependencies; else one cycle, "sw0.p2 -> sw1.p3 -> ... -> sw0.p2".
std::string adaptive_credit_loop(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                                 const Routes& routes);

// Both at once (one switch graph, one breadth-first search per destination
// switch), as an SM computes them.
struct AdaptivePlan {
  std::vector<sw::ArGroupTable> groups;
  std::string loop;
};
AdaptivePlan adaptive_plan(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                           const Routes& routes);

}  // namespace hcasim::routing
