// A 64-port switch: a permutation (host i to host i + 1) runs every link at its
// bound, with nothing dropped and the checker satisfied on all 128 ports.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

TEST_CASE("64-port switch - permutation traffic: every flow at the link bound") {
  constexpr unsigned kHosts = 64;
  constexpr uint64_t kDuration = 200'000'000;  // 200 us: ~1,200 packets per flow
  StarOptions o;
  o.hosts = kHosts;
  Star star(o);
  for (unsigned h = 0; h < kHosts; ++h) star.add_flow(flow(h, (h + 1) % kHosts, static_cast<uint8_t>(h % 4), 4096, 0));
  star.run(kDuration);
  REQUIRE(star.checker().ok());
  const link::LinkConfig l;
  const double rate = link::data_rate_bps(l.speed, l.width);
  const double slot_bytes = ud_bytes(4096) + l.framing_bytes;
  const double packets_per_fc = std::ceil(static_cast<double>(l.fc_period_ps) / (slot_bytes * 8.0 * 1e12 / rate));
  const double bound = rate * 4096 / (slot_bytes + (6.0 + l.framing_bytes) / packets_per_fc);
  for (unsigned f = 0; f < kHosts; ++f) {
    const auto& r = star.result(f);
    const double measured = 8.0 * 4096 * static_cast<double>(r.delivered - 1) * 1e12 /
                            static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
    INFO("flow " << f << ": " << measured / 1e9 << " Gb/s, bound " << bound / 1e9);
    REQUIRE(measured <= bound * 1.0001);
    REQUIRE(measured >= bound * 0.99);
  }
  uint64_t drops = 0;
  for (unsigned p = 1; p <= kHosts; ++p)
    for (const link::VlStats& v : star.sw().port(p).stats().vl)
      for (uint64_t d : v.drops) drops += d;
  REQUIRE(drops == 0);
}

// Hidden from ctest: test_switch "permutation bench" (see incast_test.cpp).
TEST_CASE("permutation bench", "[.bench]") {
  constexpr unsigned kHosts = 64;
  StarOptions o;
  o.hosts = kHosts;
  Star star(o);
  for (unsigned h = 0; h < kHosts; ++h) star.add_flow(flow(h, (h + 1) % kHosts, 0, 4096, 0));
  const auto t0 = std::chrono::steady_clock::now();
  star.run(5'000'000'000);  // 5 ms
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("permutation 64 ports HDR 4x: %llu packet-hops in %.3f s: %.1f ns per packet-hop\n",
              static_cast<unsigned long long>(star.packet_hops()), s, s * 1e9 / static_cast<double>(star.packet_hops()));
}
