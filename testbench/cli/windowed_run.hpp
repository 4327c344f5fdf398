#pragma once
// Runs the partitions of a parallel simulation (models/link/partition.hpp) in
// windows, on one thread or several.
//
// Rules:
// - window_ps is the lookahead: nothing sent on a cut link arrives sooner.
//   Time advances in steps of window_ps / steps, on a grid that starts at the
//   earliest alarm due in any partition (idle time is skipped there). Every
//   partition runs its alarms due before a step's end.
// - What partition p sends toward q during step i (its outbox, then
//   whatever seal(p, slot) stores in `slot`) arrives at step i + steps or
//   later, so q takes it just before its step i + steps (Port::hand_over, in
//   the order it was sent; then take(q, p, slot)), by sending partition.
//   q's step k therefore waits only for the other partitions' steps up to
//   k - steps: a partition may run up to steps - 1 steps ahead of another,
//   which evens out the swing of work between partitions from step to step.
// - Steps go in epochs of 16 windows, ended by a barrier. There every
//   partition takes what it has not yet taken (by step, then by sending
//   partition), the run ends when no alarm is due anywhere, and the next
//   epoch's grid starts at the earliest alarm due.
// - The run ends then, or at end_ps when that is not 0: alarms due at end_ps
//   or later do not run.
// - Thread t runs partitions t, t + threads, ...; thread 0 is the caller's.
//   What happens inside a partition (which packets it takes before which step)
//   does not depend on the thread count or on timing.
// - between(now) runs on the caller's thread after each epoch, while no
//   partition runs its alarms (progress reports read counters then).
// Returns when the run ended: end_ps, or the time of the last alarm run.

#include <cstdint>
#include <functional>
#include <vector>

#include "models/link/partition.hpp"

namespace hcasim {

struct WindowedRunConfig {
  uint64_t window_ps = 1;  // > 0: the lookahead
  uint64_t end_ps = 0;     // 0 = until idle
  unsigned threads = 1;    // at most the partition count
  unsigned steps = 4;      // > 0: steps per window
};

// The number of slots a partition's sealed mail cycles through.
inline unsigned mail_slots(const WindowedRunConfig& c) { return 2 * (c.steps == 0 ? 1 : c.steps); }

struct WindowHooks {  // each may be left empty
  // After partition `from`'s step: store what else crosses (the checkers'
  // records) in `slot`, which the receivers have emptied.
  std::function<void(unsigned from, unsigned slot)> seal;
  // Partition q takes what `from` sealed in `slot`.
  std::function<void(unsigned q, unsigned from, unsigned slot)> take;
  std::function<void(uint64_t now_ps)> between;
};

uint64_t run_windows(const std::vector<link::Partition*>& parts, const WindowedRunConfig& config,
                     const WindowHooks& hooks);

}  // namespace hcasim
