#include "models/link/vl_arbiter.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hcasim::link {

namespace {
void check_size(const std::vector<VlArbEntry>& entries) {
  if (entries.size() > kMaxArbEntries)
    throw std::invalid_argument("VL arbitration table of " + std::to_string(entries.size()) +
                                " entries; accepted: at most " + std::to_string(kMaxArbEntries));
}

// Both searches (pick_overshoot, pick_deficit) go round from the entry holding
// the turn: offset 0 is that entry, offsets 1..n-1 the others in order, offset
// n the same entry again with a fresh turn. The entry at an offset: (start + k) mod n.
uint32_t entry_at(uint32_t start, uint32_t k, uint32_t n) { return start + k < n ? start + k : start + k - n; }
}  // namespace

bool VlArbiter::has_candidate(const Turn& t, const VlArbEntry* e, const VlCandidates& c) {
  for (uint32_t i = 0; i < t.size; ++i)
    if (e[i].weight != 0 && e[i].vl < kMaxDataVls && c[e[i].vl] != 0) return true;
  return false;
}

bool VlArbiter::Table::has_candidate(const VlCandidates& c) const { return VlArbiter::has_candidate(turn_, entries_, c); }

int VlArbiter::Table::pick(const VlCandidates& c) {
  if (turn_.size == 0) return -1;
  return policy_ == WeightPolicy::Overshoot ? pick_overshoot(c) : pick_deficit(c);
}

int VlArbiter::Table::pick_overshoot(const VlCandidates& c) {
  // Moving the turn forgets the count, so nothing is written on the way: the
  // turn is set once, where it lands.
  const uint32_t n = turn_.size;
  const uint32_t start = turn_.current;
  const VlArbEntry& held = entries_[start];
  if (sendable(held, c) && turn_.used < static_cast<int64_t>(held.weight)) {
    turn_.used += c[held.vl];
    return held.vl;
  }
  for (uint32_t k = 1; k <= n; ++k) {
    const uint32_t i = entry_at(start, k, n);
    const VlArbEntry& e = entries_[i];
    if (sendable(e, c)) {  // a fresh turn's count is 0, below any weight that sends
      turn_.current = i;
      turn_.used = c[e.vl];
      return e.vl;
    }
  }
  turn_.used = 0;  // once round, back at the same entry
  return -1;
}

int VlArbiter::Table::pick_deficit(const VlCandidates& c) {
  const uint32_t n = turn_.size;
  const uint32_t start = turn_.current;
  for (uint32_t k = 0; k <= n; ++k) {
    const uint32_t i = entry_at(start, k, n);
    const VlArbEntry& e = entries_[i];
    if (k > 0) {
      // Moving the turn to entry i: the entry left keeps its overshoot when
      // its turn was used up, and entry i starts with what it carries.
      const int64_t weight = entries_[turn_.current].weight;
      carry_[turn_.current] = turn_.used >= weight ? turn_.used - weight : 0;
      turn_.current = i;
      turn_.used = carry_[i];
      carry_[i] = 0;
      // A carried overshoot of a whole turn or more costs the entry this
      // turn: the check below skips it and the move on keeps the rest.
    }
    if (!sendable(e, c)) continue;
    if (turn_.used >= static_cast<int64_t>(e.weight)) continue;
    turn_.used += c[e.vl];
    return e.vl;
  }
  return -1;
}

VlArbConfig operational_tables(const VlArbConfig& config, unsigned operational_vls) {
  VlArbConfig out = config;
  for (auto* table : {&out.high, &out.low})
    for (VlArbEntry& e : *table)
      if (e.vl >= std::min(operational_vls, kMaxDataVls)) e.weight = 0;
  return out;
}

