#pragma once
// The measured window of a raw-traffic run (BookSim's method): packets made
// in [start_ps, end_ps) are the measured packets; throughput counts what is
// delivered in the window. The generators and recorders read it; the run
// (testbench/cli/measurement.hpp) sets it: at time 0 for the whole run, at a
// fixed warm-up, or when the automatic warm-up finds a steady state.

#include <cstdint>

namespace hcasim::workloads {

struct MeasureWindow {
  uint64_t start_ps = 0;         // UINT64_MAX while an automatic warm-up runs
  uint64_t end_ps = UINT64_MAX;  // UINT64_MAX = the run's end
  bool contains(uint64_t t) const { return t >= start_ps && t < end_ps; }
};

}  // namespace hcasim::workloads
