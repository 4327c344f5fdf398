// Completion queues in host memory (completion_writer.hpp) and their
// interrupts as the driver sees them (driver.hpp): overrun, the doorbell
// record read of a CQ that looks full, arming, MSI-X timing and moderation.
// Times come from the configured PCIe link (host_platform.hpp simple_pcie:
// 125 ps per wire byte, 16-byte request headers, 8 bytes of overhead per TLP),
// host memory latency and the driver's interrupt_ps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "testbench/tests/hca/host_platform.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::WcStatus;
using transport::WrOpcode;

namespace {

constexpr uint64_t kLinkLatency = 500'000;     // PCIe one way, ps
constexpr uint64_t kMemoryLatency = 100'000;   // host memory, ps
constexpr uint64_t kInterrupt = 2'000'000;     // driver interrupt_ps
// Wire time of a posted write of n bytes on simple_pcie: one TLP (n <= MPS), 16 + n + 8 bytes.
constexpr uint64_t write_wire_ps(uint64_t n) { return (16 + n + 8) * kPsPerWireByte; }
constexpr uint64_t kCqeWire = write_wire_ps(hca::kCqeBytes);  // 88 bytes: 11 ns
constexpr uint64_t kMsixWire = write_wire_ps(4);              // 28 bytes: 3.5 ns
constexpr uint64_t kEnd = 1'000'000'000;                      // 1 ms

transport::SendWr write_wr(HostPair& t, uint64_t id) {
  transport::SendWr w = send_wr(id, WrOpcode::RdmaWrite, kSrc, 64, t.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = t.mb.rkey;
  return w;
}

long cq_errors(const hca::Hca& h, uint32_t cq) {
  return std::count(h.async_events().begin(), h.async_events().end(),
                    std::pair<uint32_t, std::string>{cq, "IBV_EVENT_CQ_ERR"});
}

// Host side with a timed PCIe link and memory, an interrupt cost and nothing else costing time.
config::HcaSettings timed(uint32_t moderation_count = 1, uint64_t moderation_ps = 0) {
  config::HcaSettings s = ideal_settings();
  s.host.pcie = simple_pcie(kLinkLatency);
  s.host.memory.latency_ps = kMemoryLatency;
  s.host.memory.bandwidth_bps = 0;
  s.host.driver.interrupt_ps = kInterrupt;
  s.hca.msix_moderation_count = moderation_count;
  s.hca.msix_moderation_ps = moderation_ps;
  return s;
}

// When A's CQEs and MSI-X messages become visible in A's host memory, and when its interrupt handler ran.
struct Timeline {
  std::vector<uint64_t> cqe, msix, handler;
};
void watch(HostPair& t, Timeline& log) {
  // The driver's area holds A's rings; the only device writes into it are CQEs.
  t.side_a().memory.watch_writes(host::kDriverArea, host::kDriverArea + (uint64_t{1} << 40),
                                 [&log](uint64_t, uint64_t, uint64_t visible) { log.cqe.push_back(visible); });
  t.side_a().memory.watch_writes(host::kInterruptArea, host::kInterruptArea + 4 * hca::kMaxMsixVectors,
                                 [&log](uint64_t, uint64_t, uint64_t visible) { log.msix.push_back(visible); });
}

}  // namespace

TEST_CASE("CQ overrun: depth N and N + 1 completions unpolled write N CQEs, lose one, raise CQ_ERR once, for good") {
  workloads::ConnectionParams p;
  p.cq_depth = 4;
  HostPair t(ideal_settings(), p);
  for (uint64_t i = 0; i < 5; ++i) REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty());
  hca::CompletionStats at_poll{};
  long errors_at_poll = -1;
  std::vector<transport::WorkCompletion> first, second;
  HostPair::at(100'000'000, [&] {  // 100 us: the five are long done
    at_poll = t.hca_a().completion_stats();
    errors_at_poll = cq_errors(t.hca_a(), t.qa.cq);
    first = poll_all(t.a(), t.qa.cq);
    for (uint64_t i = 5; i < 7; ++i) REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty());
  });
  HostPair::at(200'000'000, [&] { second = poll_all(t.a(), t.qa.cq); });
  HostPair::run(kEnd);
  CHECK(at_poll.cqes == 4);
  CHECK(at_poll.lost == 1);
  CHECK(at_poll.record_reads == 1);  // the fifth found the CQ full and read the consumer counter: still 0
  CHECK(errors_at_poll == 1);
  REQUIRE(first.size() == 4);
  for (uint64_t i = 0; i < 4; ++i) {
    CHECK(first[i].wr_id == i);
    CHECK(first[i].status == WcStatus::Success);
  }
  // Polling after the overrun frees nothing: the CQ stays in error and the next two are lost too.
  CHECK(second.empty());
  const hca::CompletionStats& end = t.hca_a().completion_stats();
  CHECK(end.cqes == 4);
  CHECK(end.lost == 3);
  CHECK(end.record_reads == 1);
  CHECK(cq_errors(t.hca_a(), t.qa.cq) == 1);
  CHECK(t.hca_a().dma_stats().of(hca::DmaPurpose::Cqe).writes == 4);
  CHECK(cq_errors(t.hca_b(), t.qb.cq) == 0);
}

