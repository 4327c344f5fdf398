// Destroying verbs resources: a CQ only once no QP uses it, a QP in any state
// (even while an engine builds its packet), a memory region's keys.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "models/ib/opcodes.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::WcStatus;
using transport::WrOpcode;

TEST_CASE("A CQ is destroyed only when no QP uses it") {
  Pair t;
  const std::string busy = t.a().destroy_cq(t.qa.cq);
  CHECK(busy == "CQ " + std::to_string(t.qa.cq) + " is in use by QP " + std::to_string(t.qa.qpn));
  CHECK(t.a().destroy_cq(999) == "no CQ 999");
  REQUIRE(t.a().destroy_qp(t.qa.qpn).empty());
  CHECK(t.a().destroy_qp(t.qa.qpn) == "no QP " + std::to_string(t.qa.qpn));
  CHECK(t.a().hca().transport().find(t.qa.qpn) == nullptr);
  REQUIRE(t.a().destroy_cq(t.qa.cq).empty());
  CHECK_THROWS_AS(drain_cq(t.a(), t.qa.cq), std::out_of_range);
  transport::QpInit init;
  init.send_cq = init.recv_cq = t.qa.cq;
  CHECK_THROWS_AS(t.a().create_qp(init), std::invalid_argument);
}

TEST_CASE("A QP destroyed while an engine builds its packet still sends it and nothing completes") {
  Pair t;
  fill(t.a(), kSrc, 64, 3);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(7, kDst, 64, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  // The doorbell hands the first packet to an idle engine at once.
  t.rig.start();
  REQUIRE(t.a().hca().transport().stats().packets_built == 1);
  REQUIRE(t.a().destroy_qp(t.qa.qpn).empty());
  const WireLog& wire = t.rig.log(0);
  t.rig.run();
  CHECK(wire.with_opcode(ib::op::kRcSendOnly).size() == 1);  // the one being built, not the second
  CHECK(drain_cq(t.a(), t.qa.cq).empty());                    // no completion for a destroyed QP
  const auto cb = drain_cq(t.b(), t.qb.cq);
  REQUIRE(cb.size() == 1);
  CHECK(cb[0].status == WcStatus::Success);
  CHECK(bytes(t.b(), kDst, 64) == bytes(t.a(), kSrc, 64));
  CHECK(t.a().hca().transport().stats().unknown_qp_drops == 1);     // B's ACK finds no QP
  CHECK(t.rig.checker().ok());
}

TEST_CASE("A deregistered region's R_Key is refused with a remote access error") {
  Pair t;
  const hca::MemoryRegion region = t.b().reg_mr(kDst, 4096, transport::kLocalWrite | transport::kRemoteWrite);
  REQUIRE(t.b().dereg_mr(region.lkey));
  CHECK_FALSE(t.b().dereg_mr(region.lkey));
  transport::SendWr w = send_wr(1, WrOpcode::RdmaWrite, kSrc, 64, t.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = region.rkey;
  REQUIRE(t.a().post_send(t.qa.qpn, w).empty());
  t.rig.run();
  const auto ca = drain_cq(t.a(), t.qa.cq);
  REQUIRE(ca.size() == 1);
  CHECK(ca[0].status == WcStatus::RemAccessErr);
}

TEST_CASE("QPs and CQs created and destroyed without end: numbers in turn, destroy_cq refuses only CQs in use") {
  // Found by fuzz_hca_mmio, which makes a CQ and a QP per input: QP numbers only grew (past
  // 0xFFFFFF they would no longer fit the BTH's 24 bits) and destroy_cq scanned every number
  // ever given, so each input ran slower than the one before.
  Pair t;
  host::Driver& d = t.a();
  transport::QpInit init;
  init.max_send_wr = init.max_recv_wr = 4;
  init.max_send_sge = init.max_recv_sge = 1;
  uint32_t first_qp = 0, last_qp = 0, first_cq = 0, last_cq = 0;
  constexpr int kRounds = 3000;
  for (int i = 0; i < kRounds; ++i) {
    const uint32_t cq = d.create_cq(8);
    init.send_cq = init.recv_cq = cq;
    const uint32_t qp = d.create_qp(init);
    if (i == 0) first_qp = qp, first_cq = cq;
    if (i > 0) {
      CHECK(qp == last_qp + 1);  // in turn: the number destroyed last round is not taken again
      CHECK(cq == last_cq + 1);
    }
    last_qp = qp;
    last_cq = cq;
    CHECK(d.destroy_cq(cq) == "CQ " + std::to_string(cq) + " is in use by QP " + std::to_string(qp));
    REQUIRE(d.destroy_qp(qp).empty());
    REQUIRE(d.destroy_cq(cq).empty());
  }
  CHECK(last_qp == first_qp + kRounds - 1);
  CHECK(last_cq == first_cq + kRounds - 1);
  CHECK(transport::TransportEngine::kMaxQpn == 0xFFFFFF);  // the BTH's DestQP field
  CHECK(hca::CompletionWriter::kMaxCqn == 0xFFFFFF);       // the CQ doorbell's CQ number field
  // The pair's own QP and CQ are untouched and still work.
  fill(t.a(), kSrc, 64, 5);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(1, kDst, 64, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  t.rig.run();
  const auto ca = drain_cq(t.a(), t.qa.cq);
  REQUIRE(ca.size() == 1);
  CHECK(ca[0].status == WcStatus::Success);
  CHECK(bytes(t.b(), kDst, 64) == bytes(t.a(), kSrc, 64));
}
