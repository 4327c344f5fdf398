// The CCTI arithmetic and CCT delay of cc_injection.hpp.
#include "models/ib/cc_injection.hpp"

#include <algorithm>

namespace hcasim::ib {
namespace {

uint16_t clamp_ccti(uint32_t v, uint16_t ccti_limit, uint8_t ccti_min) {
  const uint32_t lo = std::min<uint32_t>(ccti_min, ccti_limit);  // the limit wins over a larger minimum
  return static_cast<uint16_t>(std::clamp<uint32_t>(v, lo, ccti_limit));
}

}  // namespace

uint16_t ccti_after_becn(uint16_t ccti, uint8_t ccti_increase, uint16_t ccti_limit, uint8_t ccti_min) {
  return clamp_ccti(static_cast<uint32_t>(ccti) + ccti_increase, ccti_limit, ccti_min);
}

uint16_t ccti_after_timer(uint16_t ccti, uint16_t ccti_limit, uint8_t ccti_min) {
  return clamp_ccti(ccti == 0 ? 0u : ccti - 1u, ccti_limit, ccti_min);
}

uint64_t ccti_timer_period_ps(uint16_t ccti_timer) { return static_cast<uint64_t>(ccti_timer) * kCctiTimerUnitPs; }

bool ccti_reaches_trigger(uint16_t before, uint16_t after, uint8_t trigger_threshold) {
  return after == trigger_threshold && before != trigger_threshold;
}

uint64_t cct_injection_delay_ps(const CctEntry& entry, uint64_t packet_time_ps) {
  return (packet_time_ps * (entry.multiplier & 0x3FFFu)) >> (entry.shift & 0x3u);
}

bool CongestionControlTableState::set_block(uint32_t block, const CongestionControlTable& t) {
  if (block >= blocks()) return false;
  std::copy(t.entries.begin(), t.entries.end(), entries_.begin() + block * kCctEntriesPerBlock);
  ccti_limit_ = t.ccti_limit;
  return true;
}

CongestionControlTable CongestionControlTableState::get_block(uint32_t block) const {
  CongestionControlTable t;
  t.ccti_limit = ccti_limit_;
  if (block < blocks()) {
    const auto first = entries_.begin() + block * kCctEntriesPerBlock;
    std::copy(first, first + kCctEntriesPerBlock, t.entries.begin());
  }
  return t;
}

void apply_ca_setting(const CaCongestionSetting& incoming, CaCongestionSetting& current) {
  current.port_control = incoming.port_control;
  for (unsigned sl = 0; sl < kCaCongestionEntries; ++sl)
    if (incoming.control_map >> sl & 1u) current.entries[sl] = incoming.entries[sl];
}

}  // namespace hcasim::ib