TEST_CASE("CQ full by the HCA's count but polled by software: one record read per full ring, nothing lost") {
  // Depth 4, three rounds of 4 completions, each polled before the next round. The 5th and the 9th find
  // 4 written and not known to be polled, read the record (4, then 8) and go on; the others need no read.
  workloads::ConnectionParams p;
  p.cq_depth = 4;
  HostPair t(ideal_settings(), p);
  for (uint64_t i = 0; i < 4; ++i) REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty());
  std::vector<std::vector<transport::WorkCompletion>> rounds;
  std::vector<uint64_t> reads;
  for (uint64_t r = 1; r <= 3; ++r) {
    HostPair::at(r * 100'000'000, [&t, &rounds, &reads, r] {
      reads.push_back(t.hca_a().completion_stats().record_reads);
      rounds.push_back(poll_all(t.a(), t.qa.cq));
      if (r < 3)
        for (uint64_t i = 4 * r; i < 4 * r + 4; ++i) REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty());
    });
  }
  HostPair::run(kEnd);
  REQUIRE(rounds.size() == 3);
  CHECK(reads == std::vector<uint64_t>{0, 1, 2});
  for (uint64_t r = 0; r < 3; ++r) {
    INFO("round " << r);
    REQUIRE(rounds[r].size() == 4);
    for (uint64_t i = 0; i < 4; ++i) {
      CHECK(rounds[r][i].wr_id == 4 * r + i);  // ring passes 1, 2, 3: the owner bit flips each time
      CHECK(rounds[r][i].status == WcStatus::Success);
    }
  }
  const hca::CompletionStats& s = t.hca_a().completion_stats();
  CHECK(s.cqes == 12);
  CHECK(s.lost == 0);
  CHECK(s.record_reads == 2);
  CHECK(t.hca_a().dma_stats().of(hca::DmaPurpose::DoorbellRecord).reads == 2);
  CHECK(cq_errors(t.hca_a(), t.qa.cq) == 0);
}

TEST_CASE("CQ interrupt: once per armed completion, at CQE visible + the MSI-X write's wire time + interrupt_ps") {
  HostPair t(timed());
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] {
    log.handler.push_back(HostPair::now());
    poll_all(t.a(), t.qa.cq);
    t.a().req_notify_cq(t.qa.cq, false);  // re-arm for the next one
  });
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, 0)).empty());
  for (uint64_t k = 1; k < 3; ++k)
    HostPair::at(k * 50'000'000, [&t, k] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, k)).empty()); });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 3);
  REQUIRE(log.msix.size() == 3);
  REQUIRE(log.handler.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("completion " << i);
    // The MSI-X write follows the CQE write on the link (posted writes stay in order): 28 wire bytes
    // later it is in host memory, and the handler runs interrupt_ps after that.
    CHECK(log.msix[i] == log.cqe[i] + kMsixWire);
    CHECK(log.handler[i] == log.msix[i] + kInterrupt);
  }
  // The message is the vector's data (the driver programs data = vector; its first CQ is on vector 0)
  // written to the vector's address.
  CHECK(t.hca_a().msix_table()[0].address == host::kInterruptArea);
  CHECK(t.a().memory().read_u64(host::kInterruptArea) == 0);
  CHECK(t.hca_a().completion_stats().interrupts == 3);
  CHECK(t.hca_a().completion_stats().arms == 4);  // the first arm and one re-arm per interrupt
  CHECK(t.a().stats().interrupts == 3);
}

