#pragma once
// A time-ordered queue of pending wakeups as plain logic (no SystemC): the
// queue behind link::Timeline.
//
// Rules:
// - An entry is (time in ps, sequence number, target). Entries leave in time
//   order; entries of equal time leave in the order they were pushed, so a run
//   does not depend on how a heap happens to be shaped (determinism).
// - The queue does not know whether an entry is still wanted: its owner tells
//   by the sequence number (a re-armed wakeup leaves its old entry behind and
//   skips it when it comes out).
// - Entries are kept per distinct time: a FIFO per time, a hash from time to
//   its FIFO and a heap of the distinct times. Fabrics built of identical
//   links put many wakeups on the same picosecond (tens per distinct time on a
//   1,024-host fat tree), so most pushes append to an existing FIFO and most
//   pops read the next slot of one; the heap, whose comparisons the processor
//   cannot predict, moves once per distinct time. FIFOs are recycled with
//   their capacity, so a steady run allocates nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
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

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Requires !empty().
  Entry top() const {
    const Bucket& b = buckets_[front_];
    const Slot& s = b.slots[b.next];
    return {b.time_ps, s.seq, s.target};
  }

  // Returns the sequence number the entry got.
  uint64_t push(uint64_t time_ps, Target* target) {
    const uint64_t seq = next_seq_++;
    ++size_;
    if (size_ > 1 && buckets_[front_].time_ps == time_ps) {
      buckets_[front_].slots.push_back({seq, target});
      return seq;
    }
    const auto [it, fresh] = by_time_.try_emplace(time_ps, 0);
    if (fresh) {
      it->second = new_bucket(time_ps);
      times_.push_back(time_ps);
      std::push_heap(times_.begin(), times_.end(), std::greater<>());
      if (times_.front() == time_ps) front_ = it->second;
    }
    buckets_[it->second].slots.push_back({seq, target});
    return seq;
  }

  // Requires !empty().
  Entry pop() {
    const Entry e = top();
    --size_;
    Bucket& b = buckets_[front_];
    if (++b.next == b.slots.size()) {
      by_time_.erase(b.time_ps);
      b.slots.clear();
      b.next = 0;
      free_.push_back(front_);
      std::pop_heap(times_.begin(), times_.end(), std::greater<>());
      times_.pop_back();
      if (!times_.empty()) front_ = by_time_.find(times_.front())->second;
    }
    return e;
  }

 private:
  struct Slot {
    uint64_t seq;
    Target* target;
  };
  struct Bucket {
    uint64_t time_ps = 0;
    std::vector<Slot> slots;
    std::size_t next = 0;  // first slot not yet popped
  };

  uint32_t new_bucket(uint64_t time_ps) {
    uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<uint32_t>(buckets_.size());
      buckets_.emplace_back();
    }
    buckets_[id].time_ps = time_ps;
    return id;
  }

  std::vector<Bucket> buckets_;
  std::vector<uint32_t> free_;                    // recycled buckets
  std::vector<uint64_t> times_;                   // min-heap of the distinct pending times
  std::unordered_map<uint64_t, uint32_t> by_time_;
  uint32_t front_ = 0;                            // bucket of the earliest time
  uint64_t next_seq_ = 1;                         // 0 means "no entry" to owners
  std::size_t size_ = 0;
};

}  // namespace hcasim::link
