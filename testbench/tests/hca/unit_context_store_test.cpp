// The transmit units' store of QP contexts (unit_context_store.hpp) against
// hand-computed sequences: which packets pay the load, and which line goes.
#include <catch2/catch.hpp>

#include <vector>

#include "models/hca/unit_context_store.hpp"

using hcasim::hca::QpcFirstLevelConfig;
using hcasim::hca::Replacement;
using hcasim::hca::UnitContextStore;

namespace {

constexpr uint64_t kLoad = 26'000;  // ps

QpcFirstLevelConfig store(uint32_t entries, uint32_t ways) {
  QpcFirstLevelConfig c;
  c.store.entries = entries;
  c.store.ways = ways;
  c.load_ps = kLoad;
  return c;
}

std::vector<uint64_t> loads(UnitContextStore& s, const std::vector<uint32_t>& qpns) {
  std::vector<uint64_t> out;
  for (uint32_t q : qpns) out.push_back(s.load(q, 0));
  return out;
}

}  // namespace

TEST_CASE("unit context store: a two-entry LRU store loads what it does not hold") {
  UnitContextStore s(store(2, 0));
  // 1 and 2 load; 1 is held; 3 evicts 2 (least recent); 2 evicts 1; 3 is held; 1 evicts 2.
  CHECK(loads(s, {1, 2, 1, 3, 2, 3, 1}) == std::vector<uint64_t>{kLoad, kLoad, 0, kLoad, kLoad, 0, kLoad});
  CHECK(s.cache().stats().lookups == 7);
  CHECK(s.cache().stats().misses == 5);
  CHECK(s.cache().stats().write_backs == 0);  // the QPC cache keeps the context
}

TEST_CASE("unit context store: round robin over more QPs than lines loads every time, over fewer only once") {
  UnitContextStore small(store(4, 0));
  UnitContextStore large(store(8, 0));
  std::vector<uint32_t> turns;
  for (int round = 0; round < 10; ++round)
    for (uint32_t q = 0; q < 5; ++q) turns.push_back(q);
  for (uint64_t l : loads(small, turns)) CHECK(l == kLoad);  // LRU keeps none of the next QP's context
  CHECK(large.cache().stats().lookups == 0);
  loads(large, turns);
  CHECK(large.cache().stats().misses == 5);  // the first touches
}

TEST_CASE("unit context store: set-associative conflicts, and forget") {
  UnitContextStore s(store(4, 2));  // 2 sets: qpn % 2
  // 0, 2, 4 share set 0: 4 evicts 0; 1 goes to set 1 and evicts nothing.
  CHECK(loads(s, {0, 2, 4, 1, 2, 0}) == std::vector<uint64_t>{kLoad, kLoad, kLoad, kLoad, 0, kLoad});
  s.forget(1);
  CHECK(s.load(1, 0) == kLoad);
  CHECK(s.load(1, 0) == 0);
}
