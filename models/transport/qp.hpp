#pragma once
// One queue pair as data: its attributes, its send and receive queues, and the
// state of its requester (SQ logic) and responder (RQ logic). The engines and
// the requester / responder logic work on it; a QP has no process of its own.
//
// Rules of the PSN state (seed 002 "Some Definitions"):
// - npsn is the PSN the next new request packet gets; a READ request advances
//   it by the number of response packets it asks for, any other request by 1.
// - una is the oldest PSN not yet acknowledged; [una, npsn) is outstanding.
// - send_psn is where the requester sends next; fresh_psn is where it has
//   sent so far. send_psn < fresh_psn while it resends after a rewind.
// - epsn is the responder's expected PSN, starting at the remote start PSN
//   (seed 002 "Remote RQ Start ePSN = Local SQ Start PSN").

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/ib/ring_fifo.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::transport {

// A posted send WR and the requester's progress on it.
struct SendWqe {
  SendWr wr;
  uint32_t unusable = 0;       // vendor error of a WQE the HCA could not decode (0: a usable WQE)
  uint64_t length = 0;         // message bytes (sum of the gather list; 8 for atomics)
  WrTimes times;               // its stages so far (on_chip_ps: when the engine took it)
  uint32_t first_psn = 0;      // valid once assigned (first packet sent)
  uint32_t psns = 0;           // PSNs it takes: request packets, or a READ's response packets
  uint32_t ssn = 0;            // send sequence number (1, 2, ...)
  bool assigned = false;       // has PSNs
  bool done = false;           // acknowledged or answered; retired in order
};

struct RecvWqe {
  RecvWr wr;
  uint64_t length = 0;         // sum of the scatter list
};

// A READ or atomic the responder accepted, kept for replay of duplicates.
struct ReadResource {
  uint32_t first_psn = 0;
  uint32_t psns = 0;           // response packets (1 for an atomic)
  uint64_t va = 0;
  uint32_t rkey = 0;
  uint64_t length = 0;
  uint64_t original = 0;       // atomic: the value read
  bool atomic = false;
  bool pending = false;        // responses still to be sent
};

// A response the responder still has to send, in order.
struct Response {
  enum Kind : uint8_t { Ack, ReadData, AtomicAck } kind = Ack;
  uint8_t syndrome = 0;        // Ack: AETH type and code (a plain ACK gets its credit count when sent)
  uint32_t psn = 0;            // Ack / AtomicAck: its PSN; ReadData: the next response's PSN
  uint32_t msn = 0;            // the MSN when it was queued
  uint32_t resource = 0;       // ReadData / AtomicAck: index into resources
  uint32_t start_psn = 0;      // ReadData: the stream's first and last PSN
  uint32_t last_psn = 0;
  uint64_t ready_ps = 0;       // AtomicAck: when the original value read from host memory is at the HCA
  uint64_t request_ps = 0;     // when the request it answers reached the QP (latency parts)
};

struct QpStats {
  uint64_t messages_sent = 0;      // send WQEs completed successfully
  uint64_t messages_received = 0;  // receive WQEs completed successfully
  uint64_t bytes_sent = 0;         // of successful send WQEs
  uint64_t bytes_received = 0;
  uint64_t request_packets = 0;    // request packets sent, resends included
  uint64_t resent_packets = 0;     // of those, resends
  uint64_t response_packets = 0;   // ACKs, NAKs, read and atomic responses sent
  uint64_t retries = 0;            // rewinds: PSN sequence NAKs, timeouts, implied NAKs
  uint64_t timeouts = 0;           // transport timer expiries
  uint64_t rnr_naks_received = 0;  // RNR waits
  uint64_t naks_received[4] = {};  // PSN sequence, invalid request, remote access, remote operational
  uint64_t rnr_naks_sent = 0;
  uint64_t naks_sent[4] = {};
  uint64_t duplicates = 0;         // duplicate requests answered
  uint64_t out_of_order = 0;       // out_of_order QPs: requests and responses taken ahead of their PSN
  uint64_t dropped = 0;            // packets the QP discarded (state, Q_Key, silent PSN errors, UC losses)
};

// An out_of_order RC QP's packets taken ahead of their PSN, by PSN: requests
// ahead of ePSN (responder), READ responses and atomic ACKs ahead of una
// (requester); and the latest ACK that covers a READ whose responses are
// still on their way.
struct OutOfOrder {
  static constexpr uint32_t kWindow = 256;  // PSNs ahead that are taken; beyond: as without (model)
  std::map<uint32_t, ib::Packet> requests;
  std::map<uint32_t, ib::Packet> responses;
  std::optional<ib::Packet> ack;
};

struct Qp {
  // Laid out for the cache: the fields a packet reads or writes come first
  // (identity, the requester's and responder's progress, the attributes and
  // the queues' heads), so a QP's turn touches few cache lines; the counters
  // come last. With thousands of QPs served round robin, each turn finds its
  // QP out of cache.

  // Identity.
  uint32_t qpn = 0;
  QpType type = QpType::Rc;
  QpState state = QpState::Reset;
  unsigned port = 0;           // 0-based port index of the HCA
  uint16_t slid = 0;           // this port's LID plus the path bits

  // Requester.
  bool rnr_waiting = false;      // resend waits for rnr_until_ps
  bool retry_pending = false;    // a resend for a gap is under way; later signs of the same gap are ignored
  bool drain_told = false;       // SQD: the sq_drained event has been raised
  uint8_t retry_left = 0;
  uint8_t rnr_left = 0;
  uint8_t rd_atomic_outstanding = 0;
  uint32_t next_wqe = 0;         // sq index of the WQE being sent
  uint32_t next_packet = 0;      // its packet index
  uint32_t npsn = 0;
  uint32_t una = 0;
  uint32_t send_psn = 0;
  uint32_t fresh_psn = 0;        // PSNs before this one have been sent at least once
  uint32_t ssn = 0;
  uint32_t since_ack_req = 0;    // request packets sent since the last with AckReq
  uint64_t timer_at_ps = 0;      // transport timer deadline; 0 = stopped
  uint64_t rnr_until_ps = 0;

  // Responder.
  uint8_t in_message = 0;        // 0 none; 1 SEND or 2 WRITE between a first and its last
  bool nak_sent = false;         // a PSN sequence NAK is out; silent until epsn comes
  bool becn_owed = false;        // congestion control: a request came with FECN; the next response carries BECN
  uint32_t epsn = 0;
  uint32_t msn = 0;
  uint64_t recv_offset = 0;      // bytes of the current SEND placed in rq[0], or of the current WRITE written
  uint64_t write_va = 0;         // current multi-packet RDMA WRITE: next address
  uint64_t write_left = 0;       //   and bytes still expected (from the RETH)
  uint32_t write_rkey = 0;       //   and its R_Key

  QpAttr attr;                   // as last set by modify_qp
  QpInit init;

  // Queues.
  ib::RingFifo<Response, 2> responses;  // responses the responder still has to send
  ib::RingFifo<RecvWqe, 1> rq;
  ib::RingFifo<SendWqe, 1> sq;   // posted and not retired; [0] is the oldest
  std::vector<ReadResource> resources;  // up to max_dest_rd_atomic slots, made when first used, reused oldest first
  uint32_t next_resource = 0;
  std::unique_ptr<OutOfOrder> ooo;      // QpInit::out_of_order: what came ahead of its PSN; null otherwise

  QpStats stats;
};

// The kept-packet state of an RC QP whose QpInit asks for out-of-order
// placement; null for every other QP (at creation and at a reset to RESET).
inline void arm_out_of_order(Qp& qp) {
  qp.ooo = qp.init.out_of_order && qp.type == QpType::Rc ? std::make_unique<OutOfOrder>() : nullptr;
}

// A receive-queue completion with no data (an error or a flush).
inline WorkCompletion recv_completion(const Qp& qp, uint64_t wr_id, WcStatus status, uint64_t now_ps) {
  WorkCompletion wc;
  wc.wr_id = wr_id;
  wc.status = status;
  wc.opcode = WcOpcode::Recv;
  wc.qp_num = qp.qpn;
  wc.time_ps = now_ps;
  return wc;
}

}  // namespace hcasim::transport
