#include "models/transport/responder.hpp"

#include <algorithm>

#include "models/ib/opcodes.hpp"
#include "models/transport/message_layout.hpp"
#include "models/transport/psn.hpp"
#include "models/transport/requester.hpp"
#include "models/transport/transport_timers.hpp"

namespace hcasim::transport {

namespace {
constexpr uint64_t kMaxDmaLength = uint64_t{1} << 31;  // seed 001: DMALen above 2^31 is an invalid request
constexpr uint32_t kGrhSpace = 40;                     // UD receive buffers start with room for a GRH
constexpr uint8_t kInMessageNone = 0, kInSend = 1, kInWrite = 2, kDropping = 3;

enum class Kind : uint8_t { Send, Write, Read, Atomic, Unsupported };
struct RequestInfo {
  Kind kind = Kind::Unsupported;
  Position at = Position::Only;
  bool imm = false;
  bool inv = false;
};

// The request an opcode's operation bits (4:0) name; RC and UC share them.
RequestInfo classify(uint8_t operation) {
  using P = Position;
  switch (operation) {
    case 0x00: return {Kind::Send, P::First};
    case 0x01: return {Kind::Send, P::Middle};
    case 0x02: return {Kind::Send, P::Last};
    case 0x03: return {Kind::Send, P::Last, true};
    case 0x04: return {Kind::Send, P::Only};
    case 0x05: return {Kind::Send, P::Only, true};
    case 0x06: return {Kind::Write, P::First};
    case 0x07: return {Kind::Write, P::Middle};
    case 0x08: return {Kind::Write, P::Last};
    case 0x09: return {Kind::Write, P::Last, true};
    case 0x0A: return {Kind::Write, P::Only};
    case 0x0B: return {Kind::Write, P::Only, true};
    case 0x0C: return {Kind::Read, P::Only};
    case 0x13:
    case 0x14: return {Kind::Atomic, P::Only};
    case 0x16: return {Kind::Send, P::Last, false, true};
    case 0x17: return {Kind::Send, P::Only, false, true};
    default: return {};
  }
}

bool starts(Position p) { return p == Position::First || p == Position::Only; }
bool ends(Position p) { return p == Position::Last || p == Position::Only; }
bool receiving_state(QpState s) {
  return s == QpState::Rtr || s == QpState::Rts || s == QpState::Sqd || s == QpState::Sqe;
}

// A free resource slot for a new READ or atomic, or -1 when all are busy.
// The max_dest_rd_atomic slots are taken round robin and made when first
// taken, so a QP that never serves a READ or atomic keeps none.
int free_resource(Qp& qp) {
  const uint32_t n = qp.attr.max_dest_rd_atomic;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = (qp.next_resource + k) % n;
    if (i >= qp.resources.size()) qp.resources.resize(i + 1);
    if (!qp.resources[i].pending) {
      qp.next_resource = (i + 1) % n;
      return static_cast<int>(i);
    }
  }
  return -1;
}

// The word at va, and (ready_ps) when it is at the HCA.
uint64_t load_u64(HostMemory& m, uint32_t rkey, uint64_t va, uint64_t& ready_ps) {
  uint8_t b[8];
  ready_ps = m.read(rkey, va, b, 8);
  return from_le64(b);
}
void store_u64(HostMemory& m, uint32_t rkey, uint64_t va, uint64_t v) {
  uint8_t b[8];
  to_le64(v, b);
  m.write(rkey, va, b, 8);
}

}  // namespace

void Responder::on_request(Qp& qp, QpServices& s, const ib::Packet& p) {
  if (!receiving_state(qp.state)) {
    ++qp.stats.dropped;
    return;
  }
  switch (qp.type) {
    case QpType::Rc:
      on_rc_request(qp, s, p);
      if (qp.ooo != nullptr) take_held(qp, s);
      return;
    case QpType::Uc: on_uc_request(qp, s, p); return;
    case QpType::Ud: on_ud_request(qp, s, p); return;
  }
}

