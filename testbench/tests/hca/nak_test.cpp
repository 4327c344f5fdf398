// The NAKs of seed 001 provoked end to end: the NAK's PSN on the wire, the
// requester's completion statuses, both QPs' states, and the flushed WQEs.
#include <catch2/catch.hpp>

#include "models/ib/opcodes.hpp"
#include "models/transport/transport_timers.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::QpState;
using transport::WcStatus;
using transport::WrOpcode;

namespace {
constexpr uint64_t kRemote = 0x1000000;

transport::SendWr rdma(uint64_t id, WrOpcode op, uint32_t len, uint32_t lkey, uint64_t remote, uint32_t rkey) {
  transport::SendWr w = send_wr(id, op, kSrc, len, lkey);
  w.remote_addr = remote;
  w.rkey = rkey;
  return w;
}

// The one NAK B sent, as (syndrome, PSN).
std::pair<uint8_t, uint32_t> only_nak(const WireLog& b) {
  std::vector<WireRecord> naks;
  for (const WireRecord& r : b.with_opcode(ib::op::kRcAck))
    if ((r.syndrome & 0x60) != 0) naks.push_back(r);
  REQUIRE(naks.size() == 1);
  return {naks[0].syndrome, naks[0].psn};
}
}  // namespace

TEST_CASE("Remote access error NAK: bad R_Key on an RDMA WRITE") {
  workloads::ConnectionParams params;
  params.psn_a = 500;
  Pair t(params);
  const WireLog& wire_b = t.rig.log(1);
  fill(t.a(), kSrc, 65536, 3);
  for (unsigned i = 0; i < 2; ++i) REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(100 + i, kDst, 8192, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, rdma(0, WrOpcode::RdmaWrite, 6000, t.ma.lkey, kRemote, t.mb.rkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, rdma(1, WrOpcode::RdmaWrite, 100, t.ma.lkey, kRemote, t.mb.rkey ^ 0x5500)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(3, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  t.rig.run();
  REQUIRE(t.rig.checker().ok());
  // The first WRITE took PSNs 500-501; the bad one is 502: the NAK carries it (seed 001).
  const auto [syndrome, psn] = only_nak(wire_b);
  CHECK(syndrome == 0x62);
  CHECK(psn == 502);
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) ==
        std::vector<WcStatus>{WcStatus::Success, WcStatus::RemAccessErr, WcStatus::WrFlushErr, WcStatus::WrFlushErr});
  CHECK(t.qp_a().state == QpState::Err);
  CHECK(t.qp_b().state == QpState::Err);
  CHECK(t.qp_b().epsn == 502);  // not advanced
  // The WRITE used no receive WQE: an affiliated asynchronous error; the posted receives are flushed.
  REQUIRE(t.b().hca().async_events().size() == 1);
  CHECK(t.b().hca().async_events()[0].second == "IBV_EVENT_QP_ACCESS_ERR");
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) == std::vector<WcStatus>{WcStatus::WrFlushErr, WcStatus::WrFlushErr});
  // The first WRITE's bytes landed; later WQEs completed flushed, and so does a new one.
  CHECK(bytes(t.b(), kRemote, 6000) == bytes(t.a(), kSrc, 6000));
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(9, WrOpcode::Send, kSrc, 8, t.ma.lkey)).empty());
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::WrFlushErr});
}

TEST_CASE("Invalid request NAK: a SEND longer than the receive WQE") {
  Pair t;
  const WireLog& wire_b = t.rig.log(1);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(100, kDst, 1000, t.mb.lkey)).empty());
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(101, kDst, 1000, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 5000, t.ma.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 10, t.ma.lkey)).empty());
  t.rig.run();
  const auto [syndrome, psn] = only_nak(wire_b);
  CHECK(syndrome == 0x61);
  CHECK(psn == 0);  // the first packet already overflows: ePSN
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::RemInvReqErr, WcStatus::WrFlushErr});
  // seed 001 Table 17-5: the receive WQE in use completes with local length error, the rest flushed.
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) == std::vector<WcStatus>{WcStatus::LocLenErr, WcStatus::WrFlushErr});
  CHECK(t.qp_a().state == QpState::Err);
  CHECK(t.qp_b().state == QpState::Err);
  CHECK(t.b().hca().async_events().empty());
}

TEST_CASE("Invalid request NAK: RDMA READ to a QP that allows no remote reads") {
  workloads::ConnectionParams params;
  params.access = transport::kLocalWrite | transport::kRemoteWrite;
  Pair t(params);
  const WireLog& wire_b = t.rig.log(1);
  REQUIRE(t.a().post_send(t.qa.qpn, rdma(0, WrOpcode::RdmaRead, 64, t.ma.lkey, kRemote, t.mb.rkey)).empty());
  t.rig.run();
  CHECK(only_nak(wire_b) == std::pair<uint8_t, uint32_t>{0x61, 0});
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::RemInvReqErr});
  REQUIRE(t.b().hca().async_events().size() == 1);
  CHECK(t.b().hca().async_events()[0].second == "IBV_EVENT_QP_REQ_ERR");
}

