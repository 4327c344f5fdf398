#pragma once
// A node's performance management agent (class 0x04, IBA 16.1.3): answers Get
// and Set of ClassPortInfo, PortCounters, PortCountersExtended,
// PortRcvErrorDetails and PortXmitDiscardDetails from the ports' own statistics (link/port_stats.hpp), so that what perfquery reads
// and what stats.json reports are the same counts.
//
// Rules:
// - Counts of a port (port_counts), summed over its VLs, VL15 included:
//   data in 4-byte words of the bytes from LRH up to, not including, the VCRC
//   (IBA 16.1.3.5: the bytes between the start delimiter and the VCRC, link
//   packets excluded); packets; PortXmitDiscards = drops for HOQ lifetime,
//   switch lifetime, a stalled VL and a port that is down; PortRcvErrors =
//   bit errors caught (CRC), buffer overruns, a VL not operated, an MTU
//   exceeded; PortRcvSwitchRelayErrors = no LFT route and an SL mapped to
//   VL15; VL15Dropped = VL15 overflows. A packet the link lost (fault
//   injection's drops) reached no receiver and counts nowhere. Every packet
//   is unicast (the model has no multicast). PortXmitWait = the time the link
//   sat idle while a data VL's head packet lacked credits
//   (PortStats::xmit_wait_ps, up to now) in ticks of 8 byte times of the port.
//   The model has no symbol errors, link error recoveries, downed-link counts
//   or constraint errors: those read 0.
// - PortRcvErrorDetails: PortLocalPhysicalErrors = CRC errors,
//   PortMalformedPktErrors = a VL not operated or an MTU exceeded,
//   PortBufferOverrunErrors = buffer overruns, PortDLIDMappingErrors = no LFT
//   route, PortVLMappingErrors = an SL mapped to VL15, PortLoopingErrors 0.
//   PortXmitDiscardDetails: PortInactiveDiscards = a port that is down,
//   PortSwLifetimeLimitDiscards = switch lifetime, PortSwHOQLifetimeLimit-
//   Discards = HOQ lifetime, PortNeighborMTUDiscards 0. 16 bits, saturating.
// - PortCounters' fields saturate at their widths; PortCountersExtended's are 64 bits.
// - PortSelect: a port number (an HCA's 1..n; a switch's 0..n, 0 its
//   management port with no counts), or 0xFF for every port summed
//   (ClassPortInfo's AllPortSelect). Another value: status "invalid field".
// - A Set clears the counters its CounterSelect (and PortCounters'
//   CounterSelect2: bit 0 PortXmitWait) bits name, by keeping their current counts as the new zero, and answers with
//   the counters after the clear. PortCounters and PortCountersExtended share
//   the data and packet counters, as the hardware's do.
// - Methods other than Get and Set: status "unsupported method"; other
//   attributes: "unsupported method / attribute". Responses get no answer.

#include <cstdint>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/pma_mad.hpp"
#include "models/link/port.hpp"

namespace hcasim::mgmt {

struct PortCounts {
  uint64_t xmit_data = 0, rcv_data = 0;  // 4-byte words
  uint64_t xmit_pkts = 0, rcv_pkts = 0;
  uint64_t unicast_xmit_pkts = 0, unicast_rcv_pkts = 0;
  uint64_t xmit_discards = 0, rcv_errors = 0, rcv_switch_relay_errors = 0, vl15_dropped = 0;
  // PortRcvErrorDetails: the parts of rcv_errors and rcv_switch_relay_errors (looping: none in the model).
  uint64_t local_physical_errors = 0, malformed_pkt_errors = 0, buffer_overrun_errors = 0;
  uint64_t dlid_mapping_errors = 0, vl_mapping_errors = 0;
  // PortXmitDiscardDetails: parts of xmit_discards (neighbor MTU: none; the model drops at the receiver).
  uint64_t inactive_discards = 0, sw_lifetime_discards = 0, sw_hoq_discards = 0;
  uint64_t xmit_wait = 0;  // ticks of kXmitWaitTickBytes byte times
};

// PortXmitWait's tick: the time the port takes to send this many bytes (NVIDIA
// Quantum's convention, PortSamplesControl.Tick 7: lost bytes = 8 x PortXmitWait).
constexpr uint32_t kXmitWaitTickBytes = 8;

PortCounts port_counts(const link::Port& port);

class Pma {
 public:
  // ports[n] = port number n (null for an HCA's 0 and a switch's management port).
  Pma(std::vector<const link::Port*> ports, bool is_switch);
  // The answer to the request `req` (kMadBytes) in `resp`; false when it gets none.
  bool process(const uint8_t* req, uint8_t* resp);
  // The counts of port number n since its last clear (n = 0xFF: all summed).
  PortCounts counts(unsigned n) const;

 private:
  PortCounts raw(unsigned n) const;
  bool valid(unsigned select) const;
  void clear(unsigned select, uint16_t select_bits, uint8_t select2_bits, uint16_t attr);

  std::vector<const link::Port*> ports_;
  bool is_switch_;
  std::vector<PortCounts> zero_;  // by port number: the counts at the last clear
};

}  // namespace hcasim::mgmt
