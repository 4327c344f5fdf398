#pragma once
// The inter-arrival times of an open-loop source (config::Arrival), as gaps in
// ps between successive packets' creation times.
//
// Rules:
// - Deterministic: every gap is the mean interval.
// - Poisson: gaps are exponential with the mean interval (-mean x ln U, U
//   uniform in (0, 1], from the source's own 64-bit generator), rounded to the
//   ps, so arrivals form a Poisson process of the offered rate.
// - On/off: bursts whose lengths are geometric with mean `burst` packets, sent
//   back to back at `peak_interval` (the packet's time on the link); between
//   bursts an exponential gap whose mean keeps the long-run rate at one packet
//   per mean interval: burst x (interval - peak_interval). So a burst starts
//   at a Poisson-like instant and the mean gap over many packets is the mean
//   interval. Needs interval >= peak_interval (a load of at most 100 %).
// - The mean interval is a real number of ps; deterministic gaps carry the
//   rounding remainder forward, so n gaps sum to n x interval within 1 ps.

#include <cstdint>
#include <memory>
#include <random>

#include "models/config/raw_traffic_settings.hpp"

namespace hcasim::workloads {

class ArrivalProcess {
 public:
  ArrivalProcess() = default;
  // interval_ps: mean time between packets; peak_interval_ps: on_off's time
  // between packets of a burst. Throws std::invalid_argument for on_off with
  // interval_ps < peak_interval_ps.
  ArrivalProcess(const config::SourceSettings& s, double interval_ps, double peak_interval_ps, uint64_t seed);
  // The time from this arrival to the next, ps.
  uint64_t next_gap();

 private:
  double uniform();  // in (0, 1]
  uint64_t rounded(double ps);
  config::Arrival kind_ = config::Arrival::Deterministic;
  double interval_ = 0;
  double peak_ = 0;
  double continue_burst_ = 0;  // on_off: probability that a packet is followed by another of its burst
  double mean_gap_ = 0;        // on_off: mean gap between bursts (added to a peak interval)
  double carry_ = 0;           // rounding remainder carried to the next gap
  // Only the random kinds draw: a deterministic source keeps no generator
  // (its 2.5 KB of state would be most of a raw flow's memory).
  std::unique_ptr<std::mt19937_64> rng_;
};

}  // namespace hcasim::workloads
