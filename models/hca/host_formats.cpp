#include "models/hca/host_formats.hpp"

#include <algorithm>
#include <cstring>

namespace hcasim::hca {

using transport::QpType;
using transport::WrOpcode;

namespace {

bool is_rdma(WrOpcode op) {
  return op == WrOpcode::RdmaWrite || op == WrOpcode::RdmaWriteWithImm || op == WrOpcode::RdmaRead;
}
bool is_atomic(WrOpcode op) { return op == WrOpcode::AtomicCmpSwp || op == WrOpcode::AtomicFetchAdd; }
bool is_rdma_read_or_atomic(WrOpcode op) { return op == WrOpcode::RdmaRead || is_atomic(op); }  // never inline

uint32_t round_up(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }

// Bytes of the segments before the data: control, address, remote address, atomic.
uint32_t header_bytes(QpType type, WrOpcode op) {
  uint32_t n = kSegmentBytes;
  if (type == QpType::Ud) n += kSegmentBytes;
  if (is_rdma(op) || is_atomic(op)) n += kSegmentBytes;
  if (is_atomic(op)) n += kSegmentBytes;
  return n;
}

}  // namespace

uint32_t send_wqe_bytes(QpType type, WrOpcode op, std::size_t sges, uint32_t inline_bytes) {
  const uint32_t data = inline_bytes > 0 ? round_up(4 + inline_bytes, kSegmentBytes)
                                         : static_cast<uint32_t>(sges) * kSegmentBytes;
  return header_bytes(type, op) + data;
}

uint32_t send_stride(QpType type, uint32_t max_send_sge, uint32_t max_inline) {
  // The largest WQE of an opcode the type supports: a gather list of max_send_sge, or inline bytes.
  uint32_t largest = 0;
  for (WrOpcode op : {WrOpcode::Send, WrOpcode::SendWithImm, WrOpcode::SendWithInv, WrOpcode::RdmaWrite,
                      WrOpcode::RdmaWriteWithImm, WrOpcode::RdmaRead, WrOpcode::AtomicCmpSwp,
                      WrOpcode::AtomicFetchAdd}) {
    if (!transport::opcode_supported(type, op)) continue;
    largest = std::max(largest, send_wqe_bytes(type, op, std::max<uint32_t>(max_send_sge, 1), 0));
    if (max_inline > 0 && !is_rdma_read_or_atomic(op))
      largest = std::max(largest, send_wqe_bytes(type, op, 0, max_inline));
  }
  return round_up(largest, kWqeBasicBlock);
}

uint32_t recv_stride(uint32_t max_recv_sge) {
  uint32_t s = kSegmentBytes;
  while (s < std::max<uint32_t>(max_recv_sge, 1) * kSegmentBytes) s *= 2;
  return s;
}

uint8_t wqe_opcode(WrOpcode op) {
  switch (op) {
    case WrOpcode::Send: return kOpSend;
    case WrOpcode::SendWithImm: return kOpSendImm;
    case WrOpcode::SendWithInv: return kOpSendInv;
    case WrOpcode::RdmaWrite: return kOpRdmaWrite;
    case WrOpcode::RdmaWriteWithImm: return kOpRdmaWriteImm;
    case WrOpcode::RdmaRead: return kOpRdmaRead;
    case WrOpcode::AtomicCmpSwp: return kOpAtomicCs;
    case WrOpcode::AtomicFetchAdd: return kOpAtomicFa;
  }
  return kOpNop;
}

bool wr_opcode(uint8_t wqe_op, WrOpcode& out) {
  switch (wqe_op) {
    case kOpSend: out = WrOpcode::Send; return true;
    case kOpSendImm: out = WrOpcode::SendWithImm; return true;
    case kOpSendInv: out = WrOpcode::SendWithInv; return true;
    case kOpRdmaWrite: out = WrOpcode::RdmaWrite; return true;
    case kOpRdmaWriteImm: out = WrOpcode::RdmaWriteWithImm; return true;
    case kOpRdmaRead: out = WrOpcode::RdmaRead; return true;
    case kOpAtomicCs: out = WrOpcode::AtomicCmpSwp; return true;
    case kOpAtomicFa: out = WrOpcode::AtomicFetchAdd; return true;
    default: return false;
  }
}

void encode_send_wqe(const transport::SendWr& wr, QpType type, uint32_t qpn, uint32_t index,
                     const std::vector<uint8_t>& inline_data, uint8_t* out) {
  const auto in = static_cast<uint32_t>(inline_data.size());
  const bool inlined = !inline_data.empty();
  const uint32_t bytes = send_wqe_bytes(type, wr.opcode, wr.sg_list.size(), in);
  std::memset(out, 0, bytes);
  out[0] = wqe_opcode(wr.opcode);
  out[1] = static_cast<uint8_t>((wr.signaled ? kWqeSignaled : 0) | (wr.solicited ? kWqeSolicited : 0));
  put_u16(out + 2, static_cast<uint16_t>(index));
  put_u32(out + 4, qpn & 0xFFFFFF);
  out[8] = static_cast<uint8_t>(bytes / kSegmentBytes);
  put_u32(out + 12, wr.imm_data);
  uint8_t* seg = out + kSegmentBytes;
  if (type == QpType::Ud) {
    put_u32(seg, wr.remote_qpn);
    put_u32(seg + 4, wr.remote_qkey);
    put_u16(seg + 8, wr.ah.dlid);
    seg[10] = wr.ah.sl;
    seg[11] = wr.ah.src_path_bits;
    seg += kSegmentBytes;
  }
  if (is_rdma(wr.opcode) || is_atomic(wr.opcode)) {
    put_u64(seg, wr.remote_addr);
    put_u32(seg + 8, wr.rkey);
    seg += kSegmentBytes;
  }
  if (is_atomic(wr.opcode)) {
    put_u64(seg, wr.opcode == WrOpcode::AtomicCmpSwp ? wr.swap : wr.compare_add);
    put_u64(seg + 8, wr.opcode == WrOpcode::AtomicCmpSwp ? wr.compare_add : 0);
    seg += kSegmentBytes;
  }
  if (inlined) {
    put_u32(seg, in | kInlineFlag);
    std::memcpy(seg + 4, inline_data.data(), in);
    return;
  }
  for (const transport::Sge& s : wr.sg_list) {
    put_u32(seg, s.length);
    put_u32(seg + 4, s.lkey);
    put_u64(seg + 8, s.addr);
    seg += kSegmentBytes;
  }
}

SendWqeHeader read_send_header(const uint8_t* wqe) {
  SendWqeHeader h;
  h.opcode = wqe[0];
  h.flags = wqe[1];
  h.index = get_u16(wqe + 2);
  h.qpn = get_u32(wqe + 4) & 0xFFFFFF;
  h.ds = wqe[8];
  return h;
}

WqeError decode_send_wqe(const uint8_t* wqe, uint32_t bytes, QpType type, transport::SendWr& wr) {
  const SendWqeHeader h = read_send_header(wqe);
  wr = transport::SendWr{};
  if (!wr_opcode(h.opcode, wr.opcode) || !transport::opcode_supported(type, wr.opcode))
    return WqeError::UnknownOpcode;
  const uint32_t size = uint32_t{h.ds} * kSegmentBytes;
  const uint32_t head = header_bytes(type, wr.opcode);
  if (size < head || size > bytes) return WqeError::BadSize;
  wr.signaled = (h.flags & kWqeSignaled) != 0;
  wr.solicited = (h.flags & kWqeSolicited) != 0;
  wr.imm_data = get_u32(wqe + 12);
  const uint8_t* seg = wqe + kSegmentBytes;
  if (type == QpType::Ud) {
    wr.remote_qpn = get_u32(seg);
    wr.remote_qkey = get_u32(seg + 4);
    wr.ah.dlid = get_u16(seg + 8);
    wr.ah.sl = seg[10];
    wr.ah.src_path_bits = seg[11];
    seg += kSegmentBytes;
  }
  if (is_rdma(wr.opcode) || is_atomic(wr.opcode)) {
    wr.remote_addr = get_u64(seg);
    wr.rkey = get_u32(seg + 8);
    seg += kSegmentBytes;
  }
  if (is_atomic(wr.opcode)) {
    const uint64_t first = get_u64(seg), second = get_u64(seg + 8);
    wr.compare_add = wr.opcode == WrOpcode::AtomicCmpSwp ? second : first;
    wr.swap = wr.opcode == WrOpcode::AtomicCmpSwp ? first : 0;
    seg += kSegmentBytes;
  }
  const uint8_t* end = wqe + size;
  if (seg + 4 <= end && (get_u32(seg) & kInlineFlag) != 0) {
    const uint32_t n = get_u32(seg) & ~kInlineFlag;
    if (n > static_cast<std::size_t>(end - seg) - 4) return WqeError::BadSize;  // sizes: seg + 4 + n may point past any object
    wr.inline_data.assign(seg + 4, seg + 4 + n);
    return WqeError::None;
  }
  for (; seg + kSegmentBytes <= end; seg += kSegmentBytes)
    wr.sg_list.push_back({get_u64(seg + 8), get_u32(seg), get_u32(seg + 4)});
  return WqeError::None;
}

void encode_recv_wqe(const transport::RecvWr& wr, uint32_t stride, uint8_t* out) {
  std::memset(out, 0, stride);
  uint8_t* seg = out;
  for (const transport::Sge& s : wr.sg_list) {
    put_u32(seg, s.length);
    put_u32(seg + 4, s.lkey);
    put_u64(seg + 8, s.addr);
    seg += kSegmentBytes;
  }
}

void decode_recv_wqe(const uint8_t* wqe, uint32_t stride, transport::RecvWr& wr) {
  wr = transport::RecvWr{};
  for (const uint8_t* seg = wqe; seg + kSegmentBytes <= wqe + stride; seg += kSegmentBytes) {
    const uint32_t lkey = get_u32(seg + 4);
    if (lkey == 0) break;
    wr.sg_list.push_back({get_u64(seg + 8), get_u32(seg), lkey});
  }
}

void encode_cqe(const transport::WorkCompletion& wc, uint32_t wqe_index, uint32_t ring_index, uint32_t ring_entries,
                uint8_t* out) {
  std::memset(out, 0, kCqeBytes);
  put_u64(out, wc.time_ps);
  put_u32(out + 8, wc.byte_len);
  put_u32(out + 12, wc.with_inv ? wc.invalidated_rkey : wc.imm_data);
  put_u32(out + 16, wc.qp_num);
  put_u32(out + 20, wc.src_qp);
  put_u16(out + 24, wc.slid);
  out[26] = wc.sl;
  out[27] = static_cast<uint8_t>((wc.with_imm ? 1 : 0) | (wc.with_inv ? 2 : 0));
  put_u32(out + 28, wc.vendor_err);
  put_u16(out + 32, static_cast<uint16_t>(wqe_index));
  out[34] = static_cast<uint8_t>(wc.opcode);
  out[35] = static_cast<uint8_t>(wc.status);
  out[63] = static_cast<uint8_t>(((ring_index / ring_entries) & 1) ^ 1);
}

bool cqe_valid(const uint8_t* cqe, uint32_t ring_index, uint32_t ring_entries) {
  return (cqe[63] & 1) == (((ring_index / ring_entries) & 1) ^ 1);
}

transport::WorkCompletion decode_cqe(const uint8_t* cqe, uint16_t& wqe_index) {
  transport::WorkCompletion wc;
  wc.time_ps = get_u64(cqe);
  wc.byte_len = get_u32(cqe + 8);
  wc.with_imm = (cqe[27] & 1) != 0;
  wc.with_inv = (cqe[27] & 2) != 0;
  if (wc.with_inv) wc.invalidated_rkey = get_u32(cqe + 12);
  else wc.imm_data = get_u32(cqe + 12);
  wc.qp_num = get_u32(cqe + 16);
  wc.src_qp = get_u32(cqe + 20);
  wc.slid = get_u16(cqe + 24);
  wc.sl = cqe[26];
  wc.vendor_err = get_u32(cqe + 28);
  wqe_index = get_u16(cqe + 32);
  wc.opcode = static_cast<transport::WcOpcode>(cqe[34]);
  wc.status = static_cast<transport::WcStatus>(cqe[35]);
  return wc;
}

bool joins_block(const transport::WorkCompletion& title, const transport::WorkCompletion& wc) {
  const auto plain = [](const transport::WorkCompletion& c) {
    return c.status == transport::WcStatus::Success && !c.with_imm && !c.with_inv && c.vendor_err == 0;
  };
  return plain(title) && plain(wc) && wc.qp_num == title.qp_num && wc.src_qp == title.src_qp &&
         wc.slid == title.slid && wc.sl == title.sl;
}

void set_mini_count(uint8_t* title, uint8_t m) { title[36] = m; }

void encode_mini_array(const MiniCqe* minis, uint32_t n, uint32_t ring_index, uint32_t ring_entries, uint8_t* out) {
  std::memset(out, 0, kCqeBytes);
  for (uint32_t k = 0; k < n && k < kMiniCqesPerEntry; ++k) {
    uint8_t* m = out + k * kMiniCqeBytes;
    put_u16(m, minis[k].wqe_index);
    m[2] = static_cast<uint8_t>(minis[k].opcode);
    put_u32(m + 4, minis[k].byte_len);
  }
  out[63] = static_cast<uint8_t>((((ring_index / ring_entries) & 1) ^ 1) | kCqeMiniArray);
}

MiniCqe decode_mini_cqe(const uint8_t* array, uint32_t k) {
  const uint8_t* m = array + k * kMiniCqeBytes;
  MiniCqe out;
  out.wqe_index = get_u16(m);
  out.opcode = static_cast<transport::WcOpcode>(m[2]);
  out.byte_len = get_u32(m + 4);
  return out;
}

void encode_mpt(const MptEntry& e, uint8_t* out) {
  std::memset(out, 0, kMptBytes);
  put_u32(out, e.lkey);
  put_u32(out + 4, e.rkey);
  put_u32(out + 8, e.access);
  out[12] = e.page_shift;
  out[13] = static_cast<uint8_t>((e.valid ? 1 : 0) | (e.rkey_valid ? 2 : 0));
  put_u64(out + 16, e.start);
  put_u64(out + 24, e.length);
  put_u64(out + 32, e.mtt_first);
  put_u64(out + 40, e.mtt_count);
}

MptEntry decode_mpt(const uint8_t* in) {
  MptEntry e;
  e.lkey = get_u32(in);
  e.rkey = get_u32(in + 4);
  e.access = get_u32(in + 8);
  e.page_shift = in[12];
  e.valid = (in[13] & 1) != 0;
  e.rkey_valid = (in[13] & 2) != 0;
  e.start = get_u64(in + 16);
  e.length = get_u64(in + 24);
  e.mtt_first = get_u64(in + 32);
  e.mtt_count = get_u64(in + 40);
  return e;
}

}  // namespace hcasim::hca
