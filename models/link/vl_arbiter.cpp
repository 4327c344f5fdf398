#include "models/link/vl_arbiter.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hcasim::link {

VlArbiter::Table::Table(const std::vector<VlArbEntry>& entries, WeightPolicy policy)
    : size_(static_cast<uint32_t>(entries.size())), policy_(policy), carry_(entries.size(), 0) {
  if (entries.size() > kMaxArbEntries)
    throw std::invalid_argument("VL arbitration table of " + std::to_string(entries.size()) +
                                " entries; accepted: at most " + std::to_string(kMaxArbEntries));
  std::copy(entries.begin(), entries.end(), entries_.begin());
}

bool VlArbiter::Table::has_candidate(const VlCandidates& c) const {
  for (uint32_t i = 0; i < size_; ++i)
    if (sendable(entries_[i], c)) return true;
  return false;
}

void VlArbiter::Table::leave_current(bool exhausted) {
  if (policy_ == WeightPolicy::Deficit)
    carry_[current_] = exhausted ? used_ - static_cast<int64_t>(entries_[current_].weight) : 0;
  used_ = 0;
}

int VlArbiter::Table::pick(const VlCandidates& c) {
  const std::size_t n = size_;
  if (n == 0) return -1;
  // Offset 0 is the entry holding the turn; offsets 1..n-1 the others in
  // order; offset n is the same entry again with a fresh turn.
  const std::size_t start = current_;
  for (std::size_t k = 0; k <= n; ++k) {
    const auto i = static_cast<uint32_t>((start + k) % n);
    const VlArbEntry& e = entries_[i];
    if (k > 0) {
      // Moving the turn to entry i.
      const bool exhausted = used_ >= static_cast<int64_t>(entries_[current_].weight);
      leave_current(exhausted);
      current_ = i;
      if (policy_ == WeightPolicy::Deficit) {
        used_ = carry_[i];
        carry_[i] = 0;
        // A carried overshoot of a whole turn or more costs the entry this
        // turn: the check below skips it and leave_current keeps the rest.
      }
    }
    if (!sendable(e, c)) continue;
    if (used_ >= static_cast<int64_t>(e.weight)) continue;
    used_ += c[e.vl];
    return e.vl;
  }
  return -1;
}

VlArbiter::VlArbiter(const VlArbConfig& config)
    : high_(config.high, config.policy),
      low_(config.low, config.policy),
      unbounded_(config.high_limit >= kHighLimitUnbounded),
      high_budget_reload_(static_cast<int64_t>(config.high_limit) * kHighLimitUnitBlocks),
      high_budget_(high_budget_reload_) {}

bool VlArbiter::can_grant(const VlCandidates& c) const {
  return high_.has_candidate(c) || low_.has_candidate(c);
}

int VlArbiter::Table::pick_work_conserving(const VlCandidates& c) {
  int vl = pick(c);
  // Under the deficit policy every entry that can send may still be paying off
  // an overshoot; each pass pays off one weight, so this ends.
  while (vl < 0 && policy_ == WeightPolicy::Deficit && has_candidate(c)) vl = pick(c);
  return vl;
}

void VlArbiter::Table::idle(const VlCandidates& none) {
  // Under overshoot the round only ends the current entry's turn; under deficit
  // every entry's carry changes on the way, so the round is walked.
  if (policy_ == WeightPolicy::Overshoot) {
    if (size_ != 0) used_ = 0;
  } else {
    pick(none);
  }
}

int VlArbiter::grant(const VlCandidates& c) {
  bool any = false;
  for (uint32_t blocks : c) any |= blocks != 0;
  if (!any) {
    // Nothing can send (an idle link or one waiting for credits): common and
    // cheap, with the same effect on the turns as the search below.
    high_.idle(c);
    low_.idle(c);
    return -1;
  }
  const bool low_waiting = !unbounded_ && high_exhausted_ && low_.has_candidate(c);
  if (!low_waiting) {
    const int vl = high_.pick_work_conserving(c);
    if (vl >= 0) {
      if (!unbounded_) {
        high_budget_ -= c[vl];
        if (high_budget_ <= 0) high_exhausted_ = true;
      }
      return vl;
    }
  }
  const int vl = low_.pick_work_conserving(c);
  if (vl >= 0) {
    // Low got its turn: high may send up to the limit again.
    high_budget_ = high_budget_reload_;
    high_exhausted_ = false;
  }
  return vl;
}

}  // namespace hcasim::link
