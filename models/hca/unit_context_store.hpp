#pragma once
// The transmit units' own store of QP contexts, a first level in front of the
// QPC cache (hca_config.hpp, caches.qpc_l1): a unit that builds a packet for a
// QP whose context it does not hold loads it from the QPC cache first, which
// takes load_ps of that unit. Plain C++: the caller adds the load to the unit's
// time.
//
// Rules:
// - load(qpn, now) looks qpn up: held, 0; not held, the context takes a line
//   (the store's replacement picks the victim; nothing is written back, the
//   QPC cache keeps the context) and load_ps is returned.
// - Set: with index modulo a QP's set is qpn % sets (ContextCache's rule);
//   with index hashed the line's key is splitmix64_mix(key_of_hca ^ qpn),
//   key_of_hca = splitmix64_mix(the HCA's hash key), and the set is that key %
//   sets: QPs collide in a set before the store is full, and the HCA's key
//   (the FNV-1a of its name) gives each HCA its own collisions, as the QPNs
//   each host's driver hands out differ on real machines.
// - forget(qpn) drops its line (destroy_qp).
// - cache() gives the store's counts: every load is a lookup, a miss a load.

#include <cstdint>

#include "models/hca/context_cache.hpp"
#include "models/hca/hca_config.hpp"

namespace hcasim::hca {

class UnitContextStore {
 public:
  // Throws std::invalid_argument as ContextCache does (entries 0, ways not dividing entries).
  // hca_key: the HCA's hash key (used by index hashed only).
  explicit UnitContextStore(const QpcFirstLevelConfig& config, uint64_t hca_key = 0);
  uint64_t load(uint32_t qpn, uint64_t now_ps);
  void forget(uint32_t qpn) { lines_.invalidate(line_key(qpn)); }
  // The key qpn's line is held under (its set: key % sets).
  uint64_t line_key(uint32_t qpn) const;
  const ContextCache& cache() const { return lines_; }

 private:
  uint64_t load_ps_;
  bool hashed_;
  uint64_t key_of_hca_;
  ContextCache lines_;
};

}  // namespace hcasim::hca
