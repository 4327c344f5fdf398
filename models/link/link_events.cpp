#include "models/link/link_events.hpp"

#include <algorithm>

namespace hcasim::link {

LinkEvents::LinkEvents(std::vector<Event> events) : alarm_([this] { fire(); }) {
  for (const Event& e : events) {
    steps_.push_back({e.down_ps, e.port, false});
    if (e.up_ps != 0) steps_.push_back({e.up_ps + e.training_ps, e.port, true});
  }
  std::stable_sort(steps_.begin(), steps_.end(), [](const Step& a, const Step& b) { return a.at_ps < b.at_ps; });
  if (!steps_.empty()) alarm_.notify_at(steps_.front().at_ps);
}

void LinkEvents::fire() {
  const uint64_t now = now_ps();
  while (next_ < steps_.size() && steps_[next_].at_ps <= now) {
    const Step s = steps_[next_++];
    Port& a = *s.port;
    Port& b = *a.peer();
    if (s.up) {
      Port::bring_up(a);
      ++ups_;
    } else {
      Port::take_down(a);
      ++downs_;
    }
    if (on_change_) on_change_(a, b, s.up);
  }
  if (next_ < steps_.size()) alarm_.notify_at(steps_[next_].at_ps);
}

}  // namespace hcasim::link
