#include "testbench/workloads/steady_state.hpp"

#include <cmath>

namespace hcasim::workloads {

namespace {
double relative_change(double before, double now) { return now > 0 ? std::fabs(now - before) / now : 1.0; }
}  // namespace

bool SteadyStateTest::add(const PeriodSample& s) {
  const bool compared = ++periods_ > 1;
  latency_change_ = relative_change(last_.mean_latency_ps(), s.mean_latency_ps());
  throughput_change_ = relative_change(static_cast<double>(last_.bytes), static_cast<double>(s.bytes));
  const bool had_traffic = s.packets > 0 && last_.packets > 0;
  const bool carried = static_cast<double>(s.bytes) >= (1 - threshold_) * static_cast<double>(s.offered_bytes);
  last_ = s;
  return compared && had_traffic && carried && latency_change_ < threshold_ && throughput_change_ < threshold_;
}

}  // namespace hcasim::workloads
