#pragma once
// An N-port IBA switch built from the same port link layer as the HCA
// (seed 004 "Example Scenario" steps 5-10; iba-facts 3 and 4).
//
// Rules (the implementation states the details next to the code):
// - Ports 1..N (N in 1..254), SystemC children "p1".."pN", each a link::Port:
//   per-VL receive buffers with credits and per-VL output queues served by that
//   port's IBA VL arbiter.
// - Forwarding (forwarding_table.hpp), decided when a packet reaches the head of
//   its input VL buffer: LFT lookup on the DLID; DLID 0, no entry, kNoRoute, a
//   DLID beyond the table or a port above N = drop "no_route" at the input port
//   (counted on the input VL); output port 0 = the switch's own management port
//   (counted in SwitchStats::to_management and handed to the switch's
//   management agent, if it has one, else consumed); so is a VL15 packet to the
//   permissive LID (a directed-route SMP). Output VL from the
//   (input port, output port) SL-to-VL table; SL mapped to VL15 = drop
//   "sl_to_vl15" at the input port. A VL15 packet is routed by the LFT too and
//   stays on VL15. A payload over the output port's MTU ("mtu_exceeded"), an
//   output VL the output does not operate ("bad_vl") or an output without a
//   link ("link_down") = drop counted at the output port, on the output VL. A
//   dropped or consumed packet frees its input buffer space at once.
// - Crossbar (SwitchConfig::architecture; docs/switch-architectures.md).
//   input_fifo and cioq (crossbar_allocator.hpp, allocator "VL-weighted output
//   round robin with owed turns"): the head of each input VL's buffer is routed
//   and moved; each input moves one packet at a time, each output takes one at
//   a time; a transfer takes wire bytes x 8 / (speedup x output data rate), and
//   not less than until the packet's tail is in. An output chooses between its
//   VLs with the output port's own VL arbitration tables and between inputs
//   round robin; an input busy when its turn came is owed it. A requester
//   waits, without blocking its input's other VLs, until its output VL queue
//   has room. voq and shared (voq_crossbar.hpp): every packet is routed on
//   arrival into its input's queue for (output, output VL); an input moves up
//   to max_concurrent_reads packets at once (shared: 16), the transfer timed
//   as above; its buffer space is freed when its transfer ends. shared
//   (shared_buffer_pool.hpp): each input VL's receive space is set from the
//   switch's pool when the VL receives or frees a packet (Port::set_rx_capacity).
// - The packet enters the output VL queue when its transfer starts, so the
//   output can send it while the crossbar streams it; with cut-through, not
//   before (tail arrival - output serialization), so the output never runs
//   ahead of the input (an under-run). The input buffer space (its credits) is
//   freed when the transfer ends.
// - Timing of arrival (Port::set_rx_timing on every switch port): cut-through =
//   a packet may be forwarded once its LRH (8 bytes) is in, store-and-forward =
//   once all of it is; latency_ps is added on top (lookup and crossbar set-up).
//   Flow-control packets arriving at a switch port see the same latency.
// - HOQ lifetime, switch lifetime and VL stall: at each output port's transmit
//   queues (Port::set_lifetimes; link/lifetimes.hpp).
// - Partition enforcement (IBA 10.9.4; off unless PortInfo's bits are set on
//   a port): a data packet (not VL15, with a BTH) whose P_Key the table of an
//   input port with PartitionEnforcementInbound, or of its output port with
//   PartitionEnforcementOutbound, does not accept is dropped at routing and
//   counted on that port (Port::reject_pkey); inbound is checked first.
// - Adaptive routing (adaptive_router.hpp; off unless set_adaptive is
//   called): a data packet whose SL is in the mask and whose DLID has a group
//   leaves on the group's port chosen when it is routed, on that pair's VL;
//   off, a packet pays one branch on a pointer.
// - Congestion control (IBA Annex A10; off until congestion_marker() is first
//   called): a data packet entering an output VL's transmit queue may get
//   FECN (congestion_marker.hpp); off, a packet pays one branch on a pointer.

#include <systemc>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/management_agent.hpp"
#include "models/link/port.hpp"
#include "models/switch/adaptive_router.hpp"
#include "models/switch/congestion_marker.hpp"
#include "models/switch/forwarding_table.hpp"
#include "models/switch/shared_buffer_pool.hpp"
#include "models/switch/switch_config.hpp"

