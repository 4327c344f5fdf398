#pragma once
// An HCA's transport engine: the QP table, the QP scheduler that hands QPs
// with work to a pool of transmit units, the receive units, and the QPs'
// timers (docs/hca-processing.md). The requester and responder logic
// (requester.hpp, responder.hpp) do the protocol; this class is the SystemC
// wiring around them.
//
// Rules:
// - QPs are contexts, not processes. A QP with something to send (a response,
//   a request, a resend) waits in the QP scheduler (qp_scheduler.hpp:
//   round_robin, weighted_round_robin, strict_priority); a free transmit unit
//   takes the QP whose turn it is and builds one packet (responses before
//   requests). With unit_mapping any_free every unit serves one scheduler and
//   a QP is on at most one unit at a time; with qpn_hash unit i has its own
//   scheduler for the QPs whose number modulo tx_units is i. Building takes
//   packet_build (ack_generation for an ACK or NAK), plus wqe_parse at a
//   message's first packet (build_ps: the one place); start_packet is where a
//   unit starts a QP's packet.
// - A unit starts a packet for a QP only while the packet's VL has room: its
//   transmit queue plus the packets started for it and not yet queued hold
//   less than the port's tx_buffer. Otherwise the QP waits in the VL's list
//   of QPs (in the order they found it full, behind any QP already there)
//   and holds no unit; room on the VL (port_has_room) lets them go in that
//   order, each with a packet's room kept for it. A built packet that finds
//   its VL's queue full anyway waits in the VL's list of packets, in order;
//   its QP takes no turn until it has gone. So QPs on one VL take equal
//   turns of it, and a full VL never blocks another VL or a unit.
// - A packet whose payload comes from host memory (a gather read, READ
//   response data, an atomic's original value) leaves no earlier than its
//   data is at the HCA (host_memory.hpp). If the data is not there when the
//   unit is done, or an earlier packet of its QP still waits for data, the
//   packet waits in the data stage (a FIFO; the host link returns reads in
//   order) and the unit takes new work: a QP's packets stay in order, and
//   reads of many packets overlap. While tx_dma_packets packets wait there,
//   no new packet is started.
// - With the HCA's caches (context_lookups.hpp): a QP takes a unit once its
//   context is on chip and, for a send WQE's first packet, its WQE too (the
//   WQE looked up once the QPC is there; context_on_chip_now: it waits off
//   the units while they fill, so a miss holds no unit); a received
//   packet reaches its QP once its QP's context is on chip and, for a READ
//   response or atomic ACK, the send WQE it answers (its scatter list). A
//   completed WQE is dropped from the WQE cache (wqe_done).
// - A packet the HCA takes from a receive buffer (deliver: where it is
//   queued) reaches its QP receive_parse later: in a pipeline with rx_units
//   0 (packets do not wait for each other; one waiting for its QP's context
//   holds the pipeline's later packets, in arrival order, but a response
//   waiting for its send WQE's refetch waits aside, and only its own QP's
//   later packets wait behind it), else on a receive unit (any free
//   unit, a QP's packets one at a time and in order; or unit = QP number
//   modulo rx_units). Responses (READ responses, ACKs, NAKs, atomic ACKs) go
//   to the requester, everything else to the responder. A packet for no QP
//   is dropped and counted.
// - A completion reaches the CQ completion_generation after it is made (at
//   once by default).
// - With a receive-WQE source (the HCA's front end), a request that needs a
//   receive WQE when the QP holds none asks it first, and one that uses the
//   QP's oldest receive WQE asks whether it is on chip (the WQE cache); while
//   it fetches, that request and the QP's later ones wait, in order
//   (responses do not). When
//   a QP enters ERR the source is asked to bring every posted receive WQE,
//   which then completes flushed.
// - Each QP has a transport timer and an RNR wait (alarms armed from the
//   deadlines the requester sets), so an idle QP costs no events.
// - Congestion control (congestion_hooks.hpp), per port when the HCA sets
//   hooks: BECN in the responses to FECN-marked RC requests, and the CCT's
//   injection delay between a QP's request packets (a QP held back waits off
//   the scheduler, in a time-ordered set with one alarm).
// - QP numbers start at 2: QP0 and QP1 are reserved for management.

#include <systemc>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/ib/ring_fifo.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/congestion_hooks.hpp"
#include "models/transport/context_lookups.hpp"
#include "models/transport/qp.hpp"
#include "models/transport/qp_scheduler.hpp"
#include "models/transport/qp_services.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::transport {

