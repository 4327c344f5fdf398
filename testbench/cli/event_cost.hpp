#pragma once
// Measures the wall-clock cost of one timed SC_METHOD notification on this
// machine: a method that re-notifies itself after 1 ns, `count` times, alone in
// the simulation. Benchmarks report packet-hop cost as a multiple of it.

#include <cstdint>

namespace hcasim {

// Elaborates the probe and runs it; call in a process that simulates nothing else.
double timed_event_cost_ns(uint64_t count);

}  // namespace hcasim
