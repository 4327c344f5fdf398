#include "models/hca/context_cache.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hcasim::hca {

namespace {
}  // namespace

const char* to_string(Replacement r) { return r == Replacement::Lru ? "lru" : "random"; }

void ContextCache::check(const ContextCacheConfig& config) {
  if (config.perfect) return;
  if (config.entries == 0) throw std::invalid_argument("context cache: entries must be at least 1");
  const uint32_t ways = config.ways == 0 ? config.entries : config.ways;
  if (ways > config.entries || config.entries % ways != 0)
    throw std::invalid_argument("context cache: ways (" + std::to_string(ways) + ") must divide entries (" +
                                std::to_string(config.entries) + ")");
  if (config.mshrs == 0) throw std::invalid_argument("context cache: mshrs must be at least 1");
}

ContextCache::ContextCache(const ContextCacheConfig& config, Transfer fill, Transfer write_back, SetIndex set_index)
    : config_(config),
      fill_(std::move(fill)),
      write_back_(std::move(write_back)),
      set_index_(set_index),
      rng_{config.seed} {
  check(config_);
  if (config_.perfect) return;
  ways_ = config_.ways == 0 ? config_.entries : config_.ways;
  sets_ = config_.entries / ways_;
}

bool ContextCache::dirty(uint64_t key) const {
  auto it = index_.find(key);
  return it != index_.end() && lines_[it->second].dirty;
}

bool ContextCache::pinned(uint64_t key) const {
  auto it = index_.find(key);
  return it != index_.end() && lines_[it->second].pinned;
}

void ContextCache::unlink(Set& s, uint32_t line) {
  Line& l = lines_[line];
  if (l.prev != kNone) lines_[l.prev].next = l.next; else s.head = l.next;
  if (l.next != kNone) lines_[l.next].prev = l.prev; else s.tail = l.prev;
  l.prev = l.next = kNone;
}

void ContextCache::push_front(Set& s, uint32_t line) {
  Line& l = lines_[line];
  l.prev = kNone;
  l.next = s.head;
  if (s.head != kNone) lines_[s.head].prev = line; else s.tail = line;
  s.head = line;
}

void ContextCache::touch(uint32_t line) {
  Set& s = set_lists_[lines_[line].set];
  if (s.head == line) return;
  unlink(s, line);
  push_front(s, line);
}

uint32_t ContextCache::take_free(Set& s, uint32_t set_index) {
  if (s.free != kNone) {
    const uint32_t line = s.free;
    s.free = lines_[line].next;
    lines_[line].next = kNone;
    return line;
  }
  if (s.fresh == ways_) return kNone;
  if (s.base == kNone) {
    s.base = static_cast<uint32_t>(lines_.size());
    lines_.resize(lines_.size() + ways_);
    for (uint32_t w = 0; w < ways_; ++w) lines_[s.base + w].set = set_index;
  }
  return s.base + s.fresh++;
}

uint64_t ContextCache::next_random() { return rng_.next(); }

uint32_t ContextCache::victim(const Set& s) {
  if (config_.replacement == Replacement::Lru) {
    uint32_t line = s.tail;
    while (lines_[line].pinned) line = lines_[line].prev;
    return line;
  }
  uint32_t way = static_cast<uint32_t>(next_random() % ways_);
  while (lines_[s.base + way].pinned) way = (way + 1) % ways_;
  return s.base + way;
}

uint32_t ContextCache::allocate(uint64_t key, uint64_t now_ps) {
  if (set_lists_.empty()) set_lists_.resize(sets_);
  const uint32_t set_index = set_of(key);
  Set& s = set_lists_[set_index];
  uint32_t line = take_free(s, set_index);
  if (line == kNone) {
    if (s.pinned == ways_) {
      ++stats_.bypasses;
      return kNone;
    }
    line = victim(s);
    Line& victim = lines_[line];
    ++stats_.evictions;
    if (index_.size() < config_.entries) ++stats_.conflict_evictions;
    if (victim.dirty) {
      ++stats_.write_backs;
      if (write_back_) write_back_(victim.key, now_ps);
    }
    index_.erase(victim.key);
    unlink(s, line);
  }
  Line& l = lines_[line];
  l.key = key;
  l.valid = true;
  l.dirty = false;
  l.pinned = false;
  push_front(s, line);
  index_.emplace(key, line);
  return line;
}