// Where receive WQEs come from when they live in host memory: the HCA's
// front end, which fetches them by DMA when a request needs one.
class RecvWqeSource {
 public:
  virtual ~RecvWqeSource() = default;
  // qp is about to take a request that needs a receive WQE and holds none.
  // Either posts what it can now (post_recv) and returns false, or starts a
  // fetch and returns true: the request then waits, with the QP's later
  // requests, until TransportEngine::resume_requests.
  virtual bool need_recv_wqes(Qp& qp) = 0;
  // qp is about to take a request that uses its oldest receive WQE (rq[0]).
  // False when that WQE is on chip now; true when it is not (a WQE cache
  // miss: it is read again) and the request waits as above.
  virtual bool recv_wqe_missing(Qp& /*qp*/) { return false; }
  // qp went to ERR: every receive WQE posted is to be fetched and posted, so
  // that it completes flushed (post_recv in ERR).
  virtual void flush_recv_wqes(Qp& qp) = 0;
};

struct EngineStats {
  uint64_t packets_built = 0;
  uint64_t packets_received = 0;
  uint64_t unknown_qp_drops = 0;   // packets for a QP that does not exist
  uint64_t room_waits = 0;         // times a QP waited for its VL's room before starting a packet
  uint64_t port_full_waits = 0;    // packets that found their VL's transmit queue full (or others waiting for it) and waited for room
  uint64_t rx_unit_waits = 0;      // times a received packet waited for its QP's earlier packet on a receive unit
  uint64_t context_waits = 0;      // times a QP's next packet waited for its QPC's fill (no unit held)
  uint64_t wqe_waits = 0;          // times a send WQE's first packet waited for the WQE's refetch (no unit held)
  uint64_t response_wqe_waits = 0; // rx_units 0: responses that waited aside for their send WQE's refetch (or their QP's earlier one)
  uint64_t data_waits = 0;         // packets that waited in the data stage for host memory
  uint64_t data_wait_ps = 0;       // their time there, summed
  uint64_t busy_ps = 0;            // engine time spent building packets, summed over engines
};

class TransportEngine : public QpServices {
 public:
  struct PortBinding {
    link::Port* port;
    uint16_t lid;  // base LID
    CongestionHooks* cc = nullptr;  // congestion control of the port; null: off
  };
  using CompletionHandler = std::function<void(Qp&, bool send_queue, const WorkCompletion&)>;
  using AsyncHandler = std::function<void(Qp&, const char* event)>;

  TransportEngine(const TransportConfig& config, std::vector<PortBinding> ports, HostMemory& memory,
                  ib::PacketPool& pool);
  TransportEngine(const TransportEngine&) = delete;
  // A port's base LID changed (a subnet manager set it); QPs made ready to
  // receive from now on take it as their SLID.
  void set_port_lid(unsigned port, uint16_t lid) { ports_.at(port).lid = lid; }
  // Congestion control of a port on (hooks) or off (null): congestion_hooks.hpp.
  void set_congestion(unsigned port, CongestionHooks* cc) { ports_.at(port).cc = cc; }
  TransportEngine& operator=(const TransportEngine&) = delete;
  ~TransportEngine() override;

  void on_completion(CompletionHandler h) { on_completion_ = std::move(h); }
  void on_async_event(AsyncHandler h) { on_async_ = std::move(h); }
  // Called with true when an engine starts waiting for transmit room (on any
  // port) and none waited before, with false when the last one stops: the HCA
  // then calls port_has_room only while it can matter, without reading the
  // engine.
  void on_room_wanted(std::function<void(bool)> h) { on_room_wanted_ = std::move(h); }

  // QP numbers: 0 and 1 are the management QPs; a QP gets the next number of
  // kFirstQpn..kMaxQpn (24 bits, the BTH's DestQP) not in use, in turn, so a
  // destroyed QP's number is taken again only after the range wraps
  // (cyclic_numbers.hpp). Throws std::invalid_argument when every number is in use.
  static constexpr uint32_t kFirstQpn = 2;
  static constexpr uint32_t kMaxQpn = 0xFFFFFF;

  // Verbs. Errors come back as a one-line reason ("" = done).
  Qp& create_qp(const QpInit& init);
  // Removes the QP at once, in any state, with its queued WRs and no
  // completions (as ibv_destroy_qp); false when there is no such QP. A packet
  // an engine is building for it still goes out.
  bool destroy_qp(uint32_t qpn);
  Qp* find(uint32_t qpn);
  const Qp* find(uint32_t qpn) const;
  std::string modify_qp(uint32_t qpn, const QpAttr& attr, uint32_t mask);
  // times: what the front end knows of the WR's trip (its doorbell's times);
  // the engine stamps on_chip_ps and the later stages (WrTimes).
  std::string post_send(uint32_t qpn, const SendWr& wr, const WrTimes& times = {});
  std::string post_recv(uint32_t qpn, const RecvWr& wr);
  // A send WQE the HCA's front end could not use (Requester::queue_unusable).
  void post_unusable(uint32_t qpn, const SendWr& wr, uint32_t vendor_err);

