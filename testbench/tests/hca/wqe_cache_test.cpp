// The WQE cache (wqe_cache.hpp rules) against hand-computed sequences: the
// key of a WQE's line, the lines a WQE of a stride takes and the bytes each
// refetch reads from the ring, invalidation of completed WQEs, and LRU with
// more WQEs outstanding than lines.
#include <catch2/catch.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

#include "models/hca/wqe_cache.hpp"

using namespace hcasim::hca;

namespace {

constexpr uint64_t kReadPs = 1000;  // every refetch in these tests takes 1000 ps from its start

struct Reads {
  std::vector<std::tuple<uint64_t, uint32_t, uint64_t>> log;  // addr, bytes, start
};

// QP 5: a send ring of 16 WQEs of 128 B at 0x10000, a receive ring of 8 of 16 B at 0x20000.
QpRings rings() {
  QpRings r;
  r.sq_addr = 0x10000;
  r.sq_entries = 16;
  r.sq_stride = 128;
  r.rq_addr = 0x20000;
  r.rq_entries = 8;
  r.rq_stride = 16;
  return r;
}

ContextCacheConfig config(uint32_t entries, uint32_t ways, uint32_t entry_bytes = 64) {
  ContextCacheConfig c;
  c.entries = entries;
  c.ways = ways;
  c.entry_bytes = entry_bytes;
  c.mshrs = 64;
  c.write_back = false;
  return c;
}

struct Rig {
  QpRings r = rings();
  Reads reads;
  WqeCache cache;
  explicit Rig(const ContextCacheConfig& c)
      : cache(c, [this](uint32_t qpn) { return qpn == 5 || qpn == 6 ? &r : nullptr; },
              [this](uint64_t addr, uint32_t bytes, uint64_t start) {
                reads.log.emplace_back(addr, bytes, start);
                return start + kReadPs;
              }) {}
};

}  // namespace

TEST_CASE("a WQE line's key: the QP and ring in the high word, slot and line in the low word") {
  // (2q + r) x 2^32 + s L + j:
  CHECK(WqeCache::key({5, WqeRing::Send, 3, 0}, 1) == 0xA'0000'0003ull);
  CHECK(WqeCache::key({5, WqeRing::Send, 3, 1}, 2) == 0xA'0000'0007ull);  // 3 x 2 + 1
  CHECK(WqeCache::key({5, WqeRing::Receive, 0, 0}, 1) == 0xB'0000'0000ull);
  for (const WqeLine l : {WqeLine{5, WqeRing::Send, 3, 1}, WqeLine{70000, WqeRing::Receive, 511, 0},
                          WqeLine{(1u << 24) - 1, WqeRing::Send, 65535, 3}}) {
    const WqeLine back = WqeCache::line_of(WqeCache::key(l, 4), 4);
    CHECK(back.qpn == l.qpn);
    CHECK(back.ring == l.ring);
    CHECK(back.slot == l.slot);
    CHECK(back.line == l.line);
  }
}

TEST_CASE("a WQE line's set: consecutive in its ring, rings started by Fibonacci hashing") {
  // start(k) = floor(frac(k x 0x9E3779B9 / 2^32) x sets); 80 sets (640 lines of 8 ways).
  // Ring 10 (QP 5 send): 10 x 0x9E3779B9 = 0x6_2E2A_C072 -> 0x2E2AC072 / 2^32 = 0.18034, x 80 = 14.4: 14.
  CHECK(WqeCache::set_of(WqeCache::key({5, WqeRing::Send, 0, 0}, 1), 80) == 14);
  CHECK(WqeCache::set_of(WqeCache::key({5, WqeRing::Send, 70, 0}, 1), 80) == (14 + 70) % 80);
  // Send rings of QPs posting in step: 512 QPs at the same slot fill the 80
  // sets within one of evenly (6.4 a set), never more than a set's 8 ways.
  std::vector<uint32_t> per_set(80, 0);
  for (uint32_t q = 2; q < 2 + 512; ++q) ++per_set[WqeCache::set_of(WqeCache::key({q, WqeRing::Send, 7, 0}, 1), 80)];
  for (uint32_t n : per_set) {
    CHECK(n >= 5);
    CHECK(n <= 8);
  }
}

