#include "models/hca/unit_context_store.hpp"

namespace hcasim::hca {

UnitContextStore::UnitContextStore(const QpcFirstLevelConfig& config)
    : load_ps_(config.load_ps), lines_(config.store, nullptr, nullptr) {}

uint64_t UnitContextStore::load(uint32_t qpn, uint64_t now_ps) {
  const bool held = lines_.contains(qpn);
  lines_.access(qpn, false, now_ps);
  return held ? 0 : load_ps_;
}

}  // namespace hcasim::hca
