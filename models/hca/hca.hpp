#pragma once
// An HCA: one or more ports with LIDs, a host side that takes arriving packets
// out of the receive buffers, the host memory with its memory regions,
// completion queues, and the transport engines behind a verbs-like API.
//
// Rules:
// - The host serves a port's receive buffers VL15 first, then the data VLs
//   round robin. With drain_rate_bps = 0 it takes every packet as it arrives;
//   otherwise a packet occupies the host for bytes x 8 / rate and leaves its
//   buffer (freeing its credits) when the host is done with it.
// - A taken packet for QP0 or QP1 goes to the HCA's management agent when it
//   has one (its SMA; the SM and SA on the SM's node). A taken packet for one
//   of the HCA's QPs goes to the transport engines;
//   any other goes to the HCA's sink (a raw-traffic workload's recorder) if it
//   has one, else to the engines, which drop and count it. The receiver owns
//   it from then on.
// - Verbs: create_cq / destroy_cq / create_qp / modify_qp / destroy_qp /
//   post_send / post_recv / poll_cq and reg_mr / dereg_mr behave as their libibverbs namesakes (verbs.hpp); errors come
//   back as a one-line reason instead of an errno. A completion lands in its
//   CQ, then the CQ's handler (if any) runs, at the simulated time it was made.
// - A CQ that overflows is in error (verbs' CQ overrun): the completion is
//   lost and counted.

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/management_agent.hpp"
#include "models/link/owned_in_place.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"
#include "models/hca/completion_queue.hpp"
#include "models/hca/memory_regions.hpp"
#include "models/transport/transport_engine.hpp"

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
      const std::vector<uint16_t>& lids, ib::PacketPool& pool,
      const transport::TransportConfig& transport = transport::TransportConfig{});
  Hca() = delete;
  Hca(const Hca&) = delete;
  Hca& operator=(const Hca&) = delete;

  link::Port& port(unsigned i) { return ports_[i].port; }
  const link::Port& port(unsigned i) const { return ports_[i].port; }
  unsigned port_count() const { return static_cast<unsigned>(ports_.size()); }
  uint16_t lid(unsigned i) const { return ports_[i].lid; }
  // Port i's base LID (PortInfo.LID, set by a subnet manager).
  void set_lid(unsigned i, uint16_t lid) {
    ports_[i].lid = lid;
    transport_->set_port_lid(i, lid);
  }
  // Management (see the rules). The agent is not owned; null = none. send_mad
  // queues a UD packet to QP0 on VL15, any other on its SL's VL, on port i.
  void set_agent(link::ManagementAgent* agent) {
    for (HostPort& h : ports_) h.agent = agent;
  }
  link::SubmitResult send_mad(unsigned i, ib::Packet* p);
  void set_sink(PacketSink* sink) { sink_ = sink; }
  // The handler a raw-traffic workload wants called when port i's transmit
  // queues may have room (the transport engines are told as well).
  void on_tx_space(unsigned i, std::function<void()> handler) { ports_[i].on_tx_space = std::move(handler); }

  // Verbs.
  uint32_t create_cq(uint32_t depth);
  // "" when done; the reason when CQ n does not exist or a QP still uses it.
  std::string destroy_cq(uint32_t n);
  // CQ n; throws std::out_of_range when it does not exist.
  CompletionQueue& cq(uint32_t n) { return *existing_cq(n); }
  const CompletionQueue& cq(uint32_t n) const { return *existing_cq(n); }
  // Runs after a completion lands in CQ n (a workload's poll loop).
  void on_cq_event(uint32_t n, std::function<void()> handler) { cq_handlers_.at(n) = std::move(handler); }
  std::size_t poll_cq(uint32_t n, std::size_t max, std::vector<transport::WorkCompletion>& out);
  MemoryRegion reg_mr(uint64_t addr, uint64_t length, uint32_t access) { return regions_.reg_mr(addr, length, access); }
  bool dereg_mr(uint32_t lkey) { return regions_.dereg_mr(lkey); }
  MemoryRegions& regions() { return regions_; }
  SparseMemory& memory() { return regions_.memory(); }
  // Throws std::invalid_argument when a CQ number does not exist.
  transport::Qp& create_qp(const transport::QpInit& init);
  // "" when done; the reason when there is no such QP. Any state; queued WRs go without completions.
  std::string destroy_qp(uint32_t qpn) {
    return transport_->destroy_qp(qpn) ? "" : "no QP " + std::to_string(qpn);
  }
  std::string modify_qp(uint32_t qpn, const transport::QpAttr& attr, uint32_t mask) {
    return transport_->modify_qp(qpn, attr, mask);
  }
  std::string post_send(uint32_t qpn, const transport::SendWr& wr) { return transport_->post_send(qpn, wr); }
  std::string post_recv(uint32_t qpn, const transport::RecvWr& wr) { return transport_->post_recv(qpn, wr); }
  transport::TransportEngine& transport() { return *transport_; }
  const transport::TransportEngine& transport() const { return *transport_; }
  // Affiliated asynchronous errors so far: (QP number, IBV event name).
  const std::vector<std::pair<uint32_t, std::string>>& async_events() const { return async_events_; }

 private:
  // Laid out for the transmit-room hook (tx_space), which runs after every
  // packet a port sends: what it reads is in the first line. The port itself
  // follows in place (no pointer to load on the way to it).
  struct HostPort {
    HostPort(Hca& hca, unsigned index, const link::PortConfig& config, uint16_t lid, ib::PacketPool& pool)
        : hca(hca), index(index), lid(lid), drain_rate_bps(config.drain_rate_bps),
          port(("p" + std::to_string(index + 1)).c_str(), config, pool) {}
    void on_done() { hca.drain(index); }
    Hca& hca;
    unsigned index;
    bool transport_waiting = false;        // a transport engine waits for room (on_room_wanted)
    link::ManagementAgent* agent = nullptr;  // Hca::set_agent's, on every port
    std::function<void()> on_tx_space;     // a raw-traffic workload's
    uint16_t lid = 0;
    uint64_t drain_rate_bps = 0;
    unsigned next_vl = 0;           // round-robin position among data VLs
    int draining_vl = -1;           // VL whose head packet the host is reading
    uint64_t busy_until_ps = 0;     // when the host is done with it
    link::Port port;
    link::Alarm done = link::Alarm::method<&HostPort::on_done>(this);  // the host finished reading a packet
  };
  CompletionQueue* existing_cq(uint32_t n) const;
  void tx_space(HostPort& h);  // port h.index may have transmit room
  void drain(unsigned index);
  int next_vl(HostPort& h);
  void take(ib::Packet* p, unsigned index, uint64_t now);

  link::OwnedInPlace<HostPort> ports_;  // side by side, torn down last-made first
  PacketSink* sink_ = nullptr;
  ib::PacketPool& pool_;
  MemoryRegions regions_;
  std::vector<std::unique_ptr<CompletionQueue>> cqs_;  // null where destroyed
  std::vector<std::function<void()>> cq_handlers_;
  std::vector<std::pair<uint32_t, std::string>> async_events_;
  std::unique_ptr<transport::TransportEngine> transport_;  // made once the ports exist
};

}  // namespace hcasim::hca
