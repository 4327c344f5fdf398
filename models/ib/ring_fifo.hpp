#pragma once
// A FIFO in one ring buffer: the first Inline elements live inside the object
// (a link rarely has more than a few packets in flight, so the checker's
// per-link FIFO stays on the cache line it shares with its other state; a QP's
// work queues stay small while idle), and beyond that a heap ring that doubles
// when full. No allocation per element
// once it has reached its high-water size (a std::deque allocates and frees
// 512-byte nodes as it grows and shrinks, and holds one even when empty).
//
// Rules: front, back and pop_front require !empty(), [i] requires i < size();
// element 0 is the oldest; the order is kept across wrap-around and growth.
// Elements are moved, not copied, when the ring grows.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace hcasim::ib {

template <class T, std::size_t Inline = 3>
class RingFifo {
  static_assert(Inline >= 1, "at least one inline slot");

 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const T& front() const { return slots()[head_]; }
  T& front() { return slots()[head_]; }
  T& back() { return slots()[index(size_ - 1)]; }
  T& operator[](std::size_t i) { return slots()[index(i)]; }
  const T& operator[](std::size_t i) const { return slots()[index(i)]; }
  void push_back(T v) {
    if (size_ == capacity_) grow();
    slots()[index(size_)] = std::move(v);
    ++size_;
  }
  // The old front stays in its slot until overwritten (its resources too).
  void pop_front() {
    head_ = index(1);
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }
  // Calls f on every element, oldest first.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < size_; ++i) f(slots()[index(i)]);
  }

 private:
  T* slots() { return heap_ ? heap_.get() : inline_.data(); }
  const T* slots() const { return heap_ ? heap_.get() : inline_.data(); }
  std::size_t index(std::size_t offset) const {
    const std::size_t i = head_ + offset;
    return i < capacity_ ? i : i - capacity_;
  }
  void grow() {
    const std::size_t bigger = 2 * static_cast<std::size_t>(capacity_);
    auto fresh = std::make_unique<T[]>(bigger);
    for (std::size_t i = 0; i < size_; ++i) fresh[i] = std::move(slots()[index(i)]);
    heap_ = std::move(fresh);
    capacity_ = static_cast<uint32_t>(bigger);
    head_ = 0;
  }

  // The head first: a ring that has moved to the heap is used without
  // touching its inline slots.
  std::unique_ptr<T[]> heap_;
  uint32_t capacity_ = Inline;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
  std::array<T, Inline> inline_{};
};

}  // namespace hcasim::ib
