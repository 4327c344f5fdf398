#pragma once
// A log-linear histogram of non-negative integers (latencies in ps) whose
// percentiles have a bounded relative error, the HDR Histogram method.
//
// Rules:
// - Values below 2^kSubBits are counted exactly. Above, each power of two
//   [2^m, 2^(m+1)) is split into 2^kSubBits equal buckets of width
//   2^(m - kSubBits).
// - A percentile is the midpoint of the bucket that holds the sample of rank
//   ceil(q n) (at least 1), kept within the exact min and max; rank 1 is the
//   min and rank n the max, exactly. Half a bucket is at most 2^-(kSubBits+1)
//   of any value in it, so with kSubBits = 9 a reported percentile is within
//   1/1024 (0.098 %) of the true sample: at most 0.1 %.
// - Count, sum, min and max are exact; merge equals adding every sample.
// - Storage: while few samples, each sample's bucket number (2 bytes); once
//   those would take more than counters for the powers of two spanned, one
//   counter per bucket of those powers of two only (512 each), 16 bits wide,
//   widening to 32 and 64 bits on overflow (counter_array.hpp). A flow's
//   histogram of 44 samples over five powers of two is 128 bytes (64 held),
//   not 20 KiB; a dense one is 1 KiB per power of two spanned until a bucket
//   passes 65,535.

#include <cstdint>
#include <vector>

#include "models/trace/counter_array.hpp"

namespace hcasim::trace {

class Histogram {
 public:
  static constexpr unsigned kSubBits = 9;  // 512 buckets per power of two: half a bucket <= 1/1024 of its values

  void add(uint64_t v);
  // Adds every sample of another histogram.
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // The sample of rank ceil(q n) as the rules above report it; 0 when empty.
  uint64_t quantile(double q) const;
  // Buckets with a counter now (2^kSubBits per power of two spanned; 0 while
  // the samples are kept as bucket numbers).
  std::size_t stored_buckets() const { return counts_.size(); }
  // Heap bytes held, for memory figures.
  std::size_t memory_bytes() const;

  // The bucket of a value, and the value a bucket reports (its midpoint).
  static unsigned bucket_of(uint64_t v);
  static uint64_t midpoint(unsigned bucket);

 private:
  static constexpr unsigned kSub = 1u << kSubBits;
  // Makes counts_ cover buckets first..last (whole powers of two), keeping its counts.
  void cover(unsigned first, unsigned last);
  // Moves the samples kept as bucket numbers into counters.
  void make_dense();
  bool dense() const { return counts_.size() != 0; }
  // Whether bucket numbers for `samples` samples would take more memory than counters.
  bool dense_is_smaller(uint64_t samples) const;
  unsigned bucket_at_rank(uint64_t rank) const;

  std::vector<uint16_t> sparse_;  // each sample's bucket, while not dense (buckets < 2^15)
  CounterArray counts_;           // buckets first_ .. first_ + counts_.size() - 1, once dense
  unsigned first_ = 0;
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace hcasim::trace
