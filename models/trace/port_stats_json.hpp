#pragma once
// stats.json sections for ports and latency histograms. Throughputs are bits
// per second over the simulated time given.

#include <nlohmann/json.hpp>

#include <cstdint>

#include "models/link/port.hpp"
#include "models/trace/histogram.hpp"

namespace hcasim::trace {

nlohmann::json port_stats_json(const link::Port& port, uint64_t sim_ps);
// p50, p99, p99.9, max, mean and count, in nanoseconds.
nlohmann::json latency_json(const Histogram& h);
double bits_per_second(uint64_t bytes, uint64_t ps);

}  // namespace hcasim::trace
