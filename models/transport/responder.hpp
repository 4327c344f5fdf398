#pragma once
// The responder (RQ logic) of a QP: checks each request packet, places its
// data, makes receive completions and queues the responses, which the engine
// sends one per call of next_packet, in order. Plain C++ on a Qp.
//
// Rules, RC (seed 002; seed 001; iba-facts 5):
// - PSN = ePSN: the request is checked and executed; ePSN advances by 1, or by
//   the number of response packets for a READ.
// - PSN ahead of ePSN: one PSN sequence error NAK carrying ePSN, then silence
//   (no NAK of any kind) until a request with PSN = ePSN arrives.
// - out_of_order QPs (QpInit::out_of_order, mlx5's OOO data placement): a
//   request less than OutOfOrder::kWindow PSNs ahead of ePSN is taken, not
//   NAKed (counted in QpStats::out_of_order): its data's DMA write was issued
//   at its arrival, as every packet's is, and its checks, ePSN, MSN,
//   responses and completions follow in PSN order once the requests before it
//   are in, so completions stay in order. Not while an RNR NAK is out.
// - PSN behind ePSN (a duplicate): SEND and WRITE are re-acknowledged with
//   ePSN - 1; a READ is answered again from the kept resource holding its PSN
//   (from that PSN on); an atomic gets its saved original value again. A
//   duplicate never causes a NAK; one with no kept resource is dropped.
// - Checks of a new request, in order, each with the NAK the text gives (the
//   NAK's PSN is the request's, which is ePSN):
//   invalid request: opcode not an RC request, or RDMA / atomic not allowed by
//     the QP's access flags; bad opcode sequence (a FIRST or ONLY inside a
//     message, a MIDDLE or LAST outside one, or of another kind); PadCnt non-zero
//     on a FIRST or MIDDLE, or a FIRST / MIDDLE payload other than PMTU; a SEND
//     longer than the receive WQE; a DMALen over 2^31; a WRITE whose packets
//     carry more or fewer bytes than its DMALen; a misaligned atomic address; a
//     READ or atomic with every one of max_dest_rd_atomic resources busy;
//   remote access error: R_Key invalid, or the range or access not allowed;
//   remote operational error: a malformed receive WQE (its scatter list fails
//     the local key check);
//   RNR NAK (the QP's min_rnr_timer): a SEND, or a WRITE with immediate at its
//     last packet, and no receive WQE posted. ePSN stays; nothing changes.
// - After an invalid request, remote access or remote operational error NAK the
//   QP goes to Error: ePSN stays, later requests are dropped, a receive WQE in
//   use completes with the status of seed 001 Table 17-5 (loc_len_err for a
//   SEND too long, rem_inv_req_err, rem_access_err, loc_qp_op_err), the others
//   and every send WQE are flushed; an error on a request that uses no receive
//   WQE raises an affiliated asynchronous error.
// - Responses: an ACK per request (or only for those with AckReq when
//   ack_coalescing is on), with the request's PSN; AETH = credit count (receive
//   WQEs posted, iba-facts 5 encoding) and MSN, which counts completed messages
//   and accepted READs and atomics. Responses leave in the order of their
//   requests.
// - UC: no responses. A PSN other than ePSN abandons the message in progress;
//   packets are dropped until a FIRST or ONLY, whose PSN becomes ePSN. Errors
//   drop the message silently.
// - UD: one packet per message; a Q_Key other than the QP's drops it; no
//   receive WQE drops it; data lands after the 40-byte GRH space of the
//   receive buffer and byte_len counts that space.

#include "models/ib/packet.hpp"
#include "models/transport/qp.hpp"
#include "models/transport/qp_services.hpp"

namespace hcasim::transport {

class Responder {
 public:
  static void on_request(Qp& qp, QpServices& s, const ib::Packet& p);
  static bool has_work(const Qp& qp) { return !qp.responses.empty(); }
  // The next response; data_ready_ps: when the host memory it carries (READ
  // data, an atomic's original value) is at the HCA (0: nothing read).
  static ib::Packet* next_packet(Qp& qp, QpServices& s, uint64_t& data_ready_ps);

 private:
  static void on_rc_request(Qp& qp, QpServices& s, const ib::Packet& p);
  static void on_rc_duplicate(Qp& qp, QpServices& s, const ib::Packet& p);
  static void take_held(Qp& qp, QpServices& s);
  static void on_uc_request(Qp& qp, QpServices& s, const ib::Packet& p);
  static void on_ud_request(Qp& qp, QpServices& s, const ib::Packet& p);
  static void queue_ack(Qp& qp, uint32_t psn, uint8_t syndrome);
  static void nak_and_fail(Qp& qp, QpServices& s, uint32_t psn, uint8_t code, bool uses_wqe, WcStatus wqe_status);
  static void complete_recv(Qp& qp, QpServices& s, const ib::Packet& p, uint64_t bytes, bool write_imm);
};

}  // namespace hcasim::transport