  // A packet the HCA took from port `port_index`; the engine owns it.
  void deliver(ib::Packet* p, unsigned port_index);
  void set_recv_source(RecvWqeSource* source) { recv_source_ = source; }
  // The HCA's QPC and WQE caches (context_lookups.hpp); null = always on chip.
  void set_context_lookups(ContextLookups* lookups) { contexts_ = lookups; }
  // The fetch the source started for this QP is done: its waiting requests
  // go on, the first without asking again.
  void resume_requests(uint32_t qpn);
  // Whether a QP with this number exists (the HCA routes other packets elsewhere).
  bool owns(uint32_t qpn) const { return qpn < qps_.size() && qps_[qpn] != nullptr; }
  // The port's "transmit queue may have room" handler is the engine's. Inline
  // and cheap when no engine waits for room (raw traffic on the same port).
  void port_has_room(unsigned port_index) {
    if (lanes_[port_index].blocked != 0) serve_room(port_index);
  }

  const EngineStats& stats() const { return stats_; }
  const TransportConfig& config() const override { return config_; }
  // Every QP, in QP-number order.
  std::vector<const Qp*> qps() const;

  // QpServices.
  HostMemory& memory() override { return memory_; }
  ib::Packet* new_packet() override { return pool_.acquire(); }
  void complete(Qp& qp, bool send_queue, const WorkCompletion& wc) override;
  void retired_unsignaled(Qp& qp, const SendWr& wr) override;
  void async_event(Qp& qp, const char* event) override;
  uint64_t now_ps() const override { return link::now_ps(); }

 private:
  void serve_room(unsigned port_index);  // port_has_room when packets wait for room on the port
  struct Entry;
  struct Engine;
  Entry* entry(uint32_t qpn) const;  // null when there is no such QP
  void wake(Entry& e);
  struct RxUnit;
  void dispatch();
  QpScheduler<Entry>& scheduler_of(const Entry& e);  // the scheduler of e's transmit unit(s)
  uint32_t weight_of(const Qp& qp) const;            // weighted_round_robin: packets per turn
  // A transmit unit's time for a packet: the one place it is computed.
  uint64_t build_ps(const ib::Packet& p, bool first_of_message) const;
  void engine_done(Engine& g);
  void data_due();               // the data stage's head may go
  struct Started {  // the VL a packet was started for, and its bytes counted there
    uint8_t vl;
    uint32_t bytes;
  };
  void start_packet(Engine& g, Entry& e);  // a unit takes e's next packet, or e waits for its VL's room
  ib::Packet* build_packet(Engine& g, Entry& e, unsigned vl);  // start_packet's packet (null: the WQE failed)
  // True when e's QPC is on chip for its next packet; otherwise its fill is
  // under way and e takes no turn until context_on_chip (no unit waits for it).
  bool context_on_chip_now(Entry& e);
  void context_on_chip(Entry& e);
  unsigned next_vl(const Qp& qp) const;    // the VL of the QP's next packet
  bool vl_has_room(unsigned port_index, unsigned vl) const;
  void wait_for_room(Entry& e, unsigned vl);
  void block(unsigned port_index, unsigned vl);  // the VL has packets or QPs waiting for room
  void drop_promise(Entry& e);
  void to_port(Entry& e, ib::Packet* p, Started started);  // a built packet whose data is there: to its port, or its VL's room list
  void handed_on(Entry& e);      // a packet of e went to its port
  // port.submit(p), stamping when p went (Packet::submitted_ps; its WQE's sent_ps).
  link::SubmitResult submit(link::Port& port, Entry& e, ib::Packet* p);
  static SendWqe* carried_wqe(Qp& qp, const ib::Packet& p);  // the send WQE a request packet carries, if still queued
  void rx_due();                 // rx_units 0: the pipeline's packets due now reach their QPs
  void start_rx();               // free receive units take waiting packets
  void rx_unit_done(RxUnit& u);
  void received(ib::Packet* p);  // a parsed packet acts on its QP
  // When what a received packet needs is on chip: its QP's context (qpc_on_chip, at least now), and
  // the send WQE a response answers (answered_wqe_on_chip, 0 for other packets); on_chip: both.
  uint64_t qpc_on_chip(const Entry& e, uint64_t now);
  uint64_t answered_wqe_on_chip(const Entry& e, const ib::Packet& p, uint64_t now);
  uint64_t on_chip(const Entry& e, const ib::Packet& p, uint64_t now) {
    const uint64_t qpc = qpc_on_chip(e, now);  // first: a fill's DMA order is the lookups' order
    const uint64_t wqe = answered_wqe_on_chip(e, p, now);
    return qpc > wqe ? qpc : wqe;
  }
  void completions_due();        // completion_generation: completions due now go to the CQs
  bool must_wait(Entry& e, const ib::Packet& p);  // asks the receive-WQE source
  void take_request(Entry& e, ib::Packet* p);    // a request for e's responder, or held behind a fetch
  void execute(Entry& e, ib::Packet* p);
  void arm(Entry& e);            // its timer and RNR wait, from the deadlines the requester set
  void after(Entry& e);          // arm, then schedule it
  void timer_fired(Entry& e);
  void rnr_over(Entry& e);
  bool has_work(const Qp& qp) const;
  // Congestion control (the port's hooks set): start_packet through
  // start_paced. A QP whose next packet is a request before its injection
  // time is held back (held_back true); after a unit started packet p of e,
  // its BECN is counted or its next request's time kept (paced).
  void start_paced(Engine& g, Entry& e, unsigned vl, CongestionHooks& cc);
  void paced(Entry& e, const ib::Packet& p, bool response, uint64_t now, CongestionHooks& cc);
  bool held_back(Entry& e);
  void pace_due();  // QPs whose injection time has come go back to the scheduler

