// The driver (host/driver.hpp): its errors, its wr_id bookkeeping through
// ring and WQE-index wrap-around, and its CPU costs as the HCA sees them: the
// MMIO doorbells reach the HCA's BAR0 (a tap in front of it,
// hca/host_platform.hpp) at the times the driver's costs and the PCIe link's
// wire time and latency give.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "testbench/tests/hca/host_platform.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::QpState;
using transport::QpType;
using transport::WcStatus;
using transport::WrOpcode;

namespace {

transport::SendWr write_wr(HostPair& t, uint64_t id) {
  transport::SendWr w = send_wr(id, WrOpcode::RdmaWrite, kSrc, 8, t.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = t.mb.rkey;
  return w;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("driver: post_send and post_recv refuse what libibverbs refuses, and post nothing then") {
  workloads::ConnectionParams p;
  p.max_send_wr = 4;
  p.max_recv_wr = 2;
  HostPair t(ideal_settings(), p);
  host::Driver& a = t.a();
  const uint32_t sge = transport::QpInit{}.max_send_sge;  // 4: workloads::connect keeps QpInit's

  // Too many scatter/gather entries.
  transport::SendWr many = write_wr(t, 1);
  many.sg_list.assign(sge + 1, {kSrc, 1, t.ma.lkey});
  const std::string too_many = a.post_send(t.qa.qpn, many);
  CHECK(contains(too_many, "max_send_sge " + std::to_string(sge)));
  // An inline message above max_inline.
  transport::SendWr big = send_wr(2, WrOpcode::Send, kSrc, a.config().max_inline + 1, t.ma.lkey);
  big.send_inline = true;
  CHECK(contains(a.post_send(t.qa.qpn, big), "max_inline " + std::to_string(a.config().max_inline)));
  // Opcodes the QP type lacks.
  workloads::ConnectionParams ud = p, uc = p;
  ud.type = QpType::Ud;
  uc.type = QpType::Uc;
  const workloads::QpEnd ud_qp = workloads::create_qp_on(a, 0, t.qa.cq, ud);
  const workloads::QpEnd uc_qp = workloads::create_qp_on(a, 0, t.qa.cq, uc);
  workloads::bring_up(ud_qp, 0, 0, 0, 0, ud);
  workloads::bring_up(uc_qp, t.b().lid(0), t.qb.qpn, 0, 0, uc);
  CHECK(a.post_send(ud_qp.qpn, write_wr(t, 3)) == "rdma_write is not supported on a ud QP");
  CHECK(a.post_send(uc_qp.qpn, send_wr(4, WrOpcode::RdmaRead, kSrc, 8, t.ma.lkey)) ==
        "rdma_read is not supported on a uc QP");
  // A QP before RTS: RESET, INIT, RTR.
  const workloads::QpEnd fresh = workloads::create_qp_on(a, 0, t.qa.cq, p);
  CHECK(a.post_send(fresh.qpn, write_wr(t, 5)) == "post_send needs the QP in RTS or SQD, not reset");
  CHECK(contains(a.post_recv(fresh.qpn, recv_wr(6, kDst, 8, t.ma.lkey)), "out of RESET"));
  transport::QpAttr attr;
  attr.qp_state = QpState::Init;
  attr.qp_access_flags = p.access;
  REQUIRE(a.modify_qp(fresh.qpn, attr,
                      transport::kAttrState | transport::kAttrPkeyIndex | transport::kAttrPort |
                          transport::kAttrAccessFlags)
              .empty());
  CHECK(a.post_send(fresh.qpn, write_wr(t, 7)) == "post_send needs the QP in RTS or SQD, not init");
  // A full send queue: max_send_wr 4, counted before anything is polled. A list that would overflow it
  // posts none of its WRs.
  for (uint64_t i = 10; i < 13; ++i) REQUIRE(a.post_send(t.qa.qpn, write_wr(t, i)).empty());
  const uint64_t posts = a.stats().posts;
  CHECK(contains(a.post_send(t.qa.qpn, std::vector<transport::SendWr>{write_wr(t, 13), write_wr(t, 14)}),
                 "max_send_wr 4"));
  CHECK(a.stats().posts == posts);
  REQUIRE(a.post_send(t.qa.qpn, write_wr(t, 13)).empty());
  CHECK(contains(a.post_send(t.qa.qpn, write_wr(t, 14)), "send queue full: max_send_wr 4"));
  // A full receive queue, and too many receive entries.
  REQUIRE(a.post_recv(t.qa.qpn, recv_wr(20, kDst, 8, t.ma.lkey)).empty());
  REQUIRE(a.post_recv(t.qa.qpn, recv_wr(21, kDst, 8, t.ma.lkey)).empty());
  CHECK(contains(a.post_recv(t.qa.qpn, recv_wr(22, kDst, 8, t.ma.lkey)), "max_recv_wr 2"));
  transport::RecvWr wide;
  wide.sg_list.assign(transport::QpInit{}.max_recv_sge + 1, {kDst, 1, t.ma.lkey});
  CHECK(contains(t.b().post_recv(t.qb.qpn, wide), "max_recv_sge"));  // B's queue is empty: the entries are why

  HostPair::run();
  // Only the four good WRs reached the HCA: one BlueFlame write each, nothing else.
  CHECK(a.stats().posts == 4);
  CHECK(a.stats().blueflame_writes == 4);
  CHECK(a.stats().doorbells == 0);
  CHECK(t.hca_a().fetch_stats().send_wqes == 4);
  const auto done = poll_all(a, t.qa.cq);
  REQUIRE(done.size() == 4);
  for (uint64_t i = 0; i < 4; ++i) CHECK(done[i].wr_id == 10 + i);
}

TEST_CASE("driver: a post_send to a QP in ERR is taken and completes flushed") {
  HostPair t(ideal_settings());
  transport::QpAttr attr;
  attr.qp_state = QpState::Err;
  REQUIRE(t.a().modify_qp(t.qa.qpn, attr, transport::kAttrState).empty());
  transport::SendWr w = write_wr(t, 42);
  w.signaled = false;  // errors are always reported
  CHECK(t.a().post_send(t.qa.qpn, w).empty());
  HostPair::run();
  const auto done = poll_all(t.a(), t.qa.cq);
  REQUIRE(done.size() == 1);
  CHECK(done[0].wr_id == 42);
  CHECK(done[0].status == WcStatus::WrFlushErr);
  CHECK(t.hca_a().transport().stats().packets_built == 0);
}

TEST_CASE("driver: poll_cq gives back each signaled wr_id through ring and WQE-index wrap-around") {
  // A send ring of 8; rounds of 8 WRs, the last of each signaled (its completion frees the round's
  // slots) and some in between; 8300 rounds are 66400 WQEs: the 16-bit WQE index wraps once.
  constexpr uint64_t kRounds = 8300, kPerRound = 8;
  workloads::ConnectionParams p;
  p.max_send_wr = kPerRound;
  // poll_ps 0: the handler runs inside the HCA's completion call and posts from there (the engine
  // takes a WQE off its send queue before completing it).
  config::HcaSettings s = ideal_settings();
  s.host.driver.poll_ps = 0;
  HostPair t(s, p);
  const auto signaled = [](uint64_t id) { return id % kPerRound == kPerRound - 1 || id % 5 == 0; };
  std::vector<uint64_t> expected, got;
  std::vector<WcStatus> bad;
  uint64_t round = 0, left_in_round = 0;
  std::string error;
  const auto post_round = [&] {
    std::vector<transport::SendWr> list;
    left_in_round = 0;
    for (uint64_t i = 0; i < kPerRound; ++i) {
      const uint64_t id = round * kPerRound + i;
      transport::SendWr w = write_wr(t, id);
      w.signaled = signaled(id);
      if (w.signaled) {
        expected.push_back(id);
        ++left_in_round;
      }
      list.push_back(w);
    }
    ++round;
    const std::string why = t.a().post_send(t.qa.qpn, list);
    if (!why.empty() && error.empty()) error = why;
  };
  t.a().on_cq_event(t.qa.cq, [&] {
    for (const auto& wc : poll_all(t.a(), t.qa.cq)) {
      got.push_back(wc.wr_id);
      if (wc.status != WcStatus::Success) bad.push_back(wc.status);
      --left_in_round;
    }
    if (left_in_round == 0 && round < kRounds) post_round();
  });
  post_round();
  HostPair::run();
  CHECK(error.empty());
  CHECK(bad.empty());
  CHECK(round == kRounds);
  CHECK(t.a().stats().posts == kRounds * kPerRound);
  REQUIRE(got.size() == expected.size());
  CHECK(got == expected);
}

TEST_CASE("driver CPU costs: k posts of one WR ring their doorbells at p + d, 2(p + d), ... (MMIO) "
          "or p + b, 2(p + b), ... (BlueFlame)") {
  // Nothing else costs CPU time. The doorbell leaves when the thread is done; on simple_pcie it is one
  // TLP of 16 + 8 + 8 = 32 wire bytes (a BlueFlame write of a 48-byte WQE: 16 + 48 + 8 = 72) and
  // reaches the HCA that wire time plus the link's latency later (pcie_link.hpp, posted writes).
  constexpr uint64_t kPost = 40'000, kDoorbell = 150'000, kBlueFlame = 200'000, kLatency = 2'000'000;
  constexpr uint64_t kStart = 10'000'000, kPosts = 5;
  config::HcaSettings mmio = ideal_settings();
  mmio.host.pcie = simple_pcie(kLatency);
  mmio.host.driver.doorbell = host::DoorbellMode::Mmio;
  mmio.host.driver.post_ps = kPost;
  mmio.host.driver.doorbell_ps = kDoorbell;
  mmio.host.driver.blueflame_ps = kBlueFlame;
  config::HcaSettings bf = mmio;
  bf.host.driver.doorbell = host::DoorbellMode::BlueFlame;
  HostPair m(mmio, {}, "mmio_");
  HostPair b(bf, {}, "bf_");
  HostPair list(mmio, {}, "list_");
  for (HostPair* t : {&m, &b}) {
    HostPair::at(kStart, [t] {
      for (uint64_t i = 0; i < kPosts; ++i) REQUIRE(t->a().post_send(t->qa.qpn, write_wr(*t, i)).empty());
    });
  }
  HostPair::at(kStart, [&list] {
    std::vector<transport::SendWr> wrs;
    for (uint64_t i = 0; i < 4; ++i) wrs.push_back(write_wr(list, i));
    REQUIRE(list.a().post_send(list.qa.qpn, wrs).empty());
  });
  HostPair::run();

  const uint64_t uar = hca::kPageBytes;
  const auto doorbells = m.side_a().tap.writes_at(uar + hca::kUarSendDoorbell);
  REQUIRE(doorbells.size() == kPosts);
  for (uint64_t i = 0; i < kPosts; ++i) {
    INFO("doorbell " << i + 1);
    CHECK(doorbells[i].at_ps == kStart + (i + 1) * (kPost + kDoorbell) + 32 * kPsPerWireByte + kLatency);
    CHECK(hca::get_u32(doorbells[i].data.data()) == i + 1);  // the send counter
    CHECK(hca::get_u32(doorbells[i].data.data() + 4) == m.qa.qpn);
  }
  CHECK(m.a().stats().cpu_busy_ps == kPosts * (kPost + kDoorbell));

  const auto writes = b.side_a().tap.writes_at(uar + hca::kUarBlueFlame);
  REQUIRE(writes.size() == kPosts);
  const uint32_t wqe_bytes = hca::send_wqe_bytes(QpType::Rc, WrOpcode::RdmaWrite, 1, 0);
  for (uint64_t i = 0; i < kPosts; ++i) {
    INFO("BlueFlame write " << i + 1);
    REQUIRE(writes[i].data.size() == wqe_bytes);
    CHECK(writes[i].at_ps ==
          kStart + (i + 1) * (kPost + kBlueFlame) + (16 + wqe_bytes + 8) * kPsPerWireByte + kLatency);
    CHECK(hca::read_send_header(writes[i].data.data()).index == i);
  }
  CHECK(b.a().stats().cpu_busy_ps == kPosts * (kPost + kBlueFlame));

  // One list of four: four WQEs, then one doorbell.
  const auto one = list.side_a().tap.writes_at(uar + hca::kUarSendDoorbell);
  REQUIRE(one.size() == 1);
  CHECK(one[0].at_ps == kStart + 4 * kPost + kDoorbell + 32 * kPsPerWireByte + kLatency);
  CHECK(hca::get_u32(one[0].data.data()) == 4);
}

TEST_CASE("driver: on_cq_event runs poll_ps after the CQE is visible, and poll_cq then hands it out") {
  constexpr uint64_t kPoll = 50'000;
  config::HcaSettings s = ideal_settings();
  s.host.pcie = simple_pcie(500'000);
  s.host.memory.latency_ps = 100'000;
  s.host.memory.bandwidth_bps = 0;
  s.host.driver.poll_ps = kPoll;
  HostPair t(s);
  std::vector<uint64_t> visible, handled;
  std::vector<uint64_t> ids;
  t.side_a().memory.watch_writes(host::kDriverArea, host::kDriverArea + (uint64_t{1} << 40),
                                 [&](uint64_t, uint64_t, uint64_t at) { visible.push_back(at); });
  t.a().on_cq_event(t.qa.cq, [&] {
    handled.push_back(HostPair::now());
    for (const auto& wc : poll_all(t.a(), t.qa.cq)) ids.push_back(wc.wr_id);
  });
  REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, 1)).empty());
  HostPair::at(20'000'000, [&] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, 2)).empty()); });
  HostPair::run();
  REQUIRE(visible.size() == 2);
  REQUIRE(handled.size() == 2);
  CHECK(handled[0] == visible[0] + kPoll);
  CHECK(handled[1] == visible[1] + kPoll);
  CHECK(ids == std::vector<uint64_t>{1, 2});
}

