#pragma once
// Test helpers shared by the ib and trace tests: packets with non-trivial values in
// every header field (full field widths exercised), and a field-by-field comparison.

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/ib/layout.hpp"
#include "models/ib/opcodes.hpp"
#include "models/ib/packet.hpp"

namespace hcasim::ib::test {

// Every opcode opcode_info() reports valid, in ascending order.
inline std::vector<uint8_t> valid_opcodes() {
  std::vector<uint8_t> ops;
  for (unsigned o = 0; o < 256; ++o) {
    if (opcode_info(static_cast<uint8_t>(o)).valid) ops.push_back(static_cast<uint8_t>(o));
  }
  return ops;
}

// A packet with distinct, full-width values in every field; `salt` varies them.
inline Packet make_packet(uint8_t opcode, uint32_t payload_len, bool grh, uint32_t salt = 0) {
  Packet p;
  Headers& h = p.hdr;
  h.lrh.vl = static_cast<uint8_t>((3 + salt) & 0xF);
  h.lrh.sl = static_cast<uint8_t>((0xB + salt) & 0xF);
  h.lrh.lnh = grh ? Lnh::IbaGlobal : Lnh::IbaLocal;
  h.lrh.dlid = static_cast<uint16_t>(0xC123 + salt);
  h.lrh.slid = static_cast<uint16_t>(0x0042 + 7 * salt);
  h.grh.tclass = static_cast<uint8_t>(0xA5 ^ salt);
  h.grh.flow_label = (0xFEDCB + salt) & 0xFFFFF;
  h.grh.hop_lmt = static_cast<uint8_t>(0x3F + salt);
  for (int i = 0; i < 16; ++i) {
    h.grh.sgid[i] = static_cast<uint8_t>(0xF0 + i + salt);
    h.grh.dgid[i] = static_cast<uint8_t>(0x10 * i + 1 + salt);
  }
  h.bth.opcode = opcode;
  h.bth.se = true;
  h.bth.m = (salt & 1) != 0;
  h.bth.p_key = static_cast<uint16_t>(0x8001 + salt);
  h.bth.resv8a = static_cast<uint8_t>(0x40 + salt);
  h.bth.dest_qp = (0xABCDEF + salt) & 0xFFFFFF;
  h.bth.ack_req = (salt & 2) == 0;
  h.bth.psn = (0xFEDCBA - salt) & 0xFFFFFF;
  h.reth = Reth{0x0123456789ABCDEFull + salt, 0xDEADBEEF - salt, 0x10000 + payload_len};
  h.aeth = Aeth{static_cast<uint8_t>(0x1F + salt), (0x876543 + salt) & 0xFFFFFF};
  h.atomic_eth = AtomicEth{0xFEDCBA9876543210ull - salt, 0xCAFEF00D + salt,
                           0x1111222233334444ull + salt, 0x5555666677778888ull + salt};
  h.atomic_ack_eth.orig_data = 0x99AABBCCDDEEFF00ull + salt;
  h.imm_dt = 0xA1B2C3D4 + salt;
  h.ieth_r_key = 0x0BADCAFE + salt;
  h.deth = Deth{0x80010000 + salt, (0x123456 + salt) & 0xFFFFFF};
  h.feth = Feth{static_cast<uint8_t>((5 + salt) & 0xF), static_cast<uint8_t>((2 + salt) & 3)};
  p.payload_len = payload_len;
  p.payload.resize(payload_len);
  // First byte 0xE5..0xF4: tshark hands payloads that start like an IPoIB header
  // (an EtherType such as 08 00) to IPv4/Ethertype heuristics, which can throw on
  // short payloads and hide the CRC fields; this pattern never looks like one.
  for (uint32_t i = 0; i < payload_len; ++i) {
    p.payload[i] = static_cast<uint8_t>(0xE5 + i * 31 + (salt & 0xF));
  }
  p.finalize_lengths();
  return p;
}

// Compares the wire-visible fields of two packets: the LRH, GRH when present, BTH,
// the extended headers the opcode carries, and the payload.
inline void check_same_wire_fields(const Packet& a, const Packet& b) {
  const Headers& x = a.hdr;
  const Headers& y = b.hdr;
  CHECK(x.lrh.vl == y.lrh.vl);
  CHECK(x.lrh.lver == y.lrh.lver);
  CHECK(x.lrh.sl == y.lrh.sl);
  CHECK(x.lrh.lnh == y.lrh.lnh);
  CHECK(x.lrh.dlid == y.lrh.dlid);
  CHECK(x.lrh.pkt_len == y.lrh.pkt_len);
  CHECK(x.lrh.slid == y.lrh.slid);
  CHECK(a.payload_len == b.payload_len);
  CHECK(a.payload == b.payload);
  if (!is_iba_transport(x.lrh.lnh)) return;
  if (x.lrh.lnh == Lnh::IbaGlobal) {
    CHECK(x.grh.ip_ver == y.grh.ip_ver);
    CHECK(x.grh.tclass == y.grh.tclass);
    CHECK(x.grh.flow_label == y.grh.flow_label);
    CHECK(x.grh.pay_len == y.grh.pay_len);
    CHECK(x.grh.nxt_hdr == y.grh.nxt_hdr);
    CHECK(x.grh.hop_lmt == y.grh.hop_lmt);
    CHECK(x.grh.sgid == y.grh.sgid);
    CHECK(x.grh.dgid == y.grh.dgid);
  }
  CHECK(x.bth.opcode == y.bth.opcode);
  CHECK(x.bth.se == y.bth.se);
  CHECK(x.bth.m == y.bth.m);
  CHECK(x.bth.pad_cnt == y.bth.pad_cnt);
  CHECK(x.bth.tver == y.bth.tver);
  CHECK(x.bth.p_key == y.bth.p_key);
  CHECK(x.bth.resv8a == y.bth.resv8a);
  CHECK(x.bth.dest_qp == y.bth.dest_qp);
  CHECK(x.bth.ack_req == y.bth.ack_req);
  CHECK(x.bth.psn == y.bth.psn);
  const uint8_t ext = opcode_info(x.bth.opcode).ext;
  if (ext & ExtHeader::Deth) {
    CHECK(x.deth.q_key == y.deth.q_key);
    CHECK(x.deth.src_qp == y.deth.src_qp);
  }
  if (ext & ExtHeader::Feth) {
    CHECK(x.feth.placement_type == y.feth.placement_type);
    CHECK(x.feth.selectivity_level == y.feth.selectivity_level);
  }
  if (ext & ExtHeader::Reth) {
    CHECK(x.reth.va == y.reth.va);
    CHECK(x.reth.r_key == y.reth.r_key);
    CHECK(x.reth.dma_len == y.reth.dma_len);
  }
  if (ext & ExtHeader::AtomicEth) {
    CHECK(x.atomic_eth.va == y.atomic_eth.va);
    CHECK(x.atomic_eth.r_key == y.atomic_eth.r_key);
    CHECK(x.atomic_eth.swap_add == y.atomic_eth.swap_add);
    CHECK(x.atomic_eth.compare == y.atomic_eth.compare);
  }
  if (ext & ExtHeader::Aeth) {
    CHECK(x.aeth.syndrome == y.aeth.syndrome);
    CHECK(x.aeth.msn == y.aeth.msn);
  }
  if (ext & ExtHeader::AtomicAckEth) CHECK(x.atomic_ack_eth.orig_data == y.atomic_ack_eth.orig_data);
  if (ext & ExtHeader::ImmDt) CHECK(x.imm_dt == y.imm_dt);
  if (ext & ExtHeader::Ieth) CHECK(x.ieth_r_key == y.ieth_r_key);
}

}  // namespace hcasim::ib::test
