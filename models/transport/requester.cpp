#include "models/transport/requester.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/opcodes.hpp"
#include "models/transport/message_layout.hpp"
#include "models/transport/psn.hpp"
#include "models/transport/transport_timers.hpp"

namespace hcasim::transport {

namespace {
constexpr uint32_t kUseQpQkey = 0x80000000;  // IBA: a WR Q_Key with the high bit set means the QP's Q_Key
constexpr uint64_t kMaxDmaLength = uint64_t{1} << 31;  // seed 001: DMALen above 2^31 is invalid

WcOpcode completion_opcode(WrOpcode op) {
  switch (op) {
    case WrOpcode::RdmaWrite:
    case WrOpcode::RdmaWriteWithImm: return WcOpcode::RdmaWrite;
    case WrOpcode::RdmaRead: return WcOpcode::RdmaRead;
    case WrOpcode::AtomicCmpSwp: return WcOpcode::CompSwap;
    case WrOpcode::AtomicFetchAdd: return WcOpcode::FetchAdd;
    default: return WcOpcode::Send;
  }
}

bool is_atomic(WrOpcode op) { return op == WrOpcode::AtomicCmpSwp || op == WrOpcode::AtomicFetchAdd; }

uint32_t last_psn(const SendWqe& w) { return psn_add(w.first_psn, w.psns - 1); }

WorkCompletion send_completion(const Qp& qp, const SendWqe& w, WcStatus status, uint64_t now) {
  WorkCompletion wc;
  wc.wr_id = w.wr.wr_id;
  wc.status = status;
  wc.opcode = completion_opcode(w.wr.opcode);
  wc.byte_len = static_cast<uint32_t>(w.length);
  wc.qp_num = qp.qpn;
  wc.time_ps = now;
  wc.times = w.times;
  return wc;
}

// w is answered by response p: done, with the answer's times (WrTimes).
void answered(SendWqe& w, const ib::Packet& p, uint64_t now) {
  w.done = true;
  w.times.at_responder_ps = p.request_in_ps;
  w.times.response_ps = p.submitted_ps;
  w.times.response_in_ps = now;
}

bool sending_state(QpState s) { return s == QpState::Rts || s == QpState::Sqd; }
}  // namespace

bool Requester::has_work(const Qp& qp, const TransportConfig& config) {
  if (!sending_state(qp.state) || qp.rnr_waiting || qp.next_wqe >= qp.sq.size()) return false;
  const SendWqe& w = qp.sq[qp.next_wqe];
  if (w.assigned) return true;
  if (qp.state == QpState::Sqd) return false;  // drained: no new WQE starts
  if (config.max_wqes_in_flight != 0 && qp.next_wqe >= config.max_wqes_in_flight) return false;  // sq[0, next_wqe) started, not completed
  if (qp.type != QpType::Rc) return true;
  if (is_read_or_atomic(w.wr.opcode) && qp.rd_atomic_outstanding >= qp.attr.max_rd_atomic) return false;
  return static_cast<uint32_t>(psn_diff(qp.npsn, qp.una)) < config.max_unacked_psns;
}

void Requester::check_drained(Qp& qp, QpServices& s) {
  if (qp.state != QpState::Sqd || qp.drain_told || qp.una != qp.npsn) return;
  if (qp.next_wqe < qp.sq.size() && qp.sq[qp.next_wqe].assigned) return;  // a message is part sent
  qp.drain_told = true;
  s.async_event(qp, "IBV_EVENT_SQ_DRAINED");
}

ib::Packet* Requester::next_packet(Qp& qp, QpServices& s, bool& first_of_message, uint64_t& data_ready_ps) {
  SendWqe& w = qp.sq[qp.next_wqe];
  const uint32_t mtu = qp.attr.path_mtu;
  const WrOpcode op = w.wr.opcode;
  const QpState error_state = qp.type == QpType::Rc ? QpState::Err : QpState::Sqe;
  first_of_message = qp.next_packet == 0;
  data_ready_ps = 0;
  if (!w.assigned && w.unusable != 0) {  // its turn: the QP fails with it (seed 001: a local QP operation error)
    fail(qp, s, static_cast<int>(qp.next_wqe), WcStatus::LocQpOpErr, error_state, w.unusable);
    return nullptr;
  }
  if (!w.assigned) {
    const uint32_t access = is_read_or_atomic(op) ? uint32_t{kLocalWrite} : 0u;
    if (check_sg(s.memory(), w.wr.sg_list, access) != KeyCheck::Ok) {
      fail(qp, s, static_cast<int>(qp.next_wqe), WcStatus::LocProtErr, error_state);
      return nullptr;
    }
    const bool too_long = (qp.type == QpType::Ud && w.length > mtu) ||
                          (is_atomic(op) && sg_length(w.wr.sg_list) < 8) || w.length > kMaxDmaLength;
    if (too_long) {
      fail(qp, s, static_cast<int>(qp.next_wqe), WcStatus::LocLenErr, error_state);
      return nullptr;
    }
    w.first_psn = qp.npsn;
    w.psns = is_atomic(op) ? 1 : packet_count(w.length, mtu);
    w.assigned = true;
    qp.npsn = psn_add(qp.npsn, w.psns);
    qp.send_psn = w.first_psn;
    qp.next_packet = 0;
    if (qp.type == QpType::Rc && is_read_or_atomic(op)) ++qp.rd_atomic_outstanding;
  }

  const uint32_t psn = qp.send_psn;
  const bool resend = psn_diff(psn, qp.fresh_psn) < 0;
  ib::Packet* p = s.new_packet();
  p->ssn = w.ssn;
  ib::Headers& h = p->hdr;
  const bool ud = qp.type == QpType::Ud;
  const AddressVector& av = ud ? w.wr.ah : qp.attr.ah_attr;
  const uint32_t dest_qp = ud ? w.wr.remote_qpn : qp.attr.dest_qp_num;
  const uint16_t slid = static_cast<uint16_t>(qp.slid + (ud ? w.wr.ah.src_path_bits : 0));
  bool message_end = false;

  if (op == WrOpcode::RdmaRead) {
    const uint64_t offset = static_cast<uint64_t>(psn_diff(psn, w.first_psn)) * mtu;
    fill_lrh_bth(*p, av.sl, av.dlid, slid, ib::op::kRcReadRequest, dest_qp, psn);
    h.reth = {w.wr.remote_addr + offset, w.wr.rkey, static_cast<uint32_t>(w.length - offset)};
    qp.send_psn = psn_add(w.first_psn, w.psns);
    ++qp.next_wqe;
    qp.next_packet = 0;
    message_end = true;
  } else if (is_atomic(op)) {
    fill_lrh_bth(*p, av.sl, av.dlid, slid, request_opcode(qp.type, op, 0, 1), dest_qp, psn);
    h.atomic_eth.va = w.wr.remote_addr;
    h.atomic_eth.r_key = w.wr.rkey;
    h.atomic_eth.swap_add = op == WrOpcode::AtomicCmpSwp ? w.wr.swap : w.wr.compare_add;
    h.atomic_eth.compare = op == WrOpcode::AtomicCmpSwp ? w.wr.compare_add : 0;
    qp.send_psn = psn_add(psn, 1);
    ++qp.next_wqe;
    qp.next_packet = 0;
    message_end = true;
  } else {
    const uint32_t count = packet_count(w.length, mtu);
    const uint32_t index = qp.next_packet;
    const uint64_t offset = static_cast<uint64_t>(index) * mtu;
    const auto len = static_cast<uint32_t>(std::min<uint64_t>(mtu, w.length - offset));
    const Position at = position(index, count);
    message_end = at == Position::Last || at == Position::Only;
    fill_lrh_bth(*p, av.sl, av.dlid, slid, request_opcode(qp.type, op, index, count), dest_qp, psn);
    const bool write = op == WrOpcode::RdmaWrite || op == WrOpcode::RdmaWriteWithImm;
    if (write && (at == Position::First || at == Position::Only))
      h.reth = {w.wr.remote_addr, w.wr.rkey, static_cast<uint32_t>(w.length)};
    if (message_end) {
      h.bth.se = w.wr.solicited;
      if (op == WrOpcode::SendWithImm || op == WrOpcode::RdmaWriteWithImm) h.imm_dt = w.wr.imm_data;
      if (op == WrOpcode::SendWithInv) h.ieth_r_key = w.wr.imm_data;
    }
    if (ud) {
      h.deth.q_key = (w.wr.remote_qkey & kUseQpQkey) ? qp.attr.qkey : w.wr.remote_qkey;
      h.deth.src_qp = qp.qpn;
    }
    p->payload.resize(len);
    if (!w.wr.inline_data.empty()) std::copy_n(w.wr.inline_data.begin() + static_cast<std::ptrdiff_t>(offset), len,
                                               p->payload.begin());
    else data_ready_ps = gather(s.memory(), w.wr.sg_list, offset, p->payload.data(), len);
    p->payload_len = len;
    qp.send_psn = psn_add(psn, 1);
    if (++qp.next_packet == count) {
      ++qp.next_wqe;
      qp.next_packet = 0;
    }
  }

  if (qp.type == QpType::Rc) {
    const TransportConfig& c = s.config();
    ++qp.since_ack_req;
    h.bth.ack_req = c.ack_req == AckReqPolicy::EveryPacket || message_end || qp.since_ack_req >= c.ack_req_interval;
    if (h.bth.ack_req) qp.since_ack_req = 0;
    if (psn_diff(qp.send_psn, qp.fresh_psn) > 0) qp.fresh_psn = qp.send_psn;
    const uint64_t ttr = transport_timer_ps(qp.attr.timeout);
    qp.timer_at_ps = ttr ? s.now_ps() + ttr : 0;
  } else if (message_end) {
    w.done = true;  // UC and UD: nothing comes back
    qp.fresh_psn = qp.send_psn;
    qp.una = qp.send_psn;
    retire(qp, s);
  }
  ++qp.stats.request_packets;
  if (resend) ++qp.stats.resent_packets;
  p->finalize_lengths();
  return p;
}

bool Requester::hold(Qp& qp, const ib::Packet& p) {
  const int32_t ahead = psn_diff(p.hdr.bth.psn, qp.una);
  if (qp.ooo == nullptr || ahead < 0 || ahead >= static_cast<int32_t>(OutOfOrder::kWindow)) return false;
  OutOfOrder& o = *qp.ooo;
  if (p.hdr.bth.opcode == ib::op::kRcAck) {  // the latest acknowledgement covers the others
    if (!o.ack.has_value() || psn_diff(p.hdr.bth.psn, o.ack->hdr.bth.psn) > 0) o.ack = p;
    return true;
  }
  if (o.responses.emplace(p.hdr.bth.psn, p).second) ++qp.stats.out_of_order;
  return true;
}

void Requester::take_held(Qp& qp, QpServices& s) {
  OutOfOrder& o = *qp.ooo;
  if (o.responses.empty() && !o.ack.has_value()) return;
  for (uint32_t before = qp.una + 1; before != qp.una && sending_state(qp.state);) {
    before = qp.una;
    if (const auto it = o.responses.find(qp.una); it != o.responses.end()) {
      const ib::Packet p = std::move(it->second);
      o.responses.erase(it);
      on_response(qp, s, p);
    } else if (o.ack.has_value()) {
      const ib::Packet p = std::move(*o.ack);
      o.ack.reset();
      on_response(qp, s, p);
    }
  }
  for (auto it = o.responses.begin(); it != o.responses.end();)  // behind una now: answered already
    it = psn_diff(it->first, qp.una) < 0 ? o.responses.erase(it) : std::next(it);
}

void Requester::on_response(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  const bool in_window = psn_diff(psn, qp.una) >= 0 && psn_diff(psn, qp.fresh_psn) < 0;
  if (qp.type != QpType::Rc || !sending_state(qp.state) || !in_window) {
    ++qp.stats.dropped;  // late, duplicate or for nothing outstanding
    return;
  }
  switch (p.hdr.bth.opcode) {
    case ib::op::kRcAck: break;
    case ib::op::kRcReadRespFirst:
    case ib::op::kRcReadRespMiddle:
    case ib::op::kRcReadRespLast:
    case ib::op::kRcReadRespOnly: on_read_response(qp, s, p); return;
    case ib::op::kRcAtomicAck: on_atomic_ack(qp, s, p); return;
    default: ++qp.stats.dropped; return;
  }
  const uint8_t syndrome = p.hdr.aeth.syndrome;
  switch (syndrome & 0x60) {
    case kAethAck:
      ack_through(qp, s, psn, p);
      return;
    case kAethRnrNak: {
      if (!ack_through(qp, s, psn_add(psn, kPsnMask), p)) return;
      ++qp.stats.rnr_naks_received;
      if (qp.attr.rnr_retry != 7) {  // seed 001: 7 means retry forever
        if (qp.rnr_left == 0) {
          fail(qp, s, wqe_holding(qp, psn), WcStatus::RnrRetryExcErr, QpState::Err);
          return;
        }
        --qp.rnr_left;
      }
      qp.rnr_waiting = true;
      qp.rnr_until_ps = s.now_ps() + rnr_delay_ps(syndrome & 31);
      qp.timer_at_ps = 0;
      rewind(qp, psn);
      return;
    }
    case kAethNak: {
      if (!ack_through(qp, s, psn_add(psn, kPsnMask), p)) return;
      const uint8_t code = syndrome & 31;
      if (code <= kNakRemoteOperational) ++qp.stats.naks_received[code];
      static constexpr WcStatus kStatus[] = {WcStatus::Success, WcStatus::RemInvReqErr, WcStatus::RemAccessErr,
                                             WcStatus::RemOpErr, WcStatus::RemInvRdReqErr};
      if (code == kNakPsnSequence) resend_from(qp, s, psn, false);
      else fail(qp, s, wqe_holding(qp, psn), code <= 4 ? kStatus[code] : WcStatus::BadRespErr, QpState::Err);
      return;
    }
    default: ++qp.stats.dropped; return;  // reserved AETH type
  }
}

// Acknowledges every PSN up to psn. False when that showed lost READ or atomic
// responses and a resend (or a failure) followed: the caller stops.
bool Requester::ack_through(Qp& qp, QpServices& s, uint32_t psn, const ib::Packet& response) {
  if (psn_diff(psn, qp.una) < 0) return true;  // nothing new
  for (std::size_t i = 0; i < qp.sq.size(); ++i) {
    SendWqe& w = qp.sq[i];
    if (!w.assigned) break;
    if (w.done) continue;
    if (psn_diff(last_psn(w), psn) > 0) break;  // not wholly covered
    if (is_read_or_atomic(w.wr.opcode)) {
      // Covered but unanswered: its responses were lost (or, out of order,
      // are still on their way). Resend from the first missing one.
      if (psn_diff(qp.una, w.first_psn) < 0) {
        qp.una = w.first_psn;
        retire(qp, s);
        progress(qp, s);
      }
      if (!hold(qp, response)) resend_from(qp, s, qp.una, false);
      return false;
    }
    answered(w, response, s.now_ps());
  }
  qp.una = psn_add(psn, 1);
  retire(qp, s);
  progress(qp, s);
  return true;
}

void Requester::on_read_response(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  const uint8_t op = p.hdr.bth.opcode;
  if (op == ib::op::kRcReadRespFirst || op == ib::op::kRcReadRespOnly) {
    if (!ack_through(qp, s, psn_add(psn, kPsnMask), p)) return;  // the AETH acknowledges earlier PSNs
  }
  const int i = wqe_holding(qp, psn);
  if (i < 0 || qp.sq[i].wr.opcode != WrOpcode::RdmaRead) {
    ++qp.stats.dropped;
    return;
  }
  if (psn != qp.una) {  // an earlier response is missing (out of order: still on its way)
    if (!hold(qp, p)) resend_from(qp, s, qp.una, false);
    return;
  }
  SendWqe& w = qp.sq[i];
  const uint32_t mtu = qp.attr.path_mtu;
  const uint64_t offset = static_cast<uint64_t>(psn_diff(psn, w.first_psn)) * mtu;
  const uint64_t expected = std::min<uint64_t>(mtu, w.length - offset);
  if (p.payload_len != expected || p.payload.size() != p.payload_len) {
    fail(qp, s, i, WcStatus::BadRespErr, QpState::Err);
    return;
  }
  scatter(s.memory(), w.wr.sg_list, offset, p.payload.data(), p.payload_len);
  qp.una = psn_add(psn, 1);
  if (psn == last_psn(w)) {
    answered(w, p, s.now_ps());
    --qp.rd_atomic_outstanding;
  }
  retire(qp, s);
  progress(qp, s);
}

void Requester::on_atomic_ack(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  if (!ack_through(qp, s, psn_add(psn, kPsnMask), p)) return;
  const int i = wqe_holding(qp, psn);
  if (i < 0 || !is_atomic(qp.sq[i].wr.opcode) || psn != qp.una) {
    ++qp.stats.dropped;
    return;
  }
  SendWqe& w = qp.sq[i];
  uint8_t bytes[8];
  to_le64(p.hdr.atomic_ack_eth.orig_data, bytes);
  scatter(s.memory(), w.wr.sg_list, 0, bytes, 8);
  qp.una = psn_add(psn, 1);
  answered(w, p, s.now_ps());
  --qp.rd_atomic_outstanding;
  retire(qp, s);
  progress(qp, s);
}

void Requester::on_timeout(Qp& qp, QpServices& s) {
  qp.timer_at_ps = 0;
  if (qp.type != QpType::Rc || !sending_state(qp.state) || qp.rnr_waiting) return;
  if (psn_diff(qp.fresh_psn, qp.una) <= 0) return;  // nothing outstanding
  ++qp.stats.timeouts;
  resend_from(qp, s, qp.una, true);
}

void Requester::on_rnr_wait_over(Qp& qp) { qp.rnr_waiting = false; }

void Requester::resend_from(Qp& qp, QpServices& s, uint32_t psn, bool timeout) {
  // The responses that follow a lost one all show the same gap: one resend
  // (and one retry) per gap, until a response makes progress or the timer expires.
  if (qp.retry_pending && !timeout) return;
  if (qp.retry_left == 0) {
    fail(qp, s, std::max(wqe_holding(qp, psn), 0), WcStatus::RetryExcErr, QpState::Err);
    return;
  }
  --qp.retry_left;
  ++qp.stats.retries;
  qp.retry_pending = true;
  rewind(qp, psn);
  if (!timeout) qp.timer_at_ps = 0;  // restarted when the resend goes out
}

void Requester::rewind(Qp& qp, uint32_t psn) {
  const int i = wqe_holding(qp, psn);
  if (i < 0) return;  // nothing sent holds it
  const SendWqe& w = qp.sq[i];
  qp.next_wqe = static_cast<uint32_t>(i);
  const bool whole = is_read_or_atomic(w.wr.opcode);
  qp.next_packet = whole ? 0 : static_cast<uint32_t>(psn_diff(psn, w.first_psn));
  qp.send_psn = psn;
  qp.timer_at_ps = 0;
}

const SendWqe* Requester::answered_wqe(const Qp& qp, const ib::Packet& p) {
  const uint8_t op = p.hdr.bth.opcode;
  const bool read = op == ib::op::kRcReadRespFirst || op == ib::op::kRcReadRespMiddle ||
                    op == ib::op::kRcReadRespLast || op == ib::op::kRcReadRespOnly;
  if (!read && op != ib::op::kRcAtomicAck) return nullptr;
  const int i = wqe_holding(qp, p.hdr.bth.psn);
  return i < 0 ? nullptr : &qp.sq[static_cast<std::size_t>(i)];
}

uint32_t Requester::reads_outstanding(const Qp& qp) {
  uint32_t n = 0;
  for (std::size_t i = 0; i < qp.sq.size(); ++i)
    if (!qp.sq[i].done && is_read_or_atomic(qp.sq[i].wr.opcode)) ++n;
  return n;
}

int Requester::wqe_holding(const Qp& qp, uint32_t psn) {
  for (std::size_t i = 0; i < qp.sq.size(); ++i) {
    const SendWqe& w = qp.sq[i];
    if (!w.assigned) break;
    if (psn_diff(psn, w.first_psn) >= 0 && psn_diff(psn, w.first_psn) < static_cast<int32_t>(w.psns))
      return static_cast<int>(i);
  }
  return -1;
}

void Requester::retire(Qp& qp, QpServices& s) {
  while (!qp.sq.empty() && qp.sq.front().done) {
    // Off the queue before its completion: the completion's handler may post again.
    const SendWqe w = std::move(qp.sq.front());
    qp.sq.pop_front();
    if (qp.next_wqe > 0) {
      --qp.next_wqe;
    } else {
      // It was being resent, and its first sending was acknowledged whole (an
      // ACK reordered behind the NAK that rewound it): go on from the first
      // unacknowledged PSN, in the WQE that holds it (none: a fresh one).
      qp.next_packet = 0;
      rewind(qp, qp.una);
    }
    ++qp.stats.messages_sent;
    qp.stats.bytes_sent += w.length;
    if (w.wr.signaled) s.complete(qp, true, send_completion(qp, w, WcStatus::Success, s.now_ps()));
    else s.retired_unsignaled(qp, w.wr);
  }
}

void Requester::progress(Qp& qp, QpServices& s) {
  qp.retry_pending = false;
  qp.retry_left = qp.attr.retry_cnt;
  qp.rnr_left = qp.attr.rnr_retry;
  const uint64_t ttr = transport_timer_ps(qp.attr.timeout);
  const bool outstanding = psn_diff(qp.fresh_psn, qp.una) > 0;
  qp.timer_at_ps = outstanding && ttr ? s.now_ps() + ttr : 0;
}

void Requester::fail(Qp& qp, QpServices& s, int failed, WcStatus status, QpState to, uint32_t vendor_err) {
  const uint64_t now = s.now_ps();
  // The QP is in its new state, its queues empty, before the completions:
  // their handlers may post again (and see the QP failed).
  std::vector<WorkCompletion> out;
  for (std::size_t i = 0; i < qp.sq.size(); ++i) {
    const bool it = static_cast<int>(i) == failed;
    out.push_back(send_completion(qp, qp.sq[i], it ? status : WcStatus::WrFlushErr, now));
    if (it) out.back().vendor_err = vendor_err;
  }
  const std::size_t sends = out.size();
  if (to == QpState::Err)
    for (std::size_t i = 0; i < qp.rq.size(); ++i)
      out.push_back(recv_completion(qp, qp.rq[i].wr.wr_id, WcStatus::WrFlushErr, now));
  qp.sq.clear();
  qp.next_wqe = 0;
  qp.next_packet = 0;
  if (to == QpState::Err) qp.rq.clear();
  qp.state = to;
  qp.timer_at_ps = 0;
  qp.rnr_waiting = false;
  qp.rd_atomic_outstanding = 0;
  for (std::size_t i = 0; i < out.size(); ++i) s.complete(qp, i < sends, out[i]);
}

void Requester::flush_now(Qp& qp, QpServices& s, const SendWr& wr) {
  SendWqe w;
  w.wr = wr;
  s.complete(qp, true, send_completion(qp, w, WcStatus::WrFlushErr, s.now_ps()));
}

void Requester::queue_unusable(Qp& qp, QpServices& s, const SendWr& wr, uint32_t vendor_err) {
  if (qp.state == QpState::Err || qp.state == QpState::Sqe) {
    flush_now(qp, s, wr);
    return;
  }
  SendWqe w;
  w.wr = wr;
  w.unusable = vendor_err;
  w.times.on_chip_ps = s.now_ps();
  w.ssn = ++qp.ssn;
  qp.sq.push_back(std::move(w));
}

}  // namespace hcasim::transport
