#pragma once
// A switch port's side of InfiniBand congestion control (IBA Annex A10.2.1):
// when a packet leaving an output port and VL gets FECN set. Plain functions
// and one counter; the switch module calls them per packet. No SystemC.
//
// Rules:
// - Settings of a port (port_marking_settings): its SwitchPortCongestionSetting
//   element when that element is Valid with Control_Type 0; otherwise the
//   switch-wide SwitchCongestionSetting's Threshold, Packet_Size and
//   Marking_Rate. Victim marking is the port's Victim_Mask bit. (OpenSM
//   ib_types.h and opa-ff stl_sm_types.h describe both attributes so.)
// - Threshold 0-15: 0 means the port never marks, 15 is the most aggressive
//   (OpenSM osm_subnet.c "0x0 - none, 0x1 - loose, ..., 0xF - aggressive";
//   opa-ff "0 = no marking and 15 = most aggressive"). The sources fix only
//   that order; the model's mapping is linear in sixteenths of the VL's buffer:
//   the VL is congested when its queued bytes >= buffer * (16 - Threshold) / 16
//   (Threshold 15: 1/16 of the buffer, Threshold 1: 15/16).
// - Packet_Size, in 64-byte credits (OpenSM "units are in credits"; opa-ff "in
//   64 byte units"): a packet of fewer bytes than Packet_Size * 64 is never
//   marked. 0 makes every packet eligible.
// - Victim or root: a congested VL that has credits to send is a root of the
//   congestion; one that has none is a victim of congestion further on. A root
//   marks; a victim marks only when the port's Victim_Mask bit is set (OpenSM
//   ib_sw_cong_setting_t: the mask's ports "mark packets that encounter
//   congestion with a FECN, whether they are the source or victim of
//   congestion", A10.2.1.1.1). Reading "source" as "has credits" is the
//   model's.
// - Marking_Rate m: the number of unmarked eligible packets between two marked
//   ones (OpenSM "mean number of packets between marking eligible packets";
//   opa-ff "minimum number of packets between marking eligible packets"). The
//   model is deterministic: of the eligible packets of a congested port and
//   VL, the (m+1)th, 2(m+1)th, ... are marked; m = 0 marks each one. The count
//   is kept per port and VL (MarkingRateCounter) and only eligible packets at a
//   congested, marking VL advance it.
// - A Set applies only the parts its Control_Map names (apply_switch_setting;
//   bits in cc_attributes.hpp); a Get returns the whole setting.

#include <cstdint>

#include "models/ib/cc_attributes.hpp"

namespace hcasim::ib {

constexpr unsigned kThresholdSteps = 16;  // model: Threshold t marks from (16 - t) / 16 of the buffer

// What one output port marks with (see the rules).
struct PortMarkingSettings {
  uint8_t threshold = 0;      // 0-15
  uint8_t packet_size = 0;    // 64-byte credits
  uint16_t marking_rate = 0;  // unmarked eligible packets between marked ones
  bool victim_marking = false;
  bool operator==(const PortMarkingSettings& o) const;
};

PortMarkingSettings port_marking_settings(const SwitchCongestionSetting& sw, const SwitchPortCongestionElement& port,
                                          unsigned port_number);

// The queued bytes from which a VL of `buffer_bytes` is congested at
// `threshold`; UINT64_MAX for threshold 0 (never).
uint64_t congestion_level_bytes(uint8_t threshold, uint64_t buffer_bytes);
bool is_congested(uint8_t threshold, uint64_t queued_bytes, uint64_t buffer_bytes);
// Whether a packet of `packet_bytes` (LRH through VCRC) may be marked.
bool is_marking_eligible(uint8_t packet_size, uint32_t packet_bytes);

// Counts eligible packets since the last mark at one port and VL.
class MarkingRateCounter {
 public:
  // Called for each eligible packet at a congested, marking VL: true when
  // this one is to be marked.
  bool take(uint16_t marking_rate);
  uint32_t unmarked_since_last() const { return unmarked_; }

 private:
  uint32_t unmarked_ = 0;
};

// The state of one output VL when a packet leaves it.
struct VlCongestionState {
  uint64_t queued_bytes = 0;  // bytes waiting at the VL, the packet included
  uint64_t buffer_bytes = 0;  // the VL's buffer
  bool has_credit = true;     // the downstream receiver has credit for the VL
};

// The whole decision: whether the packet of `packet_bytes` leaving a VL in
// `state` is marked with FECN; advances `counter` as the rules say.
bool should_mark_fecn(const PortMarkingSettings& s, const VlCongestionState& state, uint32_t packet_bytes,
                      MarkingRateCounter& counter);

// `current` after a Set of `incoming`: only the parts named by
// incoming.control_map change; current.control_map is left as it was.
void apply_switch_setting(const SwitchCongestionSetting& incoming, SwitchCongestionSetting& current);

}  // namespace hcasim::ib
