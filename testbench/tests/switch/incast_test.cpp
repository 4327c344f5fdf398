// 8-to-1 incast through one HDR 4x switch: lossless (credits hold every
// packet), the bottleneck link at its analytic bound, and a fair share per
// sender from the crossbar's round robin.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "testbench/cli/event_cost.hpp"
#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr unsigned kSenders = 8;
constexpr uint32_t kPayload = 4096;

// Payload throughput bound of a saturated link (as in the scenario throughput
// test): data rate x payload / (packet + framing + the flow-control packets'
// share). The sending port sends a flow-control packet for its VL when its
// FCTBS has changed and fc_period has passed: one every ceil(period / slot)
// data packets.
double bound_bps(const link::LinkConfig& l, uint32_t payload) {
  const double rate = link::data_rate_bps(l.speed, l.width);
  const double slot_bytes = ud_bytes(payload) + l.framing_bytes;
  const double slot_ps = slot_bytes * 8.0 * 1e12 / rate;
  const double packets_per_fc = std::ceil(static_cast<double>(l.fc_period_ps) / slot_ps);
  const double fc_bytes = 6 + l.framing_bytes;
  return rate * payload / (slot_bytes + fc_bytes / packets_per_fc);
}

struct Incast {
  std::unique_ptr<Star> star;
  std::vector<unsigned> flows;
  double wall_s = 0;
};

Incast run_incast(sw::Forwarding mode, uint64_t duration_ps) {
  StarOptions o;
  o.hosts = kSenders + 1;
  o.sw.forwarding = mode;
  Incast r{std::make_unique<Star>(o), {}, 0};
  for (unsigned s = 0; s < kSenders; ++s) r.flows.push_back(r.star->add_flow(flow(s, kSenders, 0, kPayload, 0)));
  const auto t0 = std::chrono::steady_clock::now();
  r.star->run(duration_ps);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void check_incast(const Incast& r) {
  Star& star = *r.star;
  REQUIRE(star.checker().ok());
  uint64_t total = 0, first = UINT64_MAX, last = 0;
  for (unsigned f : r.flows) {
    const auto& res = star.result(f);
    total += res.delivered;
    first = std::min(first, res.first_delivery_ps);
    last = std::max(last, res.last_delivery_ps);
  }
  // Zero drops anywhere.
  for (unsigned p = 1; p <= star.sw().port_count(); ++p)
    for (const link::VlStats& v : star.sw().port(p).stats().vl)
      for (uint64_t d : v.drops) REQUIRE(d == 0);
  for (unsigned h = 0; h <= kSenders; ++h)
    for (const link::VlStats& v : star.host_port(h).stats().vl)
      for (uint64_t d : v.drops) REQUIRE(d == 0);
  // The bottleneck link within 1% of its bound.
  const double measured = 8.0 * kPayload * static_cast<double>(total - 1) * 1e12 / static_cast<double>(last - first);
  const double bound = bound_bps(link::LinkConfig{}, kPayload);
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << bound / 1e9 << " Gb/s, " << total << " packets");
  REQUIRE(measured <= bound * 1.0001);
  REQUIRE(measured >= bound * 0.99);
  // Each sender within 5% of 1/8.
  for (unsigned f : r.flows) {
    const double share = static_cast<double>(star.result(f).delivered) / static_cast<double>(total);
    INFO("flow " << f << " share " << share);
    REQUIRE(std::abs(share - 1.0 / kSenders) <= 0.05 / kSenders);
  }
}

}  // namespace

TEST_CASE("8-to-1 incast - cut-through: lossless - bottleneck within 1% of its bound - fair shares") {
  check_incast(run_incast(sw::Forwarding::CutThrough, 5'000'000'000));  // 5 ms, ~7,000 packets
}

TEST_CASE("8-to-1 incast - store-and-forward: the same bound and shares") {
  check_incast(run_incast(sw::Forwarding::StoreAndForward, 5'000'000'000));
}

// Benchmarks, hidden from ctest: run with
//   test_switch "[.bench]"   (each in its own process: test_switch "incast bench")
TEST_CASE("incast bench", "[.bench]") {
  const Incast r = run_incast(sw::Forwarding::CutThrough, 100'000'000'000);  // 100 ms
  const uint64_t hops = r.star->packet_hops();
  uint64_t fc = 0, data = 0;
  for (unsigned h = 0; h <= kSenders; ++h) {
    fc += r.star->host_port(h).stats().fc_tx();
    data += r.star->host_port(h).stats().vl[0].tx_packets;
  }
  for (unsigned p = 1; p <= r.star->sw().port_count(); ++p) {
    fc += r.star->sw().port(p).stats().fc_tx();
    data += r.star->sw().port(p).stats().vl[0].tx_packets;
  }
  std::printf("data hops %llu, flow-control hops %llu\n", static_cast<unsigned long long>(data),
              static_cast<unsigned long long>(fc));
  std::printf("incast 8-to-1 HDR 4x: %llu packet-hops in %.3f s: %.1f ns per packet-hop, %.2f delta cycles per hop\n",
              static_cast<unsigned long long>(hops), r.wall_s, r.wall_s * 1e9 / static_cast<double>(hops),
              static_cast<double>(sc_core::sc_delta_count()) / static_cast<double>(hops));
}

TEST_CASE("event cost bench", "[.bench]") {
  std::printf("timed SC_METHOD notification: %.2f ns\n", timed_event_cost_ns(5'000'000));
}
