// The context cache (context_cache.hpp rules) against hand-computed
// sequences: hits and misses by set, LRU and random victims, write-back of
// dirty lines, MSHR merging and waits for a free MSHR.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/hca/context_cache.hpp"

using namespace hcasim::hca;

namespace {

constexpr uint64_t kFillPs = 100;  // every fill in these tests takes 100 ps from its start

struct Recorder {
  std::vector<std::pair<uint64_t, uint64_t>> fills;       // key, start
  std::vector<std::pair<uint64_t, uint64_t>> write_backs;  // key, start
};

ContextCache make(const ContextCacheConfig& c, Recorder& r) {
  return ContextCache(
      c,
      [&r](uint64_t key, uint64_t start) {
        r.fills.emplace_back(key, start);
        return start + kFillPs;
      },
      [&r](uint64_t key, uint64_t start) {
        r.write_backs.emplace_back(key, start);
        return start + kFillPs;
      });
}

ContextCacheConfig config(uint32_t entries, uint32_t ways) {
  ContextCacheConfig c;
  c.entries = entries;
  c.ways = ways;
  c.mshrs = 8;
  return c;
}

// The generator context_cache.hpp documents, written out here independently.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

}  // namespace

TEST_CASE("hits misses and LRU victims in a two-way cache of two sets") {
  Recorder r;
  ContextCache c = make(config(4, 2), r);
  REQUIRE(c.sets() == 2);
  REQUIRE(c.access(0, false, 0) == 100);    // miss, set 0
  REQUIRE(c.access(0, false, 50) == 100);   // fill under way: merged
  REQUIRE(c.access(0, false, 200) == 200);  // hit
  REQUIRE(c.access(2, false, 300) == 400);  // miss, set 0: {2, 0}
  REQUIRE(c.access(1, false, 300) == 400);  // miss, set 1 (its own ways)
  REQUIRE(c.access(4, false, 500) == 600);  // set 0 full: evicts 0 (least recent), {4, 2}
  REQUIRE_FALSE(c.contains(0));
  REQUIRE(c.access(0, false, 700) == 800);  // evicts 2: {0, 4}
  REQUIRE_FALSE(c.contains(2));
  REQUIRE(c.access(4, false, 900) == 900);  // hit: {4, 0}
  REQUIRE(c.access(2, false, 1000) == 1100);  // evicts 0
  REQUIRE(c.contains(4));
  REQUIRE_FALSE(c.contains(0));
  REQUIRE(c.contains(1));

  const ContextCacheStats& s = c.stats();
  REQUIRE(s.lookups == 9);
  REQUIRE(s.hits == 2);
  REQUIRE(s.merged == 1);
  REQUIRE(s.misses == 6);
  REQUIRE(s.evictions == 3);
  REQUIRE(s.conflict_evictions == 3);  // set 1 held only key 1: a way free each time set 0 evicted
  REQUIRE(s.write_backs == 0);
  REQUIRE(r.fills == std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}, {2, 300}, {1, 300}, {4, 500}, {0, 700}, {2, 1000}});
  REQUIRE(s.miss_latency.count() == 6);
  REQUIRE(s.miss_latency.min() == 100);
  REQUIRE(s.miss_latency.max() == 100);
  REQUIRE(s.hit_rate() == Approx(2.0 / 9.0));
}

TEST_CASE("a fully associative LRU cache evicts in order of last use") {
  Recorder r;
  ContextCache c = make(config(3, 0), r);
  REQUIRE(c.sets() == 1);
  REQUIRE(c.ways() == 3);
  uint64_t t = 0;
  for (uint64_t k : {1, 2, 3}) c.access(k, false, t += 1000);
  c.access(1, false, t += 1000);  // order now 1, 3, 2
  c.access(4, false, t += 1000);  // evicts 2
  REQUIRE_FALSE(c.contains(2));
  c.access(3, false, t += 1000);  // order 3, 4, 1
  c.access(5, false, t += 1000);  // evicts 1
  REQUIRE_FALSE(c.contains(1));
  REQUIRE(c.contains(3));
  REQUIRE(c.contains(4));
  REQUIRE(c.contains(5));
  REQUIRE(c.stats().evictions == 2);
  REQUIRE(c.stats().conflict_evictions == 0);  // one set: every eviction found the cache full
}