VlArbiter::VlArbiter(const VlArbConfig& config, unsigned operational_vls)
    : high_budget_reload_(static_cast<int64_t>(config.high_limit) * kHighLimitUnitBlocks),
      high_budget_(high_budget_reload_),
      policy_(config.policy),
      unbounded_(config.high_limit >= kHighLimitUnbounded) {
  check_size(config.high);
  check_size(config.low);
  high_turn_.size = static_cast<uint32_t>(config.high.size());
  low_turn_.size = static_cast<uint32_t>(config.low.size());
  const VlArbConfig served = operational_tables(config, operational_vls);  // same sizes, limit and policy
  const std::size_t n = served.low.size() + served.high.size();
  on_heap_ = n > kInlineEntries;
  if (on_heap_) entries_heap_ = std::make_unique<VlArbEntry[]>(n);
  VlArbEntry* e = entries_heap_ ? entries_heap_.get() : entries_inline_.data();
  std::copy(served.high.begin(), served.high.end(), std::copy(served.low.begin(), served.low.end(), e));
  if (policy_ == WeightPolicy::Deficit) carry_ = std::make_unique<int64_t[]>(n);  // zeros
}

void VlArbiter::copy_from(const VlArbiter& o) {
  // A copy of the same sizes (the crossbar's scratch copy of an output's arbiter) reuses its blocks.
  const std::size_t had = std::size_t{low_turn_.size} + high_turn_.size;
  high_turn_ = o.high_turn_;
  low_turn_ = o.low_turn_;
  high_budget_reload_ = o.high_budget_reload_;
  high_budget_ = o.high_budget_;
  policy_ = o.policy_;
  unbounded_ = o.unbounded_;
  high_exhausted_ = o.high_exhausted_;
  on_heap_ = o.on_heap_;
  entries_inline_ = o.entries_inline_;
  const std::size_t n = std::size_t{o.low_turn_.size} + o.high_turn_.size;
  if (o.entries_heap_ == nullptr) {
    entries_heap_.reset();
  } else {
    if (entries_heap_ == nullptr || had != n) entries_heap_ = std::make_unique<VlArbEntry[]>(n);
    std::copy(o.entries_heap_.get(), o.entries_heap_.get() + n, entries_heap_.get());
  }
  if (o.carry_ == nullptr) {
    carry_.reset();
  } else {
    if (carry_ == nullptr || had != n) carry_ = std::make_unique<int64_t[]>(n);
    std::copy(o.carry_.get(), o.carry_.get() + n, carry_.get());
  }
}

bool VlArbiter::can_grant(const VlCandidates& c) const {
  return has_candidate(high_turn_, high_entries(), c) || has_candidate(low_turn_, low_entries(), c);
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
    if (turn_.size != 0) turn_.used = 0;
  } else {
    pick(none);
  }
}

int VlArbiter::grant(const VlCandidates& c) {
  // A search with an early exit, one 4-byte load per VL: a caller has just
  // written the array, and a wide load across its narrow stores (what an
  // OR-reduction of the whole array compiles to) cannot take their values
  // from the store buffer and waits for them to reach the cache.
  const bool any = std::any_of(c.begin(), c.end(), [](uint32_t blocks) { return blocks != 0; });
  if (!any) {
    // Nothing can send (an idle link or one waiting for credits): common and
    // cheap, with the same effect on the turns as the search below.
    if (high_turn_.size != 0) high().idle(c);
    low().idle(c);
    return -1;
  }
  // An empty high-priority table (the default) never grants and keeps no
  // state, so it is not searched.
  const bool low_waiting = !unbounded_ && high_exhausted_ && has_candidate(low_turn_, low_entries(), c);
  if (!low_waiting && high_turn_.size != 0) {
    const int vl = high().pick_work_conserving(c);
    if (vl >= 0) {
      if (!unbounded_) {
        high_budget_ -= c[vl];
        if (high_budget_ <= 0) high_exhausted_ = true;
      }
      return vl;
    }
  }
  const int vl = low().pick_work_conserving(c);
  if (vl >= 0) {
    // Low got its turn: high may send up to the limit again.
    high_budget_ = high_budget_reload_;
    high_exhausted_ = false;
  }
  return vl;
}

uint16_t served_data_vls(const VlArbConfig& config) {
  uint16_t vls = 0;
  for (const auto* table : {&config.high, &config.low})
    for (const VlArbEntry& e : *table)
      if (e.weight != 0 && e.vl < kMaxDataVls) vls = static_cast<uint16_t>(vls | (1u << e.vl));
  return vls;
}

}  // namespace hcasim::link
