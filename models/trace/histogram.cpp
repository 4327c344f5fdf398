#include "models/trace/histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hcasim::trace {

unsigned Histogram::bucket_of(uint64_t v) {
  if (v < kSub) return static_cast<unsigned>(v);
  const unsigned msb = 63u - static_cast<unsigned>(__builtin_clzll(v));  // >= kSubBits
  const unsigned shift = msb - kSubBits;
  const unsigned sub = static_cast<unsigned>((v >> shift) & (kSub - 1));
  return (shift + 1) * kSub + sub;
}

uint64_t Histogram::upper_edge(unsigned bucket) {
  if (bucket < kSub) return bucket;
  const unsigned shift = bucket / kSub - 1;
  const uint64_t sub = bucket % kSub;
  const uint64_t base = (uint64_t{kSub} + sub) << shift;
  return base + ((uint64_t{1} << shift) - 1);
}

void Histogram::cover(unsigned first, unsigned last) {
  first = first / kSub * kSub;
  last = last / kSub * kSub + kSub - 1;
  if (!counts_.empty()) {
    const unsigned held_last = first_ + static_cast<unsigned>(counts_.size()) - 1;
    if (first >= first_ && last <= held_last) return;  // covered already
    first = std::min(first, first_);
    last = std::max(last, held_last);
  }
  std::vector<uint64_t> wider(last - first + 1, 0);
  std::copy(counts_.begin(), counts_.end(), wider.begin() + (first_ - first));
  counts_ = std::move(wider);
  first_ = first;
}

void Histogram::add(uint64_t v) {
  const unsigned b = bucket_of(v);
  if (b - first_ >= counts_.size()) cover(b, b);  // below first_ wraps around to a large index
  ++counts_[b - first_];
  ++count_;
  sum_ += v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

uint64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= std::max<uint64_t>(rank, 1)) return std::min(upper_edge(first_ + static_cast<unsigned>(i)), max_);
  }
  return max_;
}

void Histogram::merge(const Histogram& other) {
  if (other.counts_.empty()) return;
  const unsigned other_last = other.first_ + static_cast<unsigned>(other.counts_.size()) - 1;
  cover(other.first_, other_last);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[other.first_ - first_ + i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

}  // namespace hcasim::trace
