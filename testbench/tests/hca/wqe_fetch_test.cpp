// The HCA's front end with a realistic host side (wqe_fetcher.hpp): how many
// DMA reads of the send ring a post list costs (wqe_fetch_batch per read,
// never across the ring's end), BlueFlame, inline sends, receive WQEs fetched
// only when a SEND needs one, and receives flushed when the QP fails. The
// counts follow from those rules and the numbers posted.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "testbench/tests/hca/host_platform.hpp"

using namespace hcasim;
using namespace hcasim::test;
using hca::DmaPurpose;
using transport::QpState;
using transport::QpType;
using transport::WcOpcode;
using transport::WcStatus;
using transport::WrOpcode;

namespace {

// Runs end here: poll_cq hands out only CQEs already visible, and nothing
// wakes the simulation at a CQE's visible time when no one polls for it.
constexpr uint64_t kEnd = 1'000'000'000;  // 1 ms

config::HcaSettings realistic(uint32_t batch) {
  config::HcaSettings s = config::preset_settings(config::HcaPreset::Realistic);
  s.hca.wqe_fetch_batch = batch;
  return s;
}

transport::SendWr write_wr(HostPair& t, uint64_t id, uint32_t len = 64) {
  transport::SendWr w = send_wr(id, WrOpcode::RdmaWrite, kSrc + 4096 * (id % 16), len, t.ma.lkey);
  w.remote_addr = kDst + 4096 * (id % 16);
  w.rkey = t.mb.rkey;
  return w;
}

// The stride the driver gives a QP made by workloads::connect (QpInit's max_send_sge, the driver's max_inline).
uint32_t driver_send_stride(HostPair& t) {
  return hca::send_stride(QpType::Rc, transport::QpInit{}.max_send_sge, t.a().config().max_inline);
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("front end: a post list of N WRs is one doorbell, ceil(N / wqe_fetch_batch) send-ring reads, N WQEs") {
  struct Case {
    uint32_t n, batch;
  };
  const std::vector<Case> cases = {{10, 4}, {8, 8}, {9, 1}, {5, 64}, {16, 3}};
  std::vector<std::unique_ptr<HostPair>> pairs;
  for (const Case& c : cases) {
    pairs.push_back(std::make_unique<HostPair>(realistic(c.batch), workloads::ConnectionParams{},
                                               "n" + std::to_string(c.n) + "b" + std::to_string(c.batch) + "_"));
    HostPair& t = *pairs.back();
    std::vector<transport::SendWr> list;
    for (uint32_t i = 0; i < c.n; ++i) list.push_back(write_wr(t, i));
    REQUIRE(t.a().post_send(t.qa.qpn, list).empty());
  }
  HostPair::run(kEnd);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    HostPair& t = *pairs[k];
    INFO(c.n << " WRs, batch " << c.batch);
    const auto done = poll_all(t.a(), t.qa.cq);
    REQUIRE(done.size() == c.n);
    for (uint32_t i = 0; i < c.n; ++i) {
      CHECK(done[i].wr_id == i);
      CHECK(done[i].status == WcStatus::Success);
    }
    CHECK(t.a().stats().doorbells == 1);
    CHECK(t.a().stats().blueflame_writes == 0);  // a list of more than one WR always rings the doorbell
    const hca::FetchStats& f = t.hca_a().fetch_stats();
    CHECK(f.doorbells == 1);
    CHECK(f.sq_fetches == ceil_div(c.n, c.batch));
    CHECK(f.send_wqes == c.n);
    CHECK(f.blueflame_wqes == 0);
    CHECK(f.bad_wqes == 0);
    const hca::DmaCounts& wqe = t.hca_a().dma_stats().of(DmaPurpose::Wqe);
    CHECK(wqe.reads == ceil_div(c.n, c.batch));
    CHECK(wqe.read_bytes == uint64_t{c.n} * driver_send_stride(t));  // whole strides
    // The tap saw exactly one send doorbell, with the send counter N and the QP.
    const auto rung = t.side_a().tap.writes_at(hca::kPageBytes + hca::kUarSendDoorbell);
    REQUIRE(rung.size() == 1);
    CHECK(hca::get_u32(rung[0].data.data()) == c.n);
    CHECK(hca::get_u32(rung[0].data.data() + 4) == t.qa.qpn);
  }
}

TEST_CASE("front end: a batch never crosses the send ring's end") {
  // A ring of 16 WQEs, 3 per read. 12 WRs from slot 0: ceil(12/3) = 4 reads. Then 8 WRs from slot 12
  // wrap: slots 12-15 (3 + 1) and 0-3 (3 + 1), 4 reads where ceil(8/3) would be 3.
  workloads::ConnectionParams p;
  p.max_send_wr = 16;
  HostPair t(realistic(3), p);
  std::vector<transport::SendWr> first, second;
  for (uint64_t i = 0; i < 12; ++i) first.push_back(write_wr(t, i));
  for (uint64_t i = 12; i < 20; ++i) second.push_back(write_wr(t, i));
  REQUIRE(t.a().post_send(t.qa.qpn, first).empty());
  uint64_t fetches_first = 0;
  std::vector<transport::WorkCompletion> done;
  std::string why = "not posted";
  HostPair::at(100'000'000, [&] {  // 100 us: the first twelve are long done
    fetches_first = t.hca_a().fetch_stats().sq_fetches;
    done = poll_all(t.a(), t.qa.cq);  // frees their slots
    why = t.a().post_send(t.qa.qpn, second);
  });
  HostPair::run(kEnd);
  CHECK(why.empty());
  CHECK(fetches_first == 4);
  CHECK(t.hca_a().fetch_stats().sq_fetches == 4 + 4);
  CHECK(t.hca_a().fetch_stats().send_wqes == 20);
  const auto rest = poll_all(t.a(), t.qa.cq);
  done.insert(done.end(), rest.begin(), rest.end());
  REQUIRE(done.size() == 20);
  for (uint64_t i = 0; i < 20; ++i) {
    CHECK(done[i].wr_id == i);
    CHECK(done[i].status == WcStatus::Success);
  }
}

TEST_CASE("front end: a BlueFlame post of one WR makes no WQE read, unless a fetch is under way") {
  // Pair 1: one WR alone, BlueFlame (the driver's default). Pair 2: a list of two (a doorbell and a
  // ring read), then one WR by BlueFlame arriving while that read is under way: taken as a doorbell.
  HostPair alone(realistic(4), {}, "alone_");
  HostPair behind(realistic(4), {}, "behind_");
  REQUIRE(alone.a().post_send(alone.qa.qpn, write_wr(alone, 7)).empty());
  REQUIRE(behind.a().post_send(behind.qa.qpn, std::vector<transport::SendWr>{write_wr(behind, 0), write_wr(behind, 1)})
              .empty());
  REQUIRE(behind.a().post_send(behind.qa.qpn, write_wr(behind, 2)).empty());
  HostPair::run(kEnd);

  CHECK(alone.a().stats().blueflame_writes == 1);
  CHECK(alone.a().stats().doorbells == 0);
  const hca::FetchStats& f = alone.hca_a().fetch_stats();
  CHECK(f.blueflame_writes == 1);
  CHECK(f.blueflame_wqes == 1);
  CHECK(f.sq_fetches == 0);
  CHECK(f.doorbells == 0);
  CHECK(alone.hca_a().dma_stats().of(DmaPurpose::Wqe).reads == 0);
  const auto one = poll_all(alone.a(), alone.qa.cq);
  REQUIRE(one.size() == 1);
  CHECK(one[0].wr_id == 7);
  CHECK(one[0].status == WcStatus::Success);
  // The BlueFlame write carried the WQE itself: the documented bytes, send_wqe_bytes long.
  const auto bf = alone.side_a().tap.writes_at(hca::kPageBytes + hca::kUarBlueFlame);
  REQUIRE(bf.size() == 1);
  CHECK(bf[0].data.size() == hca::send_wqe_bytes(QpType::Rc, WrOpcode::RdmaWrite, 1, 0));
  CHECK(bf[0].data[0] == hca::kOpRdmaWrite);

  const hca::FetchStats& g = behind.hca_a().fetch_stats();
  CHECK(behind.a().stats().doorbells == 1);
  CHECK(behind.a().stats().blueflame_writes == 1);
  CHECK(g.blueflame_writes == 1);
  CHECK(g.blueflame_wqes == 0);
  CHECK(g.sq_fetches == 2);  // the list's one batch, then the BlueFlame WQE read from the ring
  CHECK(g.send_wqes == 3);
  const auto three = poll_all(behind.a(), behind.qa.cq);
  REQUIRE(three.size() == 3);
  for (uint64_t i = 0; i < 3; ++i) CHECK(three[i].wr_id == i);
}

TEST_CASE("front end: an inline send makes no gather read, and delivers the same bytes") {
  HostPair in(realistic(4), {}, "inline_");
  HostPair gathered(realistic(4), {}, "gather_");
  for (HostPair* t : {&in, &gathered}) {
    std::vector<uint8_t> data(100);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 + 3);
    t->a().memory().write(kSrc, data.data(), data.size());
    transport::SendWr w = write_wr(*t, 0, 100);
    w.send_inline = t == &in;
    REQUIRE(t->a().post_send(t->qa.qpn, w).empty());
  }
  HostPair::run(kEnd);
  CHECK(in.a().stats().inline_wqes == 1);
  CHECK(in.hca_a().dma_stats().of(DmaPurpose::Gather).reads == 0);
  CHECK(gathered.a().stats().inline_wqes == 0);
  CHECK(gathered.hca_a().dma_stats().of(DmaPurpose::Gather).reads == 1);  // one packet, one SGE
  for (HostPair* t : {&in, &gathered}) {
    std::vector<uint8_t> sent(100), got(100);
    t->a().memory().read(kSrc, sent.data(), 100);
    t->b().memory().read(kDst, got.data(), 100);
    CHECK(got == sent);
    const auto done = poll_all(t->a(), t->qa.cq);
    REQUIRE(done.size() == 1);
    CHECK(done[0].status == WcStatus::Success);
  }
}

