// Opcode table against iba-facts 1 ("Opcode values", "Which opcodes carry which
// headers") and the header sizes listed there; the CNP of congestion control
// (opcode 0x80, LRH and BTH only).
#include <catch2/catch.hpp>

#include <set>

#include "models/ib/opcodes.hpp"

using namespace hcasim::ib;

TEST_CASE("exactly the RC - UC and UD opcodes of iba-facts 1 and the CNP are valid", "[opcodes]") {
  std::set<unsigned> expected;
  for (unsigned o = 0x00; o <= 0x14; ++o) expected.insert(o);
  expected.insert({0x16, 0x17, 0x1C, 0x1D});
  for (unsigned o = 0x20; o <= 0x2B; ++o) expected.insert(o);
  expected.insert({0x64, 0x65});
  expected.insert(0x80);  // CNP (IBA Annex A10; Linux hfi1 decodes 0x80 as CNP)
  for (unsigned o = 0; o < 256; ++o) {
    INFO("opcode " << o);
    const OpcodeInfo& info = opcode_info(static_cast<uint8_t>(o));
    CHECK(info.valid == (expected.count(o) == 1));
    CHECK(info.name != nullptr);
    if (!info.valid) CHECK(ext_header_bytes(static_cast<uint8_t>(o)) == 0);
  }
}

TEST_CASE("extended headers and their byte counts per opcode", "[opcodes]") {
  // Sizes: RETH 16, AETH 4, AtomicETH 28, AtomicAckETH 8, ImmDt 4, IETH 4, DETH 8
  // (iba-facts 1); FETH 4 (IBA 1.5 A19 via rxe).
  struct Row { uint8_t op; uint8_t ext; unsigned bytes; bool payload; };
  const Row rows[] = {
      {op::kRcSendFirst, 0, 0, true},
      {op::kRcSendMiddle, 0, 0, true},
      {op::kRcSendLastImm, ExtHeader::ImmDt, 4, true},
      {op::kRcSendOnlyImm, ExtHeader::ImmDt, 4, true},
      {op::kRcWriteFirst, ExtHeader::Reth, 16, true},
      {op::kRcWriteMiddle, 0, 0, true},
      {op::kRcWriteLastImm, ExtHeader::ImmDt, 4, true},
      {op::kRcWriteOnly, ExtHeader::Reth, 16, true},
      {op::kRcWriteOnlyImm, ExtHeader::Reth | ExtHeader::ImmDt, 20, true},
      {op::kRcReadRequest, ExtHeader::Reth, 16, false},
      {op::kRcReadRespFirst, ExtHeader::Aeth, 4, true},
      {op::kRcReadRespMiddle, 0, 0, true},
      {op::kRcReadRespLast, ExtHeader::Aeth, 4, true},
      {op::kRcReadRespOnly, ExtHeader::Aeth, 4, true},
      {op::kRcAck, ExtHeader::Aeth, 4, false},
      {op::kRcAtomicAck, ExtHeader::Aeth | ExtHeader::AtomicAckEth, 12, false},
      {op::kRcCmpSwap, ExtHeader::AtomicEth, 28, false},
      {op::kRcFetchAdd, ExtHeader::AtomicEth, 28, false},
      {op::kRcSendLastInv, ExtHeader::Ieth, 4, true},
      {op::kRcSendOnlyInv, ExtHeader::Ieth, 4, true},
      {op::kRcFlush, ExtHeader::Feth | ExtHeader::Reth, 20, false},
      {op::kRcAtomicWrite, ExtHeader::Reth, 16, true},
      {op::kUcSendOnlyImm, ExtHeader::ImmDt, 4, true},
      {op::kUcWriteFirst, ExtHeader::Reth, 16, true},
      {op::kUcWriteOnlyImm, ExtHeader::Reth | ExtHeader::ImmDt, 20, true},
      {op::kUdSendOnly, ExtHeader::Deth, 8, true},
      {op::kUdSendOnlyImm, ExtHeader::Deth | ExtHeader::ImmDt, 12, true},
  };
  for (const Row& r : rows) {
    INFO("opcode " << int(r.op) << " " << opcode_info(r.op).name);
    CHECK(opcode_info(r.op).valid);
    CHECK(opcode_info(r.op).ext == r.ext);
    CHECK(ext_header_bytes(r.op) == r.bytes);
    CHECK(opcode_info(r.op).has_payload == r.payload);
  }
}

TEST_CASE("wire order of extended headers follows the bit order", "[opcodes]") {
  // DETH before ImmDt (UD SEND_ONLY_IMM), RETH before ImmDt (WRITE_ONLY_IMM), AETH
  // before AtomicAckETH (ATOMIC_ACK), FETH before RETH (FLUSH).
  CHECK(ExtHeader::Deth < ExtHeader::ImmDt);
  CHECK(ExtHeader::Reth < ExtHeader::ImmDt);
  CHECK(ExtHeader::Aeth < ExtHeader::AtomicAckEth);
  CHECK(ExtHeader::Feth < ExtHeader::Reth);
  CHECK(ExtHeader::Deth < ExtHeader::Reth);
}

TEST_CASE("UC carries only SEND and RDMA WRITE and UD only SEND_ONLY", "[opcodes]") {
  for (unsigned suffix = 0; suffix < 32; ++suffix) {
    INFO("suffix " << suffix);
    CHECK(opcode_info(static_cast<uint8_t>(0x20 | suffix)).valid == (suffix <= 0x0B));
    CHECK(opcode_info(static_cast<uint8_t>(0x60 | suffix)).valid == (suffix == 4 || suffix == 5));
    CHECK_FALSE(opcode_info(static_cast<uint8_t>(0x40 | suffix)).valid);  // RD not modelled
  }
}
