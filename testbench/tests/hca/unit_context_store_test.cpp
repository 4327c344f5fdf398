// The transmit units' store of QP contexts (unit_context_store.hpp) against
// hand-computed sequences: which packets pay the load, and which line goes.
#include <catch2/catch.hpp>

#include <vector>

#include "models/hca/unit_context_store.hpp"
#include "models/link/splitmix.hpp"

using hcasim::hca::QpcFirstLevelConfig;
using hcasim::hca::Replacement;
using hcasim::hca::SetIndex;
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

TEST_CASE("unit context store: a hashed index keyed by the HCA's name puts QPs in other sets") {
  // Sets of 2 (entries 4, ways 2) by hand: splitmix64_mix(splitmix64_mix(fnv1a(name)) ^ qpn) % 2.
  // fnv1a("hca0") = 0x1cbb1ccc6a221c15: QPNs 2, 3, 5 in set 0, 4 in set 1.
  // fnv1a("hca1") = 0x1cbb1bcc6a221a62: QPN 2 in set 0, 3, 4, 5 in set 1.
  // Modulo: 2, 4 in set 0, 3, 5 in set 1.
  QpcFirstLevelConfig hashed = store(4, 2);
  hashed.index = SetIndex::Hashed;
  const uint64_t hca0 = hcasim::link::fnv1a("hca0"), hca1 = hcasim::link::fnv1a("hca1");
  CHECK(hca0 == 0x1cbb1ccc6a221c15ull);
  CHECK(hca1 == 0x1cbb1bcc6a221a62ull);
  const std::vector<uint32_t> turns{2, 3, 5, 2, 4, 5, 3};
  {
    UnitContextStore modulo(store(4, 2), hca0);  // the key does nothing with index modulo
    // Each set holds its two QPs: only the first touches load.
    CHECK(loads(modulo, turns) == std::vector<uint64_t>{kLoad, kLoad, kLoad, 0, kLoad, 0, 0});
  }
  {
    UnitContextStore s(hashed, hca0);
    // 2, 3, 5 share set 0 (LRU): 5 evicts 2, 2 evicts 3, 4 goes to set 1, 5 is held, 3 evicts 5.
    CHECK(loads(s, turns) == std::vector<uint64_t>{kLoad, kLoad, kLoad, kLoad, kLoad, 0, kLoad});
    CHECK(s.cache().stats().evictions == 3);
    CHECK(s.cache().occupancy() == 3);
    s.forget(4);  // forget finds the hashed line
    CHECK(s.cache().occupancy() == 2);
    CHECK(s.load(4, 0) == kLoad);
  }
  {
    UnitContextStore s(hashed, hca1);
    // Another HCA: 3, 4, 5 share set 1: 5 evicts 3, 3 evicts 4; at hca0, 3 and 5 share set 0 and 4 is alone.
    CHECK(loads(s, {3, 4, 5, 3}) == std::vector<uint64_t>{kLoad, kLoad, kLoad, kLoad});
    UnitContextStore t(hashed, hca0);
    CHECK(loads(t, {3, 4, 5, 3}) == std::vector<uint64_t>{kLoad, kLoad, kLoad, 0});
  }
}

TEST_CASE("unit context store: with one set the hashed index changes nothing") {
  // Fully associative (ways 0): every key goes to the one set, and LRU's and random's victims
  // depend on use and on way position, not on the key.
  for (Replacement r : {Replacement::Lru, Replacement::Random}) {
    QpcFirstLevelConfig modulo = store(4, 0), hashed = store(4, 0);
    modulo.store.replacement = hashed.store.replacement = r;
    hashed.index = SetIndex::Hashed;
    UnitContextStore a(modulo), b(hashed, hcasim::link::fnv1a("hca0"));
    std::vector<uint32_t> turns;
    for (uint32_t i = 0; i < 200; ++i) turns.push_back((i * 7 + i / 3) % 9);  // 9 QPs, irregular
    CHECK(loads(a, turns) == loads(b, turns));
    CHECK(a.cache().stats().evictions == b.cache().stats().evictions);
    CHECK(b.cache().stats().conflict_evictions == 0);
  }
}
