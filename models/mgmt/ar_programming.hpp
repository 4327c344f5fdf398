#pragma once
// Adaptive routing in band: the switch side of hcasim's AR attributes
// (ib/ar_attributes.hpp) on an AdaptiveRouter, and the translation the SM
// uses to write them. No SystemC.
//
// Rules:
// - Get and Set of ArInfo, ArGroupTable and ArLidTable read and write the
//   router; statuses as the SMA's: a group block or LID block beyond the
//   switch's capacity (kArGroupCap groups, LIDs below 0xC000), a group port
//   above the switch's ports, a mode or choice above 2, or a k of 0 is
//   "invalid attribute", nothing changed.

#include <cstdint>

#include "models/ib/ar_attributes.hpp"
#include "models/switch/adaptive_router.hpp"

namespace hcasim::mgmt {

bool is_ar_attribute(uint16_t attr);
uint16_t get_ar_attribute(const sw::AdaptiveRouter& ar, uint16_t attr, uint32_t mod, uint8_t* out);
uint16_t set_ar_attribute(sw::AdaptiveRouter& ar, unsigned port_count, uint16_t attr, uint32_t mod, const uint8_t* in);

ib::ArInfo ar_info_of(const sw::AdaptiveRoutingConfig& c);

}  // namespace hcasim::mgmt
