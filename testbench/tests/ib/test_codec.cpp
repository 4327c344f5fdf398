// Encode/decode of data packets: round trips for every valid opcode, the MPGA wire
// vector, and each rejection with its DecodeError.
#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/crc.hpp"
#include "testbench/tests/ib/packet_fixtures.hpp"

using namespace hcasim::ib;
using hcasim::ib::test::check_same_wire_fields;
using hcasim::ib::test::make_packet;
using hcasim::ib::test::valid_opcodes;

namespace {

// The [MPGA] 52-byte RC RDMA WRITE ONLY packet + ICRC 96 25 B7 5A + VCRC 0xFA45 (LE).
std::vector<uint8_t> mpga_wire() {
  std::vector<uint8_t> w = {
      0x70, 0x12, 0x37, 0x5C, 0x00, 0x0E, 0x17, 0xD2, 0x0A, 0x20, 0x24, 0x87, 0x00,
      0x87, 0xB1, 0xB3, 0x00, 0x0D, 0xEC, 0x2A, 0x01, 0x71, 0x0A, 0x1C, 0x01, 0x5D,
      0x40, 0x02, 0x38, 0xF2, 0x7A, 0x05, 0x00, 0x00, 0x00, 0x0E, 0xBB, 0x88, 0x4D,
      0x85, 0xFD, 0x5C, 0xFB, 0xA4, 0x72, 0x8B, 0xC0, 0x69, 0x0E, 0xD4, 0x00, 0x00,
      0x96, 0x25, 0xB7, 0x5A, 0x45, 0xFA};
  return w;
}

std::vector<uint8_t> encoded(const Packet& p) {
  std::vector<uint8_t> w;
  encode(p, w);
  return w;
}

DecodeError decode_error(const std::vector<uint8_t>& w) {
  Packet out;
  const DecodeResult r = decode(w.data(), w.size(), out);
  CHECK(r.ok == (r.error == DecodeError::None));
  CHECK(r.reason.empty() == r.ok);
  return r.error;
}

}  // namespace

TEST_CASE("every valid opcode round-trips with every payload length", "[codec]") {
  const std::vector<uint32_t> lengths = {0, 1, 2, 3, 4, 255, 4096};
  std::vector<uint8_t> wire;
  Packet out;
  unsigned cases = 0;
  for (uint8_t opcode : valid_opcodes()) {
    const OpcodeInfo& info = opcode_info(opcode);
    for (bool grh : {false, true}) {
      for (uint32_t len : lengths) {
        if (!info.has_payload && len != 0) continue;
        INFO(info.name << (grh ? " GRH" : "") << " payload " << len);
        const Packet p = make_packet(opcode, len, grh, cases);
        encode(p, wire);
        const uint32_t pad = (4 - len % 4) % 4;
        const uint32_t hdr = 8 + (grh ? 40 : 0) + 12 + ext_header_bytes(opcode);
        REQUIRE(wire.size() == hdr + len + pad + 4 + 2);
        CHECK(p.wire_bytes() == wire.size());
        CHECK(p.hdr.lrh.pkt_len == (hdr + len + pad + 4) / 4);
        CHECK(p.hdr.bth.pad_cnt == pad);
        CHECK(static_cast<unsigned>(wire[4] << 8 | wire[5]) == p.hdr.lrh.pkt_len);
        const DecodeResult r = decode(wire.data(), wire.size(), out);
        REQUIRE(r.ok);
        CHECK(out.kind == PacketKind::Data);
        check_same_wire_fields(p, out);
        ++cases;
      }
    }
  }
  CHECK(cases > 300);
}