  TransportConfig config_;
  std::vector<PortBinding> ports_;
  HostMemory& memory_;
  ib::PacketPool& pool_;
  std::vector<std::unique_ptr<Entry>> qps_;  // indexed by QP number; null where none (QP0, QP1, destroyed)
  std::vector<std::unique_ptr<Entry>> leaving_;  // destroyed while an engine holds one of their packets
  uint32_t next_qpn_ = kFirstQpn;
  std::vector<QpScheduler<Entry>> ready_;  // any_free: one; qpn_hash: one per transmit unit
  std::vector<std::unique_ptr<Engine>> engines_;
  struct Parked {  // a built packet whose VL's transmit queue was full
    Entry* entry;
    ib::Packet* packet;
    uint32_t bytes;
  };
  struct Lane {  // per port and data VL
    ib::RingFifo<Parked, 2> parked;  // built packets that found the queue full, in order
    ib::RingFifo<Entry*, 2> qps;     // QPs whose next packet waits for room, in the order they found none
    uint64_t started_bytes = 0;      // packets started for the VL and not yet in its queue, and room kept
  };
  struct PortLanes {
    uint32_t blocked = 0;  // bit per VL with packets or QPs waiting for room
    // By data VL, made when a QP first sends on the port (a port of raw
    // traffic only never needs them: 15 lanes of 128 bytes).
    std::array<Lane, link::kVl15>& vl() {
      if (made == nullptr) made = std::make_unique<std::array<Lane, link::kVl15>>();
      return *made;
    }
    std::unique_ptr<std::array<Lane, link::kVl15>> made;
  };
  std::vector<PortLanes> lanes_;  // per port
  unsigned blocked_lists_ = 0;    // VLs with something waiting for room, over all ports (on_room_wanted)
  struct Arrival {
    uint64_t due_ps;
    ib::Packet* packet;
  };
  ib::RingFifo<Arrival, 8> arrivals_;
  // Responses waiting aside for their send WQE's refetch, earliest due first (a heap); the
  // pipeline's later packets of other QPs pass them, their own QP's wait behind them.
  struct Aside {
    uint64_t due_ps;
    uint64_t order;  // arrival order, for equal dues
    ib::Packet* packet;
    static bool later(const Aside& a, const Aside& b) { return a.due_ps != b.due_ps ? a.due_ps > b.due_ps : a.order > b.order; }
  };
  std::vector<Aside> aside_;
  uint64_t aside_order_ = 0;
  link::Alarm rx_alarm_;
  std::vector<std::unique_ptr<RxUnit>> rx_units_;           // none: the receive pipeline (arrivals_)
  std::vector<ib::RingFifo<ib::Packet*, 8>> rx_waiting_;    // packets waiting for a receive unit: any_free one FIFO, qpn_hash one per unit
  struct Completion {
    uint64_t due_ps;
    uint32_t qpn;
    bool send_queue;
    WorkCompletion wc;
  };
  ib::RingFifo<Completion, 2> completions_;  // completion_generation above 0: completions on their way to the CQs
  struct Waiting {  // a built packet in the data stage
    uint64_t ready_ps;
    uint64_t since_ps;
    Entry* entry;
    ib::Packet* packet;
    Started started;
  };
  ib::RingFifo<Waiting, 8> data_stage_;
  link::Alarm data_alarm_;
  link::Alarm cqe_alarm_;
  PacedQueue paced_;       // QPs held back for their injection time
  link::Alarm pace_alarm_;
  uint64_t next_id_ = 0;
  EngineStats stats_;
  CompletionHandler on_completion_;
  AsyncHandler on_async_;
  std::function<void(bool)> on_room_wanted_;
  RecvWqeSource* recv_source_ = nullptr;
  ContextLookups* contexts_ = nullptr;
};

}  // namespace hcasim::transport