TEST_CASE("CQ interrupt: arming with CQEs already past the consumer counter raises it at the arm's arrival") {
  HostPair t(timed());
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] { log.handler.push_back(HostPair::now()); });
  REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, 0)).empty());
  constexpr uint64_t kArm = 50'000'000;
  HostPair::at(kArm, [&] { REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty()); });  // nothing polled: consumer 0
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 1);
  REQUIRE(log.handler.size() == 1);
  // The CQ doorbell (8 bytes: 32 wire bytes) reaches the HCA one link latency after its TLP; the MSI-X
  // leaves then, and is in memory its wire time, a latency and the memory's latency later.
  const uint64_t arm_arrival = kArm + write_wire_ps(8) + kLinkLatency;
  CHECK(log.msix == std::vector<uint64_t>{arm_arrival + kMsixWire + kLinkLatency + kMemoryLatency});
  CHECK(log.handler[0] == log.msix[0] + kInterrupt);
  const auto arms = t.side_a().tap.writes_at(hca::kPageBytes + hca::kUarCqDoorbell);
  REQUIRE(arms.size() == 1);
  CHECK(arms[0].at_ps == arm_arrival);
}

TEST_CASE("CQ interrupt moderation by count: k matching completions make one interrupt, at the k-th") {
  constexpr uint32_t k = 3;
  HostPair t(timed(k));
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] {
    log.handler.push_back(HostPair::now());
    poll_all(t.a(), t.qa.cq);
    t.a().req_notify_cq(t.qa.cq, false);
  });
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  // Six completions 10 us apart: the 3rd raises the interrupt; the 4th and 5th are two of the next three;
  // the 6th makes three again.
  for (uint64_t i = 0; i < 6; ++i)
    HostPair::at(i * 10'000'000, [&t, i] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty()); });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 6);
  REQUIRE(log.handler.size() == 2);
  REQUIRE(log.msix.size() == 2);
  CHECK(log.msix[0] == log.cqe[2] + kMsixWire);
  CHECK(log.msix[1] == log.cqe[5] + kMsixWire);
  CHECK(log.handler[0] == log.msix[0] + kInterrupt);
  CHECK(log.handler[1] == log.msix[1] + kInterrupt);
  CHECK(t.hca_a().completion_stats().interrupts == 2);
}

TEST_CASE("CQ interrupt moderation by time: one interrupt moderation_ps after the first completion") {
  constexpr uint64_t kModeration = 20'000'000;  // 20 us
  HostPair t(timed(100, kModeration));
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] { log.handler.push_back(HostPair::now()); });
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  for (uint64_t i = 0; i < 3; ++i)
    HostPair::at(i * 5'000'000, [&t, i] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty()); });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 3);
  REQUIRE(log.handler.size() == 1);
  REQUIRE(log.msix.size() == 1);
  // The first completion was made when its CQE write left: its visible time less the CQE's wire time,
  // the link latency and the memory latency. The MSI-X leaves moderation_ps after that.
  const uint64_t first_completion = log.cqe[0] - kCqeWire - kLinkLatency - kMemoryLatency;
  CHECK(log.cqe[2] < first_completion + kModeration);  // all three fell inside the window
  CHECK(log.msix[0] == first_completion + kModeration + kMsixWire + kLinkLatency + kMemoryLatency);
  CHECK(log.handler[0] == log.msix[0] + kInterrupt);
  CHECK(t.hca_a().completion_stats().interrupts == 1);
}

// ---- Per-CQ moderation (modify_cq) ----

TEST_CASE("modify_cq: a CQ's own count overrides the HCA's (1): k = 3 makes one interrupt at the 3rd and the 6th") {
  HostPair t(timed());  // HCA-wide: every completion
  REQUIRE(t.a().modify_cq(t.qa.cq, 3, 0).empty());
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] {
    log.handler.push_back(HostPair::now());
    poll_all(t.a(), t.qa.cq);
    t.a().req_notify_cq(t.qa.cq, false);
  });
  // B's CQ keeps the HCA's moderation: an interrupt per completion (its receive completions: none here;
  // so B is armed and sent nothing; only A's count is under test).
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  for (uint64_t i = 0; i < 7; ++i)
    HostPair::at(i * 10'000'000, [&t, i] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty()); });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 7);
  REQUIRE(log.msix.size() == 2);  // the 7th is one of the next three: no interrupt yet
  CHECK(log.msix[0] == log.cqe[2] + kMsixWire);
  CHECK(log.msix[1] == log.cqe[5] + kMsixWire);
  CHECK(log.handler == std::vector<uint64_t>{log.msix[0] + kInterrupt, log.msix[1] + kInterrupt});
}