TEST_CASE("random replacement evicts the way the documented generator names") {
  ContextCacheConfig cfg = config(4, 4);
  cfg.replacement = Replacement::Random;
  cfg.seed = 42;
  Recorder r;
  ContextCache c = make(cfg, r);
  std::array<uint64_t, 4> way{};  // the key each way holds, tracked by hand
  uint64_t t = 0;
  for (uint64_t k = 0; k < 4; ++k) {
    c.access(k, false, t += 1000);  // free ways fill from way 0
    way[k] = k;
  }
  SplitMix64 gen{42};
  for (uint64_t k = 100; k < 140; ++k) {
    const uint64_t w = gen.next() % 4;
    const uint64_t victim = way[w];
    c.access(k, false, t += 1000);
    REQUIRE_FALSE(c.contains(victim));
    REQUIRE(c.contains(k));
    way[w] = k;
    for (uint64_t held : way) REQUIRE(c.contains(held));
  }
  REQUIRE(c.stats().evictions == 40);

  // The same seed gives the same victims.
  Recorder r2;
  ContextCache again = make(cfg, r2);
  t = 0;
  for (uint64_t k = 0; k < 4; ++k) again.access(k, false, t += 1000);
  for (uint64_t k = 100; k < 140; ++k) again.access(k, false, t += 1000);
  for (uint64_t held : way) REQUIRE(again.contains(held));
}

TEST_CASE("dirty lines are written back when evicted and clean ones are not") {
  Recorder r;
  ContextCache c = make(config(2, 2), r);
  c.access(1, true, 0);      // miss, written: dirty
  c.access(2, false, 1000);  // miss, clean
  c.access(2, true, 1100);   // hit, written: dirty
  REQUIRE(c.dirty(1));
  REQUIRE(c.dirty(2));
  c.access(3, false, 2000);  // evicts 1 (dirty): written back at 2000
  c.access(2, false, 3000);
  c.access(4, false, 4000);  // evicts 3 (clean)
  c.access(5, false, 5000);  // evicts 2 (dirty)
  REQUIRE(r.write_backs == std::vector<std::pair<uint64_t, uint64_t>>{{1, 2000}, {2, 5000}});
  REQUIRE(c.stats().evictions == 3);
  REQUIRE(c.stats().write_backs == 2);

  // Without write_back nothing is dirty and nothing is written.
  ContextCacheConfig cfg = config(2, 2);
  cfg.write_back = false;
  Recorder r2;
  ContextCache wt = make(cfg, r2);
  wt.access(1, true, 0);
  wt.access(2, true, 1000);
  wt.access(3, true, 2000);
  wt.access(4, true, 3000);
  REQUIRE(r2.write_backs.empty());
  REQUIRE(wt.stats().write_backs == 0);
  REQUIRE(wt.stats().evictions == 2);
}

TEST_CASE("misses merge on a fill under way and wait for a free MSHR") {
  ContextCacheConfig cfg = config(16, 0);
  cfg.mshrs = 2;
  Recorder r;
  ContextCache c = make(cfg, r);
  REQUIRE(c.access(7, false, 0) == 100);    // MSHR 0 until 100
  REQUIRE(c.access(7, false, 10) == 100);   // merged: no second read
  REQUIRE(c.access(8, false, 10) == 110);   // MSHR 1 until 110
  REQUIRE(c.access(9, false, 20) == 200);   // both busy: starts at 100
  REQUIRE(c.access(10, false, 30) == 210);  // busy until 200 and 110: starts at 110
  REQUIRE(c.access(9, false, 150) == 200);  // merged
  REQUIRE(c.access(11, false, 300) == 400); // both free again
  REQUIRE(r.fills == std::vector<std::pair<uint64_t, uint64_t>>{{7, 0}, {8, 10}, {9, 100}, {10, 110}, {11, 300}});
  const ContextCacheStats& s = c.stats();
  REQUIRE(s.misses == 5);
  REQUIRE(s.merged == 2);
  REQUIRE(s.hits == 0);
  REQUIRE(s.mshr_full_waits == 2);
  REQUIRE(s.miss_latency.count() == 5);
  REQUIRE(s.miss_latency.min() == 100);
  REQUIRE(s.miss_latency.max() == 180);  // 9: 20 -> 200, 10: 30 -> 210
  REQUIRE(s.miss_latency.mean() == Approx((100 + 100 + 180 + 180 + 100) / 5.0));
}

TEST_CASE("invalidate drops a line without writing it back and frees its way") {
  Recorder r;
  ContextCache c = make(config(2, 2), r);
  c.access(1, true, 0);
  c.access(2, false, 1000);
  REQUIRE(c.invalidate(1));
  REQUIRE_FALSE(c.invalidate(1));
  REQUIRE(c.occupancy() == 1);
  c.access(3, false, 2000);  // takes the freed way: no eviction
  REQUIRE(c.stats().evictions == 0);
  REQUIRE(r.write_backs.empty());
  REQUIRE(c.access(1, false, 3000) == 3100);  // a miss again, evicting 2 (least recent)
  REQUIRE_FALSE(c.contains(2));
}

