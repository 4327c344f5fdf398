// The switch marking decision of cc_marking.hpp.
#include "models/ib/cc_marking.hpp"

#include <limits>

namespace hcasim::ib {

bool PortMarkingSettings::operator==(const PortMarkingSettings& o) const {
  return threshold == o.threshold && packet_size == o.packet_size && marking_rate == o.marking_rate &&
         victim_marking == o.victim_marking;
}

PortMarkingSettings port_marking_settings(const SwitchCongestionSetting& sw, const SwitchPortCongestionElement& port,
                                          unsigned port_number) {
  PortMarkingSettings s;
  if (port.valid && !port.credit_starvation) {
    s.threshold = port.threshold;
    s.packet_size = port.packet_size;
    s.marking_rate = port.marking_rate;
  } else {
    s.threshold = sw.threshold;
    s.packet_size = sw.packet_size;
    s.marking_rate = sw.marking_rate;
  }
  s.victim_marking = sw.victim_mask.test(port_number);
  return s;
}

uint64_t congestion_level_bytes(uint8_t threshold, uint64_t buffer_bytes) {
  const unsigned t = threshold & 0x0F;
  if (t == 0) return std::numeric_limits<uint64_t>::max();
  return buffer_bytes * (kThresholdSteps - t) / kThresholdSteps;
}

bool is_congested(uint8_t threshold, uint64_t queued_bytes, uint64_t buffer_bytes) {
  return queued_bytes >= congestion_level_bytes(threshold, buffer_bytes);
}

bool is_marking_eligible(uint8_t packet_size, uint32_t packet_bytes) {
  return packet_bytes >= static_cast<uint32_t>(packet_size) * kCreditBytesForPacketSize;
}

bool MarkingRateCounter::take(uint16_t marking_rate) {
  if (unmarked_ >= marking_rate) {
    unmarked_ = 0;
    return true;
  }
  ++unmarked_;
  return false;
}

bool should_mark_fecn(const PortMarkingSettings& s, const VlCongestionState& state, uint32_t packet_bytes,
                      MarkingRateCounter& counter) {
  if (!is_congested(s.threshold, state.queued_bytes, state.buffer_bytes)) return false;
  if (!state.has_credit && !s.victim_marking) return false;  // a victim, and the port does not mark victims
  if (!is_marking_eligible(s.packet_size, packet_bytes)) return false;
  return counter.take(s.marking_rate);
}

void apply_switch_setting(const SwitchCongestionSetting& incoming, SwitchCongestionSetting& current) {
  const uint32_t map = incoming.control_map;
  if (map & kSwCcMapVictimMask) current.victim_mask = incoming.victim_mask;
  if (map & kSwCcMapCreditMask) current.credit_mask = incoming.credit_mask;
  if (map & kSwCcMapThreshold) {
    current.threshold = incoming.threshold;
    current.packet_size = incoming.packet_size;
  }
  if (map & kSwCcMapCreditStarvation) {
    current.cs_threshold = incoming.cs_threshold;
    current.cs_return_delay = incoming.cs_return_delay;
  }
  if (map & kSwCcMapMarkingRate) current.marking_rate = incoming.marking_rate;
}

}  // namespace hcasim::ib