void Responder::queue_ack(Qp& qp, uint32_t psn, uint8_t syndrome) {
  Response r;
  r.kind = Response::Ack;
  r.syndrome = syndrome;
  r.psn = psn;
  r.msn = qp.msn;
  qp.responses.push_back(r);
}

void Responder::nak_and_fail(Qp& qp, QpServices& s, uint32_t psn, uint8_t code, bool uses_wqe, WcStatus wqe_status) {
  queue_ack(qp, psn, static_cast<uint8_t>(kAethNak | code));
  ++qp.stats.naks_sent[code];
  if (uses_wqe && !qp.rq.empty()) {
    const WorkCompletion wc = recv_completion(qp, qp.rq.front().wr.wr_id, wqe_status, s.now_ps());
    qp.rq.pop_front();
    s.complete(qp, false, wc);
  } else {
    static constexpr const char* kEvent[] = {"", "IBV_EVENT_QP_REQ_ERR", "IBV_EVENT_QP_ACCESS_ERR", "IBV_EVENT_QP_FATAL"};
    s.async_event(qp, kEvent[code]);
  }
  qp.in_message = kInMessageNone;
  Requester::fail(qp, s, -1, WcStatus::WrFlushErr, QpState::Err);
}

void Responder::complete_recv(Qp& qp, QpServices& s, const ib::Packet& p, uint64_t bytes, bool write_imm) {
  const RequestInfo info = classify(p.hdr.bth.opcode & 0x1F);
  WorkCompletion wc;
  wc.wr_id = qp.rq.front().wr.wr_id;
  wc.opcode = write_imm ? WcOpcode::RecvRdmaWithImm : WcOpcode::Recv;
  wc.byte_len = static_cast<uint32_t>(bytes);
  wc.qp_num = qp.qpn;
  wc.src_qp = qp.type == QpType::Ud ? p.hdr.deth.src_qp : qp.attr.dest_qp_num;
  wc.slid = p.hdr.lrh.slid;
  wc.sl = p.hdr.lrh.sl;
  const bool ud_imm = p.hdr.bth.opcode == ib::op::kUdSendOnlyImm;
  wc.with_imm = info.imm || ud_imm;
  wc.imm_data = wc.with_imm ? p.hdr.imm_dt : 0;
  wc.with_inv = info.inv;
  wc.invalidated_rkey = info.inv ? p.hdr.ieth_r_key : 0;
  wc.solicited = p.hdr.bth.se;
  wc.time_ps = s.now_ps();
  wc.times.at_responder_ps = p.request_in_ps;  // its last packet reached this QP
  ++qp.stats.messages_received;
  qp.stats.bytes_received += bytes;
  qp.rq.pop_front();
  s.complete(qp, false, wc);
}

