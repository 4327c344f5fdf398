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

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/fabric/routing.hpp"

namespace hcasim::fabric {

// SL-to-VL table of a transmitting port: node, input port (0 for an HCA's own
// traffic) and output port number.
using Sl2VlLookup = std::function<std::array<uint8_t, 16>(unsigned node, unsigned in_port, unsigned out_port)>;

struct Channel {
  LinkEnd from;   // transmitting port
  unsigned vl = 0;
};

struct CreditLoopReport {
  bool loop = false;
  std::vector<Channel> cycle;   // the channels of one cycle, in dependency order
  uint64_t dependencies = 0;    // edges of the dependency graph (all VLs)
  // "credit loop on VL 0: sw0_0.p2 -> sw0_1.p2 -> ... -> sw0_0.p2" or "no credit loop (N dependencies)".
  std::string describe(const Topology& t) const;
};

CreditLoopReport find_credit_loop(const Topology& t, const Lids& lids, const Routes& routes, const Sl2VlLookup& sl2vl);

}  // namespace hcasim::fabric
