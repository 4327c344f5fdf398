#pragma once
// Hooks through which checkers and tracers watch a port without the port
// knowing them. Times are simulated picoseconds. Every hook has an empty
// default so an observer implements only what it needs.

#include <cstdint>

#include "models/ib/packet.hpp"
#include "models/link/port_stats.hpp"

namespace hcasim::link {

class Port;

class PortObserver {
 public:
  virtual ~PortObserver() = default;
  // A packet (data or flow control) starts on the wire; the receiver takes it at
  // arrival_ps (when all of it is in, or its LRH for a cut-through receiver, plus
  // the receiver's latency: Port::set_rx_timing).
  virtual void on_transmit(const Port&, const ib::Packet&, uint64_t /*now_ps*/, uint64_t /*arrival_ps*/) {}
  // A packet arrived at this port's receiver, before any check.
  virtual void on_arrival(const Port&, const ib::Packet&, uint64_t /*now_ps*/) {}
  // A data packet was stored in the receive buffer of its VL.
  virtual void on_buffered(const Port&, const ib::Packet&, unsigned /*vl*/, uint32_t /*blocks*/) {}
  // The upper layer freed a data packet's receive-buffer space (rx_pop or rx_release).
  virtual void on_released(const Port&, unsigned /*vl*/, uint32_t /*blocks*/) {}
  virtual void on_drop(const Port&, const ib::Packet&, DropReason, uint64_t /*now_ps*/) {}
  // The port's link went physically down (Port::take_down), called before the
  // port drops the packets in flight toward it and its queued ones (on_drop,
  // link_down): what was on the wire toward it will never arrive, and both
  // directions' credit counters restart at the next link up.
  virtual void on_link_down(const Port&, uint64_t /*now_ps*/) {}
  // One of the port's handlers runs next (called from its warm-up while the
  // handler before it runs; see Alarm): prefetch what the hooks above will
  // read about this port. Prefetches only: nothing may change.
  virtual void warm(const Port&) const {}
};

}  // namespace hcasim::link
