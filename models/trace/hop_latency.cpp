#include "models/trace/hop_latency.hpp"

namespace hcasim::trace {

HopLatency::HopLatency(const std::vector<link::Port*>& switch_ports) {
  for (link::Port* p : switch_ports) {
    p->stamp_arrival_times();
    p->add_observer(this);
    by_port_[p];
  }
}

void HopLatency::on_transmit(const link::Port& port, const ib::Packet& p, uint64_t now_ps, uint64_t) {
  if (p.kind != ib::PacketKind::Data || p.received_ps == 0 || p.received_ps > now_ps) return;
  // Every key was made by the constructor: a lookup only (partitions' threads
  // each touch their own ports' histograms).
  const auto it = by_port_.find(&port);
  if (it != by_port_.end()) it->second.add(now_ps - p.received_ps, now_ps);
}

const LatencyRecord* HopLatency::of(const link::Port& port) const {
  const auto it = by_port_.find(&port);
  return it == by_port_.end() ? nullptr : &it->second;
}

}  // namespace hcasim::trace