void Responder::on_rc_request(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  const int32_t ahead = psn_diff(psn, qp.epsn);
  if (ahead > 0 && qp.ooo != nullptr && ahead < static_cast<int32_t>(OutOfOrder::kWindow) && !qp.nak_sent) {
    if (qp.ooo->requests.emplace(psn, p).second) ++qp.stats.out_of_order;  // its data's DMA is under way already
    return;
  }
  if (ahead > 0) {
    ++qp.stats.dropped;
    if (!qp.nak_sent) {  // seed 001: one NAK, then silence until ePSN
      queue_ack(qp, qp.epsn, kAethNak | kNakPsnSequence);
      ++qp.stats.naks_sent[kNakPsnSequence];
      qp.nak_sent = true;
    }
    return;
  }
  if (ahead < 0) {
    on_rc_duplicate(qp, s, p);
    return;
  }
  qp.nak_sent = false;
  const RequestInfo info = classify(p.hdr.bth.opcode);
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t access = qp.attr.qp_access_flags;
  const bool send_wqe_in_use = qp.in_message == kInSend;
  const auto invalid = [&](bool uses_wqe, WcStatus st = WcStatus::RemInvReqErr) {
    nak_and_fail(qp, s, psn, kNakInvalidRequest, uses_wqe, st);
  };
  // Opcode and permission.
  const bool allowed = (info.kind == Kind::Send) || (info.kind == Kind::Write && (access & kRemoteWrite)) ||
                       (info.kind == Kind::Read && (access & kRemoteRead)) ||
                       (info.kind == Kind::Atomic && (access & kRemoteAtomic));
  if (info.kind == Kind::Unsupported || !allowed) return invalid(send_wqe_in_use);
  // Opcode sequence.
  const uint8_t expected = info.kind == Kind::Send ? kInSend : info.kind == Kind::Write ? kInWrite : kInMessageNone;
  const bool in_order = starts(info.at) ? qp.in_message == kInMessageNone : qp.in_message == expected;
  if (!in_order) return invalid(send_wqe_in_use);
  // Pad and size of FIRST and MIDDLE packets.
  if (!ends(info.at) && (p.hdr.bth.pad_cnt != 0 || p.payload_len != mtu)) return invalid(send_wqe_in_use);
  // A receive WQE for SEND, and for WRITE with immediate at its end.
  const bool needs_wqe = (info.kind == Kind::Send && starts(info.at)) || (info.kind == Kind::Write && info.imm);
  if (needs_wqe && qp.rq.empty()) {
    queue_ack(qp, psn, static_cast<uint8_t>(kAethRnrNak | (qp.attr.min_rnr_timer & 31)));
    ++qp.stats.rnr_naks_sent;
    qp.nak_sent = true;  // seed 001: later packets other than ePSN are discarded
    return;
  }

  switch (info.kind) {
    case Kind::Send: {
      if (starts(info.at)) {
        if (check_sg(s.memory(), qp.rq.front().wr.sg_list, kLocalWrite) != KeyCheck::Ok)
          return nak_and_fail(qp, s, psn, kNakRemoteOperational, true, WcStatus::LocQpOpErr);
        qp.recv_offset = 0;
      }
      const RecvWqe& w = qp.rq.front();
      if (qp.recv_offset + p.payload_len > w.length) return invalid(true, WcStatus::LocLenErr);
      if (info.inv && !s.memory().invalidate_rkey(p.hdr.ieth_r_key)) return invalid(true);
      scatter(s.memory(), w.wr.sg_list, qp.recv_offset, p.payload.data(), p.payload_len);
      qp.recv_offset += p.payload_len;
      qp.epsn = psn_add(qp.epsn, 1);
      if (ends(info.at)) {
        qp.msn = psn_add(qp.msn, 1);
        qp.in_message = kInMessageNone;
        complete_recv(qp, s, p, qp.recv_offset, false);
      } else {
        qp.in_message = kInSend;
      }
      break;
    }
    case Kind::Write: {
      if (starts(info.at)) {
        const ib::Reth& r = p.hdr.reth;
        if (r.dma_len > kMaxDmaLength) return invalid(info.imm);
        if (r.dma_len > 0) {
          const KeyCheck c = s.memory().check_remote(r.r_key, r.va, r.dma_len, kRemoteWrite);
          if (c != KeyCheck::Ok) return nak_and_fail(qp, s, psn, kNakRemoteAccess, info.imm, WcStatus::RemAccessErr);
        }
        qp.write_va = r.va;
        qp.write_rkey = r.r_key;
        qp.write_left = r.dma_len;
        qp.recv_offset = 0;
      }
      if (p.payload_len > qp.write_left || (ends(info.at) && p.payload_len != qp.write_left))
        return invalid(info.imm);
      s.memory().write(qp.write_rkey, qp.write_va, p.payload.data(), p.payload_len);
      qp.write_va += p.payload_len;
      qp.write_left -= p.payload_len;
      qp.recv_offset += p.payload_len;
      qp.epsn = psn_add(qp.epsn, 1);
      if (ends(info.at)) {
        qp.msn = psn_add(qp.msn, 1);
        qp.in_message = kInMessageNone;
        if (info.imm) complete_recv(qp, s, p, qp.recv_offset, true);
      } else {
        qp.in_message = kInWrite;
      }
      break;
    }
    case Kind::Read: {
      const ib::Reth& r = p.hdr.reth;
      if (r.dma_len > kMaxDmaLength) return invalid(false);
      const int slot = free_resource(qp);
      if (slot < 0) return invalid(false);
      if (r.dma_len > 0) {
        const KeyCheck c = s.memory().check_remote(r.r_key, r.va, r.dma_len, kRemoteRead);
        if (c != KeyCheck::Ok) return nak_and_fail(qp, s, psn, kNakRemoteAccess, false, WcStatus::RemAccessErr);
      }
      const uint32_t n = packet_count(r.dma_len, mtu);
      ReadResource& res = qp.resources[static_cast<std::size_t>(slot)];
      res = ReadResource{psn, n, r.va, r.r_key, r.dma_len, 0, false, true};
      qp.msn = psn_add(qp.msn, 1);  // iba-facts 5: C9-148, MSN counts an accepted READ
      Response out;
      out.kind = Response::ReadData;
      out.psn = out.start_psn = psn;
      out.last_psn = psn_add(psn, n - 1);
      out.msn = qp.msn;
      out.resource = static_cast<uint32_t>(slot);
      qp.responses.push_back(out);
      qp.epsn = psn_add(qp.epsn, n);
      return;
    }
    case Kind::Atomic: {
      const ib::AtomicEth& a = p.hdr.atomic_eth;
      if (a.va % 8 != 0) return invalid(false);
      const int slot = free_resource(qp);
      if (slot < 0) return invalid(false);
      const KeyCheck c = s.memory().check_remote(a.r_key, a.va, 8, kRemoteAtomic);
      if (c != KeyCheck::Ok) return nak_and_fail(qp, s, psn, kNakRemoteAccess, false, WcStatus::RemAccessErr);
      uint64_t ready = 0;
      const uint64_t original = load_u64(s.memory(), a.r_key, a.va, ready);
      const bool cmp_swap = (p.hdr.bth.opcode & 0x1F) == ib::op::kRcCmpSwap;
      const uint64_t result = cmp_swap ? (original == a.compare ? a.swap_add : original) : original + a.swap_add;
      store_u64(s.memory(), a.r_key, a.va, result);
      ReadResource& res = qp.resources[static_cast<std::size_t>(slot)];
      res = ReadResource{psn, 1, a.va, a.r_key, 8, original, true, true};
      qp.msn = psn_add(qp.msn, 1);
      Response out;
      out.kind = Response::AtomicAck;
      out.psn = out.start_psn = out.last_psn = psn;
      out.msn = qp.msn;
      out.resource = static_cast<uint32_t>(slot);
      out.ready_ps = ready;
      qp.responses.push_back(out);
      qp.epsn = psn_add(qp.epsn, 1);
      return;
    }
    case Kind::Unsupported: return;
  }
  if (!s.config().ack_coalescing || p.hdr.bth.ack_req) queue_ack(qp, psn, kAethAck);
}