TEST_CASE("modify_cq: a CQ's own period, while the other HCA's CQ keeps the HCA-wide count") {
  constexpr uint64_t kPeriod = 20'000'000;  // 20 us
  HostPair t(timed(2));  // HCA-wide: every second completion
  REQUIRE(t.a().modify_cq(t.qa.cq, 100, kPeriod).empty());
  Timeline log;
  watch(t, log);
  std::vector<uint64_t> handler_b;
  t.a().on_cq_interrupt(t.qa.cq, [&] { log.handler.push_back(HostPair::now()); });
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  // B: receives of SENDs, under the HCA's count of 2: one interrupt for two SENDs.
  for (uint64_t i = 0; i < 2; ++i) {
    transport::RecvWr r;
    r.wr_id = 100 + i;
    r.sg_list = {{kDst, 64, t.mb.lkey}};
    REQUIRE(t.b().post_recv(t.qb.qpn, r).empty());
  }
  t.b().on_cq_interrupt(t.qb.cq, [&] { handler_b.push_back(HostPair::now()); });
  REQUIRE(t.b().req_notify_cq(t.qb.cq, false).empty());
  for (uint64_t i = 0; i < 3; ++i)
    HostPair::at(i * 5'000'000, [&t, i] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty()); });
  for (uint64_t i = 0; i < 2; ++i)
    HostPair::at(1'000'000 + i * 5'000'000, [&t, i] {
      REQUIRE(t.a().post_send(t.qa.qpn, send_wr(10 + i, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
    });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 5);
  REQUIRE(log.msix.size() == 1);
  const uint64_t first_completion = log.cqe[0] - kCqeWire - kLinkLatency - kMemoryLatency;
  CHECK(log.msix[0] == first_completion + kPeriod + kMsixWire + kLinkLatency + kMemoryLatency);
  CHECK(log.handler == std::vector<uint64_t>{log.msix[0] + kInterrupt});
  CHECK(handler_b.size() == 1);  // B's two receive completions, counted 2 by the HCA's default
  CHECK(t.hca_b().completion_stats().interrupts == 1);
  CHECK(t.hca_a().completion_stats().interrupts == 1);
}

TEST_CASE("modify_cq: count 0 means each completion, a count above 65535 and a CQ that does not exist are refused") {
  HostPair t(timed(4));
  CHECK(t.a().modify_cq(t.qa.cq, 0, 0).empty());
  CHECK(t.a().modify_cq(t.qa.cq, 65535, 0).empty());
  CHECK(t.a().modify_cq(t.qa.cq, 65536, 0).find("accepted: 0 to 65535") != std::string::npos);
  CHECK(t.a().modify_cq(99, 1, 0) == "no CQ 99");
  REQUIRE(t.a().modify_cq(t.qa.cq, 0, 0).empty());
  Timeline log;
  watch(t, log);
  t.a().on_cq_interrupt(t.qa.cq, [&] {
    poll_all(t.a(), t.qa.cq);
    t.a().req_notify_cq(t.qa.cq, false);
  });
  REQUIRE(t.a().req_notify_cq(t.qa.cq, false).empty());
  for (uint64_t i = 0; i < 3; ++i)
    HostPair::at(i * 10'000'000, [&t, i] { REQUIRE(t.a().post_send(t.qa.qpn, write_wr(t, i)).empty()); });
  HostPair::run(kEnd);
  REQUIRE(log.cqe.size() == 3);
  REQUIRE(log.msix.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(log.msix[i] == log.cqe[i] + kMsixWire);
}

// ---- CQE compression ----

namespace {

config::HcaSettings compressing(uint32_t max_block, uint64_t wait_ps, config::HcaSettings s = ideal_settings()) {
  s.hca.cqe_compression = true;
  s.hca.cqe_compression_max = max_block;
  s.hca.cqe_compression_wait_ps = wait_ps;
  return s;
}

// A list of n signalled RDMA WRITEs from wr_id first on, under one doorbell.
std::vector<transport::SendWr> writes(HostPair& t, uint64_t first, uint64_t n) {
  std::vector<transport::SendWr> list;
  for (uint64_t i = first; i < first + n; ++i) list.push_back(write_wr(t, i));
  return list;
}

// Completions wr_id first .. first + n - 1 of A's QP, in order, as posted.
void check_writes(const std::vector<transport::WorkCompletion>& got, uint64_t first, uint64_t n, uint32_t qpn) {
  REQUIRE(got.size() == n);
  for (uint64_t i = 0; i < n; ++i) {
    INFO("completion " << i);
    CHECK(got[i].wr_id == first + i);
    CHECK(got[i].status == WcStatus::Success);
    CHECK(got[i].opcode == transport::WcOpcode::RdmaWrite);
    CHECK(got[i].qp_num == qpn);
  }
}

}  // namespace

TEST_CASE("CQE compression: 20 completions in blocks of at most 8 are 3 CQE writes of 384 bytes, not 20 of 1280") {
  // Blocks of 8, 8 and 4: a title and ceil(7/7), ceil(7/7), ceil(3/7) mini-CQE arrays: 2 + 2 + 2 entries of 64 bytes.
  HostPair off(ideal_settings(), {}, "off_");
  HostPair on(compressing(8, 10'000'000), {}, "on_");
  std::vector<transport::WorkCompletion> got_off, got_on;
  for (HostPair* t : {&off, &on}) REQUIRE(t->a().post_send(t->qa.qpn, writes(*t, 0, 20)).empty());
  HostPair::at(100'000'000, [&] {
    got_off = poll_all(off.a(), off.qa.cq);
    got_on = poll_all(on.a(), on.qa.cq);
  });
  HostPair::run(kEnd);
  check_writes(got_off, 0, 20, off.qa.qpn);
  check_writes(got_on, 0, 20, on.qa.qpn);
  for (std::size_t i = 0; i < got_on.size(); ++i) CHECK(got_on[i].byte_len == got_off[i].byte_len);
  const hca::DmaCounts& plain = off.hca_a().dma_stats().of(hca::DmaPurpose::Cqe);
  const hca::DmaCounts& packed = on.hca_a().dma_stats().of(hca::DmaPurpose::Cqe);
  CHECK(plain.writes == 20);
  CHECK(plain.write_bytes == 20 * 64);
  CHECK(packed.writes == 3);
  CHECK(packed.write_bytes == 6 * 64);
  const hca::CompletionStats& s = on.hca_a().completion_stats();
  CHECK(s.cqes == 6);
  CHECK(s.completions == 20);
  CHECK(s.blocks == 3);
  CHECK(s.mini_cqes == 17);
  CHECK(off.hca_a().completion_stats().blocks == 0);
  CHECK(on.a().stats().cqes == 20);
  CHECK(on.hca_a().cq_compressing(on.qa.cq));
  CHECK_FALSE(off.hca_a().cq_compressing(off.qa.cq));
}

TEST_CASE("CQE compression: a block wraps the ring in two writes, owner bits flip per pass, one record read") {
  // Depth 4 (4 entries), blocks of up to 8. Round 1: one completion, a plain CQE at entry 0. Round 2: a block of 8
  // at entries 1-2. Round 3: 3 + 2 - 0 known polled > 4: the record says 3, the block goes to entries 3 and 0 of the
  // second pass (two writes). Round 4: entries 1-2 of the second pass, 5 + 2 - 3 = 4: no read.
  workloads::ConnectionParams p;
  p.cq_depth = 4;
  HostPair t(compressing(8, 10'000'000), p);
  std::vector<std::vector<transport::WorkCompletion>> rounds;
  const std::vector<uint64_t> sizes = {1, 8, 8, 8};
  uint64_t first = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    HostPair::at(r * 100'000'000, [&t, first, n = sizes[r]] { REQUIRE(t.a().post_send(t.qa.qpn, writes(t, first, n)).empty()); });
    HostPair::at(r * 100'000'000 + 50'000'000, [&] { rounds.push_back(poll_all(t.a(), t.qa.cq)); });
    first += sizes[r];
  }
  HostPair::run(kEnd);
  REQUIRE(rounds.size() == 4);
  first = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    INFO("round " << r);
    check_writes(rounds[r], first, sizes[r], t.qa.qpn);
    first += sizes[r];
  }
  const hca::CompletionStats& s = t.hca_a().completion_stats();
  CHECK(s.cqes == 7);
  CHECK(s.record_reads == 1);
  CHECK(s.lost == 0);
  CHECK(t.hca_a().dma_stats().of(hca::DmaPurpose::Cqe).writes == 5);
  CHECK(t.hca_a().dma_stats().of(hca::DmaPurpose::Cqe).write_bytes == 7 * 64);
  CHECK(cq_errors(t.hca_a(), t.qa.cq) == 0);
}

