// The transport timer and RNR delay encodings against seed 002 ("The Timeout
// Formula") and seed 001 (Table 17-6), and the timer check tick against the
// [Ttr, 4 Ttr] detection window.
#include <catch2/catch.hpp>

#include <cstdint>

#include "models/transport/transport_timers.hpp"

using namespace hcasim::transport;

TEST_CASE("Ttr is 4.096 us times 2 to the Local ACK Timeout and 0 disables it") {
  CHECK(transport_timer_ps(0) == 0);
  CHECK(transport_timer_ps(1) == 8'192'000);
  CHECK(transport_timer_ps(10) == 4'194'304'000);       // 4.194 ms
  CHECK(transport_timer_ps(14) == 67'108'864'000);      // 67.1 ms
  CHECK(transport_timer_ps(31) == 4'096'000ull << 31);  // 2.4 hours
}

TEST_CASE("RNR NAK timer codes give the delays of seed 001 Table 17-6") {
  CHECK(rnr_delay_ps(0) == 655'360'000'000);  // 655.36 ms
  CHECK(rnr_delay_ps(1) == 10'000'000);       // 0.01 ms
  CHECK(rnr_delay_ps(14) == 1'280'000'000);   // 1.28 ms
  CHECK(rnr_delay_ps(31) == 491'520'000'000); // 491.52 ms
}

TEST_CASE("A timer is checked at its deadline rounded up to a tick of Ttr over 4") {
  for (uint8_t code : {1, 5, 10, 14, 20, 31}) {
    const uint64_t ttr = transport_timer_ps(code);
    const uint64_t tick = ttr / 4;
    for (uint64_t deadline : {ttr, ttr + 1, 3 * ttr - 1, uint64_t{123'456'789'012} + ttr, tick * 17, tick * 17 + 1}) {
      INFO("code " << int(code) << " deadline " << deadline);
      const uint64_t at = timer_check_ps(deadline, code);
      CHECK(at >= deadline);
      CHECK(at - deadline < tick);  // detection within [Ttr, 1.25 Ttr] of the timer's start
      CHECK(at % tick == 0);
    }
    CHECK(timer_check_ps(tick * 9, code) == tick * 9);
  }
}
