#pragma once
// An on-chip cache of contexts that live in host memory (QPC, CQC, MPT, MTT,
// WQEs; the same class serves an IOTLB): set-associative, with replacement
// by LRU or a seeded random choice, miss status holding registers (MSHRs)
// and write-back of dirty lines. Plain C++: timing is what the caller's fill
// and write-back functions return (a DMA read or write's done time), so a
// lookup is a function call, never an event.
//
// Rules:
// - A key (QP number, CQ number, MPT index, MTT index, ...) lives in set
//   key % sets, sets = entries / ways, or in the set its owner's set_index
//   function gives (the WQE cache's hashing); ways 0 (or = entries) is one
//   set (fully associative). entries must be a multiple of ways.
// - access(key, write, now) returns when the entry is on chip:
//   - hit (the line is present and its fill is done by now): now;
//   - merged (the line is present but its fill is still under way): the
//     fill's done time; no second read;
//   - miss: the line is allocated at once (unless every way of its set is
//     pinned: then the fill is used and not kept, a bypass) and the fill
//     starts on an MSHR:
//     at now when one is free, else when the earliest busy one frees
//     (counted as an mshr_full_wait); fill(key, start) returns the done time
//     and that MSHR is busy until then. The miss latency (done - now) goes
//     to the miss_latency record.
//   lookups = hits + merged + misses.
// - A write access marks the line dirty (with write_back). A dirty line
//   evicted calls write_back(key, now) (a posted DMA write; the fill does
//   not wait for it) and counts a write_back; without write_back lines are
//   never dirty and evictions cost nothing.
// - An eviction while fewer lines are valid than the cache has (another set
//   has room) also counts as a conflict_eviction.
// - Victim: a set with a free way fills it first (at start the lowest way;
//   after an invalidate the freed way). A full set evicts its least recently
//   used line (lru: hits, merges, misses and inserts all count as uses), or
//   with random the line in way r % ways, r the next output of splitmix64
//   seeded with `seed` (state += 0x9E3779B97F4A7C15, then the splitmix64
//   output function of the state); one r per eviction of a full set.
// - insert(key, ready, pin) puts a line that arrived by other means (a
//   prefetched WQE) into the cache, on chip from ready; it is no lookup. A
//   key already present only becomes most recently used. A pinned line is
//   never a victim until unpin(key) (a BlueFlame WQE before its first use);
//   a victim is the least recently used unpinned line (random: from way
//   r % ways on, the first unpinned). An insert into a set whose ways are
//   all pinned keeps nothing and returns false (a bypass).
// - prefetch(keys, now, read) gives each absent key of the list a line,
//   pinned until unpin(key) (it is wanted soon), filled by one read on one
//   MSHR (read(start) returns its done time: the caller reads them all at
//   once); no lookup. Present keys are left as they are; a key whose set
//   has every way pinned gets no line (a bypass). prefetches counts lines.
// - invalidate(key) drops the line without writing it back (the entry is
//   gone from host memory too: dereg_mr, destroy); false if absent.
//   invalidate_range drops the range's lines in ascending key order.
// - perfect: every access hits at now (the ideal HCA); nothing is held.
// - Memory: nothing per line until the cache is used. The sets' list heads
//   and the MSHRs are made at the first line allocated, a set's lines (one
//   block of `ways`) when the set gets its first line, and the key index
//   grows with the lines held; so an HCA whose caches see no work (raw
//   traffic, a host that posts nothing) pays a few hundred bytes for them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "models/link/splitmix.hpp"
#include "models/trace/latency_record.hpp"

namespace hcasim::hca {

enum class Replacement : uint8_t { Lru, Random };
const char* to_string(Replacement r);  // "lru", "random"

struct ContextCacheConfig {
  uint32_t entries = 1024;                  // lines (contexts) held
  uint32_t ways = 0;                        // lines per set; 0 or entries = fully associative
  Replacement replacement = Replacement::Lru;  // victim in a full set
  uint32_t entry_bytes = 256;               // bytes of one entry in host memory (one fill or write-back)
  uint32_t mshrs = 8;                       // misses outstanding at once (>= 1)
  bool write_back = true;                   // dirty lines are written to host memory on eviction
  uint64_t seed = 1;                        // random replacement's generator seed
  bool perfect = false;                     // every lookup hits (the ideal preset)
};

struct ContextCacheStats {
  uint64_t lookups = 0, hits = 0, misses = 0, merged = 0;
  uint64_t evictions = 0, write_backs = 0, mshr_full_waits = 0, inserts = 0;
  // Evictions while the cache held fewer valid lines than entries: another set had room, so a
  // fully associative cache of the same size would have kept the victim (a set conflict).
  uint64_t conflict_evictions = 0;
  uint64_t bypasses = 0;  // misses and inserts that found every way of their set pinned: nothing kept
  uint64_t prefetches = 0;  // fills started by prefetch (not lookups)
  trace::LatencyRecord miss_latency;  // ps from the lookup to the line on chip, per miss
  double hit_rate() const { return lookups ? static_cast<double>(hits) / static_cast<double>(lookups) : 1.0; }
};

class ContextCache {
 public:
  // key, start_ps -> when the transfer is done, ps
  using Transfer = std::function<uint64_t(uint64_t key, uint64_t start_ps)>;
  // key, sets -> the key's set (< sets); null: key % sets
  using SetIndex = uint32_t (*)(uint64_t key, uint32_t sets);

