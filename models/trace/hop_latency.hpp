#pragma once
// Per-hop latency at switches (outputs.hop_latency): for every data packet a
// switch port transmits, the time from its arrival at the switch (the input
// port's Packet::received_ps: its LRH for a cut-through input, else its last
// byte) to its first byte on this port's wire: the input queue, the crossbar
// and the output queue together. One histogram per watched port.
//
// Rules: constructing it turns arrival stamps on at the switch ports given
// (Port::stamp_arrival_times) and watches them. A packet made at the switch (a
// MAD) counts from when it was submitted; flow-control packets are not counted.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "models/link/port.hpp"
#include "models/trace/latency_record.hpp"

namespace hcasim::trace {

class HopLatency : public link::PortObserver {
 public:
  // Turns arrival stamps on at every port and watches their transmissions.
  explicit HopLatency(const std::vector<link::Port*>& switch_ports);
  HopLatency(const HopLatency&) = delete;
  HopLatency& operator=(const HopLatency&) = delete;
  void on_transmit(const link::Port& port, const ib::Packet& p, uint64_t now_ps, uint64_t arrival_ps) override;
  // The port's histogram, ps; null for a port not watched.
  const LatencyRecord* of(const link::Port& port) const;

 private:
  std::unordered_map<const link::Port*, LatencyRecord> by_port_;
};

}  // namespace hcasim::trace
