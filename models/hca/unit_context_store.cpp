#include "models/hca/unit_context_store.hpp"

#include "models/link/splitmix.hpp"

namespace hcasim::hca {

UnitContextStore::UnitContextStore(const QpcFirstLevelConfig& config, uint64_t hca_key)
    : load_ps_(config.load_ps),
      hashed_(config.index == SetIndex::Hashed),
      key_of_hca_(link::splitmix64_mix(hca_key)),
      lines_(config.store, nullptr, nullptr) {}

uint64_t UnitContextStore::line_key(uint32_t qpn) const {
  return hashed_ ? link::splitmix64_mix(key_of_hca_ ^ qpn) : qpn;  // a bijection: one key per QPN
}

uint64_t UnitContextStore::load(uint32_t qpn, uint64_t now_ps) {
  const uint64_t key = line_key(qpn);
  const bool held = lines_.contains(key);
  lines_.access(key, false, now_ps);
  return held ? 0 : load_ps_;
}

}  // namespace hcasim::hca