uint64_t ContextCache::start_fill(uint64_t now_ps, const std::function<uint64_t(uint64_t)>& read) {
  if (mshr_free_ps_.empty()) mshr_free_ps_.assign(config_.mshrs, 0);
  auto mshr = std::min_element(mshr_free_ps_.begin(), mshr_free_ps_.end());
  uint64_t start = now_ps;
  if (*mshr > now_ps) {
    start = *mshr;
    ++stats_.mshr_full_waits;
  }
  const uint64_t done = read ? std::max(start, read(start)) : start;
  *mshr = done;
  return done;
}

void ContextCache::prefetch(const uint64_t* keys, std::size_t count, uint64_t now_ps,
                            const std::function<uint64_t(uint64_t)>& read) {
  if (config_.perfect) return;
  prefetched_.clear();
  for (std::size_t i = 0; i < count; ++i) {
    if (index_.count(keys[i]) != 0) continue;
    const uint32_t line = allocate(keys[i], now_ps);
    if (line == kNone) continue;  // a bypass: nothing to keep it in
    set_pinned(line, true);
    prefetched_.push_back(line);
  }
  if (prefetched_.empty()) return;
  const uint64_t done = start_fill(now_ps, read);
  for (uint32_t line : prefetched_) lines_[line].ready_ps = done;
  stats_.prefetches += prefetched_.size();
}

uint64_t ContextCache::access(uint64_t key, bool write, uint64_t now_ps, bool unpin) {
  ++stats_.lookups;
  if (config_.perfect) {
    ++stats_.hits;
    return now_ps;
  }
  auto it = index_.find(key);
  if (it != index_.end()) {
    Line& l = lines_[it->second];
    touch(it->second);
    if (unpin) set_pinned(it->second, false);
    if (write && config_.write_back) l.dirty = true;
    if (l.ready_ps <= now_ps) {
      ++stats_.hits;
      return now_ps;
    }
    ++stats_.merged;
    return l.ready_ps;
  }
  ++stats_.misses;
  const uint32_t line = allocate(key, now_ps);
  const uint64_t done = start_fill(now_ps, [&](uint64_t start) { return fill_ ? fill_(key, start) : start; });
  if (line != kNone) {
    Line& l = lines_[line];
    l.ready_ps = done;
    if (write && config_.write_back) l.dirty = true;
  }
  stats_.miss_latency.add(done - now_ps, now_ps);
  return done;
}

bool ContextCache::insert(uint64_t key, uint64_t ready_ps, bool pin) {
  ++stats_.inserts;
  if (config_.perfect) return true;
  auto it = index_.find(key);
  uint32_t line = kNone;
  if (it != index_.end()) {
    line = it->second;
    touch(line);
  } else {
    line = allocate(key, ready_ps);
    if (line == kNone) return false;
    lines_[line].ready_ps = ready_ps;
  }
  if (pin) set_pinned(line, true);
  return true;
}

bool ContextCache::unpin(uint64_t key) {
  auto it = index_.find(key);
  return it != index_.end() && set_pinned(it->second, false);
}

bool ContextCache::set_pinned(uint32_t line, bool pinned) {
  Line& l = lines_[line];
  if (l.pinned == pinned) return false;
  l.pinned = pinned;
  if (pinned) ++set_lists_[l.set].pinned;
  else --set_lists_[l.set].pinned;
  return true;
}

bool ContextCache::invalidate(uint64_t key) {
  if (config_.perfect) return false;
  auto it = index_.find(key);
  if (it == index_.end()) return false;
  const uint32_t line = it->second;
  Set& s = set_lists_[lines_[line].set];
  unlink(s, line);
  if (lines_[line].pinned) --s.pinned;
  lines_[line].valid = false;
  lines_[line].dirty = false;
  lines_[line].pinned = false;
  lines_[line].next = s.free;
  s.free = line;
  index_.erase(it);
  return true;
}

uint64_t ContextCache::invalidate_range(uint64_t first, uint64_t count) {
  uint64_t n = 0;
  if (count <= index_.size()) {
    for (uint64_t k = first; k < first + count; ++k) n += invalidate(k) ? 1 : 0;
    return n;
  }
  std::vector<uint64_t> keys;
  for (const auto& [key, line] : index_)
    if (key >= first && key - first < count) keys.push_back(key);
  std::sort(keys.begin(), keys.end());  // the order of the loop above: which way each frees next matters to random
  for (uint64_t k : keys) n += invalidate(k) ? 1 : 0;
  return n;
}

}  // namespace hcasim::hca