TEST_CASE("a WQE takes ceil(size / entry_size) lines of its slot and a refetch reads each missing line from its ring") {
  Rig rig(config(16, 0));
  CHECK(rig.cache.lines_per_wqe(128) == 2);
  CHECK(rig.cache.lines_per_wqe(64) == 1);
  CHECK(rig.cache.lines_per_wqe(16) == 1);
  // Send counter 17 is slot 1 of 16: the fetch brought it, ready at 500.
  rig.cache.insert(5, WqeRing::Send, 17, 0, 500);
  CHECK(rig.cache.cache().occupancy() == 2);
  CHECK(rig.cache.lookup(5, WqeRing::Send, 17, 400) == 500);  // both lines merge onto the fetch
  CHECK(rig.cache.lookup(5, WqeRing::Send, 17, 600) == 600);  // hits
  CHECK(rig.reads.log.empty());
  // Completed: dropped. Needed again (only a model test asks), both lines are read: 64 B each.
  rig.cache.done(5, WqeRing::Send, 17);
  CHECK(rig.cache.cache().occupancy() == 0);
  CHECK(rig.cache.lookup(5, WqeRing::Send, 17, 2000) == 2000 + kReadPs);
  using R = std::tuple<uint64_t, uint32_t, uint64_t>;
  CHECK(rig.reads.log == std::vector<R>{R{0x10000 + 128, 64, 2000}, R{0x10000 + 128 + 64, 64, 2000}});
  // A WQE of 48 B (its control segment's ds = 3) in a 128-byte slot takes the slot's first line only.
  rig.cache.insert(5, WqeRing::Send, 18, 48, 2500);
  CHECK(rig.cache.cache().occupancy() == 2 + 1);  // counter 17's two lines, read again, and one
  rig.reads.log.clear();
  rig.cache.done(5, WqeRing::Send, 18);
  CHECK(rig.cache.cache().occupancy() == 2);
  rig.cache.insert(5, WqeRing::Send, 18, 48, 2500);
  CHECK(rig.cache.lookup(5, WqeRing::Send, 18, 2600) == 2600);
  rig.cache.done(5, WqeRing::Send, 18);
  CHECK(rig.reads.log.empty());
  // A receive WQE of 16 B is one line, and its refetch reads 16 B: counter 10 is slot 2 of 8.
  rig.reads.log.clear();
  CHECK(rig.cache.lookup(5, WqeRing::Receive, 10, 3000) == 3000 + kReadPs);
  CHECK(rig.reads.log == std::vector<R>{R{0x20000 + 2 * 16, 16, 3000}});
  const ContextCacheStats& s = rig.cache.cache().stats();
  CHECK(s.inserts == 4);
  CHECK(s.misses == 3);
  CHECK(s.merged == 2);
  CHECK(s.hits == 3);
  CHECK(s.write_backs == 0);
}

TEST_CASE("LRU with more WQEs outstanding than lines: every WQE looked up in posting order misses") {
  // 4 lines, fully associative, 64-byte lines; QP 5's send WQEs of 128 B take 2
  // lines each: the cache holds 2 WQEs. 3 fetched (0, 1, 2): 0 is evicted by 2.
  Rig rig(config(4, 0));
  for (uint32_t c = 0; c < 3; ++c) rig.cache.insert(5, WqeRing::Send, c, 0, 0);
  CHECK(rig.cache.cache().stats().evictions == 2);
  // Looked up in order before any completes (READ responses of a window): 0
  // misses and evicts 1 (the least recently used), 1 misses and evicts 2, 2
  // misses: all three, 2 lines each.
  for (uint32_t c = 0; c < 3; ++c) CHECK(rig.cache.lookup(5, WqeRing::Send, c, 100) == 100 + kReadPs);
  CHECK(rig.cache.cache().stats().misses == 6);
  CHECK(rig.reads.log.size() == 6);
}

TEST_CASE("completed WQEs free their lines: a window one WQE larger than the cache refetches exactly two WQEs") {
  // 4 lines of 128 B: QP 6's send WQEs of 128 B take one line each.
  Rig rig(config(4, 0, 128));
  for (uint32_t c = 0; c < 5; ++c) rig.cache.insert(6, WqeRing::Send, c, 0, 0);  // 0 evicted by 4
  // Each looked up then completed in order: 0 misses and evicts 1 (LRU), then
  // is dropped (a free line); 1 misses into that free line; 2, 3, 4 hit.
  std::vector<bool> missed;
  for (uint32_t c = 0; c < 5; ++c) {
    missed.push_back(rig.cache.lookup(6, WqeRing::Send, c, 100) > 100);
    rig.cache.done(6, WqeRing::Send, c);
  }
  CHECK(missed == std::vector<bool>{true, true, false, false, false});
  CHECK(rig.cache.cache().occupancy() == 0);
  // A window that fits (4 WQEs): no refetch.
  rig.reads.log.clear();
  for (uint32_t c = 5; c < 9; ++c) rig.cache.insert(6, WqeRing::Send, c, 0, 200);
  for (uint32_t c = 5; c < 9; ++c) {
    CHECK(rig.cache.lookup(6, WqeRing::Send, c, 300) == 300);
    rig.cache.done(6, WqeRing::Send, c);
  }
  CHECK(rig.reads.log.empty());
}

