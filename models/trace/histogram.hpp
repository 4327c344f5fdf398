#pragma once
// A log-linear histogram of non-negative integers (latencies in ps), for
// percentiles over millions of samples in bounded memory.
//
// Rules: values below 2^kSubBits are counted exactly; above, each power of two
// is split into 2^kSubBits equal buckets, so a reported percentile is at most
// 1/2^kSubBits (0.8 %) above the true sample (it reports the bucket's upper
// edge, capped at the exact maximum). Count, sum, min and max are exact.
// - Storage: only the powers of two between the smallest and the largest
//   sample so far have buckets (2^kSubBits counts each, 1 KiB), grown at
//   either end when a sample falls outside. A flow's latencies span a few
//   powers of two, so a histogram is a few KiB, not the 58 KiB every power of
//   a 64-bit value would take (fat_tree3_1331 keeps one per flow: 1,331).

#include <cstdint>
#include <vector>

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
  // Buckets held now (2^kSubBits per power of two spanned), for memory figures.
  std::size_t stored_buckets() const { return counts_.size(); }

 private:
  static constexpr unsigned kSub = 1u << kSubBits;
  static unsigned bucket_of(uint64_t v);
  static uint64_t upper_edge(unsigned bucket);
  // Makes counts_ cover buckets first..last (whole powers of two), keeping its counts.
  void cover(unsigned first, unsigned last);

  std::vector<uint64_t> counts_;  // buckets first_ .. first_ + counts_.size() - 1
  unsigned first_ = 0;
  uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace hcasim::trace
