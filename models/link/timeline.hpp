#pragma once
// The model's own event queue: every timed wakeup of the link layer, the
// switch and the HCA goes through one SC_METHOD per simulation instead of an
// sc_event and a method process per wakeup source.
//
// Why: on a fabric of thousands of ports, an sc_event notification touches the
// event, its timed-notification record, the kernel's heap and the woken
// process, each in a different place in memory; most of a packet-hop's time
// went to those cache misses (profile of configs/bench/fat_tree2_1024.json).
// Here a wakeup is an Alarm beside the state it serves, linked into a FIFO per
// distinct time (alarm_queue.hpp), and SystemC sees one event per distinct
// simulated time.
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
// - A handler that waits for another SystemC process (a port asking an RTL
//   block behind a transactor, which answers in delta cycles) holds the
//   Timeline: dispatch stops when the handler returns and goes on, at the same
//   simulated time and in the same order, one delta cycle after the last
//   release. So the model runs exactly as if the answer had come at once; the
//   delta cycles spent held are counted apart (held_delta_cycles), so that a
//   run's count of the model's own delta cycles does not change either.
// - One Timeline per simulation context, created by the first Alarm (during
//   elaboration). SystemC itself keeps its kernel per process the same way;
//   handing a Timeline to every port, switch and HCA constructor would add an
//   argument everywhere and change nothing.
// - Parallel simulation (partition.hpp): a partition's Timeline has no
//   SystemC process and keeps its own clock. run_until(end) runs its alarms
//   due before `end` on the calling thread, in the order above, with now_ps()
//   reading that clock on that thread; between calls the caller may notify its
//   alarms (handing packets over) but not run them. Alarms made while a
//   Timeline::Building scope is open belong to that Timeline.
// - Background alarms (add_background; e.g. the time series' sampler, a
//   standby SM's polling, a trap's repeats) do not keep the model going: when
//   a dispatch (or a release) leaves only background alarms queued, they are
//   cancelled, so a run that goes until idle ends at the model's last event,
//   not at a background alarm's next time. An owner learns of it from
//   queued() and re-arms its alarm only while other alarms are queued.

#include <systemc>

#include <cstdint>
#include <functional>
#include <vector>

#include "models/link/alarm_queue.hpp"

namespace hcasim::link {

namespace detail {
// The clock of the partition this thread runs (Timeline::run_until), or null
// for the SystemC kernel's.
inline thread_local const uint64_t* partition_clock = nullptr;
}  // namespace detail

// The current simulated time in ps, inline: sc_time_stamp() is a call into the
// SystemC library, and a packet-hop asks for the time several times.
inline uint64_t now_ps() {
  if (const uint64_t* clock = detail::partition_clock; clock != nullptr) return *clock;
  return sc_core::sc_get_curr_simcontext()->time_stamp().value();
}

class Alarm;

class Timeline {
 public:
  // The timeline of a Building scope, else the current simulation's (created
  // at first use).
  static Timeline& current();

  // A partition's timeline (see the rules above).
  struct Standalone {};
  explicit Timeline(Standalone);
  // While it lives, new Alarms (and current()) use `t`. Scopes nest.
  class Building {
   public:
    explicit Building(Timeline& t);
    ~Building();
    Building(const Building&) = delete;
    Building& operator=(const Building&) = delete;

   private:
    Timeline* outer_;
  };
  // Partition timelines only. Runs the alarms due before end_ps (the clock
  // moves to each one's time); alarms they notify before end_ps run too.
  void run_until(uint64_t end_ps);
  // When the next alarm is due; UINT64_MAX when none is.
  uint64_t next_due_ps() const { return queue_.empty() ? UINT64_MAX : queue_.front_time(); }
  // The partition's clock; advance_to moves it on (at most to the next alarm).
  uint64_t clock_ps() const { return clock_ps_; }
  void advance_to(uint64_t time_ps);
  // Makes now_ps() on this thread read this partition's clock while it lives.
  class OnClock {
   public:
    explicit OnClock(const Timeline& t);
    ~OnClock();
    OnClock(const OnClock&) = delete;
    OnClock& operator=(const OnClock&) = delete;

   private:
    const uint64_t* outer_;
  };

  // Wakeups run so far (handlers called), for benchmarks.
  uint64_t dispatched() const { return dispatched_; }
  // Alarms queued now (a handler running is no longer queued).
  std::size_t queued() const { return queue_.size(); }
  // See the rules above. The alarm must belong to this Timeline; remove it
  // before it is destroyed.
  void add_background(Alarm* a) { background_.push_back(a); }
  void remove_background(Alarm* a);