TEST_CASE("Invalid request NAK: a misaligned atomic and a READ with no responder resources") {
  workloads::ConnectionParams params;
  params.max_dest_rd_atomic = 0;
  Pair t(params);
  const WireLog& wire_b = t.rig.log(1);
  transport::SendWr cas = rdma(0, WrOpcode::AtomicCmpSwp, 8, t.ma.lkey, kRemote + 4, t.mb.rkey);
  REQUIRE(t.a().post_send(t.qa.qpn, cas).empty());
  t.rig.run();
  CHECK(only_nak(wire_b) == std::pair<uint8_t, uint32_t>{0x61, 0});
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::RemInvReqErr});
}

TEST_CASE("Remote operational error NAK: a malformed receive WQE") {
  workloads::ConnectionParams params;
  params.psn_a = 0xFFFFFE;  // and across the 24-bit wrap
  Pair t(params);
  const WireLog& wire_b = t.rig.log(1);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(100, kDst, 8192, t.mb.lkey)).empty());
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(101, kDst, 8192, t.mb.lkey + 77)).empty());  // no such key
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(102, kDst, 8192, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 5000, t.ma.lkey)).empty());  // 0xFFFFFE-0xFFFFFF
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 10, t.ma.lkey)).empty());    // 0
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::Send, kSrc, 10, t.ma.lkey)).empty());
  t.rig.run();
  CHECK(only_nak(wire_b) == std::pair<uint8_t, uint32_t>{0x63, 0});
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) ==
        std::vector<WcStatus>{WcStatus::Success, WcStatus::RemOpErr, WcStatus::WrFlushErr});
  // The WQE in use: an internal consistency error (loc_qp_op_err); the later one flushed.
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) ==
        std::vector<WcStatus>{WcStatus::Success, WcStatus::LocQpOpErr, WcStatus::WrFlushErr});
  CHECK(t.qp_a().state == QpState::Err);
  CHECK(t.qp_b().state == QpState::Err);
}

TEST_CASE("RNR NAK: the retry waits at least the timer code's delay") {
  // One connection per timer code, in one run: seed 001 Table 17-6.
  const uint8_t codes[] = {0, 1, 14, 31};
  link::PortConfig port;
  VerbsRig rig(config::back_to_back(port, port, link::LinkConfig{}));
  const WireLog& wire_a = rig.log(0);
  const WireLog& wire_b = rig.log(1);
  std::vector<std::pair<workloads::QpEnd, workloads::QpEnd>> conns;
  const hca::MemoryRegion ma = rig.driver(0).reg_mr(0, 1 << 24, transport::kLocalWrite);
  for (uint8_t code : codes) {
    workloads::ConnectionParams p;
    p.min_rnr_timer = code;
    p.rnr_retry = 1;
    p.psn_a = 1000u * code;
    conns.push_back(workloads::connect(rig.driver(0), 0, rig.driver(1), 0, p));
    REQUIRE(rig.driver(0).post_send(conns.back().first.qpn, send_wr(code, WrOpcode::Send, kSrc, 16, ma.lkey)).empty());
  }
  rig.run();
  for (std::size_t i = 0; i < conns.size(); ++i) {
    const uint8_t code = codes[i];
    INFO("timer code " << int(code));
    std::vector<WireRecord> sends, naks;
    for (const WireRecord& r : wire_a.with_opcode(ib::op::kRcSendOnly))
      if (r.psn == 1000u * code) sends.push_back(r);
    for (const WireRecord& r : wire_b.with_opcode(ib::op::kRcAck))
      if (r.psn == 1000u * code) naks.push_back(r);
    // rnr_retry 1: the first try and one retry, both RNR NAK'd, then the error.
    REQUIRE(sends.size() == 2);
    REQUIRE(naks.size() == 2);
    CHECK(naks[0].syndrome == (0x20 | code));
    const uint64_t delay = transport::rnr_delay_ps(code);
    CHECK(sends[1].time_ps - naks[0].time_ps >= delay);
    CHECK(sends[1].time_ps - naks[0].time_ps <= delay + 1'000'000);  // and not much later (1 us)
    const auto c = drain_cq(rig.driver(0), conns[i].first.cq);
    REQUIRE(c.size() == 1);
    CHECK(c[0].status == WcStatus::RnrRetryExcErr);
    CHECK(rig.hca(0).transport().find(conns[i].first.qpn)->state == QpState::Err);
  }
  CHECK(transport::rnr_delay_ps(0) == 655'360'000'000ull);
  CHECK(transport::rnr_delay_ps(31) == 491'520'000'000ull);
}

TEST_CASE("RNR NAK with rnr_retry 7 retries until a receive WQE is posted") {
  workloads::ConnectionParams params;
  params.min_rnr_timer = 14;  // 1.28 ms
  params.rnr_retry = 7;
  Pair t(params);
  const WireLog& wire_a = t.rig.log(0);
  fill(t.a(), kSrc, 64, 5);
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  t.rig.run(20'000'000'000);  // 20 ms: about 15 RNR waits
  CHECK(drain_cq(t.a(), t.qa.cq).empty());
  const std::size_t tries = wire_a.with_opcode(ib::op::kRcSendOnly).size();
  CHECK(tries >= 10);  // more than any finite rnr_retry (at most 6) would allow
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(7, kDst, 64, t.mb.lkey)).empty());
  t.rig.run();
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::Success});
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) == std::vector<WcStatus>{WcStatus::Success});
  CHECK(bytes(t.b(), kDst, 64) == bytes(t.a(), kSrc, 64));
  CHECK(t.qp_a().stats.rnr_naks_received == tries);
}
