// The open-loop sources' arrivals (arrival_process.hpp) and the automatic
// warm-up's steady-state test (steady_state.hpp), against the moments of the
// distributions the rules name.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "testbench/workloads/arrival_process.hpp"
#include "testbench/workloads/steady_state.hpp"

using namespace hcasim;
using hcasim::workloads::ArrivalProcess;

namespace {

struct Moments {
  double mean = 0, cv = 0;  // mean gap, ps, and its coefficient of variation
};
Moments moments(ArrivalProcess& a, unsigned n) {
  double sum = 0, sum2 = 0;
  for (unsigned i = 0; i < n; ++i) {
    const double g = static_cast<double>(a.next_gap());
    sum += g;
    sum2 += g * g;
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sum2 / n - mean * mean) / mean};
}
config::SourceSettings with(config::Arrival kind, double burst = 8) {
  config::SourceSettings s;
  s.arrival = kind;
  s.burst = burst;
  return s;
}

}  // namespace

TEST_CASE("deterministic arrivals: n gaps sum to n x interval within 1 ps, a fractional interval included") {
  ArrivalProcess a(with(config::Arrival::Deterministic), 183.3333, 165, 1);
  uint64_t sum = 0;
  for (unsigned i = 0; i < 3000; ++i) sum += a.next_gap();
  REQUIRE(std::fabs(static_cast<double>(sum) - 3000 * 183.3333) <= 1.0);
}

TEST_CASE("poisson arrivals: exponential gaps, mean the interval and coefficient of variation 1 (within 1 %)") {
  ArrivalProcess a(with(config::Arrival::Poisson), 100'000, 50'000, 7);
  const Moments m = moments(a, 1'000'000);
  // Standard error of the mean of 10^6 exponential gaps: 0.1 %.
  REQUIRE(m.mean == Approx(100'000).epsilon(0.01));
  REQUIRE(m.cv == Approx(1.0).epsilon(0.01));
}

TEST_CASE("on_off arrivals: the long-run mean gap is the interval, bursts are back to back with the mean length asked") {
  const double interval = 400'000, peak = 100'000, burst = 8;  // a 25 % load in bursts of 8
  ArrivalProcess a(with(config::Arrival::OnOff, burst), interval, peak, 3);
  uint64_t sum = 0, bursts = 0, in_burst = 0;
  const unsigned n = 1'000'000;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t g = a.next_gap();
    sum += g;
    if (g == peak) ++in_burst;
    else ++bursts;
  }
  REQUIRE(static_cast<double>(sum) / n == Approx(interval).epsilon(0.01));
  // A burst ends with the one gap longer than the peak interval: n / bursts packets per burst.
  REQUIRE(static_cast<double>(n) / static_cast<double>(bursts) == Approx(burst).epsilon(0.02));
  REQUIRE(in_burst > 0);
}

TEST_CASE("on_off arrivals above the link's rate are refused") {
  REQUIRE_THROWS_AS(ArrivalProcess(with(config::Arrival::OnOff), 90, 100, 1), std::invalid_argument);
}

TEST_CASE("arrivals are the same for the same seed and differ for another") {
  ArrivalProcess a(with(config::Arrival::Poisson), 1000, 500, 5), b(with(config::Arrival::Poisson), 1000, 500, 5),
      c(with(config::Arrival::Poisson), 1000, 500, 6);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.next_gap();
    REQUIRE(x == b.next_gap());
    differs = differs || x != c.next_gap();
  }
  REQUIRE(differs);
}

TEST_CASE("steady state: two periods agreeing within the threshold in latency and throughput, never the first") {
  workloads::SteadyStateTest t(0.05);
  const auto period = [](uint64_t packets, double mean_ps, uint64_t bytes) {
    return workloads::PeriodSample{packets, mean_ps * static_cast<double>(packets), bytes, bytes};
  };
  REQUIRE_FALSE(t.add(period(100, 1000, 100'000)));  // first: nothing to compare with
  REQUIRE_FALSE(t.add(period(100, 1100, 100'000)));  // latency moved 9.1 %
  REQUIRE(t.latency_change() == Approx(100.0 / 1100));
  REQUIRE_FALSE(t.add(period(100, 1120, 110'000)));  // throughput moved 9.1 %
  REQUIRE(t.add(period(100, 1130, 112'000)));        // 0.9 % and 1.8 %
  REQUIRE(t.periods() == 4);
  REQUIRE_FALSE(t.add(period(0, 0, 0)));             // nothing delivered: not steady
}

TEST_CASE("steady state: a period that carried less than its offered load is not steady (above saturation)") {
  workloads::SteadyStateTest t(0.05);
  REQUIRE_FALSE(t.add({100, 100'000, 100'000, 120'000}));
  REQUIRE_FALSE(t.add({100, 100'100, 100'000, 120'000}));  // latency and throughput steady, 83 % carried
  REQUIRE(t.add({100, 100'100, 100'000, 104'000}));         // 96 % carried
}
