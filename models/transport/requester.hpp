#pragma once
// The requester (SQ logic) of a QP: turns send WQEs into request packets and
// acts on the responses. Plain C++ on a Qp; the engine calls it.
//
// Rules (seed 002 for the error-free path, seed 001 for NAKs; iba-facts 5):
// - WQEs are sent in order, one packet per call of next_packet. A READ is one
//   request packet but takes one PSN per response packet it asks for; every
//   other request packet takes one PSN. PSNs wrap at 2^24.
// - At most max_rd_atomic READs and atomics are outstanding; a new one waits.
// - AckReq: on every packet, or on a message's last packet and after
//   ack_req_interval packets without one (TransportConfig).
// - An ACK of PSN n acknowledges every PSN up to n; a NAK, an RNR NAK, a READ's
//   first response and an atomic ACK acknowledge every PSN before theirs.
//   WQEs retire in order; a successful one makes a completion if signaled.
// - A READ response must carry exactly the next expected PSN; a gap, or an ACK
//   that covers a READ or atomic still unanswered, means responses were lost:
//   the requester resends from the first missing PSN (a READ is requested again
//   for its remaining bytes).
// - out_of_order QPs (QpInit::out_of_order): a READ response or atomic ACK up
//   to OutOfOrder::kWindow PSNs ahead of the first unacknowledged PSN, and an
//   ACK that covers a READ still unanswered, are kept (counted in
//   QpStats::out_of_order), not taken as a loss; they are acted on in PSN
//   order once the responses before them are in (READ data is scattered then;
//   its DMA was issued at its arrival). A real loss is found by the timer.
// - PSN sequence error NAK: resend from the NAK's PSN. A WQE acknowledged
//   whole while it is being resent (its first sending's ACK reordered behind
//   the NAK) retires, and the resend goes on from the first unacknowledged PSN. Transport timer (Ttr =
//   4.096 us x 2^timeout, 0 = off) restarted by every request sent and every
//   acknowledgement that makes progress, stopped when nothing is outstanding;
//   on expiry, resend from the oldest unacknowledged PSN. Each resend takes one
//   of retry_cnt retries; progress reloads the count. None left: the WQE
//   completes with retry_exc_err. One gap costs one retry: until a response
//   makes progress, later responses showing the same gap (or the same lost
//   READ response) start no other resend; only the timer does.
// - RNR NAK: wait the timer code's delay (seed 001 Table 17-6), then resend
//   from the NAK's PSN; rnr_retry = 7 retries forever, otherwise each wait
//   takes one retry and none left ends in rnr_retry_exc_err.
// - Remote access, invalid request and remote operational error NAKs end the
//   WQE with rem_access_err, rem_inv_req_err and rem_op_err; they are never
//   retried.
// - An error ends an RC QP in the Error state: the failed WQE completes with
//   its status and every other WQE of both queues with wr_flush_err (seed 001).
//   A UC or UD send-side error moves the QP to SQE and flushes the send queue.
// - UC and UD: no responses; a WQE completes once its last packet is built.
// - SQD: a message already started goes on to its end; no new one starts. Once
//   none is in flight and every PSN is acknowledged, the QP raises
//   IBV_EVENT_SQ_DRAINED (once per entry into SQD).

#include <cstdint>

#include "models/ib/packet.hpp"
#include "models/transport/qp.hpp"
#include "models/transport/qp_services.hpp"

namespace hcasim::transport {

// NAK codes of the AETH (seed 001 Table 17-4), as indexes of QpStats::naks_*.
enum NakCode : uint8_t { kNakPsnSequence = 0, kNakInvalidRequest = 1, kNakRemoteAccess = 2, kNakRemoteOperational = 3 };
constexpr uint8_t kAethAck = 0x00;      // seed 002 Table 17-3: bits 6:5 = 00 ACK
constexpr uint8_t kAethRnrNak = 0x20;   // 01: RNR NAK, bits 4:0 the timer
constexpr uint8_t kAethNak = 0x60;      // 11: NAK, bits 4:0 the code

class Requester {
 public:
  // Whether the QP has a request packet to send now.
  static bool has_work(const Qp& qp, const TransportConfig& config);
  // Builds the next request packet, or returns nullptr if the WQE failed
  // locally instead (its completion is made). first_of_message says whether the
  // packet starts a WQE (for the engine's per-message latency); data_ready_ps
  // when its payload's gather read is done (0: nothing read; host_memory.hpp).
  // A WQE with inline data sends those bytes and reads nothing.
  static ib::Packet* next_packet(Qp& qp, QpServices& s, bool& first_of_message, uint64_t& data_ready_ps);
  // A response packet for this QP (RC only). The caller keeps the packet.
  static void on_response(Qp& qp, QpServices& s, const ib::Packet& p);
  // The send WQE a READ response or atomic ACK carries data for (the one
  // holding its PSN): its scatter list is needed. Null for other packets, or
  // when no WQE sent holds the PSN.
  static const SendWqe* answered_wqe(const Qp& qp, const ib::Packet& p);
  // READs and atomics posted to the QP and not completed.
  static uint32_t reads_outstanding(const Qp& qp);
  // The transport timer expired (timer_at_ps was due).
  static void on_timeout(Qp& qp, QpServices& s);
  // The RNR wait is over.
  static void on_rnr_wait_over(Qp& qp);
  // In SQD: raises IBV_EVENT_SQ_DRAINED once, when the messages started
  // before the drain are all sent and acknowledged.
  static void check_drained(Qp& qp, QpServices& s);
  // Moves the QP to `to` (Err or Sqe) and flushes: the WQE at sq index `failed`
  // (if any) completes with `status`, the others with wr_flush_err; Err also
  // flushes the receive queue.
  static void fail(Qp& qp, QpServices& s, int failed, WcStatus status, QpState to, uint32_t vendor_err = 0);
  // A send WQE posted to a QP in the Error state completes at once, flushed.
  static void flush_now(Qp& qp, QpServices& s, const SendWr& wr);
  // A send WQE the HCA could not use (its bytes do not decode) takes its
  // place in the send queue; when its turn comes it completes with
  // loc_qp_op_err and vendor_err, and the QP fails as for any local error
  // (the WQEs it still holds are flushed). On a QP already in ERR or SQE it
  // completes flushed at once.
  static void queue_unusable(Qp& qp, QpServices& s, const SendWr& wr, uint32_t vendor_err);

  // out_of_order: acts on the responses kept while they are next in order.
  static void take_held(Qp& qp, QpServices& s);

 private:
  static bool ack_through(Qp& qp, QpServices& s, uint32_t psn, const ib::Packet& response);
  // out_of_order: keeps a response that came ahead of una (true), or says it cannot (false).
  static bool hold(Qp& qp, const ib::Packet& p);
  static void retire(Qp& qp, QpServices& s);
  static void progress(Qp& qp, QpServices& s);
  static void resend_from(Qp& qp, QpServices& s, uint32_t psn, bool timeout);
  static void rewind(Qp& qp, uint32_t psn);
  static int wqe_holding(const Qp& qp, uint32_t psn);
  static void on_read_response(Qp& qp, QpServices& s, const ib::Packet& p);
  static void on_atomic_ack(Qp& qp, QpServices& s, const ib::Packet& p);
};

}  // namespace hcasim::transport
