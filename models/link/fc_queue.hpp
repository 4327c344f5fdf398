#pragma once
// The flow-control packets in flight toward a port, kept as their fields
// (Port::arrive): a FIFO on one cache line with room for two, which moves to
// the heap when more are in flight (every VL's at once when a link comes up)
// and comes back to its line when it empties, so that receiving a
// flow-control packet reads that one line and a port keeps no pool packet
// per flow-control packet in flight.
//
// Rules: front and pop_front require !empty(); element order is arrival
// order, across growth and the move back.

#include <cstdint>
#include <memory>

#include "models/ib/packet.hpp"

namespace hcasim::link {

struct FcArrival {
  uint64_t due_ps = 0;  // when the receiver takes it
  ib::FlowControl fc;
};

class alignas(64) FcQueue {
 public:
  FcQueue() = default;
  FcQueue(const FcQueue&) = delete;
  FcQueue& operator=(const FcQueue&) = delete;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  const FcArrival& front() const { return slots()[head_]; }
  void push_back(const FcArrival& a) {
    if (size_ == capacity_) grow();
    slots()[index(size_)] = a;
    ++size_;
  }
  void pop_front() {
    head_ = static_cast<uint32_t>(index(1));
    if (--size_ == 0) clear();
  }
  void clear() {
    heap_.reset();
    head_ = size_ = 0;
    capacity_ = kInline;
  }

 private:
  static constexpr uint32_t kInline = 2;
  FcArrival* slots() { return heap_ ? heap_.get() : inline_; }
  const FcArrival* slots() const { return heap_ ? heap_.get() : inline_; }
  std::size_t index(std::size_t offset) const {
    const std::size_t i = head_ + offset;
    return i < capacity_ ? i : i - capacity_;
  }
  void grow() {
    const uint32_t capacity = capacity_ * 2;
    auto bigger = std::make_unique<FcArrival[]>(capacity);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = slots()[index(i)];
    heap_ = std::move(bigger);
    head_ = 0;
    capacity_ = capacity;
  }

  FcArrival inline_[kInline];
  std::unique_ptr<FcArrival[]> heap_;
  uint32_t head_ = 0;
  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
};
static_assert(sizeof(FcQueue) == 64, "a flow-control queue is one line");

}  // namespace hcasim::link
