#include "models/hca/wqe_cache.hpp"

#include <algorithm>
#include <iterator>

namespace hcasim::hca {

namespace {
uint32_t ring_key(uint32_t qpn, WqeRing ring) { return 2 * qpn + static_cast<uint32_t>(ring); }
}  // namespace

WqeCache::WqeCache(const ContextCacheConfig& config, RingsOf rings_of, Read read)
    : entry_bytes_(std::max<uint32_t>(1, config.entry_bytes)),
      rings_of_(std::move(rings_of)),
      read_(std::move(read)),
      cache_(config, [this](uint64_t key, uint64_t start) { return fill(key, start); }, nullptr, &WqeCache::set_of) {}

uint32_t WqeCache::lines_per_wqe(uint32_t stride) const {
  return std::max<uint32_t>(1, (stride + entry_bytes_ - 1) / entry_bytes_);
}

uint64_t WqeCache::key(const WqeLine& l, uint32_t lines_per_wqe) {
  const uint32_t r = ring_key(l.qpn, l.ring);
  return (uint64_t{r} << 32) | (l.slot * lines_per_wqe + l.line);  // the low word mod 2^32
}

uint32_t WqeCache::set_of(uint64_t key, uint32_t sets) {
  const auto r = static_cast<uint32_t>(key >> 32);
  const uint64_t start = (uint64_t{r * kHash} * sets) >> 32;  // r x kHash mod 2^32, scaled to [0, sets)
  return static_cast<uint32_t>((static_cast<uint32_t>(key) % sets + start) % sets);
}

WqeLine WqeCache::line_of(uint64_t key, uint32_t lines_per_wqe) {
  const auto r = static_cast<uint32_t>(key >> 32);
  const auto index = static_cast<uint32_t>(key);
  WqeLine l;
  l.qpn = r / 2;
  l.ring = static_cast<WqeRing>(r % 2);
  l.slot = index / lines_per_wqe;
  l.line = index % lines_per_wqe;
  return l;
}

bool WqeCache::place(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t& slot, uint32_t& lines) const {
  const QpRings* r = rings_of_ ? rings_of_(qpn) : nullptr;
  if (r == nullptr) return false;
  const bool send = ring == WqeRing::Send;
  const uint32_t entries = send ? r->sq_entries : r->rq_entries;
  if (entries == 0) return false;
  slot = counter & (entries - 1);
  lines = lines_per_wqe(send ? r->sq_stride : r->rq_stride);
  return true;
}

uint64_t WqeCache::fill(uint64_t key, uint64_t start_ps) {
  const auto qpn = static_cast<uint32_t>(key >> 33);
  const QpRings* r = rings_of_ ? rings_of_(qpn) : nullptr;
  if (r == nullptr || !read_) return start_ps;  // the QP is gone: nothing to read
  const bool send = (key >> 32 & 1) == 0;
  const uint32_t stride = send ? r->sq_stride : r->rq_stride;
  const WqeLine l = line_of(key, lines_per_wqe(stride));
  if (came_by_blueflame(static_cast<uint32_t>(key >> 32), l.slot)) ++blueflame_reads_;
  const uint64_t offset = uint64_t{l.line} * entry_bytes_;
  const auto bytes = static_cast<uint32_t>(std::min<uint64_t>(entry_bytes_, stride - offset));
  return read_((send ? r->sq_addr : r->rq_addr) + uint64_t{l.slot} * stride + offset, bytes, start_ps);
}

uint32_t WqeCache::used(uint64_t slot_key, uint32_t lines) const {
  if (used_.empty()) return lines;
  auto it = used_.find(slot_key);
  return it == used_.end() ? lines : it->second;
}

bool WqeCache::came_by_blueflame(uint32_t ring_key, uint32_t slot) const {
  if (blueflame_.empty()) return false;
  auto it = blueflame_.find(ring_key);
  return it != blueflame_.end() && slot / 64 < it->second.size() && (it->second[slot / 64] >> (slot % 64) & 1) != 0;
}

void WqeCache::mark_blueflame(uint32_t ring_key, uint32_t slot, uint32_t entries, bool on) {
  if (!on && blueflame_.empty()) return;
  auto it = on ? blueflame_.try_emplace(ring_key, (entries + 63) / 64).first : blueflame_.find(ring_key);
  if (it == blueflame_.end() || slot / 64 >= it->second.size()) return;
  const uint64_t bit = uint64_t{1} << (slot % 64);
  if (on) it->second[slot / 64] |= bit;
  else it->second[slot / 64] &= ~bit;
}

uint64_t WqeCache::lookup(uint32_t qpn, WqeRing ring, uint32_t counter, uint64_t now_ps) {
  uint32_t slot = 0, lines = 0;
  if (!place(qpn, ring, counter, slot, lines)) return now_ps;
  uint64_t ready = now_ps;
  const uint32_t n = used(slot_key(qpn, ring, slot), lines);
  for (uint32_t j = 0; j < n; ++j)
    ready = std::max(ready, cache_.access(key({qpn, ring, slot, j}, lines), false, now_ps, true));
  return ready;
}

void WqeCache::prefetch(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t count, uint64_t now_ps) {
  uint32_t slot = 0, lines = 0;
  if (count == 0 || !place(qpn, ring, counter, slot, lines)) return;
  if (cache_.contains(key({qpn, ring, slot, 0}, lines))) return;
  const QpRings& r = *rings_of_(qpn);
  const bool send = ring == WqeRing::Send;
  const uint32_t entries = send ? r.sq_entries : r.rq_entries;
  const uint32_t stride = send ? r.sq_stride : r.rq_stride;
  count = std::min(count, entries - slot);
  keys_.clear();
  for (uint32_t w = 0; w < count; ++w) {
    const uint32_t n = used(slot_key(qpn, ring, slot + w), lines);
    for (uint32_t j = 0; j < n; ++j) keys_.push_back(key({qpn, ring, slot + w, j}, lines));
  }
  const uint64_t addr = (send ? r.sq_addr : r.rq_addr) + uint64_t{slot} * stride;
  cache_.prefetch(keys_.data(), keys_.size(), now_ps,
                  [&](uint64_t start) { return read_ ? read_(addr, count * stride, start) : start; });
}

uint32_t WqeCache::note_size(uint32_t qpn, WqeRing ring, uint32_t slot, uint32_t lines, uint32_t bytes) {
  const uint32_t n = bytes == 0 ? lines : std::min(lines, (bytes + entry_bytes_ - 1) / entry_bytes_);
  const uint64_t sk = slot_key(qpn, ring, slot);
  if (n < lines) used_[sk] = n;
  else if (!used_.empty()) used_.erase(sk);
  return n;
}

bool WqeCache::insert(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t bytes, uint64_t ready_ps, bool pinned) {
  uint32_t slot = 0, lines = 0;
  if (!place(qpn, ring, counter, slot, lines)) return !pinned;
  const uint32_t n = note_size(qpn, ring, slot, lines, bytes);
  const uint32_t rk = ring_key(qpn, ring);
  for (uint32_t j = 0; j < n; ++j) {
    if (cache_.insert(key({qpn, ring, slot, j}, lines), ready_ps, pinned) || !pinned) continue;
    for (uint32_t k = 0; k < j; ++k) cache_.invalidate(key({qpn, ring, slot, k}, lines));  // none or all
    mark_blueflame(rk, slot, 0, false);
    return false;  // its size stays known: a refetch reads its n lines
  }
  const QpRings* r = rings_of_(qpn);
  mark_blueflame(rk, slot, ring == WqeRing::Send ? r->sq_entries : r->rq_entries, pinned);
  return true;
}

uint32_t WqeCache::invalidate_wqe(uint32_t qpn, WqeRing ring, uint32_t slot, uint32_t lines) {
  const uint32_t n = used(slot_key(qpn, ring, slot), lines);
  for (uint32_t j = 0; j < n; ++j) cache_.invalidate(key({qpn, ring, slot, j}, lines));
  return n;
}

void WqeCache::done(uint32_t qpn, WqeRing ring, uint32_t counter) {
  uint32_t slot = 0, lines = 0;
  if (!place(qpn, ring, counter, slot, lines)) return;
  if (invalidate_wqe(qpn, ring, slot, lines) < lines) used_.erase(slot_key(qpn, ring, slot));
  mark_blueflame(ring_key(qpn, ring), slot, 0, false);
}

void WqeCache::release(uint32_t qpn, WqeRing ring, uint32_t counter) {
  uint32_t slot = 0, lines = 0;
  if (!place(qpn, ring, counter, slot, lines)) return;
  invalidate_wqe(qpn, ring, slot, lines);
  ++released_;
}

void WqeCache::forget(uint32_t qpn) {
  cache_.invalidate_range(uint64_t{2} * qpn << 32, uint64_t{2} << 32);
  for (auto it = used_.begin(); it != used_.end();) it = (it->first >> 33) == qpn ? used_.erase(it) : std::next(it);
  blueflame_.erase(ring_key(qpn, WqeRing::Send));
  blueflame_.erase(ring_key(qpn, WqeRing::Receive));
}

}  // namespace hcasim::hca
