#pragma once
// Performance management MADs (class 0x04, IBA 16.1): the attributes a port's
// performance management agent answers, as libibmad's fields (rdma-core
// libibmad/fields.c) lay them out in the 192 data bytes that follow the
// 24-byte common header and 40 reserved bytes.
//
// Rules:
// - PortCounters (0x0012): 16-, 8- and 4-bit error counters, 32-bit data and
//   packet counters; data counters in 4-byte words. Each saturates at its
//   field's maximum (IBA 16.1.3.5) rather than wrapping.
// - PortCountersExtended (0x001D): 64-bit data and packet counters.
// - ClassPortInfo (0x0001): CapabilityMask at bytes 2-3, RespTimeValue in the
//   low 5 bits of bytes 4-7.
// - CounterSelect bits name the counters a Set clears (PortCounters: bit 0
//   SymbolErrorCounter ... bit 15 PortRcvPkts; CounterSelect2 bit 0
//   PortXmitWait; PortCountersExtended: bit 0 PortXmitData ... bit 7
//   PortMulticastRcvPkts; the details: bit i the i-th counter).
// - PortRcvErrorDetails (0x0015) and PortXmitDiscardDetails (0x0016): 16-bit
//   counters from byte 4 (PortLocalPhysicalErrors, PortMalformedPktErrors,
//   PortBufferOverrunErrors, PortDLIDMappingErrors, PortVLMappingErrors,
//   PortLoopingErrors; PortInactiveDiscards, PortNeighborMTUDiscards,
//   PortSwLifetimeLimitDiscards, PortSwHOQLifetimeLimitDiscards).

#include <cstdint>

namespace hcasim::ib {

constexpr uint8_t kClassPerfMgmt = 0x04;
constexpr uint16_t kAttrPmaClassPortInfo = 0x0001;
constexpr uint16_t kAttrPortCounters = 0x0012;
constexpr uint16_t kAttrPortCountersExtended = 0x001D;
constexpr uint16_t kAttrPortRcvErrorDetails = 0x0015;
constexpr uint16_t kAttrPortXmitDiscardDetails = 0x0016;
constexpr unsigned kPmaDataOffset = 64;     // the attribute's bytes in the MAD
constexpr uint8_t kAllPortSelect = 0xFF;    // PortSelect: every port, summed
constexpr uint16_t kPmaCapAllPortSelect = 1u << 8;
constexpr uint16_t kPmaCapExtendedWidth = 1u << 9;   // IsExtendedWidthSupported: PortCountersExtended
constexpr uint16_t kPmaCapXmitWait = 1u << 12;       // PortCounters' PortXmitWait is counted

struct PortCounters {
  uint8_t port_select = 0;
  uint16_t counter_select = 0;
  uint16_t symbol_errors = 0;
  uint8_t link_error_recovery = 0;
  uint8_t link_downed = 0;
  uint16_t rcv_errors = 0;
  uint16_t rcv_remote_physical_errors = 0;
  uint16_t rcv_switch_relay_errors = 0;
  uint16_t xmit_discards = 0;
  uint8_t xmit_constraint_errors = 0;
  uint8_t rcv_constraint_errors = 0;
  uint8_t counter_select2 = 0;
  uint8_t local_link_integrity_errors = 0;  // 4 bits
  uint8_t excessive_buffer_overrun_errors = 0;  // 4 bits
  uint16_t vl15_dropped = 0;
  uint32_t xmit_data = 0;  // 4-byte words
  uint32_t rcv_data = 0;
  uint32_t xmit_pkts = 0;
  uint32_t rcv_pkts = 0;
  uint32_t xmit_wait = 0;

  void encode(uint8_t* data) const;  // the attribute's 192 bytes
  void decode(const uint8_t* data);
};

struct PortCountersExtended {
  uint8_t port_select = 0;
  uint16_t counter_select = 0;
  uint64_t xmit_data = 0;  // 4-byte words
  uint64_t rcv_data = 0;
  uint64_t xmit_pkts = 0;
  uint64_t rcv_pkts = 0;
  uint64_t unicast_xmit_pkts = 0;
  uint64_t unicast_rcv_pkts = 0;
  uint64_t multicast_xmit_pkts = 0;
  uint64_t multicast_rcv_pkts = 0;

  void encode(uint8_t* data) const;
  void decode(const uint8_t* data);
};

// PortRcvErrorDetails' or PortXmitDiscardDetails' counters (6 and 4 used).
struct PortDetails {
  static constexpr unsigned kMaxCounters = 6;
  uint8_t port_select = 0;
  uint16_t counter_select = 0;
  uint16_t counters[kMaxCounters] = {};

  void encode(uint8_t* data) const;
  void decode(const uint8_t* data);
};

// A value in an n-bit counter: saturated at its maximum.
constexpr uint64_t saturated(uint64_t v, unsigned bits) {
  const uint64_t max = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return v > max ? max : v;
}

}  // namespace hcasim::ib