namespace hcasim::sw {

struct SwitchStats {
  uint64_t forwarded = 0;       // packets moved through the crossbar
  uint64_t to_management = 0;   // packets whose LFT entry is port 0
  // Time the forwarded packets waited in the inputs, from their arrival (the
  // receiver taking them) to the start of their crossbar transfer, ps.
  uint64_t crossbar_wait_ps = 0;
};

class Switch : public sc_core::sc_module {
 public:
  // ports[i] configures port number i + 1. Throws std::invalid_argument for a
  // port count outside 1..254 or a speedup below 1.
  Switch(const sc_core::sc_module_name& name, const SwitchConfig& config, const std::vector<link::PortConfig>& ports,
         uint16_t lid, ib::PacketPool& pool);
  Switch() = delete;
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;
  ~Switch() override;

  unsigned port_count() const;
  link::Port& port(unsigned number);              // 1..port_count(); std::out_of_range otherwise
  const link::Port& port(unsigned number) const;
  uint16_t lid() const { return lid_; }
  const SwitchConfig& config() const { return config_; }
  const SwitchStats& stats() const;

  // Forwarding state, installed by the builder at time zero (or later by an SM).
  void set_lft(std::vector<uint8_t> lft);        // output port by DLID
  const std::vector<uint8_t>& lft() const;       // as installed (blocks written in band included)
  void set_lft_block(unsigned block, const std::array<uint8_t, kLftBlockEntries>& entries);
  void set_lid(uint16_t lid) { lid_ = lid; }
  // A port's VL arbitration tables (the port's and the crossbar's copy).
  void set_vlarb(unsigned port_number, const link::VlArbConfig& c);
  // SL-to-VL table for packets entering at in_port (0 = from the management
  // port) and leaving at out_port.
  // Throws std::invalid_argument for a port above port_count() or an entry above 15.
  void set_sl2vl(unsigned in_port, unsigned out_port, const std::array<uint8_t, 16>& table);
  const ForwardingTable& forwarding() const;
  // The input VLs whose routed head packet waits in the crossbar, each with the
  // output port number and VL it goes to (for a deadlock's diagnosis).
  struct HeadRequest {
    unsigned in_port = 0, in_vl = 0, out_port = 0, out_vl = 0;
    uint32_t bytes = 0;  // the packet's wire bytes
  };
  std::vector<HeadRequest> head_requests() const;

  // Management: the agent (not owned; null = none) takes the packets routed to
  // port 0 and hears of room on the ports. send_management queues a VL15
  // packet on port `out_port`, or with out_port 0 on the port the LFT gives
  // for its DLID (dropped and counted as no_route when there is none).
  void set_agent(link::ManagementAgent* agent);
  link::SubmitResult send_management(ib::Packet* p, unsigned out_port);

  // Adds to a VCD (during elaboration): <name>.crossbar_wait_ps, and for voq
  // and shared <name>.p<n>.queued_packets (each input's packets waiting in
  // its queues), for shared <name>.pool_drawn_blocks, with adaptive routing
  // <name>.ar_reroutes (set_adaptive first).
  void trace(sc_core::sc_trace_file* file) const;

  // switch.architecture shared: the pool its input VLs draw their receive
  // space from; null for the other architectures.
  const SharedBufferPool* shared_pool() const;

  // Adaptive routing (adaptive_router.hpp): the switch is AR-capable from
  // this call, with these groups (mode off: until an SM programs it in band,
  // through adaptive_router()); `salt` keeps this switch's random draws apart
  // from the others'. Throws std::invalid_argument for a group port above
  // port_count() or what AdaptiveRouter refuses. Both are null without it.
  void set_adaptive(const AdaptiveRoutingConfig& config, ArGroupTable groups, uint64_t salt);
  const AdaptiveRouter* adaptive() const;
  AdaptiveRouter* adaptive_router();

  // Congestion control: the marker, made (and marking on) at the first call;
  // the builder or a CC agent sets its settings. congestion() is null while off.
  CongestionMarker& congestion_marker();
  const CongestionMarker* congestion() const;

 private:
  struct Impl;
  SwitchConfig config_;
  uint16_t lid_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcasim::sw
