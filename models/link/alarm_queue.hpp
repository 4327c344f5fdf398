#pragma once
// A time-ordered queue of pending wakeups as plain logic (no SystemC): the
// heap behind link::Timeline.
//
// Rules:
// - An entry is (time in ps, sequence number, target). Entries leave in time
//   order; entries of equal time leave in the order they were pushed, so a run
//   does not depend on how the heap happens to be shaped (determinism).
// - The queue does not know whether an entry is still wanted: its owner tells
//   by the sequence number (a re-armed wakeup leaves its old entry behind and
//   skips it when it comes out).
// - A 4-ary heap of 24-byte entries in one vector: a fabric of thousands of
//   ports keeps a few entries per port pending, and a push or pop touches
//   about log4(n) cache lines of that one array.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hcasim::link {

template <class Target>
class AlarmQueue {
 public:
  struct Entry {
    uint64_t time_ps;
    uint64_t seq;
    Target* target;
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  // Requires !empty().
  const Entry& top() const { return heap_.front(); }

  // Returns the sequence number the entry got.
  uint64_t push(uint64_t time_ps, Target* target) {
    const Entry e{time_ps, next_seq_++, target};
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
    return e.seq;
  }

  // Requires !empty().
  Entry pop() {
    const Entry out = heap_.front();
    const Entry last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return out;
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], last)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = last;
    return out;
  }

 private:
  static constexpr std::size_t kArity = 4;
  static bool before(const Entry& a, const Entry& b) {
    return a.time_ps != b.time_ps ? a.time_ps < b.time_ps : a.seq < b.seq;
  }

  std::vector<Entry> heap_;
  uint64_t next_seq_ = 1;  // 0 means "no entry" to owners
};

}  // namespace hcasim::link
