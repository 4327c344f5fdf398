#pragma once
// A log-linear histogram of non-negative integers (latencies in ps), for
// percentiles over millions of samples in fixed memory.
//
// Rules: values below 2^kSubBits are counted exactly; above, each power of two
// is split into 2^kSubBits equal buckets, so a reported percentile is at most
// 1/2^kSubBits (0.8 %) above the true sample (it reports the bucket's upper
// edge, capped at the exact maximum). Count, sum, min and max are exact.

#include <array>
#include <cstdint>

namespace hcasim::trace {

class Histogram {
 public:
  static constexpr unsigned kSubBits = 7;

  void add(uint64_t v);
  // Adds every sample of another histogram.
  void merge(const Histogram& other);
  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // The smallest bucket edge at or below which a fraction q of the samples lie.
  uint64_t quantile(double q) const;

 private:
  static constexpr unsigned kSub = 1u << kSubBits;
  static constexpr unsigned kBuckets = (64 - kSubBits + 1) * kSub;
  static unsigned bucket_of(uint64_t v);
  static uint64_t upper_edge(unsigned bucket);

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace hcasim::trace
