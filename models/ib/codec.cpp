#include "models/ib/codec.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/crc.hpp"
#include "models/ib/layout.hpp"
#include "models/ib/opcodes.hpp"

namespace hcasim::ib {
namespace {

// Big-endian field writer/reader over a buffer the caller has sized.
struct Writer {
  uint8_t* p;
  void u8(uint32_t v) { *p++ = static_cast<uint8_t>(v); }
  void be(uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) *p++ = static_cast<uint8_t>(v >> (8 * i));
  }
};

struct Reader {
  const uint8_t* p;
  uint8_t u8() { return *p++; }
  uint64_t be(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | *p++;
    return v;
  }
};

constexpr uint32_t kMask24 = 0xFFFFFFu;
constexpr uint16_t kMaxPktLenAnyMtu = max_pkt_len_words(kMaxPayloadBytes);  // 1055

DecodeResult fail(DecodeError e, std::string reason) {
  return DecodeResult{false, e, std::move(reason)};
}

void write_lrh(Writer& w, const Lrh& l, uint16_t pkt_len) {
  w.u8((l.vl & 0xFu) << 4 | (l.lver & 0xFu));
  w.u8((l.sl & 0xFu) << 4 | (static_cast<unsigned>(l.lnh) & 0x3u));
  w.be(l.dlid, 2);
  w.be(pkt_len & kPktLenMask, 2);
  w.be(l.slid, 2);
}

void write_grh(Writer& w, const Grh& g, uint16_t pay_len) {
  w.u8((g.ip_ver & 0xFu) << 4 | (g.tclass >> 4));
  w.u8((g.tclass & 0xFu) << 4 | ((g.flow_label >> 16) & 0xFu));
  w.be(g.flow_label & 0xFFFFu, 2);
  w.be(pay_len, 2);
  w.u8(g.nxt_hdr);
  w.u8(g.hop_lmt);
  std::memcpy(w.p, g.sgid.data(), 16);
  std::memcpy(w.p + 16, g.dgid.data(), 16);
  w.p += 32;
}

void write_bth(Writer& w, const Bth& b, uint8_t pad) {
  w.u8(b.opcode);
  w.u8((b.se ? 0x80u : 0u) | (b.m ? 0x40u : 0u) | (pad & 0x3u) << 4 | (b.tver & 0xFu));
  w.be(b.p_key, 2);
  w.u8(b.resv8a);
  w.be(b.dest_qp & kMask24, 3);
  w.u8(b.ack_req ? 0x80u : 0u);
  w.be(b.psn & kMask24, 3);
}

void write_ext(Writer& w, const Headers& h, uint8_t ext) {
  if (ext & ExtHeader::Deth) {
    w.be(h.deth.q_key, 4);
    w.u8(0);
    w.be(h.deth.src_qp & kMask24, 3);
  }
  if (ext & ExtHeader::Feth) {
    w.be((h.feth.selectivity_level & 0x3u) << 4 | (h.feth.placement_type & 0xFu), 4);
  }
  if (ext & ExtHeader::Reth) {
    w.be(h.reth.va, 8);
    w.be(h.reth.r_key, 4);
    w.be(h.reth.dma_len, 4);
  }
  if (ext & ExtHeader::AtomicEth) {
    w.be(h.atomic_eth.va, 8);
    w.be(h.atomic_eth.r_key, 4);
    w.be(h.atomic_eth.swap_add, 8);
    w.be(h.atomic_eth.compare, 8);
  }
  if (ext & ExtHeader::Aeth) {
    w.u8(h.aeth.syndrome);
    w.be(h.aeth.msn & kMask24, 3);
  }
  if (ext & ExtHeader::AtomicAckEth) w.be(h.atomic_ack_eth.orig_data, 8);
  if (ext & ExtHeader::ImmDt) w.be(h.imm_dt, 4);
  if (ext & ExtHeader::Ieth) w.be(h.ieth_r_key, 4);
}

void read_ext(Reader& r, Headers& h, uint8_t ext) {
  if (ext & ExtHeader::Deth) {
    h.deth.q_key = static_cast<uint32_t>(r.be(4));
    r.u8();
    h.deth.src_qp = static_cast<uint32_t>(r.be(3));
  }
  if (ext & ExtHeader::Feth) {
    const auto v = static_cast<uint32_t>(r.be(4));
    h.feth.placement_type = static_cast<uint8_t>(v & 0xFu);
    h.feth.selectivity_level = static_cast<uint8_t>((v >> 4) & 0x3u);
  }
  if (ext & ExtHeader::Reth) {
    h.reth.va = r.be(8);
    h.reth.r_key = static_cast<uint32_t>(r.be(4));
    h.reth.dma_len = static_cast<uint32_t>(r.be(4));
  }
  if (ext & ExtHeader::AtomicEth) {
    h.atomic_eth.va = r.be(8);
    h.atomic_eth.r_key = static_cast<uint32_t>(r.be(4));
    h.atomic_eth.swap_add = r.be(8);
    h.atomic_eth.compare = r.be(8);
  }
  if (ext & ExtHeader::Aeth) {
    h.aeth.syndrome = r.u8();
    h.aeth.msn = static_cast<uint32_t>(r.be(3));
  }
  if (ext & ExtHeader::AtomicAckEth) h.atomic_ack_eth.orig_data = r.be(8);
  if (ext & ExtHeader::ImmDt) h.imm_dt = static_cast<uint32_t>(r.be(4));
  if (ext & ExtHeader::Ieth) h.ieth_r_key = static_cast<uint32_t>(r.be(4));
}

// Parses LRH fields (8 bytes available).
Lrh read_lrh(Reader& r) {
  Lrh l;
  const uint8_t b0 = r.u8();
  const uint8_t b1 = r.u8();
  l.vl = b0 >> 4;
  l.lver = b0 & 0xFu;
  l.sl = b1 >> 4;
  l.lnh = static_cast<Lnh>(b1 & 0x3u);
  l.dlid = static_cast<uint16_t>(r.be(2));
  l.pkt_len = static_cast<uint16_t>(r.be(2) & kPktLenMask);
  l.slid = static_cast<uint16_t>(r.be(2));
  return l;
}

Grh read_grh(Reader& r) {
  Grh g;
  const uint8_t b0 = r.u8();
  const uint8_t b1 = r.u8();
  g.ip_ver = b0 >> 4;
  g.tclass = static_cast<uint8_t>((b0 & 0xFu) << 4 | b1 >> 4);
  g.flow_label = (uint32_t{b1} & 0xFu) << 16 | static_cast<uint32_t>(r.be(2));
  g.pay_len = static_cast<uint16_t>(r.be(2));
  g.nxt_hdr = r.u8();
  g.hop_lmt = r.u8();
  std::memcpy(g.sgid.data(), r.p, 16);
  std::memcpy(g.dgid.data(), r.p + 16, 16);
  r.p += 32;
  return g;
}

Bth read_bth(Reader& r) {
  Bth b;
  b.opcode = r.u8();
  const uint8_t b1 = r.u8();
  b.se = (b1 & 0x80u) != 0;
  b.m = (b1 & 0x40u) != 0;
  b.pad_cnt = (b1 >> 4) & 0x3u;
  b.tver = b1 & 0xFu;
  b.p_key = static_cast<uint16_t>(r.be(2));
  b.resv8a = r.u8();
  b.dest_qp = static_cast<uint32_t>(r.be(3));
  b.ack_req = (r.u8() & 0x80u) != 0;
  b.psn = static_cast<uint32_t>(r.be(3));
  return b;
}

std::string num(uint64_t v) { return std::to_string(v); }

}  // namespace

