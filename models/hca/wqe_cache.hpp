#pragma once
// The HCA's WQE cache: send and receive WQEs kept on chip after the fetcher
// brought them (a ring read or a BlueFlame write), so that the transport
// engine can use a WQE's contents again (its gather or scatter list) without
// reading its ring. Plain C++ over a ContextCache (context_cache.hpp: sets,
// ways, LRU or random, MSHRs, perfect); timing is what the fill returns (a
// DMA read's done time), so a lookup is a function call, never an event.
//
// Rules:
// - A WQE is named by its QP, its ring (send or receive) and its counter:
//   the number of WQEs posted to that ring before it (the doorbell record's
//   counters, the CQE's WQE index). It is in ring slot s = counter mod the
//   ring's entries.
// - A ring slot of stride S has L = ceil(S / entry_size) lines; line j holds
//   its bytes [j E, min((j + 1) E, S)), E = entry_size. A WQE of B bytes (a
//   send WQE's size from its control segment; a receive WQE: S) takes its
//   slot's first n = ceil(B / E) lines (at most L). A line holds no part of
//   another WQE.
// - Line j of slot s of ring r (0 send, 1 receive) of QP q has the key
//   (2q + r) x 2^32 + s L + j and lives in set (s L + j + start(2q + r)) mod
//   sets, start(k) = floor(frac(k x 0x9E3779B9 / 2^32) x sets) (Fibonacci
//   hashing): a ring's lines fill consecutive sets, and rings start at sets
//   spread evenly over the cache whatever the set count, so rings of QPs
//   that post in step (a benchmark's) share the sets evenly rather than pile
//   into a few (an assumption: the hashing of real HCAs is not published).
// - insert(q, ring, counter, bytes, ready, pinned): the fetcher brought the
//   WQE of `bytes` (0: the stride); its n lines are on chip from ready
//   (ContextCache::insert: no lookup, no DMA), and n is kept until it is
//   done. A pinned WQE (one a BlueFlame write carried) cannot be evicted
//   until its first lookup; when a set it needs has every way pinned, none
//   of its lines is kept and insert returns false (the front end then posts
//   it uncached: its size is kept, so its first lookup reads its n lines).
// - lookup(q, ring, counter, now): the engine needs the WQE; returns
//   when its n lines are on chip (n = L for a WQE never inserted), and
//   unpins them (the first use of a BlueFlame WQE). A missing line is
//   refetched: its bytes are read from ring + s S + j E by one DMA read (the
//   fill), on an MSHR. A refetch of a WQE a BlueFlame write carried counts
//   in blueflame_reads (after its first use only: a READ's response, a
//   resend).
// - prefetch(q, ring, counter, count, now): the engine will want the WQE
//   soon (wqe_prefetch WQEs ahead of the one it takes). Unless its first
//   line is on chip or on the way, the lines of it and of the posted WQEs
//   after it, count in all (at most to the ring's end), are fetched by one
//   DMA read of their slots, pinned until their lookups (ContextCache::
//   prefetch).
// - release(q, ring, counter): the WQE's lines leave the cache before it
//   completes (a READ past hca.wqe_reads_kept, hca_contexts.hpp); its size
//   and how it came stay known, so its next lookup refetches its n lines.
//   Counted in released().
// - done(q, ring, counter): the WQE completed; its lines are invalidated.
//   WQEs are read only for the HCA: never dirty, never written back.
// - forget(q): every line of the QP's rings is dropped (destroy, reset).
// - A QP with no rings (rings_of returns null) holds nothing: lookups are on
//   chip at once.

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "models/hca/context_cache.hpp"
#include "models/hca/qp_rings.hpp"

namespace hcasim::hca {

enum class WqeRing : uint8_t { Send = 0, Receive = 1 };

struct WqeLine {
  uint32_t qpn = 0;
  WqeRing ring = WqeRing::Send;
  uint32_t slot = 0;  // ring slot
  uint32_t line = 0;  // line j of the WQE
};

class WqeCache {
 public:
  using RingsOf = std::function<const QpRings*(uint32_t qpn)>;
  // addr, bytes, start_ps -> when the read is done, ps
  using Read = std::function<uint64_t(uint64_t addr, uint32_t bytes, uint64_t start_ps)>;

  // Throws std::invalid_argument as ContextCache does.
  WqeCache(const ContextCacheConfig& config, RingsOf rings_of, Read read);
  WqeCache(const WqeCache&) = delete;
  WqeCache& operator=(const WqeCache&) = delete;

  uint64_t lookup(uint32_t qpn, WqeRing ring, uint32_t counter, uint64_t now_ps);
  bool insert(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t bytes, uint64_t ready_ps, bool pinned = false);
  void prefetch(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t count, uint64_t now_ps);
  void done(uint32_t qpn, WqeRing ring, uint32_t counter);
  void release(uint32_t qpn, WqeRing ring, uint32_t counter);
  void forget(uint32_t qpn);

  // Lines per WQE of a ring of this stride, the key of a line and its set (the rules).
  uint32_t lines_per_wqe(uint32_t stride) const;
  static uint64_t key(const WqeLine& l, uint32_t lines_per_wqe);
  static uint32_t set_of(uint64_t key, uint32_t sets);
  // The inverse of key, given the ring's lines per WQE.
  static WqeLine line_of(uint64_t key, uint32_t lines_per_wqe);

  const ContextCache& cache() const { return cache_; }
  uint64_t blueflame_reads() const { return blueflame_reads_; }
  uint64_t released() const { return released_; }

 private:
  static constexpr uint32_t kHash = 0x9E3779B9u;  // 2^32 / golden ratio
  // The ring's slot of counter and its lines per slot; false when the QP has no such ring.
  bool place(uint32_t qpn, WqeRing ring, uint32_t counter, uint32_t& slot, uint32_t& lines) const;
  static uint64_t slot_key(uint32_t qpn, WqeRing ring, uint32_t slot) {
    return uint64_t{2 * qpn + static_cast<uint32_t>(ring)} << 32 | slot;
  }
  // The lines the WQE in that slot takes (as inserted; all of the slot's when unknown).
  uint32_t used(uint64_t slot_key, uint32_t lines) const;
  // Drops the lines the WQE in that slot takes (as used() counts them); returns how many.
  uint32_t invalidate_wqe(uint32_t qpn, WqeRing ring, uint32_t slot, uint32_t lines);
  uint64_t fill(uint64_t key, uint64_t start_ps);
  // Keeps the size of the WQE in that slot (used_); returns its lines.
  uint32_t note_size(uint32_t qpn, WqeRing ring, uint32_t slot, uint32_t lines, uint32_t bytes);
  bool came_by_blueflame(uint32_t ring_key, uint32_t slot) const;
  // Sets (on) or clears the slot's bit; entries sizes a ring's bits when they are first made.
  void mark_blueflame(uint32_t ring_key, uint32_t slot, uint32_t entries, bool on);

  uint32_t entry_bytes_;
  RingsOf rings_of_;
  Read read_;
  ContextCache cache_;
  std::unordered_map<uint64_t, uint32_t> used_;  // slot_key -> lines of the WQE there, when fewer than the slot's
  // Ring key -> a bit per slot: the WQE there came by BlueFlame (until done).
  std::unordered_map<uint32_t, std::vector<uint64_t>> blueflame_;
  std::vector<uint64_t> keys_;  // prefetch's scratch
  uint64_t blueflame_reads_ = 0;
  uint64_t released_ = 0;
};

}  // namespace hcasim::hca
