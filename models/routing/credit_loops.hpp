#pragma once
// Credit-loop (channel dependency) check of a routed fabric (Dally and Seitz's
// condition for deadlock freedom with link-level credits).
//
// Rules:
// - A channel is one direction of a link on one VL. Routing the packets of
//   every HCA port to every LID with every SL adds a dependency from the
//   channel a packet arrives on to the channel it leaves on, at each switch.
// - The VL of a hop is the SL-to-VL table of the transmitting port: an HCA's
//   own table, or the switch's (input port, output port) table.
// - The fabric can deadlock when that dependency graph has a cycle; the check
//   reports one cycle, as a list of channels in order.
// - Sources: every HCA port linked to a switch sends to every assigned LID but
//   its own, switch LIDs included (the target switch consumes those: no
//   dependency there), except when the engine routes them outside its layers
//   (nue without nue_include_switches: Routes::switch_lids_outside_layers). A hop whose table gives VL 15 or above drops the packet
//   (iba-facts 4: a data SL mapped to VL15 is dropped), as does an LFT entry of
//   kNoPath, 0 on a switch that does not own the LID, or an unlinked port.
// - The cycle lists channels c0, c1, ..., cn-1 where each depends on the one
//   before and c0 on cn-1; consecutive channels meet at one switch: the far
//   end of c(i).from is on the switch that transmits c(i+1).
// - `dependencies` counts distinct (channel, VL) -> (channel, VL) edges over
//   all SLs.
// - Cost: paths do not depend on the SL, so the port-level dependency graph is
//   built once from the turns routes take (route_turns.hpp: one pass over each
//   table of a switch with HCAs, and LID by LID only through switches without
//   HCAs), not path by path. SLs that map alike in every table used form a
//   class; a class on one constant VL that no other class uses sees exactly
//   that graph, so all such classes are checked at once. Only the remaining
//   classes need the graph with VLs, built LID by LID. Cycles are found with
//   an iterative depth-first search. The lookup is called once per
//   (node, in, out) that some route uses.

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/routing/routing.hpp"

namespace hcasim::routing {

// SL-to-VL table of a transmitting port: node, input port (0 for an HCA's own
// traffic) and output port number.
using Sl2VlLookup = std::function<std::array<uint8_t, 16>(unsigned node, unsigned in_port, unsigned out_port)>;

struct Channel {
  topology::LinkEnd from;   // transmitting port
  unsigned vl = 0;
};

struct CreditLoopReport {
  bool loop = false;
  std::vector<Channel> cycle;   // the channels of one cycle, in dependency order
  uint64_t dependencies = 0;    // edges of the dependency graph (all VLs)
  bool switch_lids_left_out = false;  // paths to switches' own LIDs not checked (nue's, outside its layers)
  // "credit loop on VL 0: sw0_0.p2 -> sw0_1.p2 -> ... -> sw0_0.p2" or "no credit loop (N dependencies)".
  std::string describe(const topology::Topology& t) const;
};

CreditLoopReport find_credit_loop(const topology::Topology& t, const Lids& lids, const Routes& routes,
                                  const Sl2VlLookup& sl2vl);

// One cycle of the directed graph on nodes 0..nodes-1 with `edges` (from << 32
// | to), as its nodes in edge order; empty when it has none.
std::vector<uint32_t> find_cycle(uint32_t nodes, const std::vector<uint64_t>& edges);

}  // namespace hcasim::routing
