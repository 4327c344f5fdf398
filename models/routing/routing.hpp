#pragma once
// LID assignment and offline routing: the linear forwarding tables a subnet
// manager would compute (iba-facts 4 and 7). Pure C++; the builder installs the
// result at time zero, and the in-band SM of a later stage reuses it.
//
// Rules:
// - LIDs: unicast 0x0001-0xBFFF (iba-facts 4). Each HCA port owns 2^LMC LIDs
//   from a base aligned to 2^LMC; each switch owns one LID, on port 0, also
//   aligned. Assigned in node order, HCA ports in port order.
// - An LFT maps every LID 0..top to an output port number: 0 = the switch
//   itself, 1..N = a port, kNoPath = unrouted (OpenSM's OSM_NO_PATH).
// - minhop: OpenSM's min-hop with port balancing; updown: min-hop paths that
//   never turn from a down link to an up link, ranks by BFS from the roots
//   (given by name, or detected automatically); both route each of the 2^LMC
//   LIDs of a port separately.
// - Port balancing (iba-facts 7, minhop step 3), per switch, LIDs in ascending
//   order: among the allowed ports pick the one with the fewest LIDs counted so
//   far, the lowest port number on a tie. With LMC > 0 a port towards a
//   neighbour switch that no earlier LID of the same target port uses comes
//   first. LIDs of switches are routed the same way but not counted (OpenSM's
//   default port_profile_switch_nodes = FALSE).
// - A switch's own LID maps to 0; an HCA port's LIDs map, on the switch it is
//   linked to, to that link's port; on other switches to an allowed port.
//   Only switches forward. LIDs no switch can reach, and LIDs of an HCA port
//   that is unlinked or linked to another HCA, are kNoPath everywhere.
// - minhop allows every port to a switch one hop nearer the target switch.
// - updown ranks: BFS over switches from all roots (roots 0). The move u -> v
//   is up when rank(v) < rank(u), or at equal rank when v has the larger GUID,
//   or the larger node index when the GUIDs are equal (0 = none given).
//   Per target switch a layered BFS finds the fewest hops over paths with no
//   down -> up turn; a switch that reaches the target by down moves alone at
//   its fewest hops uses only such ports and may be entered by a down move, any
//   other switch uses its up ports and may not. If that leaves some switch
//   without a path, the target is also routed "down first" (shortest down-only
//   path where one exists, otherwise up towards the nearest such switch), which
//   reaches exactly the switches that have a legal path; it is used when it
//   reaches more.
// - A legal path from a to b exists when some switch is reachable from both
//   by up moves alone. With one root per component every pair has one. With
//   several, a root cannot reach another root's LID unless equal-rank links
//   join them (OpenSM's connect_roots is not modelled): such entries stay
//   kNoPath.
// - Automatic roots, per connected component of switches: the switches whose
//   largest hop distance to any switch with an HCA attached (to any switch,
//   when none has one) is smallest. Only the first of them when that picks
//   every switch of the component (a torus, a dragonfly), or when with all of
//   them some switch with an HCA would lack a legal path to some switch. For a
//   k-ary n-tree these are its top-level switches; for a mesh, its centre.
//   OpenSM instead reads a histogram of CA hop distances. A component with
//   none of the named roots gets automatic ones.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/topology/topology.hpp"

namespace hcasim::routing {

constexpr uint8_t kNoPath = 0xFF;          // iba-facts 4: OpenSM fills unrouted entries with 0xFF
constexpr uint16_t kMaxUnicastLid = 0xBFFF; // iba-facts 4
constexpr unsigned kMaxLmc = 7;            // iba-facts 4: LMC is 3 bits

struct Lids {
  unsigned lmc = 0;
  // base[node][i]: for an HCA, the base LID of port i+1; for a switch, one
  // entry, the LID of port 0.
  std::vector<std::vector<uint16_t>> base;
  uint16_t top = 0;                        // highest LID assigned
  // Owner of each LID 0..top: node and port number (0 for a switch);
  // node == UINT32_MAX for an unassigned LID.
  std::vector<topology::LinkEnd> owner;
};

// Throws std::invalid_argument when the fabric needs more LIDs than exist.
Lids assign_lids(const topology::Topology& t, unsigned lmc);

enum class RoutingAlgorithm { MinHop, UpDown };

// How a switch breaks ties among equally loaded minimum-hop ports.
// LowestPort is OpenSM's rule. Shifted starts the search at a port that
// depends on the switch's position, so switches of one level do not all pick
// the same column for a LID; on fat trees of three levels the lowest-port rule
// sends every LID through one top switch per column, shifting spreads them.
enum class TieBreak { LowestPort, Shifted };

struct RoutingConfig {
  RoutingAlgorithm algorithm = RoutingAlgorithm::MinHop;
  std::vector<std::string> roots;          // up/down roots by switch name; empty = automatic
  TieBreak tie_break = TieBreak::LowestPort;
};

struct Routes {
  // lft[node]: empty for an HCA; for a switch, the output port of every LID 0..top.
  std::vector<std::vector<uint8_t>> lft;
  std::vector<unsigned> roots;             // up/down: the root switches used
  RoutingAlgorithm algorithm = RoutingAlgorithm::MinHop;
};

// Throws std::invalid_argument for a root that is not a switch of the topology.
Routes compute_routes(const topology::Topology& t, const Lids& lids, const RoutingConfig& config);

// The switch ports a packet leaves through from HCA port `src` to `dlid`:
// each entry is (switch node, output port). `ok` is true when the packet
// reaches the LID's owner (the port itself for its own LIDs, with no hops);
// false when the path hits kNoPath, a dead end, the wrong HCA, or a loop
// (more hops than switches).
struct Path {
  std::vector<topology::LinkEnd> hops;
  bool ok = false;
};
Path trace_path(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                const Routes& routes, topology::LinkEnd src, uint16_t dlid);
// The same from switch `sw`'s management port, by its own LFT first (what its
// SMA sends to a LID): its own LID is reached with no hops.
Path trace_from_switch(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                       const Routes& routes, unsigned sw, uint16_t dlid);

}  // namespace hcasim::routing
