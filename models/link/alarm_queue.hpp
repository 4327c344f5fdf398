#pragma once
// A time-ordered queue of pending wakeups as plain logic (no SystemC): the
// queue behind link::Timeline.
//
// Rules:
// - A wakeup source derives from AlarmHook and is queued at most once, at one
//   time; remove() takes it out again (re-arming = remove + push). Sources
//   leave in time order; sources of equal time leave in the order they were
//   pushed, so a run does not depend on how a heap happens to be shaped
//   (determinism).
// - Sources are kept per distinct time: an intrusive FIFO per time (linked
//   through the hooks, so queuing writes only the source and the previous
//   tail), a flat hash from time to its FIFO and a heap of the distinct times.
//   Fabrics built of identical links put many wakeups on the same picosecond
//   (tens per distinct time on a 1,024-host fat tree), so most pushes append
//   to an existing FIFO and most pops unlink its head; the heap, whose
//   comparisons the processor cannot predict, moves once per distinct time.
//   A steady run allocates nothing.
// - Invariant: when the queue is not empty, the FIFO of the earliest time is
//   not empty (emptied FIFOs elsewhere are dropped when they come first).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace hcasim::link {

struct AlarmHook {
  static constexpr uint64_t kIdle = UINT64_MAX;
  uint64_t at_ps = kIdle;  // when it is queued for; kIdle = not queued
  // The source before it in its FIFO; stale while it is the FIFO's head. A
  // source only moves toward the head, so a head's prev is never read, and
  // taking the head off does not write the line of the source behind it.
  AlarmHook* prev = nullptr;
  AlarmHook* next = nullptr;
  uint32_t fifo = 0;       // its FIFO while queued
  bool queued() const { return at_ps != kIdle; }
};

class AlarmQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // Requires !empty().
  uint64_t front_time() const { return fifos_[front_].time_ps; }
  AlarmHook* front() const { return fifos_[front_].head; }

  // Requires !h->queued().
  void push(AlarmHook* h, uint64_t time_ps) {
    uint32_t id;
    if (size_ > 0 && fifos_[front_].time_ps == time_ps) {
      id = front_;
    } else if (const uint32_t* found = index_.find(time_ps)) {
      id = *found;
    } else {
      id = new_fifo(time_ps);
      index_.insert(time_ps, id);
      times_.push_back(time_ps);
      std::push_heap(times_.begin(), times_.end(), std::greater<>());
      if (times_.front() == time_ps) front_ = id;
    }
    Fifo& f = fifos_[id];
    h->at_ps = time_ps;
    h->fifo = id;
    h->next = nullptr;
    h->prev = f.tail;
    if (f.tail != nullptr) f.tail->next = h;
    else f.head = h;
    f.tail = h;
    ++size_;
  }

  // Requires h->queued().
  void remove(AlarmHook* h) {
    Fifo& f = fifos_[h->fifo];
    if (f.head == h) {
      unlink_head(f, h);
    } else {
      h->prev->next = h->next;
      if (h->next != nullptr) h->next->prev = h->prev;
      else f.tail = h->prev;
    }
    idle(h);
  }

  // Requires !empty(). Writes only the source it returns and the queue: the
  // next source's line is left alone (see AlarmHook::prev).
  AlarmHook* pop() {
    Fifo& f = fifos_[front_];
    AlarmHook* h = f.head;
    unlink_head(f, h);
    idle(h);
    return h;
  }

 private:
  struct Fifo {
    uint64_t time_ps = 0;
    AlarmHook* head = nullptr;
    AlarmHook* tail = nullptr;
  };

  // Open addressing with linear probing and backward-shift deletion; the
  // table stays at most half full.
  class TimeIndex {
   public:
    const uint32_t* find(uint64_t t) const {
      if (slots_.empty()) return nullptr;
      for (std::size_t i = home(t);; i = (i + 1) & mask_) {
        const Slot& s = slots_[i];
        if (!s.used) return nullptr;
        if (s.time == t) return &s.fifo;
      }
    }
    void insert(uint64_t t, uint32_t fifo) {
      if (2 * (count_ + 1) > slots_.size()) grow();
      std::size_t i = home(t);
      while (slots_[i].used) i = (i + 1) & mask_;
      slots_[i] = {t, fifo, true};
      ++count_;
    }
    void erase(uint64_t t) {
      std::size_t i = home(t);
      while (slots_[i].time != t || !slots_[i].used) i = (i + 1) & mask_;
      // Shift later members of the probe run back over the hole.
      for (std::size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
        const std::size_t h = home(slots_[j].time);
        const bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
        if (movable) {
          slots_[i] = slots_[j];
          i = j;
        }
      }
      slots_[i].used = false;
      --count_;
    }

   private:
    struct Slot {
      uint64_t time = 0;
      uint32_t fifo = 0;
      bool used = false;
    };
    std::size_t home(uint64_t t) const { return static_cast<std::size_t>((t * 0x9E3779B97F4A7C15ull) >> shift_); }
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      const std::size_t n = old.empty() ? 64 : old.size() * 2;
      slots_.assign(n, Slot{});
      mask_ = n - 1;
      shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(n));
      count_ = 0;
      for (const Slot& s : old)
        if (s.used) insert(s.time, s.fifo);
    }
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    unsigned shift_ = 64;
    std::size_t count_ = 0;
  };

  uint32_t new_fifo(uint64_t time_ps) {
    uint32_t id;
    if (!free_.empty()) {
      id = free_.back();
      free_.pop_back();
    } else {
      id = static_cast<uint32_t>(fifos_.size());
      fifos_.emplace_back();
    }
    fifos_[id].time_ps = time_ps;
    return id;
  }

  static void unlink_head(Fifo& f, const AlarmHook* h) {
    f.head = h->next;
    if (h->next == nullptr) f.tail = nullptr;
  }
  void idle(AlarmHook* h) {
    h->at_ps = AlarmHook::kIdle;
    h->prev = h->next = nullptr;
    --size_;
    settle();
  }

  // Drops emptied FIFOs from the front until the earliest one holds a source.
  void settle() {
    while (!times_.empty() && fifos_[front_].head == nullptr) {
      index_.erase(fifos_[front_].time_ps);
      free_.push_back(front_);
      std::pop_heap(times_.begin(), times_.end(), std::greater<>());
      times_.pop_back();
      if (!times_.empty()) front_ = *index_.find(times_.front());
    }
  }

  std::vector<Fifo> fifos_;
  std::vector<uint32_t> free_;   // recycled FIFOs
  std::vector<uint64_t> times_;  // min-heap of the distinct times with a FIFO
  TimeIndex index_;
  uint32_t front_ = 0;           // FIFO of the earliest time
  std::size_t size_ = 0;
};

}  // namespace hcasim::link