TEST_CASE("front end: receive WQEs are fetched when a SEND needs one, wqe_fetch_batch at a time") {
  // B posts 8 receives (no doorbell). A WRITE needs none: nothing is read. Then 5 SENDs: the first reads
  // the doorbell record (8 posted) and a batch of 4; the fifth finds none left and reads the next 4
  // without reading the record again (it is known to hold 8).
  HostPair t(realistic(4));
  for (uint64_t i = 0; i < 8; ++i)
    REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(500 + i, kDst + 256 * i, 256, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, 0)).empty());
  hca::FetchStats before{};
  HostPair::at(50'000'000, [&] {
    before = t.hca_b().fetch_stats();
    std::vector<transport::SendWr> sends;
    for (uint64_t i = 0; i < 5; ++i) sends.push_back(send_wr(10 + i, WrOpcode::Send, kSrc, 32, t.ma.lkey));
    REQUIRE(t.a().post_send(t.qa.qpn, sends).empty());
  });
  HostPair::run(kEnd);
  CHECK(t.b().stats().recv_posts == 8);
  CHECK(t.b().stats().doorbells == 0);
  CHECK(t.side_b().tap.writes_at(hca::kPageBytes + hca::kUarSendDoorbell).empty());
  CHECK(before.record_reads == 0);
  CHECK(before.rq_fetches == 0);
  CHECK(before.recv_wqes == 0);
  const hca::FetchStats& f = t.hca_b().fetch_stats();
  CHECK(f.record_reads == 1);
  CHECK(f.rq_fetches == 2);
  CHECK(f.recv_wqes == 8);
  const hca::DmaCounts& rings = t.hca_b().dma_stats().of(DmaPurpose::Wqe);
  CHECK(rings.reads == 2);
  CHECK(rings.read_bytes == 8 * hca::recv_stride(transport::QpInit{}.max_recv_sge));
  CHECK(t.hca_b().dma_stats().of(DmaPurpose::DoorbellRecord).reads == 1);
  const auto got = poll_all(t.b(), t.qb.cq);
  REQUIRE(got.size() == 5);
  for (uint64_t i = 0; i < 5; ++i) {
    CHECK(got[i].wr_id == 500 + i);
    CHECK(got[i].opcode == WcOpcode::Recv);
    CHECK(got[i].status == WcStatus::Success);
    CHECK(got[i].byte_len == 32);
  }
}

