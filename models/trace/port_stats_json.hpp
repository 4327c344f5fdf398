#pragma once
// stats.json sections for ports and latency histograms. Throughputs are bits
// per second over the simulated time given.

#include <nlohmann/json.hpp>

#include <cstdint>

#include "models/link/port.hpp"
#include "models/trace/latency_record.hpp"

namespace hcasim::trace {

// A port with fault injection also gets "faults" (fault_stats_json).
nlohmann::json port_stats_json(const link::Port& port, uint64_t sim_ps);
// What a port's fault injector judged: packets, drops targeted and random,
// corruptions by decode error ("bad_vcrc", ...), undetected ones, bits
// flipped, packets delayed and duplicated by rules, and per rule the packets it matched ("rule_matches") and, in
// "rules", its action with its matches and hits (dropped, delayed, duplicated).
nlohmann::json fault_stats_json(const link::FaultInjector& f);
// count; min, mean, p50, p90, p99, p99.9, p99.99 and max in ns; the mean's 95 %
// confidence interval half-width in ns ("mean_ci95_ns") over "batches" batch
// means and their lag-1 autocorrelation (batch_means.hpp; null where undefined).
nlohmann::json latency_json(const LatencyRecord& r);
// A number, or null for NaN (an estimate that is undefined).
nlohmann::json number_or_null(double x);
double bits_per_second(uint64_t bytes, uint64_t ps);

}  // namespace hcasim::trace
