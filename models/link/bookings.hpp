#pragma once
// A shared resource's busy time (a PCIe link direction, a memory controller),
// booked ahead by loosely-timed callers. Plain C++, no SystemC.
//
// Rules:
// - book(earliest, length) takes the first free interval of `length` at or
//   after `earliest` and returns its end. Callers book a transfer as soon as
//   they know it, also one that becomes ready later (a DMA waiting for a
//   context fill); one ready earlier, booked after it, takes a free gap before
//   it, as the resource would serve it then: at its ready time the later one
//   did not exist yet.
// - retire(now) forgets what ended by now: nothing is ever ready before now.
// - Times are ps as doubles (callers round once where a time leaves the
//   model). Bookings that meet within kTouchPs are one busy interval.
// - A booking at or after the end of every other (the usual case) costs no
//   search; the intervals are kept merged, so there are as many as there are
//   gaps ahead of now.

#include <cstddef>
#include <vector>

namespace hcasim::link {

class Bookings {
 public:
  Bookings() { booked_.reserve(16); }

  double book(double earliest, double length) {
    if (booked_.empty() || earliest >= booked_.back().end - kTouchPs) {
      if (!booked_.empty() && earliest <= booked_.back().end + kTouchPs) {
        booked_.back().end = earliest + length;
      } else {
        booked_.push_back({earliest, earliest + length});
      }
      return earliest + length;
    }
    double t = earliest;
    std::size_t i = 0;
    while (i < booked_.size() && booked_[i].end <= t) ++i;
    for (; i < booked_.size(); ++i) {
      if (t + length <= booked_[i].start + kTouchPs) break;  // fits in the gap before booking i
      if (booked_[i].end > t) t = booked_[i].end;
    }
    const double end = t + length;
    const bool joins_prev = i > 0 && booked_[i - 1].end >= t - kTouchPs;
    const bool joins_next = i < booked_.size() && booked_[i].start <= end + kTouchPs;
    if (joins_prev && joins_next) {
      booked_[i - 1].end = booked_[i].end;
      booked_.erase(booked_.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (joins_prev) {
      booked_[i - 1].end = end;
    } else if (joins_next) {
      booked_[i].start = t;
    } else {
      booked_.insert(booked_.begin() + static_cast<std::ptrdiff_t>(i), Interval{t, end});
    }
    return end;
  }

  void retire(double now_ps) {
    std::size_t n = 0;
    while (n < booked_.size() && booked_[n].end <= now_ps) ++n;
    if (n > 0) booked_.erase(booked_.begin(), booked_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  // Busy intervals booked ahead (for tests).
  std::size_t intervals() const { return booked_.size(); }

 private:
  struct Interval {
    double start;
    double end;
  };
  static constexpr double kTouchPs = 1e-6;
  std::vector<Interval> booked_;  // disjoint, in time order, ending after the last retire
};

}  // namespace hcasim::link