TEST_CASE("an inserted line is on chip from its ready time") {
  Recorder r;
  ContextCache c = make(config(2, 0), r);
  c.insert(5, 500);
  REQUIRE(c.access(5, false, 400) == 500);  // merged onto the arrival
  REQUIRE(c.access(5, false, 600) == 600);  // hit
  REQUIRE(r.fills.empty());
  c.insert(6, 700);
  c.insert(7, 800);  // evicts 5 (least recent)
  REQUIRE_FALSE(c.contains(5));
  REQUIRE(c.stats().lookups == 2);
  REQUIRE(c.stats().inserts == 3);
}

TEST_CASE("a perfect cache always hits") {
  ContextCacheConfig cfg;
  cfg.perfect = true;
  Recorder r;
  ContextCache c = make(cfg, r);
  for (uint64_t k = 0; k < 10000; ++k) REQUIRE(c.access(k, true, k) == k);
  REQUIRE(c.stats().hits == 10000);
  REQUIRE(c.stats().misses == 0);
  REQUIRE(r.fills.empty());
}

TEST_CASE("a cache whose ways do not divide its entries is refused") {
  Recorder r;
  REQUIRE_THROWS_AS(make(config(6, 4), r), std::invalid_argument);
  REQUIRE_THROWS_AS(make(config(0, 0), r), std::invalid_argument);
  ContextCacheConfig cfg = config(4, 2);
  cfg.mshrs = 0;
  REQUIRE_THROWS_AS(make(cfg, r), std::invalid_argument);
}

TEST_CASE("a pinned line is never a victim, and a set of pinned lines keeps nothing more") {
  Recorder r;
  ContextCache c = make(config(2, 0), r);  // one set of two ways, LRU
  CHECK(c.insert(10, 0, true));
  CHECK(c.insert(11, 0));
  // 12 misses: the LRU line is 10, pinned, so 11 goes.
  CHECK(c.access(12, false, 5) == 5 + kFillPs);
  CHECK(c.contains(10));
  CHECK_FALSE(c.contains(11));
  CHECK(c.pinned(10));
  CHECK(c.insert(12, 0, true));  // already present: now pinned too
  // Both ways pinned: a miss is filled and not kept, an insert keeps nothing.
  CHECK(c.access(13, false, 200) == 200 + kFillPs);
  CHECK_FALSE(c.contains(13));
  CHECK_FALSE(c.insert(14, 300));
  CHECK(c.stats().bypasses == 2);
  // Unpinned, 10 is the victim again.
  CHECK(c.unpin(10));
  CHECK_FALSE(c.unpin(10));
  CHECK(c.access(15, false, 400) == 400 + kFillPs);
  CHECK_FALSE(c.contains(10));
  CHECK(c.contains(12));
  // An invalidated pinned line frees its way.
  CHECK(c.invalidate(12));
  CHECK(c.insert(16, 500, true));
  CHECK(c.occupancy() == 2);
}

TEST_CASE("a prefetch fills its absent lines by one read on one MSHR, pinned, and is no lookup") {
  Recorder r;
  ContextCacheConfig cfg = config(4, 0);
  cfg.mshrs = 1;
  ContextCache c = make(cfg, r);
  c.insert(2, 0);
  std::vector<std::pair<uint64_t, uint64_t>> reads;  // start, count of keys
  const std::array<uint64_t, 3> keys{1, 2, 3};
  c.prefetch(keys.data(), keys.size(), 50, [&](uint64_t start) {
    reads.emplace_back(start, 0);
    return start + 300;
  });
  CHECK(reads.size() == 1);
  CHECK(c.stats().prefetches == 2);  // 1 and 3; 2 was there
  CHECK(c.stats().lookups == 0);
  CHECK(c.pinned(1));
  CHECK(c.pinned(3));
  CHECK_FALSE(c.pinned(2));
  // The one MSHR is busy until 350: a miss at 100 starts then.
  CHECK(c.access(7, false, 100) == 350 + kFillPs);
  CHECK(c.stats().mshr_full_waits == 1);
  // A lookup of a prefetched line merges on its fill.
  CHECK(c.access(3, false, 200) == 350);
  CHECK(c.stats().merged == 1);
  CHECK(r.fills.size() == 1);  // only the miss went through the cache's own fill
}
