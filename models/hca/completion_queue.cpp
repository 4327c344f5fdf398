#include "models/hca/completion_queue.hpp"

#include <algorithm>
#include <stdexcept>

namespace hcasim::hca {

CompletionQueue::CompletionQueue(uint32_t depth) : depth_(depth) {
  if (depth == 0) throw std::invalid_argument("completion queue depth must be at least 1");
}

bool CompletionQueue::push(const transport::WorkCompletion& wc) {
  if (overrun_) return false;
  if (count_ == depth_) {
    overrun_ = true;
    return false;
  }
  if (count_ == ring_.size()) grow();
  ring_[(head_ + count_) % ring_.size()] = wc;
  ++count_;
  return true;
}

uint32_t CompletionQueue::poll(uint32_t max, std::vector<transport::WorkCompletion>& out) {
  uint32_t n = std::min(max, count_);
  for (uint32_t i = 0; i < n; ++i) {
    out.push_back(ring_[head_]);
    head_ = static_cast<uint32_t>((head_ + 1) % ring_.size());
  }
  count_ -= n;
  if (count_ == 0) head_ = 0;
  return n;
}

// Doubles the ring (from 4, at most to the depth), oldest completion first.
void CompletionQueue::grow() {
  size_t cap = std::min<size_t>(depth_, std::max<size_t>(4, ring_.size() * 2));
  std::vector<transport::WorkCompletion> bigger(cap);
  for (uint32_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
  ring_.swap(bigger);
  head_ = 0;
}

}  // namespace hcasim::hca
