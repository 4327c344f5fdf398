#pragma once
// What is kept of one latency (a flow's, a pattern's, a test's): its histogram
// (exact count, min, max and mean; percentiles within 0.1 %: histogram.hpp) and
// its batch means over the time each sample was taken (the mean's 95 %
// confidence interval: batch_means.hpp). Both merge, so a record merges.

#include <cstddef>
#include <cstdint>

#include "models/trace/batch_means.hpp"
#include "models/trace/histogram.hpp"

namespace hcasim::trace {

class LatencyRecord {
 public:
  // One latency of value_ps, measured at now_ps.
  void add(uint64_t value_ps, uint64_t now_ps) {
    histogram_.add(value_ps);
    batches_.add(static_cast<double>(value_ps), now_ps);
  }
  void merge(const LatencyRecord& other) {
    histogram_.merge(other.histogram_);
    batches_.merge(other.batches_);
  }
  const Histogram& histogram() const { return histogram_; }
  const BatchMeans& batch_means() const { return batches_; }

  uint64_t count() const { return histogram_.count(); }
  uint64_t min() const { return histogram_.min(); }
  uint64_t max() const { return histogram_.max(); }
  double mean() const { return histogram_.mean(); }
  uint64_t quantile(double q) const { return histogram_.quantile(q); }
  std::size_t memory_bytes() const { return histogram_.memory_bytes() + batches_.memory_bytes(); }

 private:
  Histogram histogram_;
  BatchMeans batches_;
};

}  // namespace hcasim::trace
