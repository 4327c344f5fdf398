#include "models/trace/batch_means.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/trace/student_t.hpp"

namespace hcasim::trace {

void BatchMeans::coarsen() {  // in place: slot i goes to j <= i, read before it is written
  const uint64_t first = first_ >> 1;
  const std::size_t size = ((first_ + slots_.size() - 1) >> 1) - first + 1;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const std::size_t j = ((first_ + i) >> 1) - first;
    const bool opens = i == 0 || ((first_ + i - 1) >> 1) - first != j;  // the first slot of its pair held
    if (opens) {
      slots_[j] = slots_[i];
    } else {
      slots_[j].sum += slots_[i].sum;
      slots_[j].count += slots_[i].count;
    }
  }
  slots_.resize(size);
  first_ = first;
  ++shift_;
}

void BatchMeans::reach(uint64_t& slot) {
  if (slots_.empty()) {
    slots_.reserve(kMaxBatches);  // all it will ever need: no allocation after the first sample
    slots_.resize(1);
    first_ = slot;
    return;
  }
  for (;;) {
    const uint64_t lo = std::min(first_, slot), hi = std::max(first_ + slots_.size() - 1, slot);
    if (hi - lo < kMaxBatches) break;
    coarsen();
    slot >>= 1;
  }
  if (slot < first_) {
    slots_.insert(slots_.begin(), first_ - slot, Batch{});
    first_ = slot;
  } else if (slot >= first_ + slots_.size()) {
    slots_.resize(slot - first_ + 1);
  }
}

void BatchMeans::add(double value, uint64_t time_ps) {
  // A batch no shorter than the first value (a latency): batches shorter than
  // the samples they hold are not independent, and starting there saves the
  // dozen or so halvings from 1 ps (callgrind: 405 instructions an add on a
  // 5 us benchmark run, most of them in coarsen()).
  if (slots_.empty())
    while (shift_ < kMaxStartShift && static_cast<double>(uint64_t{1} << (shift_ + 1)) <= value) ++shift_;
  uint64_t slot = time_ps >> shift_;
  reach(slot);
  Batch& b = slots_[slot - first_];
  b.sum += value;
  ++b.count;
}

void BatchMeans::merge(const BatchMeans& other) {
  if (other.slots_.empty()) return;
  if (slots_.empty()) {
    *this = other;
    slots_.reserve(kMaxBatches);
    return;
  }
  BatchMeans from = other;
  while (shift_ < from.shift_) coarsen();
  while (from.shift_ < shift_) from.coarsen();
  for (;;) {  // the coarsest width either needs, then coarser while the union does not fit
    const uint64_t lo = std::min(first_, from.first_);
    const uint64_t hi = std::max(first_ + slots_.size(), from.first_ + from.slots_.size()) - 1;
    if (hi - lo < kMaxBatches) break;
    coarsen();
    from.coarsen();
  }
  uint64_t first = from.first_, last = from.first_ + from.slots_.size() - 1;
  reach(first);  // fits: no coarsening
  reach(last);
  for (std::size_t i = 0; i < from.slots_.size(); ++i) {
    Batch& into = slots_[from.first_ + i - first_];
    into.sum += from.slots_[i].sum;
    into.count += from.slots_[i].count;
  }
}

std::vector<double> BatchMeans::means() const {
  std::vector<double> m;
  for (const Batch& b : slots_)
    if (b.count != 0) m.push_back(b.sum / static_cast<double>(b.count));
  return m;
}

std::size_t BatchMeans::batches() const {
  return static_cast<std::size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const Batch& b) { return b.count != 0; }));
}

namespace {
double average(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}
}  // namespace

double BatchMeans::ci95_half_width() const {
  const std::vector<double> m = means();
  const std::size_t k = m.size();
  if (k < 2) return std::numeric_limits<double>::quiet_NaN();
  const double mean = average(m);
  double squares = 0;
  for (double v : m) squares += (v - mean) * (v - mean);
  const double sd = std::sqrt(squares / static_cast<double>(k - 1));
  return student_t_quantile(0.975, static_cast<unsigned>(k - 1)) * sd / std::sqrt(static_cast<double>(k));
}

double BatchMeans::lag1_autocorrelation() const {
  const std::vector<double> m = means();
  if (m.size() < 3) return std::numeric_limits<double>::quiet_NaN();
  const double mean = average(m);
  double lagged = 0, squares = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    squares += (m[i] - mean) * (m[i] - mean);
    if (i + 1 < m.size()) lagged += (m[i] - mean) * (m[i + 1] - mean);
  }
  return squares > 0 ? lagged / squares : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace hcasim::trace
