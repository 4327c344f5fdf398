#pragma once
// The automatic warm-up's test for a steady state (BookSim's method): the run
// is cut into sample periods; after each, the mean latency of the packets
// delivered in it and the throughput accepted in it are compared with the
// period before. When both changed by less than the threshold (relative to
// the newer value), and the period carried its offered load (accepted at
// least 1 - threshold of the bytes the sources made in it), the network is
// taken as warmed up. Above saturation the source queues grow without end:
// no steady state, however slowly the latency grows.
//
// Rules: a period that delivered nothing is not steady (the network has not
// filled yet, or is stuck). The first period is compared with nothing.

#include <cstdint>

namespace hcasim::workloads {

struct PeriodSample {
  uint64_t packets = 0;      // delivered in the period
  double latency_sum_ps = 0; // their latencies, summed
  uint64_t bytes = 0;        // their wire bytes
  uint64_t offered_bytes = 0; // wire bytes the sources made in the period
  double mean_latency_ps() const { return packets ? latency_sum_ps / static_cast<double>(packets) : 0.0; }
};

class SteadyStateTest {
 public:
  explicit SteadyStateTest(double threshold) : threshold_(threshold) {}
  // Feeds one period's sample; true when it agrees with the one before.
  bool add(const PeriodSample& s);
  unsigned periods() const { return periods_; }
  // Relative changes of the last comparison (0 before two periods).
  double latency_change() const { return latency_change_; }
  double throughput_change() const { return throughput_change_; }

 private:
  double threshold_;
  unsigned periods_ = 0;
  PeriodSample last_;
  double latency_change_ = 0, throughput_change_ = 0;
};

}  // namespace hcasim::workloads