TEST_CASE("CQE compression: overrun - depth 4 holds two blocks of 8, the third is lost whole, CQ_ERR once") {
  workloads::ConnectionParams p;
  p.cq_depth = 4;
  HostPair t(compressing(8, 10'000'000), p);
  REQUIRE(t.a().post_send(t.qa.qpn, writes(t, 0, 24)).empty());
  std::vector<transport::WorkCompletion> got;
  HostPair::at(100'000'000, [&] { got = poll_all(t.a(), t.qa.cq); });
  HostPair::run(kEnd);
  check_writes(got, 0, 16, t.qa.qpn);
  const hca::CompletionStats& s = t.hca_a().completion_stats();
  CHECK(s.cqes == 4);
  CHECK(s.completions == 16);
  CHECK(s.lost == 8);
  CHECK(s.record_reads == 1);
  CHECK(cq_errors(t.hca_a(), t.qa.cq) == 1);
}

TEST_CASE("CQE compression: a lone completion is a plain CQE written `wait` later, create_cq chooses per CQ") {
  constexpr uint64_t kWait = 5'000'000;
  HostPair off(timed(), {}, "off_");
  HostPair on(compressing(8, kWait, timed()), {}, "on_");
  Timeline log_off, log_on;
  watch(off, log_off);
  watch(on, log_on);
  for (HostPair* t : {&off, &on}) REQUIRE(t->a().post_send(t->qa.qpn, write_wr(*t, 0)).empty());
  std::vector<transport::WorkCompletion> got;
  HostPair::at(100'000'000, [&] { got = poll_all(on.a(), on.qa.cq); });
  // Per CQ: On on an HCA without compression, Off on one with it, Default follows the HCA.
  const uint32_t forced_on = off.a().create_cq(16, 0, hca::CqRing::Compression::On);
  const uint32_t forced_off = on.a().create_cq(16, 0, hca::CqRing::Compression::Off);
  const uint32_t by_default = on.a().create_cq(16);
  HostPair::run(kEnd);
  REQUIRE(log_off.cqe.size() == 1);
  REQUIRE(log_on.cqe.size() == 1);
  CHECK(log_on.cqe[0] == log_off.cqe[0] + kWait);
  check_writes(got, 0, 1, on.qa.qpn);
  CHECK(on.hca_a().completion_stats().blocks == 0);
  CHECK(on.hca_a().dma_stats().of(hca::DmaPurpose::Cqe).write_bytes == 64);
  CHECK(off.hca_a().cq_compressing(forced_on));
  CHECK_FALSE(on.hca_a().cq_compressing(forced_off));
  CHECK(on.hca_a().cq_compressing(by_default));
}