TEST_CASE("driver: a busy-polling thread pays poll_ps per poll_cq that takes CQEs, when it takes them") {
  // rc-swarm's thread polls only the CQ of its window's oldest operation: a CQE that lands on
  // another CQ wakes the thread for nothing, and costs a poll only when the thread takes it, after
  // the CQEs before it. With poll p, post q and MMIO doorbell d, the thread's time per operation
  // is p + q + d whatever the window (stats: poll p per poll_cq that found CQEs).
  constexpr uint64_t kPoll = 50'000, kPost = 40'000, kDoorbell = 150'000, kLatency = 500'000;
  config::HcaSettings s = ideal_settings();
  s.host.pcie = simple_pcie(kLatency);
  s.host.driver.doorbell = host::DoorbellMode::Mmio;
  s.host.driver.post_ps = kPost;
  s.host.driver.doorbell_ps = kDoorbell;
  s.host.driver.poll_ps = kPoll;
  HostPair t(s);
  host::Driver& a = t.a();
  std::vector<uint64_t> wakes;
  uint64_t taken_at = 0;
  a.on_cq_event(t.qa.cq, [&] { wakes.push_back(HostPair::now()); });  // the thread is polling another CQ
  REQUIRE(a.post_send(t.qa.qpn, write_wr(t, 1)).empty());
  REQUIRE(a.post_send(t.qa.qpn, write_wr(t, 2)).empty());
  constexpr uint64_t kLater = 30'000'000;  // both CQEs long visible
  HostPair::at(kLater, [&] {
    // The thread comes to this CQ: one poll_cq takes both CQEs and pays one poll, then it posts.
    CHECK(poll_all(a, t.qa.cq).size() == 2);
    taken_at = HostPair::now();
    REQUIRE(a.post_send(t.qa.qpn, write_wr(t, 3)).empty());
  });
  HostPair::run();
  REQUIRE(taken_at == kLater);
  CHECK(wakes.size() >= 1);  // woken for the CQEs, took none then
  CHECK(a.stats().cq_polls >= 1);
  const auto doorbells = t.side_a().tap.writes_at(hca::kPageBytes + hca::kUarSendDoorbell);
  REQUIRE(doorbells.size() == 3);
  // The third post's doorbell leaves after the poll that took the CQEs and the post itself.
  CHECK(doorbells[2].at_ps == kLater + kPoll + kPost + kDoorbell + 32 * kPsPerWireByte + kLatency);
  // Three posts and one poll: the wake-ups that took nothing cost nothing.
  CHECK(a.stats().cpu_busy_ps == 3 * (kPost + kDoorbell) + kPoll);
}
