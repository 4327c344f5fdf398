#pragma once
// A switch's FECN marking (IBA Annex A10.2.1) across its output ports and VLs,
// and its statistics. Plain C++: the switch calls it with the time and the
// output VL's state; the decision itself is ib::should_mark_fecn
// (cc_marking.hpp), whose rules apply.
//
// Rules:
// - A packet is judged when it enters its output port's VL transmit queue (it
//   leaves the switch through that queue, in order). The switch says what
//   waits for the VL (queued bytes, the packet included), its buffer, and
//   whether the downstream receiver has credit for the VL now (Switch: the
//   transmit queue plus every input VL buffer whose head requests the VL,
//   against the transmit buffer plus one receive VL buffer). A marked packet gets
//   ib::kBthFecn in its BTH; packets without a BTH (raw, flow control) and
//   VL15 packets are never judged.
// - Settings per port: ib::port_marking_settings of the switch-wide
//   SwitchCongestionSetting and the port's SwitchPortCongestionSetting
//   element (set_port); installed at time zero by the builder, or later by a
//   CC agent.
// - Time congested per port and VL: the VL is congested while its queued
//   bytes are at or above ib::congestion_level_bytes of its threshold; the
//   state is sampled when a packet enters the queue and when the port sends
//   one (update), so an interval starts and ends at those instants.
// - Statistics per port and VL: packets marked, time congested (finish closes
//   the open intervals).

#include <cstdint>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_marking.hpp"

namespace hcasim::sw {

struct CcVlStats {
  uint64_t marked = 0;        // packets that left with FECN set
  uint64_t congested_ps = 0;  // time the VL's queue was at or above its congestion level
};

class CongestionMarker {
 public:
  static constexpr unsigned kVls = 15;  // data VLs

  explicit CongestionMarker(unsigned ports);

  // A Set of the switch-wide setting (only the parts its Control_Map names).
  void set_switch(const ib::SwitchCongestionSetting& s);
  // A port's element (port number 1..ports).
  void set_port(unsigned port_number, const ib::SwitchPortCongestionElement& e);
  const ib::SwitchCongestionSetting& switch_setting() const { return switch_; }
  const ib::SwitchPortCongestionElement& port_element(unsigned port_number) const { return elements_.at(port_number - 1); }
  const ib::PortMarkingSettings& settings(unsigned port_number) const { return settings_[port_number - 1]; }

  // A packet of `packet_bytes` entering the queue of (port_number, vl) in
  // `state` at `now_ps`: whether to set FECN. Updates the congested time.
  bool judge(unsigned port_number, unsigned vl, const ib::VlCongestionState& state, uint32_t packet_bytes,
             uint64_t now_ps);
  // The queue of (port_number, vl) holds `queued_bytes` of `buffer_bytes` now.
  void update(unsigned port_number, unsigned vl, uint64_t queued_bytes, uint64_t buffer_bytes, uint64_t now_ps);

  // port_number 1..ports, vl 0..14; an open congested interval counts up to now_ps.
  CcVlStats stats(unsigned port_number, unsigned vl, uint64_t now_ps) const;
  unsigned ports() const { return static_cast<unsigned>(settings_.size()); }

 private:
  struct Vl {
    ib::MarkingRateCounter counter;
    CcVlStats stats;
    uint64_t congested_since = 0;  // 0 = not congested, else start + 1
  };
  Vl& vl_of(unsigned port_number, unsigned vl) { return vls_[(port_number - 1) * kVls + vl]; }
  void recompute();

  ib::SwitchCongestionSetting switch_;
  std::vector<ib::SwitchPortCongestionElement> elements_;  // by port number - 1
  std::vector<ib::PortMarkingSettings> settings_;          // by port number - 1
  std::vector<Vl> vls_;                                    // port-major
};

}  // namespace hcasim::sw