TEST_CASE("CQE compression: an error completion writes the open block at once, then itself alone as a plain CQE") {
  // Three WRITEs that succeed and a fourth with an R_Key B never gave (remote access error): the three wait in
  // a block (wait 1 ms, never reached), the error writes them (a title and one array) and then itself: 2 writes
  // of 2 + 1 entries, long before the wait would have ended.
  HostPair t(compressing(8, 1'000'000'000));
  std::vector<transport::SendWr> list = writes(t, 0, 4);
  list[3].rkey = t.mb.rkey + 0x100;
  REQUIRE(t.a().post_send(t.qa.qpn, list).empty());
  std::vector<transport::WorkCompletion> got;
  HostPair::at(100'000'000, [&] { got = poll_all(t.a(), t.qa.cq); });
  HostPair::run(kEnd);
  REQUIRE(got.size() == 4);
  for (uint64_t i = 0; i < 3; ++i) {
    CHECK(got[i].wr_id == i);
    CHECK(got[i].status == WcStatus::Success);
  }
  CHECK(got[3].wr_id == 3);
  CHECK(got[3].status == WcStatus::RemAccessErr);
  const hca::CompletionStats& s = t.hca_a().completion_stats();
  CHECK(s.blocks == 1);
  CHECK(s.mini_cqes == 2);
  CHECK(s.cqes == 3);
  CHECK(t.hca_a().dma_stats().of(hca::DmaPurpose::Cqe).writes == 2);
}