TEST_CASE("front end: a QP moved to ERR with receives posted and never fetched completes each of them flushed") {
  // 6 receives posted, none fetched; ERR: a fresh read of the record (6), then every one: ceil(6/4) = 2 reads.
  HostPair t(realistic(4));
  for (uint64_t i = 0; i < 6; ++i) REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(700 + i, kDst, 256, t.mb.lkey)).empty());
  std::string why = "not run";
  HostPair::at(10'000'000, [&] {
    transport::QpAttr attr;
    attr.qp_state = QpState::Err;
    why = t.b().modify_qp(t.qb.qpn, attr, transport::kAttrState);
  });
  HostPair::run(kEnd);
  CHECK(why.empty());
  const auto got = poll_all(t.b(), t.qb.cq);
  REQUIRE(got.size() == 6);
  for (uint64_t i = 0; i < 6; ++i) {
    CHECK(got[i].wr_id == 700 + i);
    CHECK(got[i].status == WcStatus::WrFlushErr);
    CHECK(got[i].opcode == WcOpcode::Recv);
  }
  const hca::FetchStats& f = t.hca_b().fetch_stats();
  CHECK(f.record_reads == 1);
  CHECK(f.rq_fetches == 2);
  CHECK(f.recv_wqes == 6);
}

TEST_CASE("front end: a QP moved to ERR while a receive fetch is under way still flushes every receive posted") {
  // B posts 8 receives; 5 SENDs take the first 4 and start the read of the next 4. While that read is
  // under way B posts 4 more and moves the QP to ERR. The rule: every receive WQE posted is fetched,
  // after a fresh read of the record, so all 8 not consumed (504-511) complete flushed.
  workloads::ConnectionParams p;
  p.timeout = 8;     // A's SEND that B never answers fails after ~1 ms x 1, not ~67 ms x 8
  p.retry_cnt = 0;
  HostPair t(realistic(4), p);
  for (uint64_t i = 0; i < 8; ++i)
    REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(500 + i, kDst + 256 * i, 256, t.mb.lkey)).empty());
  std::vector<transport::SendWr> sends;
  for (uint64_t i = 0; i < 5; ++i) sends.push_back(send_wr(10 + i, WrOpcode::Send, kSrc, 32, t.ma.lkey));
  REQUIRE(t.a().post_send(t.qa.qpn, sends).empty());
  bool moved = false;
  std::string why = "not run";
  sc_core::sc_spawn([&] {
    // Wakes every nanosecond until B's second receive-ring read is issued and not yet back.
    for (int step = 0; step < 100'000 && !moved; ++step) {
      const hca::FetchStats& f = t.hca_b().fetch_stats();
      if (f.rq_fetches == 2 && f.recv_wqes == 4) {
        for (uint64_t i = 8; i < 12; ++i) t.b().post_recv(t.qb.qpn, recv_wr(500 + i, kDst, 256, t.mb.lkey));
        transport::QpAttr attr;
        attr.qp_state = QpState::Err;
        why = t.b().modify_qp(t.qb.qpn, attr, transport::kAttrState);
        moved = true;
      }
      sc_core::wait(sc_core::sc_time::from_value(1000));
    }
  });
  HostPair::run(2'000'000'000);  // 2 ms
  REQUIRE(moved);
  CHECK(why.empty());
  const auto got = poll_all(t.b(), t.qb.cq);
  REQUIRE(got.size() == 12);
  for (uint64_t i = 0; i < 12; ++i) {
    INFO("receive " << 500 + i);
    CHECK(got[i].wr_id == 500 + i);
    CHECK(got[i].status == (i < 4 ? WcStatus::Success : WcStatus::WrFlushErr));
  }
  CHECK(t.hca_b().fetch_stats().recv_wqes == 12);
  CHECK(t.hca_b().fetch_stats().record_reads == 2);  // the first SEND's, and the fresh one after ERR
}
