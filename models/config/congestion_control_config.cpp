#include "models/config/congestion_control_config.hpp"

#include <algorithm>

namespace hcasim::config {

ib::SwitchCongestionSetting switch_setting(const SwitchCcConfig& c) {
  ib::SwitchCongestionSetting s;
  s.control_map = ib::kSwCcMapVictimMask | ib::kSwCcMapThreshold | ib::kSwCcMapMarkingRate;
  if (c.victim_marking)
    for (unsigned port = 0; port < 255; ++port) s.victim_mask.set(port);
  s.threshold = static_cast<uint8_t>(c.threshold);
  s.packet_size = static_cast<uint8_t>(c.packet_size);
  s.marking_rate = static_cast<uint16_t>(c.marking_rate);
  return s;
}

ib::CaCongestionSetting ca_setting(const CaCcConfig& c) {
  ib::CaCongestionSetting s;
  s.port_control = c.control_type == CcControlType::PerSl ? ib::kCaPortControlPerSl : 0;
  s.control_map = 0xFFFF;
  for (ib::CaCongestionEntry& e : s.entries) {
    e.ccti_timer = static_cast<uint16_t>(c.ccti_timer);
    e.ccti_increase = static_cast<uint8_t>(c.ccti_increase);
    e.trigger_threshold = static_cast<uint8_t>(c.trigger_threshold);
    e.ccti_min = static_cast<uint8_t>(c.ccti_min);
  }
  return s;
}

std::vector<ib::CctEntry> cct_entries(const CaCcConfig& c) {
  std::vector<ib::CctEntry> t;
  for (uint32_t i = 0; i <= c.ccti_limit; ++i) {
    if (!c.cct.empty()) {
      t.push_back(ib::CctEntry::from_word(static_cast<uint16_t>(c.cct[i])));
    } else {
      const uint32_t m = std::min<uint32_t>(i * c.cct_step, 0x3FFF);
      t.push_back(ib::CctEntry{static_cast<uint8_t>(c.cct_shift), static_cast<uint16_t>(m)});
    }
  }
  return t;
}

}  // namespace hcasim::config
