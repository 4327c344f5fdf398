#pragma once
// Credit flow control end to end on a link: a slowly draining receiver is
// never overrun, and the 12-bit counters wrap without error (IBA 7.9.4;
// iba-facts 2). Each check runs with the credit implementation given (the
// model's C++, or the RTL of testbench/rtl), so the same scenarios test both.

#include <catch2/catch.hpp>

#include "testbench/tests/scenarios/b2b_fixture.hpp"

namespace hcasim::test::flow_control {

inline void check_slow_receiver(link::Implementation credits) {
  link::PortConfig fast;
  link::PortConfig slow;
  fast.credit_manager = slow.credit_manager = credits;
  slow.drain_rate_bps = 50'000'000'000;  // a quarter of HDR 4x
  const uint64_t n = 20000;
  auto sim = run_b2b(fast, slow, link::LinkConfig{}, {flow(0, 4096, n)});
  require_no_rtl_failure(*sim);
  const auto& r = sim->flow_results()[0];
  REQUIRE(r.delivered == n);
  REQUIRE(sim->checker().ok());
  const link::Port& tx = *sim->fabric().ports()[0];
  const link::Port& rx = *sim->fabric().ports()[1];
  REQUIRE(total_drops(rx.stats().vl[0]) == 0);
  REQUIRE(rx.stats().vl[0].rx_high_water_bytes <= rx.config().vl_buffer_bytes);
  // The receive buffer fills to within one packet of its size.
  REQUIRE(rx.stats().vl[0].rx_high_water_bytes + 4160 >= rx.config().vl_buffer_bytes);
  const double span_ps = static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
  const double measured = 8.0 * static_cast<double>(ud_wire_bytes(4096)) * static_cast<double>(n - 1) * 1e12 / span_ps;
  CHECK(measured == Approx(50e9).epsilon(0.01));
  // The sender spends about three quarters of the run stalled for credits.
  const double stall = static_cast<double>(tx.stats().vl[0].credit_stall_ps);
  CHECK(stall / span_ps == Approx(0.75).margin(0.03));
}

inline void check_credit_wrap(link::Implementation credits) {
  link::PortConfig pc;
  pc.credit_manager = credits;
  pc.vl_buffer_bytes = 16384;  // a small buffer keeps credits tight
  const uint64_t n = 100000;   // 65 blocks each: 6.5 M blocks, ~1,600 wraps of the 12-bit counters
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 4096, n), flow(0, 100, n, 1, 0)});
  require_no_rtl_failure(*sim);
  REQUIRE(sim->flow_results()[0].delivered == n);
  REQUIRE(sim->flow_results()[1].delivered == n);
  REQUIRE(sim->checker().ok());
  REQUIRE(sim->checker().packets_checked() >= 2 * n);
  for (const link::Port* p : sim->fabric().ports())
    for (unsigned vl = 0; vl < p->vl_count(); ++vl) REQUIRE(total_drops(p->stats().vl[vl]) == 0);
}

}  // namespace hcasim::test::flow_control
