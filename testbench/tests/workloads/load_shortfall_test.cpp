// The load warning's test (load_shortfall.hpp): a shortfall below the 95%
// share warns only beyond 3 standard deviations of the offered packet count.
#include <catch2/catch.hpp>

#include "testbench/workloads/load_shortfall.hpp"

using namespace hcasim::workloads;

TEST_CASE("a flow's shortfall warns only beyond three standard deviations of its offered packet count") {
  constexpr uint64_t kPacket = 4126;  // a 4 KiB payload's wire bytes, any size works
  // 200 packets, 93% carried: 14 packets short, sqrt(200) = 14.1: one deviation, chance.
  CHECK_FALSE(carried_short(200, 200 * kPacket, 186 * kPacket, 0.95));
  // 200 packets, 50% carried: 100 short, beyond 3 x 14.1 = 42.4.
  CHECK(carried_short(200, 200 * kPacket, 100 * kPacket, 0.95));
  // The edge: 42 short is within, 43 beyond.
  CHECK_FALSE(carried_short(200, 200 * kPacket, 158 * kPacket, 0.95));
  CHECK(carried_short(200, 200 * kPacket, 157 * kPacket, 0.95));
  // A million packets, 94% carried: 60,000 short, beyond 3 x 1,000.
  CHECK(carried_short(1000000, 1000000 * kPacket, 940000 * kPacket, 0.95));
  // At or above the share nothing warns, however many packets; nothing offered, nothing warns.
  CHECK_FALSE(carried_short(1000000, 1000000 * kPacket, 960000 * kPacket, 0.95));
  CHECK_FALSE(carried_short(0, 0, 0, 0.95));
}
