#pragma once
// The subnet management side of a node (its SMA, and on the SM's node the SM
// and SA) as the node's HCA or switch sees it: the node hands it the MADs that
// arrive for QP0 / QP1 (or, at a switch, for the switch itself) and tells it
// when a port's transmit queues may have room for what it has waiting.

#include "models/ib/packet.hpp"

namespace hcasim::link {

class ManagementAgent {
 public:
  virtual ~ManagementAgent() = default;
  // A management packet arrived on port number `port` (1-based); the agent owns it.
  virtual void deliver(ib::Packet* p, unsigned port) = 0;
  // Port number `port`'s transmit queues may have room again.
  virtual void tx_space(unsigned port) = 0;
};

}  // namespace hcasim::link