  // Throws std::invalid_argument for entries 0, ways not dividing entries or mshrs 0 (unless perfect).
  ContextCache(const ContextCacheConfig& config, Transfer fill, Transfer write_back, SetIndex set_index = nullptr);
  // What the constructor refuses, without making a cache (throws the same).
  static void check(const ContextCacheConfig& config);

  // unpin: the line, when present, may be a victim again (as unpin(key)).
  uint64_t access(uint64_t key, bool write, uint64_t now_ps, bool unpin = false);
  bool insert(uint64_t key, uint64_t ready_ps, bool pin = false);
  void prefetch(const uint64_t* keys, std::size_t count, uint64_t now_ps, const std::function<uint64_t(uint64_t)>& read);
  // The line may be a victim again; false if absent or not pinned.
  bool unpin(uint64_t key);
  bool invalidate(uint64_t key);
  // Invalidates every line whose key is in [first, first + count); returns how many.
  uint64_t invalidate_range(uint64_t first, uint64_t count);

  bool contains(uint64_t key) const { return index_.count(key) != 0; }
  bool pinned(uint64_t key) const;
  bool dirty(uint64_t key) const;
  uint32_t occupancy() const { return static_cast<uint32_t>(index_.size()); }  // valid lines
  uint32_t sets() const { return sets_; }
  uint32_t ways() const { return ways_; }
  const ContextCacheConfig& config() const { return config_; }
  const ContextCacheStats& stats() const { return stats_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Line {
    uint64_t key = 0;
    uint64_t ready_ps = 0;  // on chip from
    uint32_t prev = kNone, next = kNone;  // the set's recency list (head = most recent); next: the free list too
    uint32_t set = 0;                     // the set the line belongs to
    bool valid = false;
    bool dirty = false;
    bool pinned = false;
  };
  // Lines are stored by set, in blocks of ways_ made when the set is first
  // used: way w of a set is line base + w. A free line is an invalidated one
  // (on the set's free list, the last freed first) or a way never used yet
  // (`fresh` counts those used), taken in that order: the lowest unused way
  // first, as if every way had been free from the start.
  struct Set {
    uint32_t head = kNone, tail = kNone;
    uint32_t base = kNone;  // its first line; kNone until the set is used
    uint32_t free = kNone;  // invalidated lines, linked by Line::next
    uint32_t fresh = 0;     // ways handed out at least once
    uint32_t pinned = 0;    // its pinned lines
  };

  uint32_t set_of(uint64_t key) const {
    return set_index_ != nullptr ? set_index_(key, sets_) : static_cast<uint32_t>(key % sets_);
  }
  void unlink(Set& s, uint32_t line);
  void push_front(Set& s, uint32_t line);
  void touch(uint32_t line);
  // A free line of set `set_index` (making the set's block when it has none), or kNone when the set is full.
  uint32_t take_free(Set& s, uint32_t set_index);
  // The victim of a full set: its least recently used (or random) unpinned line.
  uint32_t victim(const Set& s);
  // Pins or unpins a line, keeping its set's count; false when it already was so.
  bool set_pinned(uint32_t line, bool pinned);
  // A line of key's set for key (evicting when the set is full), made most
  // recent; kNone when every way is pinned.
  uint32_t allocate(uint64_t key, uint64_t now_ps);
  uint64_t next_random();
  // Starts a fill (read(start) -> done) on an MSHR at now or later; returns its done time.
  uint64_t start_fill(uint64_t now_ps, const std::function<uint64_t(uint64_t)>& read);

  ContextCacheConfig config_;
  Transfer fill_, write_back_;
  SetIndex set_index_;
  uint32_t sets_ = 1, ways_ = 1;
  std::vector<Line> lines_;
  std::vector<Set> set_lists_;                    // sets_ of them from the first allocation
  std::unordered_map<uint64_t, uint32_t> index_;  // key -> line
  std::vector<uint64_t> mshr_free_ps_;            // when each MSHR frees (config.mshrs, from the first miss)
  std::vector<uint32_t> prefetched_;              // prefetch's scratch: the lines one read fills
  link::SplitMix64 rng_;
  ContextCacheStats stats_;
};

}  // namespace hcasim::hca
