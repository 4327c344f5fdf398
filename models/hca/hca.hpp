#pragma once
// An HCA: one or more ports with LIDs, the host side that takes arriving
// packets out of the receive buffers, the transport engines, and the host
// interface: a PCIe device with a BAR0 (registers, MSI-X table, UAR pages
// with doorbells and BlueFlame buffers) behind a TLM-2.0 target socket, and
// DMA and MSI-X over a TLM-2.0 initiator socket. Work queues, completion
// queues and buffers live in host memory, in the formats of host_formats.hpp;
// the HCA no longer owns host memory.
//
// Rules:
// - The host serves a port's receive buffers VL15 first, then the data VLs
//   round robin. With drain_rate_bps = 0 it takes every packet as it arrives;
//   otherwise a packet occupies the host for bytes x 8 / rate and leaves its
//   buffer (freeing its credits) when the host is done with it. It takes no
//   packet while rx_buffer_bytes of received data wait for their host-memory
//   writes (host_memory_access.hpp): a slow host link backpressures the ports.
// - A taken packet for QP0 or QP1 goes to the HCA's management agent when it
//   has one (its SMA; the SM and SA on the SM's node). A taken packet for one
//   of the HCA's QPs goes to the transport engines;
//   any other goes to the HCA's sink (a raw-traffic workload's recorder) if it
//   has one, else to the engines, which drop and count it. The receiver owns
//   it from then on.
// - MMIO (the mmio socket; addresses are offsets into BAR0, host_formats.hpp):
//   register-page reads and MSI-X table writes act at once; doorbells,
//   BlueFlame writes and CQ arm doorbells are stamped with their arrival
//   (now + the annotated delay) and handled then (wqe_fetcher.hpp,
//   completion_writer.hpp); nothing calls wait(). An offset no register or
//   doorbell has, an access of the wrong size, or a write to a read-only
//   register answers TLM_ADDRESS_ERROR_RESPONSE; a doorbell for a QP or CQ
//   that does not exist (or a QP of another UAR) answers
//   TLM_GENERIC_ERROR_RESPONSE; both are counted (mmio_errors).
// - The command interface (create / modify / destroy QPs and CQs, register
//   memory) is C++ calls, as a driver's commands to the HCA's firmware; the
//   data path is bytes in host memory and MMIO. Errors come back as a
//   one-line reason (or std::invalid_argument for a malformed request).
// - A completion becomes a CQE in its CQ's ring; the WQE index it reports is
//   the send or receive counter of the WQE (the HCA uses it as the wr_id).

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/hca/completion_writer.hpp"
#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_config.hpp"
#include "models/hca/hca_contexts.hpp"
#include "models/hca/host_memory_access.hpp"
#include "models/hca/memory_regions.hpp"
#include "models/hca/wqe_fetcher.hpp"
#include "models/ib/packet.hpp"
#include "models/link/management_agent.hpp"
#include "models/hca/ca_congestion.hpp"
#include "models/link/owned_in_place.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/transport_engine.hpp"

namespace hcasim::hca {

// Receives the packets an HCA's host takes from its ports.
class PacketSink {
 public:
  virtual ~PacketSink() = default;
  virtual void deliver(ib::Packet* p, unsigned port_index, uint64_t now_ps) = 0;
};

struct MmioStats {
  uint64_t writes = 0, reads = 0;
  uint64_t errors = 0;            // answered with an error response
};

class Hca : public sc_core::sc_module {
 public:
  // lids[i] is the base LID of port i. requester_id: the PCIe requester id
  // every DMA transaction carries.
  Hca(const sc_core::sc_module_name& name, const std::vector<link::PortConfig>& ports,
      const std::vector<uint16_t>& lids, ib::PacketPool& pool,
      const transport::TransportConfig& transport = transport::TransportConfig{},
      const HcaConfig& config = HcaConfig{}, uint64_t requester_id = 0);
  Hca() = delete;
  Hca(const Hca&) = delete;
  Hca& operator=(const Hca&) = delete;
  ~Hca() override;

  // The host interface (TLM-2.0 base protocol). Both may stay unbound: an
  // HCA used for raw traffic only needs no host (its DMA then fails, counted).
  tlm_utils::simple_target_socket_optional<Hca> mmio{"mmio"};   // BAR0, from the host's CPU over the PCIe link
  tlm_utils::simple_initiator_socket_optional<Hca> dma{"dma"};  // DMA and MSI-X, over the PCIe link to host memory

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
  // Congestion control of port i (ca_congestion.hpp; IBA Annex A10): made,
  // and on, at the first call; the builder or a CC agent sets it up.
  // congestion(i) is null while off. On, a received data packet with FECN is
  // answered (BECN in the response to an RC request, set by the transport
  // engine; a CNP for everything else), and a CNP or an RC response with
  // BECN received raises its QP's or flow's CCTI; the transport engine
  // delays the port's QPs' requests by their CCTs. Off, a received packet
  // pays one branch.
  CaCongestionControl& congestion_control(unsigned i);
  CaCongestionControl* congestion(unsigned i) { return ports_[i].cc.get(); }
  const CaCongestionControl* congestion(unsigned i) const { return ports_[i].cc.get(); }
  // CNPs that found the port's transmit queue full and were not sent.
  uint64_t cnps_refused(unsigned i) const { return ports_[i].cnps_refused; }