const char* to_string(DecodeError e) {
  switch (e) {
    case DecodeError::None: return "none";
    case DecodeError::ShortBuffer: return "short buffer";
    case DecodeError::BadPktLen: return "bad PktLen";
    case DecodeError::BadVcrc: return "bad VCRC";
    case DecodeError::BadIcrc: return "bad ICRC";
    case DecodeError::BadLver: return "bad LVer";
    case DecodeError::BadLnh: return "bad LNH";
    case DecodeError::BadGrh: return "bad GRH";
    case DecodeError::BadTver: return "bad TVer";
    case DecodeError::ReservedOpcode: return "reserved opcode";
    case DecodeError::BadPadCnt: return "bad PadCnt";
    case DecodeError::BadLpcrc: return "bad LPCRC";
    case DecodeError::ReservedFcpOp: return "reserved flow-control Op";
  }
  return "unknown";
}

void encode(const Packet& p, std::vector<uint8_t>& out) {
  if (p.kind == PacketKind::FlowControl) {
    out.resize(kFlowControlBytes);
    encode_fcp(p.fc, out.data());
    return;
  }
  const Headers& h = p.hdr;
  const uint16_t pkt_len = pkt_len_words(h, p.payload_len);
  const uint32_t total = packet_wire_bytes(h, p.payload_len);
  const uint8_t pad = pad_count(p.payload_len);
  out.resize(total);
  Writer w{out.data()};
  write_lrh(w, h.lrh, pkt_len);
  const bool iba = is_iba_transport(h.lrh.lnh);
  if (iba) {
    if (h.lrh.lnh == Lnh::IbaGlobal) write_grh(w, h.grh, grh_pay_len(h, p.payload_len));
    write_bth(w, h.bth, pad);
    write_ext(w, h, opcode_info(h.bth.opcode).ext);
  }
  if (p.payload_len > 0 && p.payload.size() == p.payload_len) {
    std::memcpy(w.p, p.payload.data(), p.payload_len);
  } else {
    std::memset(w.p, 0, p.payload_len);
  }
  w.p += p.payload_len;
  std::memset(w.p, 0, pad);
  w.p += pad;
  const size_t body = static_cast<size_t>(w.p - out.data());
  if (iba) {
    store_le32(w.p, compute_icrc(out.data(), body));
    w.p += kIcrcBytes;
  }
  store_le16(w.p, compute_vcrc(out.data(), total - kVcrcBytes));
}

