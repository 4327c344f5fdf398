// Flow-control packets (iba-facts 2): 6 bytes, Op/FCTBS, VL/FCCL, LPCRC.
#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/codec.hpp"
#include "models/ib/crc.hpp"

using namespace hcasim::ib;

TEST_CASE("FCP fields round-trip at their edge values", "[fcp]") {
  for (uint8_t opv : {kFcpOpNormal, kFcpOpInit}) {
    for (uint8_t vl = 0; vl < 16; ++vl) {
      for (uint16_t fctbs : {0, 1, 2048, 4095}) {
        for (uint16_t fccl : {0, 2047, 4095}) {
          const FlowControl fc{opv, fctbs, vl, fccl};
          uint8_t w[kFlowControlBytes];
          encode_fcp(fc, w);
          CHECK(w[0] >> 4 == opv);
          CHECK(((w[0] & 0xF) << 8 | w[1]) == fctbs);
          CHECK(w[2] >> 4 == vl);
          CHECK(((w[2] & 0xF) << 8 | w[3]) == fccl);
          CHECK(load_le16(&w[4]) == crc16_iba(w, 4));
          FlowControl out;
          REQUIRE(decode_fcp(w, sizeof w, out).ok);
          CHECK(out.op == opv);
          CHECK(out.vl == vl);
          CHECK(out.fctbs == fctbs);
          CHECK(out.fccl == fccl);
        }
      }
    }
  }
}

TEST_CASE("reserved FCP Op values are rejected", "[fcp][reject]") {
  for (uint8_t opv = 2; opv < 16; ++opv) {
    uint8_t w[kFlowControlBytes];
    encode_fcp(FlowControl{opv, 100, 3, 200}, w);  // LPCRC is right; only Op is bad
    FlowControl out;
    const DecodeResult r = decode_fcp(w, sizeof w, out);
    CHECK_FALSE(r.ok);
    CHECK(r.error == DecodeError::ReservedFcpOp);
  }
}

TEST_CASE("bad LPCRC and wrong lengths are rejected", "[fcp][reject]") {
  uint8_t w[kFlowControlBytes];
  encode_fcp(FlowControl{0, 4095, 15, 4095}, w);
  FlowControl out;
  for (size_t i = 0; i < kFlowControlBytes; ++i) {
    uint8_t bad[kFlowControlBytes];
    std::copy(w, w + kFlowControlBytes, bad);
    bad[i] ^= 0x08;
    CHECK(decode_fcp(bad, sizeof bad, out).error == DecodeError::BadLpcrc);
  }
  for (size_t n = 0; n < kFlowControlBytes; ++n) {
    const std::vector<uint8_t> cut(w, w + n);
    CHECK(decode_fcp(cut.data(), cut.size(), out).error == DecodeError::ShortBuffer);
  }
  std::vector<uint8_t> longer(w, w + kFlowControlBytes);
  longer.push_back(0);
  CHECK(decode_fcp(longer.data(), longer.size(), out).error == DecodeError::BadPktLen);
}

TEST_CASE("encode() of a FlowControl packet writes the 6-byte FCP", "[fcp]") {
  Packet p;
  p.kind = PacketKind::FlowControl;
  p.fc = FlowControl{1, 321, 9, 3210};
  std::vector<uint8_t> w;
  encode(p, w);
  REQUIRE(w.size() == kFlowControlBytes);
  CHECK(p.wire_bytes() == kFlowControlBytes);
  FlowControl out;
  REQUIRE(decode_fcp(w.data(), w.size(), out).ok);
  CHECK(out.fctbs == 321);
  CHECK(out.fccl == 3210);
  CHECK(out.vl == 9);
  CHECK(out.op == 1);
}