  // Command interface.
  // A CQ over a ring in host memory; throws std::invalid_argument for a ring
  // that is not a power of two of at least depth >= 1 entries, or a vector
  // beyond the MSI-X table.
  uint32_t create_cq(const CqRing& ring);
  // "" when done; the reason when CQ n does not exist or a QP still uses it.
  std::string destroy_cq(uint32_t n);
  // Interrupt moderation of CQ n (ibv_modify_cq's cq_count and cq_period; a
  // count of 0 is every completion, a period of 0 no timer): "" when done,
  // the reason when there is no such CQ or count is above kMaxCqModerationCount.
  std::string modify_cq(uint32_t n, uint32_t count, uint64_t period_ps);
  bool cq_exists(uint32_t n) const { return completions_->exists(n); }
  bool cq_compressing(uint32_t n) const { return completions_->compressing(n); }
  // Latency parts: the WrTimes of CQ n's completion number seq (CompletionWriter::times).
  transport::WrTimes completion_times(uint32_t n, uint64_t seq) { return completions_->times(n, seq); }
  // A QP over rings in host memory; throws std::invalid_argument when a CQ
  // does not exist, a ring is not a power of two holding the QP's
  // max_send_wr / max_recv_wr, a stride cannot hold max_send_sge /
  // max_recv_sge entries, or the UAR page does not exist. Returns the QP number.
  uint32_t create_qp(const transport::QpInit& init, const QpRings& rings);
  // "" when done; the reason when there is no such QP. Any state; queued WRs go without completions.
  std::string destroy_qp(uint32_t qpn);
  std::string modify_qp(uint32_t qpn, const transport::QpAttr& attr, uint32_t mask);
  // reg_mr also gives the region its MTT entries (one per page of
  // config().page_bytes, from the next free MTT index; throws
  // std::invalid_argument when the MTT table is full); the driver writes
  // them and the MPT entry into the ICM (host_formats.hpp).
  MemoryRegion reg_mr(uint64_t addr, uint64_t length, uint32_t access);
  bool dereg_mr(uint32_t lkey);
  // The ICM area (icm_layout.hpp): its size, and its base once the driver
  // has allocated it (from then on the context caches work).
  uint64_t icm_bytes() const { return IcmLayout::bytes_for(HcaContexts::entry_bytes(config_)); }
  void init_icm(uint64_t base) { contexts_->init_icm(base); }
  const HcaContexts& contexts() const { return *contexts_; }
  MemoryRegions& regions() { return regions_; }
  transport::TransportEngine& transport() { return *transport_; }
  const transport::TransportEngine& transport() const { return *transport_; }
  // Affiliated asynchronous errors so far: (QP or CQ number, IBV event name).
  const std::vector<std::pair<uint32_t, std::string>>& async_events() const { return async_events_; }

  const HcaConfig& config() const { return config_; }
  const std::vector<MsixEntry>& msix_table() const { return msix_; }
  const DmaStats& dma_stats() const { return dma_->stats(); }
  const FetchStats& fetch_stats() const { return fetcher_->stats(); }
  const CompletionStats& completion_stats() const { return completions_->stats(); }
  const MmioStats& mmio_stats() const { return mmio_stats_; }
  // DMA for a test workload (pcie-bench's DMA engine tests): counted as "test".
  uint64_t test_dma_read(uint64_t addr, uint8_t* out, uint64_t length, uint64_t issue_ps) {
    return dma_->read(addr, out, length, DmaPurpose::Test, issue_ps);
  }
  uint64_t test_dma_write(uint64_t addr, const uint8_t* data, uint64_t length, uint64_t issue_ps) {
    return dma_->write(addr, data, length, DmaPurpose::Test, issue_ps);
  }

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
    std::unique_ptr<CaCongestionControl> cc;  // null: congestion control off
    uint64_t cnps_refused = 0;
  };
  // Congestion control of a received packet (cc on): true when it was a CNP (consumed).
  bool congestion_arrival(ib::Packet* p, HostPort& h);
  void send_cnp(const ib::Packet& p, HostPort& h);  // the CNP that answers p's FECN
  void tx_space(HostPort& h);  // port h.index may have transmit room
  void drain(unsigned index);
  int next_vl(HostPort& h);
  void take(ib::Packet* p, unsigned index, uint64_t now);
  bool rx_backlogged(uint64_t now);  // received data waits for its host-memory writes
  void rx_resume();
  void mmio_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int mmio_transport_dbg(tlm::tlm_generic_payload& trans);
  // The MMIO error response for trans, or TLM_OK_RESPONSE after acting on it.
  tlm::tlm_response_status register_access(tlm::tlm_generic_payload& trans);
  tlm::tlm_response_status uar_write(uint32_t uar, uint64_t offset, const uint8_t* data, unsigned length,
                                     uint64_t at_ps);

  link::OwnedInPlace<HostPort> ports_;  // side by side, torn down last-made first
  PacketSink* sink_ = nullptr;
  ib::PacketPool& pool_;
  HcaConfig config_;
  MemoryRegions regions_;
  std::unique_ptr<DmaEngine> dma_;
  std::unique_ptr<HcaContexts> contexts_;
  uint64_t next_mtt_ = 0;  // the next free MTT index
  std::vector<uint32_t> cq_users_;  // by CQ number: QPs naming it as send or receive CQ (twice if both)
  std::unique_ptr<HostMemoryAccess> memory_;
  std::vector<std::pair<uint32_t, std::string>> async_events_;
  std::unique_ptr<transport::TransportEngine> transport_;  // made once the ports exist
  std::unique_ptr<WqeFetcher> fetcher_;
  std::vector<MsixEntry> msix_;
  using MsixBytes = std::array<uint8_t, 2048>;
  std::unique_ptr<MsixBytes> msix_bytes_;  // the MSI-X table as software wrote it (zeros until the first write)
  std::unique_ptr<CompletionWriter> completions_;
  MmioStats mmio_stats_;
  link::Alarm rx_resume_ = link::Alarm::method<&Hca::rx_resume>(this);
};

}  // namespace hcasim::hca
