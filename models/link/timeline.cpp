#include "models/link/timeline.hpp"

#include <map>

#include "models/link/spawn.hpp"

namespace hcasim::link {

Timeline& Timeline::current() {
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

void Timeline::dispatch() {
  const uint64_t now = now_ps();
  armed_at_ = UINT64_MAX;
  if (holds_ != 0) return;  // release() re-arms
  dispatching_ = true;
  while (!queue_.empty() && queue_.front_time() <= now) {
    auto* a = static_cast<Alarm*>(queue_.pop());
    ++dispatched_;
    a->run();
    if (holds_ != 0) {
      dispatching_ = false;
      return;  // release() re-arms
    }
  }
  dispatching_ = false;
  if (!queue_.empty()) arm(queue_.front_time());
}

}  // namespace hcasim::link
