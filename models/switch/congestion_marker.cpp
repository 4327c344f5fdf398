#include "models/switch/congestion_marker.hpp"

namespace hcasim::sw {

CongestionMarker::CongestionMarker(unsigned ports) : elements_(ports), settings_(ports), vls_(ports * kVls) {}

void CongestionMarker::recompute() {
  for (unsigned i = 0; i < settings_.size(); ++i) settings_[i] = ib::port_marking_settings(switch_, elements_[i], i + 1);
}

void CongestionMarker::set_switch(const ib::SwitchCongestionSetting& s) {
  ib::apply_switch_setting(s, switch_);
  recompute();
}

void CongestionMarker::set_port(unsigned port_number, const ib::SwitchPortCongestionElement& e) {
  elements_.at(port_number - 1) = e;
  recompute();
}

void CongestionMarker::update(unsigned port_number, unsigned vl, uint64_t queued_bytes, uint64_t buffer_bytes,
                              uint64_t now_ps) {
  Vl& v = vl_of(port_number, vl);
  const bool congested = ib::is_congested(settings_[port_number - 1].threshold, queued_bytes, buffer_bytes);
  if (congested && v.congested_since == 0) {
    v.congested_since = now_ps + 1;
  } else if (!congested && v.congested_since != 0) {
    v.stats.congested_ps += now_ps + 1 - v.congested_since;
    v.congested_since = 0;
  }
}

bool CongestionMarker::judge(unsigned port_number, unsigned vl, const ib::VlCongestionState& state,
                             uint32_t packet_bytes, uint64_t now_ps) {
  update(port_number, vl, state.queued_bytes, state.buffer_bytes, now_ps);
  Vl& v = vl_of(port_number, vl);
  const bool mark = ib::should_mark_fecn(settings_[port_number - 1], state, packet_bytes, v.counter);
  if (mark) ++v.stats.marked;
  return mark;
}

CcVlStats CongestionMarker::stats(unsigned port_number, unsigned vl, uint64_t now_ps) const {
  const Vl& v = vls_[(port_number - 1) * kVls + vl];
  CcVlStats s = v.stats;
  if (v.congested_since != 0 && now_ps + 1 > v.congested_since) s.congested_ps += now_ps + 1 - v.congested_since;
  return s;
}

}  // namespace hcasim::sw
