// VL isolation through the switch: congestion on VL0 does not spread to VL1
// sharing the same ports. Per-VL input buffers and output queues, and an
// allocator in which a VL waiting for output room blocks nothing else.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr uint64_t kDuration = 2'000'000'000;  // 2 ms: ~12,000 packet times at HDR 4x
constexpr uint32_t kPayload = 4096;

// Payload bound of a saturated HDR 4x link (see incast_test.cpp).
double bound_bps() {
  const link::LinkConfig l;
  const double rate = link::data_rate_bps(l.speed, l.width);
  const double slot_bytes = ud_bytes(kPayload) + l.framing_bytes;
  const double packets_per_fc = std::ceil(static_cast<double>(l.fc_period_ps) / (slot_bytes * 8.0 * 1e12 / rate));
  return rate * kPayload / (slot_bytes + (6.0 + l.framing_bytes) / packets_per_fc);
}

double rate_bps(const workloads::FlowResult& r, uint64_t duration_ps) {
  return 8.0 * static_cast<double>(r.delivered_payload) * 1e12 / static_cast<double>(duration_ps);
}

}  // namespace

TEST_CASE("VL0 incast and one VL1 flow into the same output - VLArb 1:1 - VL1 gets half the link") {
  // Hosts 0-3 send on SL0 (VL0) and host 4 on SL1 (VL1), all to host 5. Every
  // port's arbitration table is the default: VL0 and VL1 at weight 64 each.
  StarOptions o;
  o.hosts = 6;
  Star star(o);
  for (unsigned s = 0; s < 4; ++s) star.add_flow(flow(s, 5, 0, kPayload, 0));
  star.add_flow(flow(4, 5, 1, kPayload, 0));
  star.run(kDuration);
  REQUIRE(star.checker().ok());
  const link::PortStats& out = star.sw().port(6).stats();
  const double vl0 = static_cast<double>(out.vl[0].tx_packets);
  const double vl1 = static_cast<double>(out.vl[1].tx_packets);
  INFO("VL0 " << vl0 << " packets, VL1 " << vl1 << " packets");
  REQUIRE(vl1 / (vl0 + vl1) == Approx(0.5).margin(0.02));
  // The link stays full, and the VL0 senders share their half evenly.
  REQUIRE(rate_bps(star.result(4), kDuration) * 2 == Approx(bound_bps()).epsilon(0.02));
  for (unsigned f = 0; f < 4; ++f) REQUIRE(static_cast<double>(star.result(f).delivered) == Approx(vl0 / 4).epsilon(0.05));
}

TEST_CASE("a VL1 flow sharing an input with a VL0 incast flow, to a free output, is not slowed") {
  // Hosts 0-3 send on VL0 to host 5 (each gets a quarter of its link); host 0
  // also sends on VL1 to host 6, which nothing else uses. Without head-of-line
  // blocking, host 0's VL1 flow takes the rest of host 0's link.
  StarOptions o;
  o.hosts = 7;
  Star star(o);
  for (unsigned s = 0; s < 4; ++s) star.add_flow(flow(s, 5, 0, kPayload, 0));
  const unsigned free_flow = star.add_flow(flow(0, 6, 1, kPayload, 0));
  star.run(kDuration);
  REQUIRE(star.checker().ok());
  const double bound = bound_bps();
  const double congested = rate_bps(star.result(0), kDuration);
  const double free_rate = rate_bps(star.result(free_flow), kDuration);
  std::string incast;
  for (unsigned f = 0; f < 4; ++f) incast += " " + std::to_string(rate_bps(star.result(f), kDuration) / 1e9);
  INFO("incast flows, Gb/s:" << incast);
  INFO("host 0: VL0 " << congested / 1e9 << " Gb/s, VL1 " << free_rate / 1e9 << " Gb/s, link bound " << bound / 1e9);
  // Host 0's VL0 flow still gets its quarter of host 5's link (the crossbar
  // does not let the busy input miss its turns), like every other sender...
  for (unsigned f = 0; f < 4; ++f) REQUIRE(rate_bps(star.result(f), kDuration) == Approx(bound / 4).epsilon(0.02));
  // ...and the VL1 flow takes all the rest of host 0's link.
  REQUIRE(free_rate >= 0.98 * (bound - congested));
  REQUIRE(free_rate + congested <= bound * 1.001);
  uint64_t drops = 0;
  for (unsigned p = 1; p <= 7; ++p)
    for (const link::VlStats& v : star.sw().port(p).stats().vl)
      for (uint64_t d : v.drops) drops += d;
  REQUIRE(drops == 0);
}
