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