TEST_CASE("forget drops one QP's lines of both rings, a QP without rings and a perfect cache never read") {
  Rig rig(config(16, 0, 128));
  rig.cache.insert(5, WqeRing::Send, 0, 0, 0);
  rig.cache.insert(5, WqeRing::Receive, 0, 0, 0);
  rig.cache.insert(6, WqeRing::Send, 0, 0, 0);
  CHECK(rig.cache.cache().occupancy() == 3);
  rig.cache.forget(5);
  CHECK(rig.cache.cache().occupancy() == 1);
  CHECK(rig.cache.lookup(6, WqeRing::Send, 0, 10) == 10);
  CHECK(rig.cache.lookup(7, WqeRing::Send, 0, 10) == 10);  // no rings: nothing to wait for
  rig.cache.insert(7, WqeRing::Send, 0, 0, 0);
  CHECK(rig.cache.cache().occupancy() == 1);
  CHECK(rig.reads.log.empty());

  ContextCacheConfig perfect = config(1, 0);
  perfect.perfect = true;
  Rig ideal(perfect);
  ideal.cache.insert(5, WqeRing::Send, 0, 0, 0);
  for (uint32_t c = 0; c < 8; ++c) CHECK(ideal.cache.lookup(5, WqeRing::Send, c, 50) == 50);
  CHECK(ideal.reads.log.empty());
  CHECK(ideal.cache.cache().stats().hits == 16);  // 2 lines (128-byte slots, 64-byte lines) per lookup
}

TEST_CASE("a pinned WQE stays until its first lookup, and a WQE the cache cannot pin keeps its size for the refetch") {
  // One set of two 64-byte lines: QP 5's send WQEs take 2 lines of their 128-byte slots.
  Rig rig(config(2, 0));
  CHECK(rig.cache.insert(5, WqeRing::Send, 0, 0, 0, true));
  // No room to pin the next: none of its lines kept, and its size (48 B: one line) remembered.
  CHECK_FALSE(rig.cache.insert(5, WqeRing::Send, 1, 48, 0, true));
  CHECK(rig.cache.cache().occupancy() == 2);
  // A prefetch finds no room either; 0's lookup hits and unpins it.
  CHECK(rig.cache.lookup(5, WqeRing::Send, 0, 10) == 10);
  CHECK(rig.reads.log.empty());
  // 1's first lookup reads its one line only.
  CHECK(rig.cache.lookup(5, WqeRing::Send, 1, 20) == 20 + kReadPs);
  using R = std::tuple<uint64_t, uint32_t, uint64_t>;
  CHECK(rig.reads.log == std::vector<R>{R{0x10000 + 128, 64, 20}});
  CHECK(rig.cache.blueflame_reads() == 0);
  // 0 (a BlueFlame WQE) evicted after its first use and read again: counted.
  rig.cache.lookup(5, WqeRing::Send, 2, 30);
  rig.cache.lookup(5, WqeRing::Send, 0, 40);
  CHECK(rig.cache.blueflame_reads() == 2);  // its two lines
  rig.cache.done(5, WqeRing::Send, 0);
}

TEST_CASE("a prefetch reads the posted WQEs from one slot on in one DMA read, never past the ring's end") {
  Rig rig(config(16, 0, 128));  // 128-byte lines: one per 128-byte slot
  rig.cache.prefetch(5, WqeRing::Send, 13, 4, 100);  // slots 13, 14, 15: the ring's end
  using R = std::tuple<uint64_t, uint32_t, uint64_t>;
  CHECK(rig.reads.log == std::vector<R>{R{0x10000 + 13 * 128, 3 * 128, 100}});
  CHECK(rig.cache.cache().stats().prefetches == 3);
  // Its first line on the way: a second prefetch from it reads nothing.
  rig.cache.prefetch(5, WqeRing::Send, 13, 4, 150);
  CHECK(rig.reads.log.size() == 1);
  // The lookups merge on the read (ready at 100 + 1000) and hit after.
  CHECK(rig.cache.lookup(5, WqeRing::Send, 14, 200) == 100 + kReadPs);
  CHECK(rig.cache.lookup(5, WqeRing::Send, 15, 2000) == 2000);
}

TEST_CASE("a released WQE leaves the cache before it completes: its next lookup reads its own lines again") {
  Rig rig(config(16, 0));
  // A 48-byte READ WQE (one line of its 128-byte slot 3), brought by BlueFlame and used by its request.
  CHECK(rig.cache.insert(5, WqeRing::Send, 3, 48, 100, true));
  CHECK(rig.cache.lookup(5, WqeRing::Send, 3, 200) == 200);
  // Its request has gone with too many READs outstanding: the line leaves.
  rig.cache.release(5, WqeRing::Send, 3);
  CHECK(rig.cache.released() == 1);
  CHECK(rig.cache.cache().occupancy() == 0);
  // Its response looks it up: one 64-byte line read from slot 3 (not the slot's 128 B), a BlueFlame WQE read again.
  CHECK(rig.cache.lookup(5, WqeRing::Send, 3, 5000) == 5000 + kReadPs);
  using R = std::tuple<uint64_t, uint32_t, uint64_t>;
  CHECK(rig.reads.log == std::vector<R>{R{0x10000 + 3 * 128, 64, 5000}});
  CHECK(rig.cache.blueflame_reads() == 1);
  // Completed: dropped as any other; releasing a WQE of a QP without rings does nothing.
  rig.cache.done(5, WqeRing::Send, 3);
  CHECK(rig.cache.cache().occupancy() == 0);
  rig.cache.release(7, WqeRing::Send, 0);
  CHECK(rig.cache.released() == 1);
  const ContextCacheStats& s = rig.cache.cache().stats();
  CHECK(s.inserts == 1);
  CHECK(s.hits == 1);
  CHECK(s.misses == 1);
}