void reseal_crcs(std::vector<uint8_t>& wire) {
  if (wire.size() < kLrhBytes + kIcrcBytes + kVcrcBytes) return;
  const size_t vcrc_at = wire.size() - kVcrcBytes;
  const auto lnh = static_cast<Lnh>(wire[1] & 0x3u);
  if (is_iba_transport(lnh)) {
    const size_t icrc_at = vcrc_at - kIcrcBytes;
    store_le32(&wire[icrc_at], compute_icrc(wire.data(), icrc_at));
  }
  store_le16(&wire[vcrc_at], compute_vcrc(wire.data(), vcrc_at));
}

DecodeResult decode(const uint8_t* data, size_t len, Packet& out) {
  if (data == nullptr || len < kLrhBytes) {
    return fail(DecodeError::ShortBuffer, num(len) + " bytes, less than an LRH");
  }
  Reader r{data};
  Headers h;
  h.lrh = read_lrh(r);
  const bool iba = is_iba_transport(h.lrh.lnh);
  const uint16_t min_len = iba ? kMinPktLenIba : kMinPktLenRaw;
  if (h.lrh.pkt_len < min_len || h.lrh.pkt_len > kMaxPktLenAnyMtu) {
    return fail(DecodeError::BadPktLen, "PktLen " + num(h.lrh.pkt_len) + " outside " +
                                            num(min_len) + ".." + num(kMaxPktLenAnyMtu));
  }
  const size_t body = size_t{h.lrh.pkt_len} * 4;  // LRH..ICRC
  const size_t want = body + kVcrcBytes;
  if (len < want) {
    return fail(DecodeError::ShortBuffer, "PktLen " + num(h.lrh.pkt_len) + " needs " +
                                              num(want) + " bytes, buffer has " + num(len));
  }
  if (len > want) {
    return fail(DecodeError::BadPktLen, "PktLen " + num(h.lrh.pkt_len) + " gives " +
                                            num(want) + " bytes, buffer has " + num(len));
  }
  const uint16_t vcrc = compute_vcrc(data, body);
  if (vcrc != load_le16(data + body)) {
    return fail(DecodeError::BadVcrc, "VCRC " + num(load_le16(data + body)) + ", computed " +
                                          num(vcrc));
  }
  if (h.lrh.lver != kLver) return fail(DecodeError::BadLver, "LVer " + num(h.lrh.lver));

  if (!iba) {  // raw: LRH, padded payload, VCRC
    const uint32_t raw_len = static_cast<uint32_t>(body - kLrhBytes);
    out.kind = PacketKind::Data;
    out.hdr = h;
    out.payload_len = raw_len;
    out.payload.assign(data + kLrhBytes, data + kLrhBytes + raw_len);
    return {};
  }

  const size_t before_icrc = body - kIcrcBytes;
  const uint32_t icrc = compute_icrc(data, before_icrc);
  if (icrc != load_le32(data + before_icrc)) {
    return fail(DecodeError::BadIcrc, "ICRC " + num(load_le32(data + before_icrc)) +
                                          ", computed " + num(icrc));
  }
  const bool global = h.lrh.lnh == Lnh::IbaGlobal;
  const size_t fixed = kLrhBytes + (global ? kGrhBytes : 0) + kBthBytes;
  if (before_icrc < fixed) {
    return fail(DecodeError::BadPktLen, "PktLen " + num(h.lrh.pkt_len) +
                                            " too short for LRH/GRH/BTH");
  }
  if (global) {
    h.grh = read_grh(r);
    if (h.grh.nxt_hdr != kGrhNxtHdrIba) {
      return fail(DecodeError::BadLnh, "LNH 3 but GRH NxtHdr " + num(h.grh.nxt_hdr));
    }
    if (h.grh.ip_ver != kGrhIpVer) return fail(DecodeError::BadGrh, "GRH IPVer " + num(h.grh.ip_ver));
    if (h.grh.pay_len != body - kLrhBytes - kGrhBytes) {
      return fail(DecodeError::BadGrh, "GRH PayLen " + num(h.grh.pay_len) + ", PktLen gives " +
                                           num(body - kLrhBytes - kGrhBytes));
    }
  }
  h.bth = read_bth(r);
  if (h.bth.tver != kTver) return fail(DecodeError::BadTver, "TVer " + num(h.bth.tver));
  const OpcodeInfo& info = opcode_info(h.bth.opcode);
  if (!info.valid) {
    return fail(DecodeError::ReservedOpcode, "opcode " + num(h.bth.opcode) + " reserved");
  }
  const size_t headers = fixed + ext_header_bytes(h.bth.opcode);
  if (before_icrc < headers) {
    return fail(DecodeError::BadPktLen, std::string(info.name) + " needs " + num(headers) +
                                            " header bytes, PktLen leaves " + num(before_icrc));
  }
  const size_t rest = before_icrc - headers;  // payload + pad
  if (h.bth.pad_cnt > rest || (!info.has_payload && h.bth.pad_cnt != 0)) {
    return fail(DecodeError::BadPadCnt, "PadCnt " + num(h.bth.pad_cnt) + " with " +
                                            num(rest) + " bytes after the headers");
  }
  if (!info.has_payload && rest != 0) {
    return fail(DecodeError::BadPktLen, std::string(info.name) + " carries no payload, PktLen leaves " +
                                            num(rest) + " bytes");
  }
  read_ext(r, h, info.ext);
  const auto payload_len = static_cast<uint32_t>(rest - h.bth.pad_cnt);
  out.kind = PacketKind::Data;
  out.hdr = h;
  out.payload_len = payload_len;
  out.payload.assign(data + headers, data + headers + payload_len);
  return {};
}

