// Saturated link throughput against the analytic bound: link data rate (lanes
// x signalling x line code), packet bytes (headers, CRCs, pad), framing bytes
// and the flow-control packets' share of the same direction.
#include <catch2/catch.hpp>

#include <cmath>

#include "testbench/tests/scenarios/b2b_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

void check_saturated(link::Speed speed, link::Width width, uint64_t count) {
  link::PortConfig pc;
  pc.mtu = 4096;
  link::LinkConfig lc;
  lc.speed = speed;
  lc.width = width;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, count)});
  const auto& r = sim->flow_results()[0];
  REQUIRE(r.delivered == count);
  REQUIRE(sim->checker().ok());
  // Steady state: from the first delivery to the last, count - 1 packets arrived.
  const double measured = 8.0 * 4096.0 * static_cast<double>(count - 1) * 1e12 /
                          static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
  const Bound b = analytic_bound(lc, 4096);
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << b.data_bps / 1e9 << " Gb/s");
  // The issue asks for 0.5%; the model lands within 0.1%.
  REQUIRE(std::abs(measured - b.data_bps) / b.data_bps < 0.001);
  // The flow-control share itself: packets on the data direction.
  const double fc_sent = static_cast<double>(sim->fabric().ports()[0]->stats().fc_tx());
  INFO("flow-control packets " << fc_sent << ", expected about " << b.fc_per_packet * count);
  REQUIRE(std::abs(fc_sent - b.fc_per_packet * count) <= 0.02 * b.fc_per_packet * count + 10);
}

}  // namespace

TEST_CASE("HDR 4x - MTU 4096 - one saturated VL: data throughput within 0.1% of the analytic bound") {
  check_saturated(link::Speed::Hdr, link::Width::X4, 50000);
}

TEST_CASE("SDR 1x - MTU 4096 - one saturated VL: data throughput within 0.1% of the analytic bound") {
  check_saturated(link::Speed::Sdr, link::Width::X1, 2000);
}

TEST_CASE("EDR 4x follows the same bound") { check_saturated(link::Speed::Edr, link::Width::X4, 20000); }

TEST_CASE("NDR 4x follows the same bound") { check_saturated(link::Speed::Ndr, link::Width::X4, 20000); }

TEST_CASE("both directions saturated: each keeps the bound - flow control rides along") {
  link::PortConfig pc;
  link::LinkConfig lc;
  const uint64_t n = 30000;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, n, 0, 1), flow(0, 4096, n, 1, 0)});
  const Bound b = analytic_bound(lc, 4096);
  for (const auto& r : sim->flow_results()) {
    REQUIRE(r.delivered == n);
    const double measured = 8.0 * 4096.0 * static_cast<double>(n - 1) * 1e12 /
                            static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
    // Each direction also carries the other's credit updates: at most one per
    // data packet it carries, and at least one per period.
    REQUIRE(measured <= b.data_bps * 1.0005);
    REQUIRE(measured >= b.data_bps * 0.995);
  }
  REQUIRE(sim->checker().ok());
}
