#pragma once
// One direction of a PCIe link, timed analytically: the times it is booked to
// send, and the time it has spent sending. Plain C++, no SystemC.
//
// Rules:
// - A TLP takes wire bytes x ps per byte, and starts at the earliest time at
//   or after it is ready when the direction is free for that long. Callers
//   book TLPs as soon as they know them, also ones that become ready later (a
//   DMA that waits for a context fill); a TLP ready earlier, booked after
//   them, goes out in a free gap before them, as the transmitter would send
//   it then: at its ready time the later one did not exist yet.
// - Posted writes stay in the order they are booked (PCIe: a posted request
//   does not pass a posted request; a CQE write lands after its message's
//   data writes): a posted TLP starts no earlier than the end of the posted
//   TLP booked before it. Read requests and completions take the first gap.
// - retire(now) forgets what ended by now: no TLP is ever ready before now.
// - Times are ps held as doubles, not rounded per TLP: at Gen3 x8 a 24-byte
//   read request takes 26.5 ps, and rounding each TLP to a whole ps would move
//   the bandwidth of small transfers by up to 2 %. Callers round once where a
//   time leaves the model (a TLM delay). At one simulated second (1e12 ps) a
//   double still resolves 1e-4 ps, far below a TLP's time. Bookings that meet
//   within kTouchPs are one busy interval.
// - A TLP booked at or after the end of every booking (the usual case) costs
//   no search; the booked intervals are kept merged, so there are as many as
//   there are gaps ahead of now.

#include <cstdint>
#include <vector>

namespace hcasim::pcie {

class LinkDirection {
 public:
  explicit LinkDirection(double ps_per_byte) : ps_per_byte_(ps_per_byte) { booked_.reserve(16); }

  // Books a TLP of wire_bytes, ready at ready_ps; returns when its last byte is out.
  double send(double ready_ps, uint32_t wire_bytes, bool posted) {
    const double cost = static_cast<double>(wire_bytes) * ps_per_byte_;
    const double earliest = posted && posted_until_ps_ > ready_ps ? posted_until_ps_ : ready_ps;
    const double end = book(earliest, cost);
    if (posted) posted_until_ps_ = end;
    if (end > busy_until_ps_) busy_until_ps_ = end;
    busy_ps_ += cost;
    return end;
  }

  // Drops the bookings that ended by now_ps.
  void retire(double now_ps) {
    std::size_t n = 0;
    while (n < booked_.size() && booked_[n].end <= now_ps) ++n;
    if (n > 0) booked_.erase(booked_.begin(), booked_.begin() + static_cast<std::ptrdiff_t>(n));
  }

  double busy_until_ps() const { return busy_until_ps_; }
  double busy_ps() const { return busy_ps_; }
  double ps_per_byte() const { return ps_per_byte_; }
  // Busy intervals booked ahead (for tests).
  std::size_t bookings() const { return booked_.size(); }

 private:
  struct Interval {
    double start;
    double end;
  };
  static constexpr double kTouchPs = 1e-6;

  // Books [t, t + cost) at the earliest t >= earliest that is free; returns t + cost.
  double book(double earliest, double cost) {
    if (booked_.empty() || earliest >= booked_.back().end - kTouchPs) {
      if (!booked_.empty() && earliest <= booked_.back().end + kTouchPs) {
        booked_.back().end = earliest + cost;
      } else {
        booked_.push_back({earliest, earliest + cost});
      }
      return earliest + cost;
    }
    double t = earliest;
    std::size_t i = 0;
    while (i < booked_.size() && booked_[i].end <= t) ++i;
    for (; i < booked_.size(); ++i) {
      if (t + cost <= booked_[i].start + kTouchPs) break;  // fits in the gap before booking i
      if (booked_[i].end > t) t = booked_[i].end;
    }
    const double end = t + cost;
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

  double ps_per_byte_;
  std::vector<Interval> booked_;  // disjoint, in time order, ending after the last retire
  double posted_until_ps_ = 0;    // end of the last posted TLP booked
  double busy_until_ps_ = 0;      // when the last TLP booked so far is out
  double busy_ps_ = 0;            // sum of the TLPs' wire times
};

}  // namespace hcasim::pcie
