// Link fault injection back to back: random loss and bit errors are counted
// per port and VL, equal the packets sent minus delivered, are announced
// losses to the link checker, and leave the credits whole (FCTBS heals them);
// a targeted rule drops exactly the packet it names.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/ib/opcodes.hpp"
#include "testbench/tests/scenarios/b2b_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// Records the packets a port drops.
struct DropLog : link::PortObserver {
  struct Entry {
    uint32_t flow;
    uint64_t seq;
    link::DropReason why;
  };
  std::vector<Entry> drops;
  void on_drop(const link::Port&, const ib::Packet& p, link::DropReason why, uint64_t) override {
    drops.push_back({p.flow, p.seq, why});
  }
};

uint64_t sent_minus_delivered(const Simulation& sim) {
  uint64_t n = 0;
  for (const auto& r : sim.flow_results()) n += r.sent - r.delivered;
  return n;
}

std::unique_ptr<Simulation> make_b2b(const link::LinkConfig& l, std::vector<workloads::FlowSpec> flows) {
  return std::make_unique<Simulation>(config::back_to_back({}, {}, l), std::move(flows), RunOptions{});
}

}  // namespace

TEST_CASE("faults: 5 percent random loss back to back is counted and the credits stay whole") {
  link::LinkConfig l;
  l.faults.drop_rate = 0.05;
  l.faults.seed = 3;
  const uint64_t n = 20000;
  auto sim = run_b2b({}, {}, l, {flow(0, 256, n), flow(1, 4096, n / 4), flow(2, 256, n / 2, 1, 0)});
  INFO(sim->checker().messages().size() << " " << (sim->checker().ok() ? "" : sim->checker().messages()[0]));
  REQUIRE(sim->checker().ok());
  const uint64_t lost = drops_of(*sim, link::DropReason::FaultDrop);
  REQUIRE(lost == sent_minus_delivered(*sim));
  REQUIRE(lost == sim->checker().announced_losses());
  uint64_t sent = 0;
  for (const auto& r : sim->flow_results()) sent += r.sent;
  REQUIRE(sent == n + n / 4 + n / 2);
  const double mean = 0.05 * static_cast<double>(sent);
  CHECK(std::abs(static_cast<double>(lost) - mean) <= 5 * std::sqrt(mean * 0.95));
  // Each direction judged its own data packets.
  for (const link::Port* p : sim->fabric().ports()) {
    REQUIRE(p->faults() != nullptr);
    uint64_t rx = 0, dropped = 0;
    for (const link::VlStats& v : p->stats().vl) {
      rx += v.rx_packets;
      dropped += v.drops[static_cast<std::size_t>(link::DropReason::FaultDrop)];
    }
    CHECK(p->faults()->stats().judged == rx + dropped);
    CHECK(p->faults()->stats().random == dropped);
  }
  check_credits_whole(*sim);
}

TEST_CASE("faults: heavy loss for a long run leaks no credit and the link keeps its throughput") {
  // 20% of 100k packets lost: were credits to leak, the sender would stall for
  // good within a few hundred drops (a 64 KiB buffer is 1,024 blocks).
  link::LinkConfig l;
  l.faults.drop_rate = 0.2;
  const uint64_t n = 100000;
  const uint32_t payload = 1024;
  auto sim = run_b2b({}, {}, l, {flow(0, payload, n)});
  REQUIRE(sim->checker().ok());
  const auto& r = sim->flow_results()[0];
  REQUIRE(r.sent == n);
  REQUIRE(drops_of(*sim, link::DropReason::FaultDrop) == n - r.delivered);
  check_credits_whole(*sim);
  // The sender is never starved for long: the run takes at most 1% longer than
  // the loss-free analytic bound (losses cost wire time, not credits).
  const Bound b = analytic_bound(l, payload);
  const double ideal_ps = static_cast<double>(n) * payload * 8.0 * 1e12 / b.data_bps;
  CHECK(static_cast<double>(sim->sim_time_ps()) <= 1.01 * ideal_ps);
}

