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

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/fabric/topology.hpp"

namespace hcasim::fabric {

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
  std::vector<LinkEnd> owner;
};

// Throws std::invalid_argument when the fabric needs more LIDs than exist.
Lids assign_lids(const Topology& t, unsigned lmc);

enum class RoutingAlgorithm { MinHop, UpDown };

struct RoutingConfig {
  RoutingAlgorithm algorithm = RoutingAlgorithm::MinHop;
  std::vector<std::string> roots;          // up/down roots by switch name; empty = automatic
};

struct Routes {
  // lft[node]: empty for an HCA; for a switch, the output port of every LID 0..top.
  std::vector<std::vector<uint8_t>> lft;
  std::vector<unsigned> roots;             // up/down: the root switches used
  RoutingAlgorithm algorithm = RoutingAlgorithm::MinHop;
};

// Throws std::invalid_argument for a root that is not a switch of the topology.
Routes compute_routes(const Topology& t, const Lids& lids, const RoutingConfig& config);

// The switch ports a packet leaves through from HCA port `src` to `dlid`:
// each entry is (switch node, output port). `ok` is false when the path hits
// kNoPath, a dead end or a loop.
struct Path {
  std::vector<LinkEnd> hops;
  bool ok = false;
};
Path trace_path(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes,
                LinkEnd src, uint16_t dlid);

}  // namespace hcasim::fabric
