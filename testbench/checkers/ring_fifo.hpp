#pragma once
// A FIFO in one growable ring buffer: no allocation per element once it has
// reached its high-water size (a std::deque allocates and frees 512-byte nodes
// as it grows and shrinks, and holds one even when empty).
//
// Rules: capacity is zero or a power of two; push_back doubles it when full,
// keeping the order; front and pop_front require !empty().

#include <cstddef>
#include <utility>
#include <vector>

namespace hcasim::checkers {

template <class T>
class RingFifo {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const T& front() const { return slots_[head_]; }
  void push_back(const T& v) {
    if (size_ == slots_.size()) grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  // Calls f on every element, oldest first.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < size_; ++i) f(slots_[(head_ + i) & (slots_.size() - 1)]);
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 4 : 2 * slots_.size());
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace hcasim::checkers
