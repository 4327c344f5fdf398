#pragma once
// One IBA port's link layer: per-VL transmit and receive buffers, the VL
// arbiter, credit-based flow control and the link's timing (IBA ch. 7; seed
// 004; iba-facts 2 and 3).
//
// Rules:
// - Data VLs 0..operational_vls-1 plus VL15. An upper layer submits a packet;
//   a CA port maps its SL to a VL with the SL-to-VL table; an SL mapped to VL15
//   is dropped and counted (seed 004 Table 25-2); a payload longer than the MTU
//   is dropped and counted.
// - Transmit order at each packet boundary: VL15, then flow-control packets,
//   then the data VL the arbiter grants among VLs whose head packet passes the
//   credit test (iba-facts 3). One packet is on the wire at a time; it takes
//   (bytes + framing) x 8 / rate, and arrives propagation later.
// - The transmitter decides when something waits to go: a submission, a
//   flow-control packet falling due, new credit for a queued packet, the end
//   of a packet on the wire with more queued. Credit that arrives while
//   nothing is queued is only recorded, so when no VL can send, the arbiter's
//   idle round (vl_arbiter.hpp) is taken only while packets wait for credit.
// - Flow control per data VL (credits.hpp): the port sends a flow-control packet
//   for a VL when its FCCL or FCTBS changed and fc_period has passed since the
//   last one for that VL, and at once when the FCCL rose and the peer would
//   otherwise stall: the credit it holds lasts less time on the wire than a
//   flow-control packet sent at the end of the period would take to reach it.
//   Flow-control packets travel on this port's own transmit direction and take
//   their share of it. VL15 is not flow-controlled.
// - Receive: a data packet on a VL the port does not operate, longer than the
//   MTU, or without room in its buffer is dropped and counted; otherwise it
//   waits in its VL's buffer until the upper layer takes it (rx_pop), which
//   frees its credits. A switch takes the packet (rx_take) when it starts
//   moving it and frees its space later (rx_release).
// - Receive timing (set_rx_timing, asked of the peer's transmitter): by default
//   a packet is delivered when its last byte is in (serialization +
//   propagation). A cut-through receiver takes a data packet once its LRH
//   (ib::kLrhBytes) is in; a receiver's extra latency (a switch's forwarding
//   latency) delays every packet it receives, flow-control packets included, so
//   packets are delivered in link order. Packet::tail_ps says when the last byte
//   is in.
// - Lifetimes (lifetimes.hpp; switch ports only, off by default): a head of a
//   transmit queue that outlives its HOQ or switch lifetime is discarded and
//   counted; VLStallCount consecutive HOQ discards stall the VL for 8 x HOQLife.
//   One timer per port, armed for the earliest head deadline.
// - Co-simulation (tx_cosim.hpp; off by default): a port given a TxCosim asks
//   it at the transmit decisions it takes part in and acts on its answer, at
//   the same simulated time; it tells a credits cosim every credit event.
// - Faults (fault_injector.hpp; off by default): a port whose receive direction
//   has faults judges each arriving data packet first of all; one lost or
//   corrupted is discarded and counted (fault_drop, crc_error; the injector's
//   statistics split them further) and never reaches ABR or the buffer.
//   Without faults an arrival pays one predictable branch on a flag.
// - A delayed packet (a rule's "delay") arrives on the wire at its time and
//   enters the receive buffer as usual (ABR, credits, high water, observers'
//   on_buffered), but the port holds it aside and hands it to the upper layer
//   (its VL's queue, on_rx_ready) delay later, with received_ps then: the link
//   order the peer and the checkers see is untouched, and the packet's buffer
//   space stays in use (its credits held) the whole time, as behind a slow
//   consumer. Packets that arrive after it on its VL may reach the upper
//   layer before it.
// - A duplicated packet (a rule's "duplicate") is buffered as usual and
//   followed at once, in its VL's queue, by a copy from the pool (headers,
//   payload, id and times alike). The copy never crossed the link, so it is
//   kept out of the link's accounting: not in ABR, the buffer occupancy, the
//   rx statistics or the observers' on_buffered, and the first rx_release of
//   its VL and size after it was taken frees nothing (which packet of that
//   size is released first does not matter: blocks are blocks). Credits stay
//   exact, at the price of a copy that occupies no buffer space; a real
//   receiver would count it in ABR until the sender's next FCTBS. A port
//   without faults checks this on one flag in rx_take and rx_release.
// - Port state (IBA 7.2, PortInfo.PortState; iba-facts 6): Down, Init, Armed,
//   Active, set by the builder (Active in the pre-configured mode) or by the
//   node's subnet management agent. VL15 passes in every state but Down (link
//   flow control runs in every state); data packets are received from Armed on
//   and transmitted only in Active. A packet the state refuses is dropped and
//   counted as link_down (on submit or on arrival); packets already queued
//   still go.
// - Link events (fabric/link_events.hpp; none by default): take_down takes a
//   link physically down: both ports go Down (PortInfo PhysState Polling), the
//   packets in their transmit queues (VL15 included) and those in flight
//   toward either (sent, not yet received) are dropped and counted as
//   link_down, flow control stops and nothing is transmitted. bring_up is the
//   end of link training: both ports go to Init (PhysState LinkUp; Armed and
//   Active are the SM's to set), and the credit counters restart as at link
//   initialization (IBA 7.9.4 / iba-facts 2: FCTBS and ABR 0, nothing may be
//   sent before the peer's first flow-control packet), followed at once by a
//   flow-control packet per data VL. Packets already in a receive buffer stay
//   there (their space counts until the upper layer frees it).
// - Partitions (IBA 10.9; ib/pkey.hpp): the port holds a P_KeyTable, {0xFFFF}
//   until set. The port itself checks no P_Key: the node above it does (an
//   HCA on every packet but QP0's, a switch port whose PortInfo enforcement
//   bits are on) and hands a refused packet to reject_pkey, which counts a
//   P_Key violation (PortInfo.P_KeyViolations), tells the node's handler (its
//   SMA sends a trap) and returns the packet to the pool. Violations are
//   counted per port, not as a drop reason of a VL.
// - Memory: the per-VL state is kept for the VLs the port operates and VL15
//   only: a line of queues and credits each, and a record of counters, credit
//   stalls and lifetimes made at the VL's first packet or drop (flow control
//   runs on every operated VL, but is counted per port). Counts of what
//   arrives or is dropped on another VL go to one shared record
//   (port_stats.hpp). tx_has_room,
//   rx_empty and rx_front take a VL the port operates or VL15; the other
//   queries answer for any VL (one it does not operate: empty, no credit).