  // See the rules above. Holds nest; release() of the last one resumes.
  void hold();
  void release();
  // Delta cycles from holds to their releases, and those that resumed a
  // dispatch after a release.
  uint64_t held_delta_cycles() const { return held_delta_cycles_; }

  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

 private:
  friend class Alarm;
  Timeline();
  void schedule(Alarm* a, uint64_t time_ps);
  void unschedule(Alarm* a);
  void dispatch();
  void prefetch_ahead() const;  // for the alarms due next at this time
  void arm(uint64_t time_ps);
  void drop_lone_background();
  void drop_background_if_alone();

  static Timeline*& building();

  AlarmQueue queue_;
  sc_core::sc_event wake_;
  uint64_t armed_at_ = UINT64_MAX;  // when wake_ is notified for
  // Dispatching now: schedule() leaves the kernel alone. Always set in a
  // partition's timeline, which never wakes the kernel.
  bool dispatching_ = false;
  uint64_t dispatched_ = 0;
  uint64_t clock_ps_ = 0;            // a partition's clock
  unsigned holds_ = 0;
  uint64_t held_since_delta_ = 0;    // sc_delta_count() at the first hold
  uint64_t held_delta_cycles_ = 0;
  std::vector<Alarm*> background_;
};

// 64 bytes on a line of their own: queuing, unlinking and running an alarm
// touch one cache line, not two.
class alignas(64) Alarm : private AlarmHook {
 public:
  using Handler = void (*)(void* context);
  // A warm-up starts fetching what the handler will read (prefetches only, no
  // effect on the model); the Timeline calls it while the alarm before this
  // one runs (Timeline::prefetch_ahead).
  using Warm = void (*)(const void* context);
  // Calls handler(context): one cache line, kept beside the state it serves.
  Alarm(Handler handler, void* context, Warm warm = nullptr)
      : timeline_(&Timeline::current()), handler_(handler), context_(context), warm_(warm) {}
  // The same on a given timeline rather than the current one: an alarm made
  // after the build, on its neighbours' timeline (Alarm::timeline()).
  Alarm(Timeline& timeline, Handler handler, void* context)
      : timeline_(&timeline), handler_(handler), context_(context), warm_(nullptr) {}
  // Calls f(), kept on the heap: for wakeups off the hot path and for tests.
  explicit Alarm(std::function<void()> f)
      : Alarm(&call_function, new std::function<void()>(std::move(f))) {}
  // An alarm that calls object->Method().
  template <auto Method, class T>
  static Alarm method(T* object) {
    return Alarm(&call_method<T, Method>, object);
  }
  // The same on a given timeline (see above).
  template <auto Method, class T>
  static Alarm method_on(Timeline& timeline, T* object) {
    return Alarm(timeline, &call_method<T, Method>, object);
  }
  // The same, with object->WarmUp() as its warm-up.
  template <auto Method, auto WarmUp, class T>
  static Alarm method(T* object) {
    return Alarm(&call_method<T, Method>, object, &call_warm<T, WarmUp>);
  }
  Alarm(const Alarm&) = delete;
  Alarm& operator=(const Alarm&) = delete;
  ~Alarm() {
    cancel();
    if (handler_ == &call_function) delete static_cast<std::function<void()>*>(context_);
  }

  void notify_at(uint64_t time_ps) {
    if (time_ps >= at_ps) return;  // pending earlier (or at the same time) already
    if (queued()) timeline_->unschedule(this);
    timeline_->schedule(this, time_ps);
  }
  void notify_in(uint64_t delay_ps) { notify_at(now_ps() + delay_ps); }
  void notify_now() { notify_at(now_ps()); }
  Timeline& timeline() const { return *timeline_; }
  void cancel() {
    if (queued()) timeline_->unschedule(this);
  }

 private:
  friend class Timeline;
  template <class T, auto Method>
  static void call_method(void* object) {
    (static_cast<T*>(object)->*Method)();
  }
  template <class T, auto WarmUp>
  static void call_warm(const void* object) {
    (static_cast<const T*>(object)->*WarmUp)();
  }
  static void call_function(void* f) { (*static_cast<std::function<void()>*>(f))(); }
  void run() { handler_(context_); }
  void warm() const {
    if (warm_ != nullptr) warm_(context_);
  }

  Timeline* timeline_;
  Handler handler_;
  void* context_;
  Warm warm_;
};

inline void Timeline::unschedule(Alarm* a) { queue_.remove(a); }

inline void Timeline::drop_lone_background() {
  if (!background_.empty() && queue_.size() <= background_.size()) drop_background_if_alone();
}

}  // namespace hcasim::link