TEST_CASE("the MPGA vector decodes to its fields and re-encodes to the same bytes", "[codec]") {
  const std::vector<uint8_t> w = mpga_wire();
  Packet p;
  const DecodeResult r = decode(w.data(), w.size(), p);
  REQUIRE(r.ok);
  CHECK(p.hdr.lrh.vl == 7);
  CHECK(p.hdr.lrh.sl == 1);
  CHECK(p.hdr.lrh.lnh == Lnh::IbaLocal);
  CHECK(p.hdr.lrh.dlid == 0x375C);
  CHECK(p.hdr.lrh.pkt_len == 14);
  CHECK(p.hdr.lrh.slid == 0x17D2);
  CHECK(p.hdr.bth.opcode == op::kRcWriteOnly);
  CHECK(p.hdr.bth.pad_cnt == 2);
  CHECK(p.hdr.bth.p_key == 0x2487);
  CHECK(p.hdr.bth.dest_qp == 0x87B1B3);
  CHECK(p.hdr.bth.psn == 0x0DEC2A);
  CHECK(p.hdr.reth.va == 0x01710A1C015D4002ull);
  CHECK(p.hdr.reth.r_key == 0x38F27A05u);
  CHECK(p.hdr.reth.dma_len == 14);
  CHECK(p.payload_len == 14);
  CHECK(p.payload.front() == 0xBB);
  CHECK(p.payload.back() == 0xD4);
  CHECK(encoded(p) == w);
}

TEST_CASE("payload without bytes encodes as zeros and header length fields are derived", "[codec]") {
  Packet p = make_packet(op::kRcSendOnly, 10, false);
  p.payload.clear();
  p.hdr.lrh.pkt_len = 1;  // stale values must not reach the wire
  p.hdr.bth.pad_cnt = 3;
  const std::vector<uint8_t> w = encoded(p);
  Packet out;
  REQUIRE(decode(w.data(), w.size(), out).ok);
  CHECK(out.payload == std::vector<uint8_t>(10, 0));
  CHECK(out.hdr.lrh.pkt_len == (8 + 12 + 12 + 4) / 4);
  CHECK(out.hdr.bth.pad_cnt == 2);
}

TEST_CASE("variant fields change the VCRC but not the ICRC", "[codec]") {
  for (bool grh : {false, true}) {
    Packet p = make_packet(op::kRcSendOnly, 33, grh);
    const std::vector<uint8_t> a = encoded(p);
    p.hdr.lrh.vl = static_cast<uint8_t>(p.hdr.lrh.vl ^ 0xF);
    p.hdr.bth.resv8a = static_cast<uint8_t>(~p.hdr.bth.resv8a);
    if (grh) {
      p.hdr.grh.hop_lmt = static_cast<uint8_t>(p.hdr.grh.hop_lmt - 1);  // as a router does
      p.hdr.grh.tclass ^= 0x81;
      p.hdr.grh.flow_label ^= 0x80001;
      p.hdr.lrh.dlid ^= 0x1234;  // the whole LRH is variant behind a GRH
    }
    const std::vector<uint8_t> b = encoded(p);
    const size_t icrc = a.size() - 6;
    CHECK(load_le32(&a[icrc]) == load_le32(&b[icrc]));
    CHECK(load_le16(&a[icrc + 4]) != load_le16(&b[icrc + 4]));
  }
}

TEST_CASE("raw packets round-trip with a word-padded payload", "[codec]") {
  for (Lnh lnh : {Lnh::Raw, Lnh::Ip}) {
    Packet p = make_packet(0, 44, false);
    p.hdr.lrh.lnh = lnh;
    p.finalize_lengths();
    std::vector<uint8_t> w = encoded(p);
    CHECK(w.size() == 8 + 44 + 2);
    Packet out;
    REQUIRE(decode(w.data(), w.size(), out).ok);
    check_same_wire_fields(p, out);

    p.payload.resize(13);  // padded to 16 on the wire
    p.payload_len = 13;
    p.finalize_lengths();
    w = encoded(p);
    CHECK(w.size() == 8 + 16 + 2);
    REQUIRE(decode(w.data(), w.size(), out).ok);
    CHECK(out.payload_len == 16);
  }
}

