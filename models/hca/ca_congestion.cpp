#include "models/hca/ca_congestion.hpp"

#include "models/ib/opcodes.hpp"

namespace hcasim::hca {

void CaCongestionControl::set_table(const std::vector<ib::CctEntry>& entries, uint16_t ccti_limit) {
  for (uint32_t block = 0; block * ib::kCctEntriesPerBlock < entries.size(); ++block) {
    ib::CongestionControlTable t;
    t.ccti_limit = ccti_limit;
    for (unsigned i = 0; i < ib::kCctEntriesPerBlock && block * ib::kCctEntriesPerBlock + i < entries.size(); ++i)
      t.entries[i] = entries[block * ib::kCctEntriesPerBlock + i];
    table_.set_block(block, t);
  }
}

CctiState& CaCongestionControl::at(uint32_t key, uint8_t sl, uint64_t now_ps) {
  if (key >= states_.size()) {
    states_.resize(key + 1);
    used_.resize(key + 1);
  }
  CctiState& s = states_[key];
  const ib::CaCongestionEntry& e = setting_.entries[sl & 0xF];
  const uint64_t period = ib::ccti_timer_period_ps(e.ccti_timer);
  const uint64_t ticks = period == 0 ? 0 : now_ps / period;
  if (!used_[key]) {
    used_[key] = true;
    s.sl = sl;
    s.ccti = e.ccti_min > table_.ccti_limit() ? table_.ccti_limit() : e.ccti_min;
    s.ccti_max = s.ccti;
    s.timer_ticks = ticks;
  }
  for (uint64_t n = ticks - s.timer_ticks; n > 0 && s.ccti > e.ccti_min; --n)
    s.ccti = ib::ccti_after_timer(s.ccti, table_.ccti_limit(), e.ccti_min);
  s.timer_ticks = ticks;
  return s;
}

void CaCongestionControl::becn(uint32_t key, uint8_t sl, uint64_t now_ps) {
  CctiState& s = at(key, sl, now_ps);
  const ib::CaCongestionEntry& e = setting_.entries[sl & 0xF];
  const uint16_t before = s.ccti;
  s.ccti = ib::ccti_after_becn(s.ccti, e.ccti_increase, table_.ccti_limit(), e.ccti_min);
  if (s.ccti > s.ccti_max) s.ccti_max = s.ccti;
  if (ib::ccti_reaches_trigger(before, s.ccti, e.trigger_threshold)) ++stats_.trigger_events;
}

uint16_t CaCongestionControl::ccti(uint32_t key, uint8_t sl, uint64_t now_ps) { return at(key, sl, now_ps).ccti; }

uint64_t CaCongestionControl::delay_ps(uint32_t key, uint8_t sl, uint64_t packet_time_ps, uint64_t now_ps) {
  CctiState& s = at(key, sl, now_ps);
  const uint64_t d = ib::cct_injection_delay_ps(table_.entry(s.ccti), packet_time_ps);
  s.delay_sum_ps += d;
  ++s.delayed_packets;
  return d;
}

FecnAnswer CaCongestionControl::fecn_answer(uint8_t opcode) {
  const bool rc_request = (opcode & 0xE0) == ib::op::kRcPrefix && !ib::op::is_rc_response(opcode);
  return rc_request ? FecnAnswer::AckBecn : FecnAnswer::Cnp;
}

}  // namespace hcasim::hca