void encode_fcp(const FlowControl& fc, uint8_t out[kFlowControlBytes]) {
  Writer w{out};
  w.be((fc.op & 0xFu) << 12 | (fc.fctbs & 0xFFFu), 2);
  w.be((fc.vl & 0xFu) << 12 | (fc.fccl & 0xFFFu), 2);
  store_le16(w.p, compute_lpcrc(out));
}

DecodeResult decode_fcp(const uint8_t* data, size_t len, FlowControl& out) {
  if (data == nullptr || len < kFlowControlBytes) {
    return fail(DecodeError::ShortBuffer, num(len) + " bytes, a flow-control packet has 6");
  }
  if (len > kFlowControlBytes) {
    return fail(DecodeError::BadPktLen, num(len) + " bytes, a flow-control packet has 6");
  }
  const uint16_t lpcrc = compute_lpcrc(data);
  if (lpcrc != load_le16(data + 4)) {
    return fail(DecodeError::BadLpcrc, "LPCRC " + num(load_le16(data + 4)) + ", computed " +
                                           num(lpcrc));
  }
  Reader r{data};
  const auto w0 = static_cast<uint16_t>(r.be(2));
  const auto w1 = static_cast<uint16_t>(r.be(2));
  const uint8_t op = static_cast<uint8_t>(w0 >> 12);
  if (op != kFcpOpNormal && op != kFcpOpInit) {
    return fail(DecodeError::ReservedFcpOp, "flow-control Op " + num(op));
  }
  out.op = op;
  out.fctbs = w0 & 0xFFFu;
  out.vl = static_cast<uint8_t>(w1 >> 12);
  out.fccl = w1 & 0xFFFu;
  return {};
}

}  // namespace hcasim::ib