TEST_CASE("every truncation of an encoded packet is rejected as ShortBuffer", "[codec][reject]") {
  for (bool grh : {false, true}) {
    const std::vector<uint8_t> w = encoded(make_packet(op::kRcWriteOnlyImm, 255, grh));
    for (size_t n = 0; n < w.size(); ++n) {
      INFO("length " << n);
      // A fresh allocation of exactly n bytes, so ASan sees any overread.
      const std::vector<uint8_t> cut(w.begin(), w.begin() + static_cast<long>(n));
      CHECK(decode_error(cut) == DecodeError::ShortBuffer);
    }
  }
  Packet out;
  CHECK(decode(nullptr, 0, out).error == DecodeError::ShortBuffer);
}

TEST_CASE("PktLen disagreeing with the buffer or out of range is rejected", "[codec][reject]") {
  const std::vector<uint8_t> w = encoded(make_packet(op::kRcSendOnly, 16, false));
  auto with_pkt_len = [&](unsigned words) {
    std::vector<uint8_t> v = w;
    v[4] = static_cast<uint8_t>((v[4] & 0xF8) | ((words >> 8) & 0x7));
    v[5] = static_cast<uint8_t>(words);
    reseal_crcs(v);
    return v;
  };
  const unsigned words = w[5];
  CHECK(decode_error(with_pkt_len(words + 1)) == DecodeError::ShortBuffer);  // bigger
  CHECK(decode_error(with_pkt_len(words - 1)) == DecodeError::BadPktLen);    // smaller
  CHECK(decode_error(with_pkt_len(1056)) == DecodeError::BadPktLen);         // above any MTU

  std::vector<uint8_t> longer = w;
  longer.push_back(0);
  CHECK(decode_error(longer) == DecodeError::BadPktLen);

  // PktLen 5 on an IBA packet: below the minimum of 6, even with a matching buffer.
  std::vector<uint8_t> tiny(w.begin(), w.begin() + 22);
  tiny[5] = 5;
  reseal_crcs(tiny);
  CHECK(decode_error(tiny) == DecodeError::BadPktLen);
  // Raw packet with PktLen 4: below the raw minimum of 5.
  std::vector<uint8_t> raw(w.begin(), w.begin() + 18);
  raw[1] &= 0xFC;
  raw[5] = 4;
  reseal_crcs(raw);
  CHECK(decode_error(raw) == DecodeError::BadPktLen);
  // Raw packet of exactly the minimum is accepted.
  raw.assign(w.begin(), w.begin() + 22);
  raw[1] &= 0xFC;
  raw[5] = 5;
  reseal_crcs(raw);
  CHECK(decode_error(raw) == DecodeError::None);
}

TEST_CASE("CRC errors in VCRC and ICRC and a flipped payload bit", "[codec][reject]") {
  const std::vector<uint8_t> w = encoded(make_packet(op::kUdSendOnlyImm, 100, true));
  std::vector<uint8_t> v = w;
  v.back() ^= 0x01;
  CHECK(decode_error(v) == DecodeError::BadVcrc);

  v = w;
  v[v.size() - 6] ^= 0x80;  // ICRC byte; VCRC recomputed so only the ICRC is wrong
  store_le16(&v[v.size() - 2], compute_vcrc(v.data(), v.size() - 2));
  CHECK(decode_error(v) == DecodeError::BadIcrc);

  const size_t payload_at = 8 + 40 + 12 + 12 + 50;
  v = w;
  v[payload_at] ^= 0x04;
  CHECK(decode_error(v) == DecodeError::BadVcrc);  // the link CRC sees it first
  store_le16(&v[v.size() - 2], compute_vcrc(v.data(), v.size() - 2));
  CHECK(decode_error(v) == DecodeError::BadIcrc);  // a switch re-made the VCRC: ICRC catches

  for (size_t i = 0; i < w.size(); ++i) {  // any single corrupted byte is caught
    INFO("byte " << i);
    v = w;
    v[i] ^= 0x21;
    CHECK(decode_error(v) != DecodeError::None);
  }
}

