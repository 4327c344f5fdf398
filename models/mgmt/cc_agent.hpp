#pragma once
// The Congestion Control agent of one HCA or switch (IBA Annex A10.4): answers
// the CC class's Get and Set (cc_mad.hpp, cc_attributes.hpp) with the node's
// congestion state, the switch's marker (switch/congestion_marker.hpp) or each
// HCA port's CCTI machinery (hca/ca_congestion.hpp). The node's glue
// (cc_node.hpp) hands it requests and sends its answers. No SystemC.
//
// Rules:
// - Checks in this order: class version other than 2 -> status
//   kStatusBadVersion (UNSUP_CLASS_VER); a CC_Key other than the node's, when
//   the node's is not 0 -> no answer, CC_KeyViolations + 1 (saturating at
//   0xFFFF; A10.4.1.1; the lease period and protect bit are kept and
//   reported, not enforced); a method other than Get or Set ->
//   kStatusUnsupportedMethod; an attribute the node does not have (below),
//   or a Set of a read-only one -> kStatusUnsupportedMethodAttr; a modifier
//   beyond the node's blocks -> kStatusInvalidAttribute, nothing changed.
// - The answer is the request with method GetResp, the status, and the
//   attribute's current value (after the Set). Control_Map (Switch- and
//   CACongestionSetting) is a Set's mask, not state: the answer carries the
//   request's (so a manager that stores answers sees what it set).
// - Attributes: CongestionInfo (Get; a switch: no credit starvation, no
//   table; an HCA: ControlTableCap = its table's 64-entry blocks),
//   CongestionKeyInfo (Get, Set), CongestionLog (Get; see below), TimeStamp
//   (Get: now in 1.024 us). A switch: SwitchCongestionSetting (a Set applies
//   the parts its Control_Map names), SwitchPortCongestionSetting (modifier =
//   block of 32 ports; a Set applies the elements with Valid set to ports
//   1..N; port 0 is the management port, never marks, reads 0). An HCA, for
//   the port the MAD came in on: CACongestionSetting, CongestionControlTable
//   (modifier = block).
// - CC_Key and CongestionKeyInfo: one per switch, one per HCA port.
// - CongestionLog (model's reading: the marker and CCTI counters stand in for
//   the event list, which stays empty): a switch's LogEventsCounter = the
//   packets it marked (saturating 16 bits), PortMap = its ports that marked
//   any; a CA port's ThresholdEventCounter = its CCTIs that reached
//   Trigger_Threshold. CurrentTimeStamp as TimeStamp. Reading clears nothing.
// - The model's congestion state of a node is made (and on) at the first Set
//   that needs it; a Get before reads the power-on values (all zero).

#include <cstdint>
#include <vector>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_mad.hpp"

namespace hcasim::hca {
class Hca;
}
namespace hcasim::sw {
class Switch;
}

namespace hcasim::mgmt {

struct CcAgentStats {
  uint64_t gets = 0;
  uint64_t sets = 0;
  uint64_t errors = 0;              // answered with a non-zero status
  uint64_t key_violations = 0;      // refused for their CC_Key, no answer
};

class CcAgent {
 public:
  explicit CcAgent(hca::Hca& hca);
  explicit CcAgent(sw::Switch& sw);

  bool is_switch() const { return switch_ != nullptr; }
  // Processes a request that arrived on port `in` (number) at `now_ps` into
  // `resp`. False when it is refused for its CC_Key and gets no answer.
  bool process(const ib::CcMad& req, unsigned in, uint64_t now_ps, ib::CcMad& resp);
  const ib::CongestionKeyInfo& key_info(unsigned in) const { return keys_.at(key_port(in)); }
  const CcAgentStats& stats() const { return stats_; }

 private:
  unsigned key_port(unsigned in) const { return is_switch() ? 0 : in; }
  uint16_t get(const ib::CcMad& req, unsigned in, uint64_t now_ps, ib::CcMad& resp);
  uint16_t set(const ib::CcMad& req, unsigned in);
  uint16_t switch_log(uint64_t now_ps, ib::CcMad& resp) const;
  uint16_t port_block(uint32_t block, ib::SwitchPortCongestionSetting& out) const;

  hca::Hca* hca_ = nullptr;
  sw::Switch* switch_ = nullptr;
  std::vector<ib::CongestionKeyInfo> keys_;  // by key port (a switch: [0] only)
  CcAgentStats stats_;
};

}  // namespace hcasim::mgmt