void Responder::take_held(Qp& qp, QpServices& s) {
  std::map<uint32_t, ib::Packet>& held = qp.ooo->requests;
  if (held.empty()) return;
  for (auto it = held.find(qp.epsn); it != held.end() && receiving_state(qp.state); it = held.find(qp.epsn)) {
    const ib::Packet p = std::move(it->second);
    held.erase(it);
    on_rc_request(qp, s, p);
  }
  if (held.empty()) return;
  for (auto it = held.begin(); it != held.end();)  // behind ePSN now (inside a READ's PSNs): duplicates
    it = psn_diff(it->first, qp.epsn) < 0 ? held.erase(it) : std::next(it);
}

void Responder::on_rc_duplicate(Qp& qp, QpServices&, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  const RequestInfo info = classify(p.hdr.bth.opcode);
  ++qp.stats.duplicates;
  if (info.kind == Kind::Send || info.kind == Kind::Write) {
    queue_ack(qp, psn_add(qp.epsn, kPsnMask), kAethAck);  // iba-facts 5: re-ACK with ePSN - 1
    return;
  }
  for (std::size_t i = 0; i < qp.resources.size(); ++i) {
    ReadResource& r = qp.resources[i];
    const int32_t at = psn_diff(psn, r.first_psn);
    if (r.psns == 0 || at < 0 || at >= static_cast<int32_t>(r.psns)) continue;
    if (info.kind == Kind::Read && !r.atomic && p.hdr.reth.r_key == r.rkey) {
      Response out;
      out.kind = Response::ReadData;
      out.psn = out.start_psn = psn;
      out.last_psn = psn_add(r.first_psn, r.psns - 1);
      out.msn = qp.msn;
      out.resource = static_cast<uint32_t>(i);
      r.pending = true;
      qp.responses.push_back(out);
      return;
    }
    if (info.kind == Kind::Atomic && r.atomic && at == 0) {
      Response out;
      out.kind = Response::AtomicAck;
      out.psn = out.start_psn = out.last_psn = psn;
      out.msn = qp.msn;
      out.resource = static_cast<uint32_t>(i);
      r.pending = true;
      qp.responses.push_back(out);
      return;
    }
  }
  ++qp.stats.dropped;  // no kept resource: drop (never NAK a duplicate)
}