#include <systemc>
#include <tlm>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/ib/packet_queue.hpp"
#include "models/ib/pkey.hpp"
#include "models/link/credits.hpp"
#include "models/link/fc_queue.hpp"
#include "models/link/handler.hpp"
#include "models/link/fault_injector.hpp"
#include "models/link/ib_protocol.hpp"
#include "models/link/lifetimes.hpp"
#include "models/link/partition.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/port_config.hpp"
#include "models/link/port_observer.hpp"
#include "models/link/port_stats.hpp"
#include "models/link/timeline.hpp"
#include "models/link/tx_cosim.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::link {

enum class SubmitResult { Queued, Dropped, Busy };

// Round robin over a bit per VL: the first set bit at or after `start`,
// cyclically. Requires mask != 0 and start < 32.
inline unsigned first_vl_from(uint32_t mask, unsigned start) {
  const uint32_t later = mask & ~((1u << start) - 1);
  return static_cast<unsigned>(__builtin_ctz(later != 0 ? later : mask));
}

// PortInfo.PortState values (iba-facts 6).
enum class PortState : uint8_t { Down = 1, Init = 2, Armed = 3, Active = 4 };
const char* to_string(PortState s);

// Values a VCD shows for the granted-VL signal besides a data VL or 15.
constexpr uint32_t kGrantFlowControl = 16;
constexpr uint32_t kGrantIdle = 31;

