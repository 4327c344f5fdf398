#pragma once
// A channel adapter's side of InfiniBand congestion control (IBA Annex
// A10.2.2): the congestion control table index (CCTI) of a QP or SL, how BECNs
// and the CCTI timer move it, and the injection delay the Congestion Control
// Table gives for it. Plain functions and a small table class; the HCA
// module's scheduler calls them. No SystemC.
//
// Rules:
// - Each BECN received raises the CCTI by CCTI_Increase, up to CCTI_Limit
//   (OpenSM: CCTI_Increase "the number to be added to the table Index (CCTI)
//   on the receipt of a BECN"; CCTI_Limit "maximum valid CCTI for this table").
// - Each expiry of the CCTI timer lowers the CCTI by 1, not below CCTI_Min,
//   and the timer restarts with its set value (OpenSM: "When the timer expires
//   it will be reset to its specified value, and 1 will be decremented from
//   the CCTI"; CCTI_Min "the minimum value permitted for the CCTI"). The timer
//   runs whether or not BECNs arrive.
// - The CCTI never leaves [CCTI_Min, CCTI_Limit]. Model: when CCTI_Min is
//   above CCTI_Limit the limit wins (the table has no entry past it).
// - CCTI_Timer counts 1.024 us (the unit of the class's TimeStamp, OpenSM
//   ib_time_stamp_t; the unit of CCTI_Timer itself is not in the public sources
//   read, see docs/congestion-control.md). Model: a CCTI_Timer of 0 never
//   expires.
// - An event is logged when the CCTI becomes equal to Trigger_Threshold
//   (OpenSM: "When the CCTI is equal to this value, an event is logged in the
//   CAs cyclic event log"); the model logs on the change that reaches it.
// - The injection delay of CCT entry {shift, multiplier} after a packet whose
//   transmission at the port's rate takes T is T * multiplier / 2^shift: the
//   definition of the Omni-Path (STL) spec vol. 1 17.3.12 as the Omni-Path
//   fabric manager quotes it (cornelisnetworks/opa-fm stl_cca.c: "IPG =
//   packet_transmit_time>>shift_field * multiplier", and it solves for the
//   multiplier as IPG * 2^shift / packet time), STL's CCT entry having IBA's
//   layout. The IBA A10 text itself was not available; this is the one
//   function to change if it differs. Entry 0 (CCTI 0) is normally {0, 0}: no
//   delay.
// - A CACongestionSetting Set replaces the entries of the SLs its Control_Map
//   names and always takes Port_Control (apply_ca_setting). A
//   CongestionControlTable Set of block b replaces CCTIs 64b to 64b+63 and
//   sets CCTI_Limit.

#include <cstdint>
#include <vector>

#include "models/ib/cc_attributes.hpp"

namespace hcasim::ib {

constexpr uint64_t kCctiTimerUnitPs = 1'024'000;  // 1.024 us (see the rules)

// The CCTI after one BECN.
uint16_t ccti_after_becn(uint16_t ccti, uint8_t ccti_increase, uint16_t ccti_limit, uint8_t ccti_min);
// The CCTI after one expiry of the CCTI timer.
uint16_t ccti_after_timer(uint16_t ccti, uint16_t ccti_limit, uint8_t ccti_min);
// The period of the CCTI timer in picoseconds; 0 for a timer that never expires.
uint64_t ccti_timer_period_ps(uint16_t ccti_timer);
// Whether moving from `before` to `after` logs a congestion event.
bool ccti_reaches_trigger(uint16_t before, uint16_t after, uint8_t trigger_threshold);

// The delay after a packet that took `packet_time_ps` to transmit (see the
// rules), rounded down to whole picoseconds.
uint64_t cct_injection_delay_ps(const CctEntry& entry, uint64_t packet_time_ps);

// A CA port's Congestion Control Table: up to `blocks` * 64 entries, set block
// by block from CongestionControlTable attributes.
class CongestionControlTableState {
 public:
  explicit CongestionControlTableState(unsigned blocks) : entries_(blocks * kCctEntriesPerBlock) {}
  // False (nothing changed) when `block` is beyond the table's capacity.
  bool set_block(uint32_t block, const CongestionControlTable& t);
  // The attribute for a Get of `block` (zero entries beyond the capacity).
  CongestionControlTable get_block(uint32_t block) const;
  uint16_t ccti_limit() const { return ccti_limit_; }
  // The entry for `ccti`; {0, 0} beyond the table.
  CctEntry entry(uint16_t ccti) const { return ccti < entries_.size() ? entries_[ccti] : CctEntry{}; }
  unsigned blocks() const { return static_cast<unsigned>(entries_.size() / kCctEntriesPerBlock); }

 private:
  std::vector<CctEntry> entries_;
  uint16_t ccti_limit_ = 0;
};

// `current` after a Set of `incoming` (see the rules); current.control_map is
// left as it was.
void apply_ca_setting(const CaCongestionSetting& incoming, CaCongestionSetting& current);

}  // namespace hcasim::ib
