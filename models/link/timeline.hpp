#pragma once
// The model's own event queue: every timed wakeup of the link layer, the
// switch and the HCA goes through one SC_METHOD per simulation instead of an
// sc_event and a method process per wakeup source.
//
// Why: on a fabric of thousands of ports, an sc_event notification touches the
// event, its timed-notification record, the kernel's heap and the woken
// process, each in a different place in memory; most of a packet-hop's time
// went to those cache misses (profile of configs/bench/fat_tree2_1024.json).
// Here a wakeup is a 24-byte heap entry and an Alarm beside the state it
// serves, and SystemC sees one event per distinct simulated time.
//
// Rules:
// - An Alarm is one wakeup source with one handler, like an sc_event with a
//   single SC_METHOD sensitive to it. notify_at(t) keeps an earlier pending
//   wakeup and replaces a later one (sc_event's rule); cancel() drops it.
// - Handlers run at their simulated time (sc_time_stamp() is that time),
//   inside the Timeline's method. Alarms due at the same time run in the order
//   they were notified; an alarm notified for the current time while handlers
//   run (notify_now) runs after them, in the same evaluation, which is how an
//   immediate or delta notification between two methods behaved.
// - An alarm notified from outside a handler (another SystemC process, or
//   start_of_simulation) wakes the Timeline with a delta or timed notification.
// - One Timeline per simulation context, created by the first Alarm (during
//   elaboration). SystemC itself keeps its kernel per process the same way;
//   handing a Timeline to every port, switch and HCA constructor would add an
//   argument everywhere and change nothing.

#include <systemc>

#include <cstdint>
#include <functional>

#include "models/link/alarm_queue.hpp"

namespace hcasim::link {

class Alarm;

class Timeline {
 public:
  // The current simulation's timeline; created at first use.
  static Timeline& current();

  uint64_t now_ps() const { return sc_core::sc_time_stamp().value(); }
  // Wakeups run so far (handlers called), for benchmarks.
  uint64_t dispatched() const { return dispatched_; }

  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

 private:
  friend class Alarm;
  Timeline();
  void schedule(Alarm* a, uint64_t time_ps);
  void unschedule(Alarm* a);
  void dispatch();
  void arm(uint64_t time_ps);

  AlarmQueue queue_;
  sc_core::sc_event wake_;
  uint64_t armed_at_ = UINT64_MAX;  // when wake_ is notified for
  bool dispatching_ = false;
  uint64_t dispatched_ = 0;
};

class Alarm : private AlarmHook {
 public:
  explicit Alarm(std::function<void()> handler)
      : timeline_(&Timeline::current()), handler_(std::move(handler)) {}
  Alarm(const Alarm&) = delete;
  Alarm& operator=(const Alarm&) = delete;
  ~Alarm() { cancel(); }

  void notify_at(uint64_t time_ps) {
    if (time_ps >= at_ps) return;  // pending earlier (or at the same time) already
    if (queued()) timeline_->unschedule(this);
    timeline_->schedule(this, time_ps);
  }
  void notify_in(uint64_t delay_ps) { notify_at(timeline_->now_ps() + delay_ps); }
  void notify_now() { notify_at(timeline_->now_ps()); }
  void cancel() {
    if (queued()) timeline_->unschedule(this);
  }

 private:
  friend class Timeline;
  Timeline* timeline_;
  std::function<void()> handler_;
};

inline void Timeline::unschedule(Alarm* a) { queue_.remove(a); }

}  // namespace hcasim::link
