#pragma once
// An HCA as the link layer sees it: one or more ports with LIDs, and a host
// side that takes arriving packets out of the receive buffers.
//
// Rules:
// - The host serves a port's receive buffers VL15 first, then the data VLs
//   round robin. With drain_rate_bps = 0 it takes every packet as it arrives;
//   otherwise a packet occupies the host for bytes x 8 / rate and leaves its
//   buffer (freeing its credits) when the host is done with it.
// - A taken packet goes to the HCA's sink (the transport layer, or a workload's
//   recorder); the sink owns it from then on.
// The transport engines of a later stage plug in as the sink.

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::hca {

// Receives the packets an HCA's host takes from its ports.
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  virtual void deliver(ib::Packet* p, unsigned port_index, uint64_t now_ps) = 0;
};

class Hca : public sc_core::sc_module {
 public:
  // lids[i] is the base LID of port i.
  Hca(const sc_core::sc_module_name& name, const std::vector<link::PortConfig>& ports,
      const std::vector<uint16_t>& lids, ib::PacketPool& pool);
  Hca() = delete;
  Hca(const Hca&) = delete;
  Hca& operator=(const Hca&) = delete;

  link::Port& port(unsigned i) { return *ports_[i]->port; }
  const link::Port& port(unsigned i) const { return *ports_[i]->port; }
  unsigned port_count() const { return static_cast<unsigned>(ports_.size()); }
  uint16_t lid(unsigned i) const { return ports_[i]->lid; }
  void set_sink(PacketSink* sink) { sink_ = sink; }

 private:
  struct HostPort {
    HostPort(Hca& hca, unsigned index) : hca(hca), index(index) {}
    void on_done() { hca.drain(index); }
    Hca& hca;
    unsigned index;
    std::unique_ptr<link::Port> port;
    uint16_t lid = 0;
    uint64_t drain_rate_bps = 0;
    unsigned next_vl = 0;           // round-robin position among data VLs
    int draining_vl = -1;           // VL whose head packet the host is reading
    uint64_t busy_until_ps = 0;     // when the host is done with it
    link::Alarm done = link::Alarm::method<&HostPort::on_done>(this);  // the host finished reading a packet
  };
  void drain(unsigned index);
  int next_vl(HostPort& h);

  std::vector<std::unique_ptr<HostPort>> ports_;
  PacketSink* sink_ = nullptr;
  ib::PacketPool& pool_;
};

}  // namespace hcasim::hca
