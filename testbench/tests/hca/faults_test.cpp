// RC under faults injected on the link (models/link/fault_injector.hpp): the
// transport timer, PSN sequence error NAKs and retry exhaustion (seed 001,
// seed 002 "SQ Logic's Transport Timer"), and random loss on every link.
#include <catch2/catch.hpp>

#include <random>

#include "models/ib/opcodes.hpp"
#include "models/transport/requester.hpp"
#include "models/transport/transport_timers.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::QpState;
using transport::WcStatus;
using transport::WrOpcode;

namespace {

link::LinkConfig faulty(std::vector<link::DropRule> rules, double drop_rate = 0) {
  link::LinkConfig l;
  l.faults.drops = std::move(rules);
  l.faults.drop_rate = drop_rate;
  l.faults.seed = 7;
  return l;
}

link::DropRule rule(uint8_t opcode, uint64_t nth, uint64_t count, bool every = false) {
  link::DropRule r;
  r.opcode = opcode;
  r.nth = nth;
  r.count = count;
  r.every = every;
  return r;
}
}  // namespace

TEST_CASE("Transport timer: a lost ACK is recovered by a resend within Ttr and 4 Ttr") {
  workloads::ConnectionParams params;
  params.timeout = 10;  // Ttr = 4.096 us x 2^10 = 4.194 ms
  Pair t(params, {}, faulty({rule(ib::op::kRcAck, 1, 1)}));
  const WireLog& wire_a = t.rig.log(0);
  fill(t.a(), kSrc, 64, 1);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(0, kDst, 64, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  t.rig.run();
  const auto sends = wire_a.with_opcode(ib::op::kRcSendOnly);
  REQUIRE(sends.size() == 2);
  const uint64_t ttr = transport::transport_timer_ps(10);
  const uint64_t gap = sends[1].time_ps - sends[0].time_ps;
  CHECK(gap >= ttr);
  CHECK(gap <= 4 * ttr);
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::Success});
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) == std::vector<WcStatus>{WcStatus::Success});  // once, not twice
  CHECK(t.qp_a().stats.timeouts == 1);
  CHECK(t.qp_b().stats.duplicates == 1);
  CHECK(bytes(t.b(), kDst, 64) == bytes(t.a(), kSrc, 64));
}

TEST_CASE("Transport timer: every ACK lost ends in retry_exc_err with the QP in Error and later WQEs flushed") {
  workloads::ConnectionParams params;
  params.timeout = 8;  // Ttr = 1.049 ms
  params.retry_cnt = 3;
  Pair t(params, {}, faulty({rule(ib::op::kRcAck, 1, 1, true)}));
  const WireLog& wire_a = t.rig.log(0);
  for (unsigned i = 0; i < 2; ++i) REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(i, kDst, 64, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  t.rig.run();
  // The first try and retry_cnt resends of the oldest unacknowledged PSN.
  std::vector<WireRecord> first;
  for (const WireRecord& r : wire_a.with_opcode(ib::op::kRcSendOnly))
    if (r.psn == 0) first.push_back(r);
  REQUIRE(first.size() == 4);
  const uint64_t ttr = transport::transport_timer_ps(8);
  for (std::size_t i = 1; i < first.size(); ++i) {
    // Measured from the last request sent before it (the timer restarts with each).
    uint64_t last = 0;
    for (const WireRecord& r : wire_a.records)
      if (r.time_ps < first[i].time_ps) last = r.time_ps;
    CHECK(first[i].time_ps - last >= ttr);
    CHECK(first[i].time_ps - last <= 4 * ttr);
  }
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::RetryExcErr, WcStatus::WrFlushErr});
  CHECK(t.qp_a().state == QpState::Err);
  CHECK(t.qp_a().stats.timeouts == 4);  // three resends, and the fourth expiry ends it
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::Send, kSrc, 8, t.ma.lkey)).empty());
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::WrFlushErr});
}

TEST_CASE("PSN sequence error NAK: a lost request packet is resent from the NAK's PSN") {
  workloads::ConnectionParams params;
  params.mtu = 1024;
  params.psn_a = 300;
  link::PortConfig port;
  port.mtu = 1024;
  Pair t(params, port, faulty({rule(ib::op::kRcSendMiddle, 2, 1)}));  // PSN 302
  const WireLog& wire_b = t.rig.log(1);
  fill(t.a(), kSrc, 8192, 2);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(0, kDst, 8192, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 6000, t.ma.lkey)).empty());  // 300-305
  t.rig.run();
  std::vector<WireRecord> naks;
  for (const WireRecord& r : wire_b.with_opcode(ib::op::kRcAck))
    if ((r.syndrome & 0x60) == 0x60) naks.push_back(r);
  REQUIRE(naks.size() == 1);  // one NAK, then silence until ePSN (seed 001)
  CHECK(naks[0].syndrome == 0x60);
  CHECK(naks[0].psn == 302);  // the responder's ePSN
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::Success});
  CHECK(statuses(drain_cq(t.b(), t.qb.cq)) == std::vector<WcStatus>{WcStatus::Success});
  CHECK(bytes(t.b(), kDst, 6000) == bytes(t.a(), kSrc, 6000));
  CHECK(t.qp_a().stats.naks_received[transport::kNakPsnSequence] == 1);
  CHECK(t.qp_a().stats.retries == 1);
  CHECK(t.qp_b().epsn == 306);
}