void Responder::on_uc_request(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint32_t psn = p.hdr.bth.psn;
  const RequestInfo info = classify(p.hdr.bth.opcode & 0x1F);
  const bool uc_kind = info.kind == Kind::Send || info.kind == Kind::Write;
  if (!uc_kind || info.inv) {
    ++qp.stats.dropped;
    return;
  }
  if (psn != qp.epsn) {
    qp.in_message = kInMessageNone;  // packets were lost: abandon the message in progress
    if (!starts(info.at)) {
      ++qp.stats.dropped;
      return;
    }
  }
  qp.epsn = psn_add(psn, 1);
  const uint8_t expected = info.kind == Kind::Send ? kInSend : kInWrite;
  const bool in_order = starts(info.at) ? true : qp.in_message == expected;
  const auto drop_message = [&] {
    ++qp.stats.dropped;
    qp.in_message = ends(info.at) ? kInMessageNone : kDropping;
  };
  if (!in_order) return drop_message();
  if (!ends(info.at) && p.payload_len != qp.attr.path_mtu) return drop_message();
  if (info.kind == Kind::Send) {
    if (starts(info.at)) {
      if (qp.rq.empty() || check_sg(s.memory(), qp.rq.front().wr.sg_list, kLocalWrite) != KeyCheck::Ok)
        return drop_message();
      qp.recv_offset = 0;
    }
    const RecvWqe& w = qp.rq.front();
    if (qp.recv_offset + p.payload_len > w.length) return drop_message();
    scatter(s.memory(), w.wr.sg_list, qp.recv_offset, p.payload.data(), p.payload_len);
    qp.recv_offset += p.payload_len;
    if (ends(info.at)) {
      qp.in_message = kInMessageNone;
      complete_recv(qp, s, p, qp.recv_offset, false);
    } else {
      qp.in_message = kInSend;
    }
    return;
  }
  if (starts(info.at)) {
    const ib::Reth& r = p.hdr.reth;
    const bool ok = (qp.attr.qp_access_flags & kRemoteWrite) && r.dma_len <= kMaxDmaLength &&
                    (r.dma_len == 0 || s.memory().check_remote(r.r_key, r.va, r.dma_len, kRemoteWrite) == KeyCheck::Ok);
    if (!ok) return drop_message();
    qp.write_va = r.va;
    qp.write_rkey = r.r_key;
    qp.write_left = r.dma_len;
    qp.recv_offset = 0;
  }
  if (p.payload_len > qp.write_left || (ends(info.at) && p.payload_len != qp.write_left)) return drop_message();
  if (ends(info.at) && info.imm && qp.rq.empty()) return drop_message();
  s.memory().write(qp.write_rkey, qp.write_va, p.payload.data(), p.payload_len);
  qp.write_va += p.payload_len;
  qp.write_left -= p.payload_len;
  qp.recv_offset += p.payload_len;
  qp.in_message = ends(info.at) ? kInMessageNone : kInWrite;
  if (ends(info.at) && info.imm) complete_recv(qp, s, p, qp.recv_offset, true);
}

