// Lengths against the formulas of iba-facts 1.
#include <catch2/catch.hpp>

#include "models/ib/layout.hpp"
#include "models/ib/opcodes.hpp"

using namespace hcasim::ib;

TEST_CASE("PadCnt = (4 - payload) & 3", "[layout]") {
  CHECK(pad_count(0) == 0);
  CHECK(pad_count(1) == 3);
  CHECK(pad_count(2) == 2);
  CHECK(pad_count(3) == 1);
  CHECK(pad_count(4) == 0);
  CHECK(pad_count(255) == 1);
  CHECK(pad_count(4096) == 0);
}

TEST_CASE("maximum PktLen per MTU", "[layout]") {
  CHECK(max_pkt_len_words(4096) == 1055);
  CHECK(max_pkt_len_words(1024) == 287);
  CHECK(kMinPktLenIba == 6);
  CHECK(kMinPktLenRaw == 5);
}

TEST_CASE("PktLen of a UD packet matches ud_header's (LRH+BTH+DETH+payload+4+3)/4", "[layout]") {
  Headers h;
  h.bth.opcode = op::kUdSendOnly;
  for (uint32_t payload : {0u, 1u, 2u, 3u, 4u, 5u, 256u, 4095u, 4096u}) {
    INFO("payload " << payload);
    h.lrh.lnh = Lnh::IbaLocal;
    const uint32_t local = (8 + 12 + 8 + payload + 4 + 3) / 4;
    CHECK(pkt_len_words(h, payload) == local);
    CHECK(header_bytes(h) == 28);
    CHECK(packet_wire_bytes(h, payload) == local * 4 + 2);
    h.lrh.lnh = Lnh::IbaGlobal;
    CHECK(pkt_len_words(h, payload) == local + 10);
    CHECK(grh_pay_len(h, payload) == (local + 10) * 4 - 48);
    CHECK(header_bytes(h) == 68);
  }
}

TEST_CASE("the smallest IBA packet is the minimum PktLen and a 4096-byte payload fits MTU 4096", "[layout]") {
  Headers h;
  h.bth.opcode = op::kRcSendMiddle;  // no extended headers
  CHECK(pkt_len_words(h, 0) == kMinPktLenIba);  // LRH 8 + BTH 12 + ICRC 4 = 24 bytes
  h.lrh.lnh = Lnh::IbaGlobal;
  h.bth.opcode = op::kRcWriteOnlyImm;
  CHECK(pkt_len_words(h, 4096) <= max_pkt_len_words(4096));
}

TEST_CASE("raw packets are LRH + word-padded payload with no ICRC", "[layout]") {
  Headers h;
  h.lrh.lnh = Lnh::Raw;
  CHECK(header_bytes(h) == 8);
  CHECK(pkt_len_words(h, 12) == 5);
  CHECK(pkt_len_words(h, 13) == 6);
  CHECK(packet_wire_bytes(h, 13) == 8 + 16 + 2);
  h.lrh.lnh = Lnh::Ip;
  CHECK(pkt_len_words(h, 40) == 12);
}