TEST_CASE("PSN sequence error NAK with no retries left ends in retry_exc_err") {
  workloads::ConnectionParams params;
  params.retry_cnt = 0;
  params.mtu = 1024;
  link::PortConfig port;
  port.mtu = 1024;
  Pair t(params, port, faulty({rule(ib::op::kRcSendFirst, 1, 1)}));
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(0, kDst, 8192, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 3000, t.ma.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 30, t.ma.lkey)).empty());
  t.rig.run();
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::RetryExcErr, WcStatus::WrFlushErr});
  CHECK(t.qp_a().state == QpState::Err);
  CHECK(t.qp_b().state == QpState::Rts);  // the responder saw only a sequence error: no state change
}

TEST_CASE("1 percent random loss on every link: 1000 mixed RC messages all complete with exact data") {
  workloads::ConnectionParams params;
  params.mtu = 1024;
  params.timeout = 6;  // 262 us
  params.max_rd_atomic = 4;
  link::PortConfig port;
  port.mtu = 1024;
  Pair t(params, port, faulty({}, 0.01));
  host::Driver& a = t.a();
  host::Driver& b = t.b();
  std::mt19937_64 rng(11);
  fill(a, 0, 1 << 22, 3);
  fill(b, 0x4000000, 1 << 22, 4);
  struct Expect {
    WrOpcode op;
    uint64_t local, remote;
    uint32_t len;
  };
  std::vector<Expect> ops;
  uint64_t sum = 0;
  unsigned sends = 0;
  const uint64_t counter = 0x7000000;
  for (unsigned i = 0; i < 1000; ++i) {
    const unsigned kind = static_cast<unsigned>(rng() % 4);
    const auto len = static_cast<uint32_t>(1 + rng() % 9000);
    transport::SendWr w;
    w.wr_id = i;
    if (kind == 0) {  // SEND into a fresh receive buffer
      w = send_wr(i, WrOpcode::Send, (rng() % 256) * 8192, len, t.ma.lkey);
      REQUIRE(b.post_recv(t.qb.qpn, recv_wr(i, 0x1000000 + sends * 16384ull, 16384, t.mb.lkey)).empty());
      ops.push_back({WrOpcode::Send, w.sg_list[0].addr, 0x1000000 + sends * 16384ull, len});
      ++sends;
    } else if (kind == 1) {  // WRITE to a fresh remote place
      w = send_wr(i, WrOpcode::RdmaWrite, (rng() % 256) * 8192, len, t.ma.lkey);
      w.remote_addr = 0x2000000 + i * 16384ull;
      w.rkey = t.mb.rkey;
      ops.push_back({WrOpcode::RdmaWrite, w.sg_list[0].addr, w.remote_addr, len});
    } else if (kind == 2) {  // READ into a fresh local place
      w = send_wr(i, WrOpcode::RdmaRead, 0x8000000 + i * 16384ull, len, t.ma.lkey);
      w.remote_addr = 0x4000000 + (rng() % 256) * 8192;
      w.rkey = t.mb.rkey;
      ops.push_back({WrOpcode::RdmaRead, w.sg_list[0].addr, w.remote_addr, len});
    } else {  // FETCH_ADD on one counter: each returns the sum so far
      w = send_wr(i, WrOpcode::AtomicFetchAdd, 0xC000000 + i * 8ull, 8, t.ma.lkey);
      w.remote_addr = counter;
      w.rkey = t.mb.rkey;
      w.compare_add = i + 1;
      ops.push_back({WrOpcode::AtomicFetchAdd, w.sg_list[0].addr, sum, 8});
      sum += i + 1;
    }
    REQUIRE(a.post_send(t.qa.qpn, w).empty());
  }
  t.rig.run();
  const auto done = drain_cq(a, t.qa.cq);
  REQUIRE(done.size() == 1000);
  for (unsigned i = 0; i < 1000; ++i) {
    INFO("WQE " << i);
    CHECK(done[i].wr_id == i);
    REQUIRE(done[i].status == WcStatus::Success);
    const Expect& e = ops[i];
    if (e.op == WrOpcode::Send || e.op == WrOpcode::RdmaWrite) CHECK(bytes(b, e.remote, e.len) == bytes(a, e.local, e.len));
    if (e.op == WrOpcode::RdmaRead) CHECK(bytes(a, e.local, e.len) == bytes(b, e.remote, e.len));
    if (e.op == WrOpcode::AtomicFetchAdd) CHECK(a.memory().read_u64(e.local) == e.remote);
  }
  CHECK(b.memory().read_u64(counter) == sum);  // each atomic executed once
  CHECK(drain_cq(b, t.qb.cq).size() == sends);
  const transport::QpStats& s = t.qp_a().stats;
  CHECK(s.retries > 0);
  CHECK(s.resent_packets > 0);
  CHECK(s.naks_received[transport::kNakPsnSequence] + s.timeouts > 0);
  CHECK(t.qp_b().stats.duplicates > 0);
  // Both directions lost about 1% of their packets, and the checker accounted for all of it.
  CHECK(t.rig.checker().ok());
}