void Responder::on_ud_request(Qp& qp, QpServices& s, const ib::Packet& p) {
  const uint8_t op = p.hdr.bth.opcode;
  if ((op != ib::op::kUdSendOnly && op != ib::op::kUdSendOnlyImm) || p.hdr.deth.q_key != qp.attr.qkey ||
      qp.rq.empty()) {
    ++qp.stats.dropped;
    return;
  }
  const RecvWqe& w = qp.rq.front();
  const auto fail_wqe = [&](WcStatus st) {
    const WorkCompletion wc = recv_completion(qp, w.wr.wr_id, st, s.now_ps());
    qp.rq.pop_front();
    s.complete(qp, false, wc);
  };
  if (p.payload_len + kGrhSpace > w.length) return fail_wqe(WcStatus::LocLenErr);
  if (check_sg(s.memory(), w.wr.sg_list, kLocalWrite) != KeyCheck::Ok) return fail_wqe(WcStatus::LocProtErr);
  scatter(s.memory(), w.wr.sg_list, kGrhSpace, p.payload.data(), p.payload_len);
  complete_recv(qp, s, p, p.payload_len + kGrhSpace, false);
}

ib::Packet* Responder::next_packet(Qp& qp, QpServices& s, uint64_t& data_ready_ps) {
  Response& r = qp.responses.front();
  data_ready_ps = r.ready_ps;
  ib::Packet* p = s.new_packet();
  p->request_in_ps = r.request_ps;
  ib::Headers& h = p->hdr;
  const AddressVector& av = qp.attr.ah_attr;
  const auto fill = [&](uint8_t opcode, uint32_t psn) {
    fill_lrh_bth(*p, av.sl, av.dlid, qp.slid, opcode, qp.attr.dest_qp_num, psn);
  };
  const auto credit_ack = [&] { return encode_credits(static_cast<uint32_t>(qp.rq.size())); };
  switch (r.kind) {
    case Response::Ack:
      fill(ib::op::kRcAck, r.psn);
      h.aeth.syndrome = (r.syndrome & 0x60) == kAethAck ? credit_ack() : r.syndrome;
      h.aeth.msn = r.msn;
      qp.responses.pop_front();
      break;
    case Response::AtomicAck: {
      ReadResource& res = qp.resources[r.resource];
      fill(ib::op::kRcAtomicAck, r.psn);
      h.aeth = {credit_ack(), r.msn};
      h.atomic_ack_eth.orig_data = res.original;
      res.pending = false;
      qp.responses.pop_front();
      break;
    }
    case Response::ReadData: {
      ReadResource& res = qp.resources[r.resource];
      const uint32_t psn = r.psn;
      const Position at = psn == r.start_psn ? (psn == r.last_psn ? Position::Only : Position::First)
                                             : (psn == r.last_psn ? Position::Last : Position::Middle);
      const uint32_t mtu = qp.attr.path_mtu;
      const uint64_t offset = static_cast<uint64_t>(psn_diff(psn, res.first_psn)) * mtu;
      const auto len = static_cast<uint32_t>(std::min<uint64_t>(mtu, res.length - offset));
      fill(read_response_opcode(at), psn);
      if (at != Position::Middle) h.aeth = {credit_ack(), r.msn};
      p->payload.resize(len);
      data_ready_ps = s.memory().read(res.rkey, res.va + offset, p->payload.data(), len);
      p->payload_len = len;
      if (psn == r.last_psn) {
        res.pending = false;
        qp.responses.pop_front();
      } else {
        r.psn = psn_add(psn, 1);
      }
      break;
    }
  }
  if (qp.becn_owed) {  // congestion_hooks.hpp: IBA A10.2.2, BECN in the ACK
    h.bth.resv8a |= ib::kBthBecn;
    qp.becn_owed = false;
  }
  ++qp.stats.response_packets;
  p->finalize_lengths();
  return p;
}

}  // namespace hcasim::transport
