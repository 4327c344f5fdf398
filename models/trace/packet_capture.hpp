#pragma once
// Writes every packet that starts on the links of the chosen ports to a pcap
// file, as exact wire bytes, stamped with the time it started on the wire.
// A port's capture holds what that port transmits; capturing both ends of a
// link gives both directions.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "models/trace/pcap_writer.hpp"

namespace hcasim::trace {

class PacketCapture : public link::PortObserver {
 public:
  PacketCapture(const std::string& path, const std::vector<link::Port*>& ports);
  void on_transmit(const link::Port&, const ib::Packet& p, uint64_t now_ps, uint64_t arrival_ps) override;
  uint64_t packets() const { return packets_; }

 private:
  PcapWriter writer_;
  uint64_t packets_ = 0;
};

}  // namespace hcasim::trace
