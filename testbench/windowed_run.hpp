#pragma once
// Runs the partitions of a parallel simulation (models/link/partition.hpp) in
// windows, on one thread or several.
//
// Rules:
// - A window starts at the earliest alarm due in any partition (idle time is
//   skipped) and lasts window_ps, or up to end_ps. Every partition runs its
//   alarms due before the window's end. Then each partition takes its inbound
//   packets (Port::hand_over; by sending partition, each outbox in the order
//   it was filled) and inbound(q) moves whatever else crosses (the checkers'
//   records); then the next window starts.
// - The run ends when no alarm is due anywhere (nothing is in flight either),
//   or at end_ps when that is not 0: alarms due at end_ps or later do not run.
// - Thread t runs partitions t, t + threads, ...; thread 0 is the caller's.
//   What happens inside a partition does not depend on the thread count.
// - between(now) runs on the caller's thread after each window, while no
//   partition runs its alarms (progress reports read counters then).
// Returns when the run ended: end_ps, or the time of the last alarm run.

#include <cstdint>
#include <functional>
#include <vector>

#include "models/link/partition.hpp"

namespace hcasim {

struct WindowedRunConfig {
  uint64_t window_ps = 1;  // > 0
  uint64_t end_ps = 0;     // 0 = until idle
  unsigned threads = 1;    // at most the partition count
};

uint64_t run_windows(const std::vector<link::Partition*>& parts, const WindowedRunConfig& config,
                     const std::function<void(unsigned q)>& inbound, const std::function<void(uint64_t now_ps)>& between);

}  // namespace hcasim