TEST_CASE("every reserved opcode is rejected as ReservedOpcode", "[codec][reject]") {
  unsigned rejected = 0;
  for (unsigned o = 0; o < 256; ++o) {
    if (opcode_info(static_cast<uint8_t>(o)).valid) continue;
    INFO("opcode " << o);
    for (bool grh : {false, true}) {
      std::vector<uint8_t> w = encoded(make_packet(op::kRcSendOnly, 8, grh));
      w[grh ? 48 : 8] = static_cast<uint8_t>(o);
      reseal_crcs(w);
      CHECK(decode_error(w) == DecodeError::ReservedOpcode);
    }
    ++rejected;
  }
  CHECK(rejected == 256 - valid_opcodes().size());
}

TEST_CASE("header fields with values the model rejects", "[codec][reject]") {
  const std::vector<uint8_t> local = encoded(make_packet(op::kRcSendOnly, 5, false));
  const std::vector<uint8_t> global = encoded(make_packet(op::kRcSendOnly, 5, true));
  auto edit = [](std::vector<uint8_t> v, size_t at, uint8_t value) {
    v[at] = value;
    reseal_crcs(v);
    return v;
  };
  CHECK(decode_error(edit(local, 0, static_cast<uint8_t>(local[0] | 0x01))) == DecodeError::BadLver);
  CHECK(decode_error(edit(local, 9, static_cast<uint8_t>(local[9] | 0x01))) == DecodeError::BadTver);
  CHECK(decode_error(edit(global, 8 + 6, 0x11)) == DecodeError::BadLnh);   // NxtHdr not 0x1B
  CHECK(decode_error(edit(global, 8, 0x40)) == DecodeError::BadGrh);       // IPVer 4
  CHECK(decode_error(edit(global, 8 + 5, static_cast<uint8_t>(global[13] + 4))) == DecodeError::BadGrh);

  // PadCnt 3 on a SEND_ONLY with no payload: more pad than bytes after the headers.
  std::vector<uint8_t> empty = encoded(make_packet(op::kRcSendOnly, 0, false));
  CHECK(decode_error(edit(empty, 9, static_cast<uint8_t>(empty[9] | 0x30))) == DecodeError::BadPadCnt);
  // PadCnt on an ACK, which carries no payload.
  std::vector<uint8_t> ack = encoded(make_packet(op::kRcAck, 0, false));
  CHECK(decode_error(edit(ack, 9, static_cast<uint8_t>(ack[9] | 0x10))) == DecodeError::BadPadCnt);
  // Payload bytes on an ACK.
  CHECK(decode_error(encoded(make_packet(op::kRcAck, 8, false))) == DecodeError::BadPktLen);
  // Opcode whose headers need more bytes than PktLen leaves (CMP_SWAP: 28-byte AtomicETH).
  CHECK(decode_error(edit(empty, 8, op::kRcCmpSwap)) == DecodeError::BadPktLen);
}

TEST_CASE("a failed decode leaves the output packet unchanged", "[codec][reject]") {
  Packet out = make_packet(op::kRcAck, 0, false, 9);
  out.id = 77;
  const Packet before = out;
  std::vector<uint8_t> w = encoded(make_packet(op::kRcSendOnly, 64, true));
  w[20] ^= 1;
  CHECK_FALSE(decode(w.data(), w.size(), out).ok);
  check_same_wire_fields(before, out);
  CHECK(out.id == 77);
}

TEST_CASE("DecodeError names", "[codec]") {
  CHECK(std::string(to_string(DecodeError::None)) == "none");
  CHECK(std::string(to_string(DecodeError::BadIcrc)) == "bad ICRC");
  CHECK(std::string(to_string(DecodeError::ReservedOpcode)) == "reserved opcode");
}

TEST_CASE("a warm encode buffer is reused without reallocation", "[codec]") {
  std::vector<uint8_t> w;
  w.reserve(8192);
  const uint8_t* data = w.data();
  for (uint32_t len : {4096u, 0u, 17u, 4096u}) {
    encode(make_packet(op::kRcWriteOnlyImm, len, true), w);
    CHECK(w.data() == data);
  }
}
