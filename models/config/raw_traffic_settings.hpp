#pragma once
// Settings of raw-traffic measurements: how a rate-limited source makes its
// packets, and when statistics are taken. Parsed in scenario.cpp; used by
// the workloads (testbench/workloads/raw_generator.hpp) and the run.

#include <cstdint>

namespace hcasim::config {

// How a source at a rate makes its packets (open loop, as BookSim's sources):
// at the offered rate, whether or not the port can take them, into a source
// queue of its own that the HCA's transmit buffer drains. A saturating source
// has no queue: it makes a packet when the port has room.
enum class Arrival { Deterministic, Poisson, OnOff };
struct SourceSettings {
  Arrival arrival = Arrival::Deterministic;  // inter-arrival times: fixed, exponential, or bursts and gaps
  double burst = 8;                          // on_off: mean packets per burst (geometric), back to back at the link's rate
  uint64_t queue = 0;                        // source queue bound, packets; 0 = unbounded; arrivals beyond it are dropped and counted
};

// When the raw flows' statistics are taken (BookSim's method): a warm-up whose
// packets are not measured, a measured window, and a drain that delivers the
// packets made in the window while the sources go on.
struct Warmup {
  bool automatic = false;      // until successive sample periods agree (steady state)
  uint64_t ps = 0;             // fixed warm-up time (not automatic)
};
struct MeasureSettings {
  Warmup warmup;
  uint64_t measure_ps = 0;         // measured window after the warm-up; 0 = to the end of the run
  uint64_t drain_limit_ps = 0;     // longest drain after the window; 0 = as long as the window
  uint64_t period_ps = 10'000'000; // auto warm-up: sample period (10 us)
  double threshold = 0.05;         // auto warm-up: largest relative change between periods (BookSim's 5 %)
  uint32_t max_periods = 100;      // auto warm-up: periods before measuring anyway (steady state not reached)
  bool windowed() const { return warmup.automatic || warmup.ps != 0 || measure_ps != 0; }
};

}  // namespace hcasim::config