TEST_CASE("faults: bit errors back to back are dropped as CRC errors per the BER formula") {
  link::LinkConfig l;
  l.faults.bit_error_rate = 1e-6;
  const uint64_t n = 20000;
  auto sim = run_b2b({}, {}, l, {flow(0, 4096, n)});
  REQUIRE(sim->checker().ok());
  const uint64_t bad = drops_of(*sim, link::DropReason::CrcError);
  REQUIRE(bad == n - sim->flow_results()[0].delivered);
  REQUIRE(drops_of(*sim, link::DropReason::FaultDrop) == 0);
  const double p = 1 - std::pow(1 - 1e-6, 8.0 * ud_wire_bytes(4096));
  const double mean = p * static_cast<double>(n);
  CHECK(std::abs(static_cast<double>(bad) - mean) <= 5 * std::sqrt(mean * (1 - p)));
  const link::FaultInjector& f = *sim->fabric().ports()[1]->faults();
  CHECK(f.stats().corrupted == bad);
  CHECK(f.stats().by_error[static_cast<std::size_t>(ib::DecodeError::BadVcrc)] + 16 * bad / 1000 >= bad);
  check_credits_whole(*sim);
}

TEST_CASE("faults: a targeted drop of the 3rd packet of a flow drops exactly that packet") {
  link::LinkConfig l;
  link::DropRule r;
  r.nth = 3;
  r.dest_qp = 0x101;  // the second flow's QP (the simulation numbers them 0x100 + flow index)
  r.opcode = ib::op::kUdSendOnly;
  l.faults.drops.push_back(r);
  auto sim = make_b2b(l, {flow(0, 512, 10), flow(1, 512, 10), flow(2, 512, 10, 1, 0)});
  DropLog log;
  for (link::Port* p : sim->fabric().ports()) p->add_observer(&log);
  sim->run();
  REQUIRE(sim->checker().ok());
  REQUIRE(log.drops.size() == 1);
  CHECK(log.drops[0].flow == 1);
  CHECK(log.drops[0].seq == 2);
  CHECK(log.drops[0].why == link::DropReason::FaultDrop);
  CHECK(sim->flow_results()[0].delivered == 10);
  CHECK(sim->flow_results()[1].delivered == 9);
  CHECK(sim->flow_results()[2].delivered == 10);
  // Both directions carry the rule; the reverse one saw no packet of QP 0x101.
  CHECK(sim->fabric().ports()[1]->faults()->matches(0) == 10);
  CHECK(sim->fabric().ports()[0]->faults()->matches(0) == 0);
  check_credits_whole(*sim);
}

TEST_CASE("faults: a PSN rule with every drops each packet of that PSN") {
  link::LinkConfig l;
  link::DropRule r;
  r.psn = 4;
  r.every = true;
  l.faults.drops.push_back(r);
  auto sim = make_b2b(l, {flow(0, 64, 8), flow(1, 64, 8)});
  DropLog log;
  sim->fabric().ports()[1]->add_observer(&log);
  sim->run();
  REQUIRE(sim->checker().ok());
  REQUIRE(log.drops.size() == 2);
  for (const auto& d : log.drops) CHECK(d.seq == 4);
}

TEST_CASE("faults: the same seed repeats a run exactly and another seed changes it") {
  auto lost_with = [](uint64_t seed) {
    link::LinkConfig l;
    l.faults.drop_rate = 0.1;
    l.faults.bit_error_rate = 1e-7;
    l.faults.seed = seed;
    auto sim = make_b2b(l, {flow(0, 2048, 3000)});
    DropLog log;
    sim->fabric().ports()[1]->add_observer(&log);
    sim->run();
    std::vector<uint64_t> seqs;
    for (const auto& d : log.drops) seqs.push_back(d.seq * 2 + (d.why == link::DropReason::CrcError));
    return seqs;
  };
  // One elaboration per process: compare within one simulation by running the
  // injector logic alone instead of a second fabric.
  const auto a = lost_with(5);
  REQUIRE(a.size() > 200);
  link::FaultConfig c;
  c.drop_rate = 0.1;
  c.bit_error_rate = 1e-7;
  c.seed = 5;
  for (const uint64_t seed : {uint64_t{5}, uint64_t{6}}) {
    link::FaultInjector f(c, link::fault_stream_seed(seed, "hca1.p1"));
    std::vector<uint64_t> b;
    for (uint64_t i = 0; i < 3000; ++i) {
      ib::Packet p;
      p.hdr.bth.opcode = ib::op::kUdSendOnly;
      p.payload_len = 2048;
      p.finalize_lengths();
      p.wire_len = static_cast<uint16_t>(p.wire_bytes());
      const link::Verdict v = f.judge(p);
      if (v.action != link::FaultAction::Pass) b.push_back(i * 2 + (v.action == link::FaultAction::Corrupt));
    }
    if (seed == 5) CHECK(a == b);
    else CHECK(a != b);
  }
}
