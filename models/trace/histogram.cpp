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

void Histogram::add(uint64_t v) {
  ++counts_[bucket_of(v)];
  ++count_;
  sum_ += v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

uint64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  uint64_t seen = 0;
  for (unsigned b = 0; b < kBuckets; ++b) {
    seen += counts_[b];
    if (seen >= std::max<uint64_t>(rank, 1)) return std::min(upper_edge(b), max_);
  }
  return max_;
}

void Histogram::merge(const Histogram& other) {
  for (unsigned b = 0; b < kBuckets; ++b) counts_[b] += other.counts_[b];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

}  // namespace hcasim::trace
