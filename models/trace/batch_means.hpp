#pragma once
// Batch means over time, for a confidence interval of a mean whose samples are
// correlated (the latencies of packets that queued behind each other).
//
// Rules:
// - A sample comes with its time (ps). A batch is a slot of width 2^shift ps of
//   a grid that starts at time 0 (slot = time >> shift); the width starts at
//   the largest power of two not above the first sample's value (at most
//   2^kMaxStartShift ps): a batch shorter than a latency holds samples that
//   are not independent. Held are the slots from the first sample's to the
//   last's; when they would be more than kMaxBatches, the width doubles and
//   neighbouring slots merge in pairs, until they fit: between kMaxBatches / 2
//   and kMaxBatches batches over a span of at least 16 starting widths,
//   fewer over a shorter span, in bounded
//   memory (kMaxBatches x 16 bytes, taken at the first sample: no allocation
//   after it, as the PCIe link's no-allocation-per-transfer test asks). Statistics start with the first sample,
//   so samples added only after a warm-up batch the measured window alone.
// - Two objects merge (flows into a pattern, partitions into one result):
//   both are brought to the coarser width, on the same grid, and add slot by slot.
// - Estimate over the k non-empty batches with means m_i: the 95 % confidence
//   interval's half-width t(0.975, k - 1) s / sqrt(k), s the standard deviation
//   of the m_i and t Student's quantile (student_t.hpp); the lag-1
//   autocorrelation of the m_i, near 0 when the batches are long enough to be
//   independent. NaN where undefined (fewer than 2 batches; 3 and a spread for
//   the autocorrelation).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hcasim::trace {

class BatchMeans {
 public:
  static constexpr std::size_t kMaxBatches = 32;
  static constexpr unsigned kMaxStartShift = 30;  // a starting width of at most about 1 ms

  void add(double value, uint64_t time_ps);
  void merge(const BatchMeans& other);
  // Non-empty batches.
  std::size_t batches() const;
  // Width of a batch now, ps.
  uint64_t batch_width_ps() const { return uint64_t{1} << shift_; }
  // Half-width of the 95 % confidence interval of the mean; NaN below 2 batches.
  double ci95_half_width() const;
  // Lag-1 autocorrelation of consecutive batch means; NaN below 3 batches or without spread.
  double lag1_autocorrelation() const;
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Batch); }

 private:
  struct Batch {
    double sum = 0;
    uint64_t count = 0;
  };
  // Doubles the width: slot s becomes s / 2, merging pairs.
  void coarsen();
  // Grows the held slots to include `slot` (at the current width), coarsening first while they would be too many.
  void reach(uint64_t& slot);
  std::vector<double> means() const;

  std::vector<Batch> slots_;  // slots first_ .. first_ + slots_.size() - 1
  uint64_t first_ = 0;
  unsigned shift_ = 0;
};

}  // namespace hcasim::trace