class Port : public sc_core::sc_module,
             public tlm::tlm_fw_transport_if<IbProtocol>,
             public tlm::tlm_bw_transport_if<IbProtocol> {
 public:
  // Sockets: declared at the end of the class (tx, rx) so that the state an
  // arriving packet touches sits right after the interface the peer calls.

  Port(const sc_core::sc_module_name& name, const PortConfig& config, ib::PacketPool& pool);
  // The same with a configuration other ports share (share_port_configs).
  Port(const sc_core::sc_module_name& name, std::shared_ptr<const SharedPortConfig> config, ib::PacketPool& pool);
  Port() = delete;
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;
  ~Port() override;  // cut_ is of a class defined in port.cpp

  // Binds a.tx to b.rx and b.tx to a.rx; both directions get the link's timing.
  static void connect(Port& a, Port& b, const LinkConfig& link);
  // Parallel simulation (partition.hpp): the link to the peer is cut, and this
  // port's transmissions go to `outbox` instead of to the peer. Call after
  // connect, before the simulation starts.
  void cut(Outbox& outbox);
  // Puts a packet sent on a cut link in flight at its receiver.
  static void hand_over(const Handover& h) { h.to->arrive(*h.packet, h.due_ps); }
  // The shortest time from a transmission's start to its delivery at the
  // peer (a flow-control packet or a packet's LRH; partition.hpp).
  uint64_t min_flight_ps() const;

  // Transmit side. The port takes ownership unless the result is Busy.
  SubmitResult submit(ib::Packet* p);                    // CA port: VL from the SL-to-VL table
  SubmitResult submit_on_vl(ib::Packet* p, unsigned vl); // VL chosen by the caller (switch, SMA)
  // The upper layer's handler for "a transmit queue may have room again". The
  // port calls it at the end of its own handling (a transmission, a lifetime
  // discard), at the same simulated time; it may call back into the port.
  // One per port. reads_first, if given, is what the handler reads first (its
  // owner's state for this port); a transmission prefetches it before its own
  // work, so that the handler does not start with a cache miss.
  // (Handlers: a lambda of at most 16 bytes of state, handler.hpp.)
  void on_tx_space(Handler handler, const void* reads_first = nullptr) {
    on_tx_space_ = std::move(handler);
    tx_space_reads_ = reads_first;
  }
  // Whether submit_on_vl would queue a packet of this size now (a queue takes a
  // packet when it is empty or when the packet fits in tx_buffer_bytes).
  bool tx_has_room(unsigned vl, uint32_t wire_bytes) const {
    const Lane& l = lane(vl);
    return l.txq.empty() || l.txq_bytes + wire_bytes <= tx_buffer_bytes_;
  }
  // Bytes queued for transmission on a VL, and what a VL's queue holds (an
  // upper layer that starts packets only while they fit: transport_engine.hpp).
  uint32_t tx_queued_bytes(unsigned vl) const { return any_lane(vl).txq_bytes; }
  // The credit blocks the head of a VL's transmit queue needs; 0 when empty.
  uint32_t tx_head_blocks(unsigned vl) const {
    const Lane& l = any_lane(vl);
    return l.txq.empty() ? 0 : blocks_for(l.txq.front()->wire_len);
  }
  uint32_t tx_buffer_bytes() const { return tx_buffer_bytes_; }
  // Lifetimes of packets in the transmit queues (switch ports; default off).
  void set_lifetimes(const Lifetimes& lifetimes);
  // Drops a packet the port owns or is given: counts it on `vl`, tells the
  // observers (on_drop) and returns it to the pool.
  void discard(ib::Packet* p, unsigned vl, DropReason why);

  // Receive side. The upper layer owns a packet after rx_pop.
  // The upper layer's handler for "packets are waiting in the receive
  // buffers". The port calls it after taking in the arrivals due now, at the
  // same simulated time; it may call back into the port. One per port.
  void on_rx_ready(Handler handler) { on_rx_ready_ = handler; }
  bool rx_empty(unsigned vl) const { return lane(vl).rxq.empty(); }
  // Bit per VL (15 = VL15) whose receive queue has packets: an upper layer
  // finds them without reading every VL's queue.
  uint32_t rx_ready_vls() const { return rx_ready_; }
  const ib::Packet* rx_front(unsigned vl) const { return lane(vl).rxq.front(); }
  ib::Packet* rx_pop(unsigned vl);  // rx_take + rx_release
  // Takes the head packet of a VL; its buffer space stays in use (and its
  // credits held) until rx_release with its wire bytes.
  ib::Packet* rx_take(unsigned vl);
  void rx_release(unsigned vl, uint32_t wire_bytes);
  // For an upper layer's warm-up (see Alarm): prefetches what rx_release(vl)
  // and the next rx_front(vl) read. No effect on the model.
  void warm_release(unsigned vl) const;
  // The same for submit and submit_on_vl, but for the lane and counters of
  // the packet's VL.
  void warm_submit() const;
  // How this port wants its peer to deliver packets to it (see the rules
  // above). Set before the simulation starts, before or after connect.
  void set_rx_timing(bool cut_through, uint64_t extra_latency_ps);
  // Fault injection on the packets this port receives. connect() sets it from
  // the link's config; set_faults replaces it (a config with nothing enabled
  // removes it). The stream is seeded with fault_stream_seed(config.seed, the
  // port's name), so each direction of a link draws its own.
  void set_faults(const FaultConfig& config);
  const FaultInjector* faults() const { return faults_.get(); }

  // Shares the transmit decisions with `cosim` (not owned; null = none). Set
  // before the simulation starts.
  void set_cosim(TxCosim* cosim) {
    cosim_ = cosim;
    cosim_on_ = cosim != nullptr;
  }
  // The cosim's answer to the last question (see tx_cosim.hpp).
  void tx_answer(const TxAnswer& a);

  // Partitions (see the rules).
  void set_pkeys(std::vector<uint16_t> table) { pkeys_ = std::move(table); }
  const std::vector<uint16_t>& pkeys() const { return pkeys_; }
  bool pkey_accepts(uint16_t key) const { return ib::pkey_table_accepts(pkeys_, key); }
  // PortInfo.PartitionEnforcementInbound / Outbound (switch external ports).
  void set_partition_enforcement(bool inbound, bool outbound) {
    enforce_inbound_ = inbound;
    enforce_outbound_ = outbound;
  }
  bool enforces_inbound() const { return enforce_inbound_; }
  bool enforces_outbound() const { return enforce_outbound_; }
  void reject_pkey(ib::Packet* p);
  uint64_t pkey_violations() const { return pkey_violations_; }
  // Called with each refused packet before it goes back to the pool.
  void on_pkey_violation(std::function<void(const ib::Packet&)> handler) { on_pkey_violation_ = std::move(handler); }

  // Position of the port in its fabric (set by the builder): an index for
  // per-port tables of checkers and tracers.
  unsigned id() const { return id_; }
  void set_id(unsigned id) { id_ = id; }

  unsigned vl_count() const { return vls_; }
  uint32_t mtu() const { return mtu_; }  // config().mtu, from a line a hop reads anyway
  static constexpr uint32_t kMaxMtu = 4096;  // iba-facts "MTU enum": the largest payload is 4096 bytes
  PortState state() const { return state_; }
  void set_state(PortState s);
  // Link events (see the rules): `a` and its peer. Both need a peer.
  static void take_down(Port& a);
  static void bring_up(Port& a);
  // False while the link is down (between take_down and bring_up).
  bool link_trained() const { return !link_down_; }
  // Tables a subnet manager programs (SLtoVLMappingTable, VLArbitrationTable,
  // PortInfo.VLHighLimit) replace the configured ones; the arbiter's turn
  // state starts afresh. A port with an RTL arbiter keeps the RTL's tables.
  void set_sl2vl(const std::array<uint8_t, kSlCount>& table) { sl2vl_ = table; }
  // A CA port: every data packet it transmits gets Packet::injected_ps (its
  // first byte on the wire), from which a packet's network latency counts.
  void stamp_injections() { stamp_injection_ = true; }
  // Every packet this port receives gets Packet::received_ps (its arrival at
  // this node), from which a switch hop's latency counts (trace/hop_latency.hpp).
  void stamp_arrival_times() {
    stamp_for_hops_ = true;
    stamp_arrivals_ = true;
  }
  const std::array<uint8_t, kSlCount>& sl2vl() const { return sl2vl_; }
  void set_vlarb(const VlArbConfig& c);
  const VlArbConfig& vlarb() const { return programmed_vlarb_ != nullptr ? *programmed_vlarb_ : shared_->vlarb; }
  const PortConfig& config() const { return shared_->config; }
  const LinkTiming& timing() const { return timing_; }
  // The link's configuration (speed, width, ...); defaults when unlinked.
  const LinkConfig& link_config() const;
  const Port* peer() const { return peer_; }
  Port* peer() { return peer_; }
  const PortStats& stats() const { return stats_; }
  // Time the transmitter serialized packets up to `end_ps`: PortStats counts a
  // packet's whole serialization when it starts, so the part of the last one
  // still on the wire after `end_ps` is left out (utilization stays <= 1).
  uint64_t busy_ps_until(uint64_t end_ps) const {
    return stats_.busy_ps() - (tx_free_at_ > end_ps ? tx_free_at_ - end_ps : 0);
  }
  uint32_t rx_capacity_blocks(unsigned vl) const { return any_lane(vl).receiver.capacity_blocks(); }
  // A shared-buffer switch's dynamic receive space (switch.architecture
  // "shared"), for a data VL the port operates. Committed: what the VL holds
  // plus what the peer may still send under the last FCCL this port sent.
  // set_rx_capacity never goes below that (credits cannot be taken back, so
  // the FCCL never falls); a rise is advertised as flow control allows.
  uint32_t rx_committed_blocks(unsigned vl) const {
    const Lane& l = data_lane(vl);
    return l.receiver.used_blocks() + l.receiver.sender_headroom(l.fc_sent_fccl);
  }
  void set_rx_capacity(unsigned vl, uint32_t blocks);
  uint32_t credits_available(unsigned vl) const { return any_lane(vl).sender.available(); }
  // Receive-buffer occupancy of a data VL, in 64-byte blocks.
  uint32_t rx_used_blocks(unsigned vl) const { return any_lane(vl).receiver.used_blocks(); }
  // A data VL's credit-stall time up to `now_ps` (no earlier than the port's
  // last event), the stall still open then included: VlStats counts a stall
  // only when it ends.
  uint64_t credit_stall_ps_until(unsigned vl, uint64_t now_ps) const {
    const VlRecord* r = vl < vls_ ? find_record(vl) : nullptr;
    if (r == nullptr) return 0;
    const uint64_t open = r->stall_since != 0 && now_ps + 1 > r->stall_since ? now_ps + 1 - r->stall_since : 0;
    return r->credit_stall_ps + open;
  }
  // PortStats::xmit_wait_ps up to `now_ps`, the stall still open then included.
  uint64_t xmit_wait_ps_until(uint64_t now_ps) const;

  // At most kMaxObservers per port (a checker, a capture and a tracer fit).
  void add_observer(PortObserver* o);
  static constexpr unsigned kMaxObservers = 4;
  void trace_signals(sc_core::sc_trace_file* tf);
  // Closes open credit-stall intervals; call once after the simulation stops.
  void finish();

  // TLM interfaces (receive on fw, nothing on bw).
  tlm::tlm_sync_enum nb_transport_fw(ib::Packet& p, tlm::tlm_phase& phase, sc_core::sc_time& delay) override;
  void b_transport(ib::Packet& p, sc_core::sc_time& delay) override;
  bool get_direct_mem_ptr(ib::Packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(ib::Packet&) override { return 0; }
  tlm::tlm_sync_enum nb_transport_bw(ib::Packet&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}

 private:
  // One VL's transmit and receive state, in one cache line instead of one
  // line in each of a dozen per-VL arrays (the fabric benchmarks are bound by
  // cache misses): queues, credits and the last flow-control packet sent for
  // the VL (its time, FCCL and FCTBS). VL15 is the lane after the data VLs'.
  struct alignas(64) Lane {
    static constexpr uint64_t kNeverSent = UINT64_MAX;
    uint64_t fc_sent_ps = kNeverSent;
    ib::PacketQueue txq;          // queued packets carry their wire bytes (Packet::wire_len)
    ib::PacketQueue rxq;
    uint32_t txq_bytes = 0;       // at most tx_buffer (<= kMaxVlBufferBytes) + one packet
    CreditSender sender;
    CreditReceiver receiver;
    uint16_t fc_sent_fccl = 0;
    uint16_t fc_sent_fctbs = 0;
  };
  static_assert(sizeof(Lane) == 64, "a hop's lane state is one line");
  // A VL's counters and the state that only a VL with packets needs (credit
  // stalls, lifetimes), made at the VL's first packet or drop: flow control
  // runs on every VL a port operates, but most VLs of most ports carry no
  // packet (a port is mostly its per-VL state).
  struct alignas(64) VlRecord : VlStats {
    uint64_t stall_since = 0;     // 0 = not stalled, else start + 1
    uint64_t head_since = 0;      // lifetimes: when the queue's head became the head
    VlStall stall;
  };
  static_assert(sizeof(VlRecord) == 128, "a VL's record is two lines");
  // The per-VL state in one block sized to the VLs the port operates: the
  // lanes of data VLs 0..vls_-1 and VL15, then the slots of their records in
  // VlStatsTable's order (VL15's after the data VLs', then the one shared by
  // the VLs the port does not operate), null until made.
  class VlBlock {
   public:
    explicit VlBlock(unsigned data_vls);
    ~VlBlock();
    VlBlock(const VlBlock&) = delete;
    VlBlock& operator=(const VlBlock&) = delete;
    Lane* lanes() const { return static_cast<Lane*>(memory_); }
    VlStats** slots() const { return reinterpret_cast<VlStats**>(lanes() + data_vls_ + 1); }

   private:
    void* memory_;
    unsigned data_vls_;
  };
  // The lane of data VL vl (vl < vls_) or of VL15, which follows the data
  // VLs'.
  Lane& lane(unsigned vl) { return lanes_[std::min<unsigned>(vl, vls_)]; }
  const Lane& lane(unsigned vl) const { return lanes_[std::min<unsigned>(vl, vls_)]; }
  // The lane of a data VL the port operates (vl < vls_), where the caller
  // knows it is one (the queues', the arbiter's and flow control's VLs): no
  // clamp on a hop's path.
  Lane& data_lane(unsigned vl) { return lanes_[vl]; }
  const Lane& data_lane(unsigned vl) const { return lanes_[vl]; }
  // The record slots, found from lanes_ (on a line every hop reads) rather
  // than from the block.
  VlStats** slots() const { return reinterpret_cast<VlStats**>(lanes_ + vls_ + 1); }
  // The record of data VL vl or VL15, made if the VL has none yet.
  VlRecord& record(unsigned vl) { return record_at(std::min<unsigned>(vl, vls_)); }
  // That of a data VL the port operates (see data_lane).
  VlRecord& data_record(unsigned vl) { return record_at(vl); }
  VlRecord& record_at(std::size_t slot) {
    VlStats* s = slots()[slot];
    if (__builtin_expect(s == nullptr, false)) s = make_record(slot);
    return static_cast<VlRecord&>(*s);
  }
  // That of a VL that has queued a packet (a data VL with tx_ready_ or
  // stalled_ set, or a transmission's VL): made when the packet was.
  VlRecord& queued_record(unsigned vl) { return static_cast<VlRecord&>(*slots()[std::min<unsigned>(vl, vls_)]); }
  // The record of data VL vl or VL15 if it has one, else null.
  const VlRecord* find_record(unsigned vl) const {
    return static_cast<const VlRecord*>(slots()[std::min<unsigned>(vl, vls_)]);
  }
  VlStats* make_record(std::size_t slot);
  // For the queries that may name any VL: a VL the port does not operate has
  // an idle lane (empty, no credit, never stalled).
  const Lane& any_lane(unsigned vl) const { return vl < vls_ || vl == kVl15 ? lane(vl) : idle_lane(); }
  static const Lane& idle_lane();
  // Values a VCD samples, kept only while tracing.
  struct TraceMirror {
    std::array<uint32_t, 16> credits{};
    std::array<uint32_t, 16> rx_blocks{};
    std::array<uint32_t, 16> tx_bytes{};
    uint32_t grant = kGrantIdle;
  };

  void start_of_simulation() override;
  void tx_method();
  void rx_method();
  // Warm-ups of the two (see Alarm): prefetch what they read first.
  void warm_tx() const;
  void warm_rx() const;
  void warm_observers() const;  // PortObserver::warm, from each warm-up
  void fc_timer_method();
  void drop_link();     // take_down's work on this port
  void restart_link();  // bring_up's
  void lifetime_method();

  // The data VLs whose head packet passes the credit test, with its blocks;
  // `heads`, when given, gets every head's blocks.
  VlCandidates credit_candidates(VlCandidates* heads = nullptr) const;
  unsigned next_flow_control_vl();   // round robin among the VLs with one due
  void send_vl15();
  // Sends the granted data VL's head; false (and the link idles) when vl < 0.
  bool send_data(int vl, const VlCandidates& candidates);
  void ask_cosim(TxQuestion::Kind kind, unsigned fc_vl);
  void transmit(ib::Packet* p, uint32_t grant);
  ib::Packet* make_flow_control(unsigned vl, uint16_t fctbs, uint16_t fccl);
  // Returns whether the packet went into a receive buffer.
  bool receive_data(ib::Packet* p);
  // Takes a data packet into its receive buffer (checks, credits, statistics,
  // observers) without queueing it for the upper layer; false when dropped.
  bool admit(ib::Packet* p);
  bool accept(ib::Packet* p);  // admit, then queue it for the upper layer
  // receive_data while faults_on_: judges the packet first and acts on the verdict.
  bool receive_faulted(ib::Packet* p);
  void queue_rx(ib::Packet* p) {  // an admitted packet, for the upper layer
    const unsigned vl = p->hdr.lrh.vl;
    lane(vl).rxq.push_back(p);
    rx_ready_ = static_cast<uint16_t>(rx_ready_ | (1u << vl));
  }
  void hold(ib::Packet* p, uint64_t until_ps);  // a delayed packet, admitted
  void copy_in(const ib::Packet& p);            // a duplicated packet's copy, after it
  void took_copy(const ib::Packet* p);          // rx_take: p may be a copy
  bool released_copy(unsigned vl, uint32_t wire_bytes);  // rx_release of a copy: nothing to free
  void held_method();                           // hands the held packets that are due up
  void receive_flow_control(const ib::Packet& p);
  // A packet the peer sent: in flight until due_ps (what nb_transport_fw does).
  // A flow-control packet travels as its fields (fc_in_flight_), not as a
  // packet of the pool: when a link comes up every VL's is in flight at once,
  // and a pool packet for each would be a large part of a big fabric's
  // memory. A link between two ports sends it from the pool's scratch packet
  // and receives it into the other one (PacketPool::flow_control_scratch).
  void arrive(ib::Packet& p, uint64_t due_ps) {
    if (in_flight_.empty() && !fc_arriving_) rx_arrival_.notify_at(due_ps);
    // A bit for VLs 0..7 (the shift leaves 0 in eight bits for the others).
    if (p.kind == ib::PacketKind::FlowControl) {
      fc_in_flight_.push_back({due_ps, p.fc});
      fc_arriving_ = true;
      arriving_fc_ |= static_cast<uint8_t>(1u << (p.fc.vl & 0xF));
      if (!pool_.is_scratch(&p)) pool_.release(&p);
      return;
    }
    p.due_ps = due_ps;
    in_flight_.push_back(&p);
    arriving_data_ |= static_cast<uint8_t>(1u << (p.hdr.lrh.vl & 0xF));
  }
  // Receives the flow-control packet at the head of fc_in_flight_.
  void receive_fc_in_flight(uint64_t now);
  ib::Packet* pop_tx(unsigned vl);   // removes a transmit queue's head
  void new_head(unsigned vl);        // lifetimes: the queue's head changed now
  void arm_lifetime(unsigned vl);
  void flush_stalled(unsigned vl);
  void consider_flow_control(unsigned vl);
  bool peer_would_stall(unsigned vl, uint64_t wait_ps) const;
  // The link went idle: start the stall of every VL whose head is not a candidate.
  void open_stalls(const VlCandidates& candidates);
  void tell_cosim(CreditEvent e, unsigned vl, uint32_t a, uint32_t b = 0) {
    if (__builtin_expect(cosim_on_, false) && cosim_->credits()) cosim_->credit_event(e, vl, a, b);
  }
  void close_stalls();  // the link carries something again
  void update_peer_timing();
  // Something may be sent: at once, or when the packet on the wire ends. Only
  // when something waits: credit or a discard with nothing queued is only
  // recorded, and the next submission wakes the transmitter.
  void wake_tx() {
    if (tx_waiting()) tx_wakeup_.notify_at(std::max(now_ps(), tx_free_at_));
  }
  // Whether the end of the packet on the wire needs a wakeup: something waits.
  bool tx_waiting() const { return (fc_pending_ | tx_ready_) != 0; }
  template <class F>
  void notify_observers(F&& f) {
    for (unsigned i = 0; i < observer_count_; ++i) f(*observers_[i]);
  }

  // Hot state first, in the order the handlers use it, so that a hop touches
  // few cache lines of each port (the fabric benchmarks are bound by cache
  // misses). Receive side: the peer's transmission arms rx_arrival_ (an alarm
  // is a line of its own) and appends to in_flight_, which starts the next
  // line with what the receive handler reads first.
  Alarm rx_arrival_ = Alarm::method<&Port::rx_method, &Port::warm_rx>(this);
  ib::PacketQueue in_flight_;         // data arrivals (Packet::due_ps), in link order
  Handler on_rx_ready_;               // the upper layer's
  Lane* lanes_;                       // block_'s, on this line: both directions read it
  uint8_t observer_count_ = 0;        // at most kMaxObservers
  bool faults_on_ = false;            // faults_ is set (fills padding: no hot member moves)
  bool cosim_on_ = false;             // cosim_ is set (fills padding too)
  // Bit per VL 0..7: data packets (arriving_data_) and flow-control packets
  // (arriving_fc_) for that VL were put in flight since in_flight_ was last
  // empty; warm_rx prefetches what their reception will touch.
  uint8_t arriving_data_ = 0;
  uint8_t vls_;
  bool fc_arriving_ = false;          // fc_in_flight_ is not empty
  uint8_t rx_data_vls_;               // data VLs the state lets in: vls_ from Armed on, else 0
  uint8_t tx_data_vls_;               // data VLs the state lets out: vls_ when Active, else 0
  uint16_t mtu_;                      // at most kMaxMtu
  bool stamp_arrivals_ = false;       // lifetimes_on_ or stamp_for_hops_, on the receive line: admit stamps Packet::received_ps
  uint8_t arriving_fc_ = 0;           // see arriving_data_
  uint16_t stalled_ = 0;              // bit per VL: a credit stall is open
  uint16_t rx_ready_ = 0;             // bit per VL (15 = VL15): its receive queue has packets
  uint16_t tx_ready_ = 0;             // bit per VL (15 = VL15): its transmit queue has packets
  uint16_t fc_pending_ = 0;           // bit per VL: a flow-control packet is due
  unsigned id_ = 0;                   // read by the observers on every hop
  std::array<PortObserver*, kMaxObservers> observers_{};
  std::unique_ptr<TraceMirror> trace_; // while tracing
  uint64_t fc_timer_at_ = UINT64_MAX; // when fc_timer_ is armed for
  uint64_t fc_period_ps_ = LinkConfig{}.fc_period_ps;
  // Flow-control arrivals (arrive()), the line a flow-control packet's
  // reception reads besides the two above: in link order with in_flight_'s
  // data packets, whose due times they never equal (a link carries one packet
  // at a time, and each takes some time on it), so that merging the two
  // queues by due time gives the link's order.
  FcQueue fc_in_flight_;
  // Transmit side: the alarm, then a line of what a transmission reads, then
  // what a submission reads.
  Alarm tx_wakeup_ = Alarm::method<&Port::tx_method, &Port::warm_tx>(this);
  uint64_t tx_free_at_ = 0;
  LinkTiming timing_{LinkConfig{}};
  uint64_t head_ps_ = 0;              // time the LRH takes on the wire
  uint64_t peer_extra_ps_ = 0;        // the peer as receiver (its set_rx_timing), kept here
  Port* peer_ = nullptr;              // on the transmission's first line: warm_tx reads it
  tlm::tlm_fw_transport_if<IbProtocol>* peer_rx_ = nullptr;  // what tx is bound to
  ib::PacketPool& pool_;
  const void* tx_space_reads_ = nullptr;  // on_tx_space's reads_first
  Handler on_tx_space_;               // the upper layer's
  bool peer_cut_through_ = false;
  bool stamp_injection_ = false;      // stamp_injections()
  bool stamp_for_hops_ = false;       // stamp_arrival_times()
  bool peer_is_port_ = false;         // tx is bound to peer_'s rx (connect)
  bool link_down_ = false;            // take_down .. bring_up: nothing is transmitted
  bool lifetimes_on_ = false;
  uint8_t fc_next_ = 0;               // where the round robin over due VLs resumes
  uint32_t tx_buffer_bytes_;          // <= kMaxVlBufferBytes
  // Flow control (with fc_timer_at_ and fc_period_ps_ above), and the
  // counters a transmission and a flow-control packet update per port.
  double block_ps_ = 0;               // time one credit block takes on the wire
  uint64_t fc_flight_ps_ = 0;         // serialization + propagation of a flow-control packet
  PortStats stats_;
  Alarm fc_timer_ = Alarm::method<&Port::fc_timer_method>(this);

  VlArbiter arbiter_;

  // Cold: the per-VL block's owner, the SL-to-VL table of a CA port's
  // submissions, VL15, lifetimes, configuration, tracing.
  VlBlock block_;
  std::array<uint8_t, kSlCount> sl2vl_;
  uint64_t vl15_buffer_bytes_;
  uint64_t vl15_rx_bytes_ = 0;
  // Lifetimes: made when they are first set on (off by default; see the rules).
  struct LifetimeState {
    Lifetimes lifetimes;
    uint64_t at = UINT64_MAX;          // when the timer is armed for
    Alarm timer;
  };
  std::unique_ptr<LifetimeState> lifetime_;
  bool rx_cut_through_ = false;       // this port as receiver
  uint64_t rx_extra_ps_ = 0;
  std::unique_ptr<FaultInjector> faults_;  // while faults_on_
  class CutLink;
  std::unique_ptr<CutLink> cut_;           // while the link is cut: what tx sends to
  // Delayed and duplicated packets (fault rules), made at the first.
  struct Copy {
    const ib::Packet* p;  // while in a receive queue; nullptr once taken
    uint32_t wire_bytes;
    uint8_t vl;
  };
  struct Detours {
    std::vector<ib::Packet*> held;       // delayed packets, by due_ps (release time), FIFO among equals
    std::vector<Copy> copies;            // copies made by duplicate, not yet released
    Alarm held_timer;
  };
  std::unique_ptr<Detours> detours_;
  Detours& detours();
  bool has_copies() const { return detours_ != nullptr && !detours_->copies.empty(); }
  TxCosim* cosim_ = nullptr;               // while cosim_on_
  std::vector<uint16_t> pkeys_ = ib::default_pkey_table();  // P_KeyTable
  bool enforce_inbound_ = false;           // PortInfo.PartitionEnforcementInbound
  bool enforce_outbound_ = false;          // PortInfo.PartitionEnforcementOutbound
  uint64_t pkey_violations_ = 0;           // packets refused for their P_Key
  std::function<void(const ib::Packet&)> on_pkey_violation_;
  std::shared_ptr<const SharedPortConfig> shared_;  // the configuration and its resolved tables
  std::unique_ptr<VlArbConfig> programmed_vlarb_;   // the arbiter's tables once set_vlarb replaced them
  std::shared_ptr<const LinkConfig> link_;          // what connect() was given, shared with the peer
  PortState state_ = PortState::Active;

 public:
  TxSocket tx{"tx"};
  RxSocket rx{"rx"};
};

}  // namespace hcasim::link
