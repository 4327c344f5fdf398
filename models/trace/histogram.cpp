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

uint64_t Histogram::midpoint(unsigned bucket) {
  if (bucket < kSub) return bucket;
  const unsigned shift = bucket / kSub - 1;
  const uint64_t lower = (uint64_t{kSub} + bucket % kSub) << shift;
  return lower + (uint64_t{1} << shift) / 2;
}

bool Histogram::dense_is_smaller(uint64_t samples) const {
  const uint64_t powers = bucket_of(max_) / kSub - bucket_of(min_) / kSub + 1;
  return samples * sizeof(uint16_t) > powers * kSub * sizeof(uint16_t);
}

void Histogram::cover(unsigned first, unsigned last) {
  first = first / kSub * kSub;
  last = last / kSub * kSub + kSub - 1;
  if (!dense()) {
    counts_.extend(0, last - first + 1);
    first_ = first;
    return;
  }
  const unsigned held_last = first_ + static_cast<unsigned>(counts_.size()) - 1;
  if (first >= first_ && last <= held_last) return;  // covered already
  const unsigned new_first = std::min(first, first_);
  counts_.extend(first_ - new_first, std::max(last, held_last) - held_last);
  first_ = new_first;
}

void Histogram::make_dense() {
  cover(bucket_of(min_), bucket_of(max_));
  for (uint16_t b : sparse_) counts_.add(b - first_, 1);
  std::vector<uint16_t>().swap(sparse_);  // releases the memory, which clear() would keep
}

void Histogram::add(uint64_t v) {
  ++count_;
  sum_ += v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  const unsigned b = bucket_of(v);
  if (!dense()) {
    sparse_.push_back(static_cast<uint16_t>(b));
    if (dense_is_smaller(sparse_.size())) make_dense();
    return;
  }
  if (b - first_ >= counts_.size()) cover(b, b);  // below first_ wraps around to a large index
  counts_.add(b - first_, 1);
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  if (!dense() && !other.dense() && !dense_is_smaller(sparse_.size() + other.sparse_.size())) {
    sparse_.insert(sparse_.end(), other.sparse_.begin(), other.sparse_.end());
    return;
  }
  if (!dense()) make_dense();
  cover(bucket_of(other.min_), bucket_of(other.max_));
  for (uint16_t b : other.sparse_) counts_.add(b - first_, 1);
  for (std::size_t i = 0; i < other.counts_.size(); ++i)
    if (const uint64_t n = other.counts_.at(i)) counts_.add(other.first_ + i - first_, n);
}

unsigned Histogram::bucket_at_rank(uint64_t rank) const {
  if (!dense()) {
    std::vector<uint16_t> sorted = sparse_;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank - 1), sorted.end());
    return sorted[rank - 1];
  }
  uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_.at(i);
    if (seen >= rank) return first_ + static_cast<unsigned>(i);
  }
  return bucket_of(max_);
}

uint64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  const auto rank = std::clamp<uint64_t>(
      static_cast<uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_))), 1, count_);
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  return std::clamp(midpoint(bucket_at_rank(rank)), min_, max_);
}

std::size_t Histogram::memory_bytes() const {
  return sparse_.capacity() * sizeof(uint16_t) + counts_.memory_bytes();
}

}  // namespace hcasim::trace
