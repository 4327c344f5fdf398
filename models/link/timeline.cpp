#include "models/link/timeline.hpp"

#include <algorithm>
#include <map>

#include "models/link/spawn.hpp"

namespace hcasim::link {

Timeline*& Timeline::building() {
  static Timeline* t = nullptr;
  return t;
}

Timeline::Building::Building(Timeline& t) : outer_(building()) { building() = &t; }
Timeline::Building::~Building() { building() = outer_; }

Timeline::OnClock::OnClock(const Timeline& t) : outer_(detail::partition_clock) {
  detail::partition_clock = &t.clock_ps_;
}
Timeline::OnClock::~OnClock() { detail::partition_clock = outer_; }

Timeline& Timeline::current() {
  if (Timeline* t = building(); t != nullptr) return *t;
  // Never destroyed: its event and process belong to a simulation context that
  // lives until the program ends.
  static std::map<sc_core::sc_simcontext*, Timeline*>& timelines = *new std::map<sc_core::sc_simcontext*, Timeline*>;
  Timeline*& t = timelines[sc_core::sc_get_curr_simcontext()];
  if (t == nullptr) t = new Timeline;
  return *t;
}

Timeline::Timeline() : wake_(sc_core::sc_gen_unique_name("hcasim_timeline")) {
  spawn_method(sc_core::sc_gen_unique_name("hcasim_timeline_dispatch"), wake_, [this] { dispatch(); });
}

Timeline::Timeline(Standalone) : dispatching_(true) {}

void Timeline::advance_to(uint64_t time_ps) {
  if (time_ps > clock_ps_) clock_ps_ = std::min(time_ps, next_due_ps());
}

void Timeline::run_until(uint64_t end_ps) {
  const OnClock on(*this);
  while (!queue_.empty() && queue_.front_time() < end_ps) {
    clock_ps_ = queue_.front_time();
    auto* a = static_cast<Alarm*>(queue_.pop());
    if (!queue_.empty() && queue_.front_time() < end_ps) prefetch_ahead();
    ++dispatched_;
    a->run();
  }
}

void Timeline::schedule(Alarm* a, uint64_t time_ps) {
  queue_.push(a, time_ps);
  if (!dispatching_ && holds_ == 0) arm(time_ps);
}

void Timeline::hold() {
  if (holds_++ == 0) held_since_delta_ = sc_core::sc_delta_count();
}

void Timeline::release() {
  if (holds_ == 0 || --holds_ != 0 || dispatching_) return;
  // The delta cycles since the hold, and the one that resumes the dispatch at
  // this time, are the co-simulation's (a release during the dispatch costs
  // none).
  held_delta_cycles_ += sc_core::sc_delta_count() - held_since_delta_;
  armed_at_ = UINT64_MAX;
  drop_lone_background();
  if (queue_.empty()) return;
  if (queue_.front_time() <= now_ps()) ++held_delta_cycles_;
  arm(queue_.front_time());
}

void Timeline::arm(uint64_t time_ps) {
  if (time_ps >= armed_at_) return;
  armed_at_ = time_ps;
  const uint64_t now = now_ps();
  if (time_ps <= now) wake_.notify(sc_core::SC_ZERO_TIME);
  else wake_.notify(sc_core::sc_time::from_value(time_ps - now));
}

void Timeline::prefetch_ahead() const {
  // A hop's time is mostly cache misses on state scattered over the fabric;
  // the alarms due next at this time are known, so their misses can overlap
  // this handler's:
  // - the alarm after next: its line and the lines around it (an alarm sits
  //   beside the state it serves);
  // - the next one: its warm-up, which reads that state (fetched while the
  //   handler before ran) and prefetches what it points to, e.g. a port's
  //   next arriving packet. Its own line was prefetched a step earlier, as
  //   the alarm after next.
  // Measured on the fabric benchmarks (interleaved Release runs, a noisy
  // 2-core machine): 4-15% less wall time per packet-hop at the median.
  // Deeper pipelines gained nothing more: a second warm-up stage reading the
  // prefetched packet, or warming the alarm after next and prefetching the
  // one after it (fat_tree3_1331, 24 pairs of simultaneous runs: +0.7%).
  const auto* next = static_cast<const Alarm*>(queue_.front());
  if (const AlarmHook* after = next->next; after != nullptr) {
    const char* c = reinterpret_cast<const char*>(after);
    __builtin_prefetch(c - 64);
    __builtin_prefetch(c);
    __builtin_prefetch(c + 64);
  }
  next->warm();
}

void Timeline::dispatch() {
  const uint64_t now = now_ps();
  armed_at_ = UINT64_MAX;
  if (holds_ != 0) return;  // release() re-arms
  dispatching_ = true;
  while (!queue_.empty() && queue_.front_time() <= now) {
    auto* a = static_cast<Alarm*>(queue_.pop());
    if (!queue_.empty() && queue_.front_time() <= now) prefetch_ahead();
    ++dispatched_;
    a->run();
    if (holds_ != 0) {
      dispatching_ = false;
      return;  // release() re-arms
    }
  }
  dispatching_ = false;
  drop_lone_background();
  if (!queue_.empty()) arm(queue_.front_time());
}

void Timeline::remove_background(Alarm* a) {
  background_.erase(std::remove(background_.begin(), background_.end(), a), background_.end());
}

void Timeline::drop_background_if_alone() {
  std::size_t queued = 0;
  for (const Alarm* a : background_) queued += a->queued() ? 1 : 0;
  if (queued != queue_.size()) return;
  for (Alarm* a : background_) a->cancel();
}

}  // namespace hcasim::link
