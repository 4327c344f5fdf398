#pragma once
// Counters of one port, per VL, owned by the port. The statistics writer reads
// them; the port never formats output.

#include <array>
#include <cstdint>

namespace hcasim::link {

enum class DropReason : uint8_t {
  SlToVl15,        // seed 004 Table 25-2: an SL mapped to VL15 discards the data packet
  MtuExceeded,     // payload longer than the port's MTU
  BadVl,           // arrived on a VL the port does not operate
  BufferOverflow,  // arrived without room in its receive buffer (a credit violation)
  Vl15Overflow,    // VL15 is not flow-controlled: a full VL15 buffer drops
  LinkDown,        // submitted to a port with no link, or a data packet its PortState refuses (IBA 7.2)
  NoRoute,         // switch: no LFT entry for the DLID (0, beyond the table, 0xFF or no such port); iba-facts 4
  HoqLifetime,     // switch output: longer than HOQLife at the head of its VL queue (iba-facts 4)
  SwitchLifetime,  // switch output: longer than the switch lifetime since it arrived (iba-facts 4)
  VlStalled,       // switch output: queued for or sent to a VL stalled after VLStallCount HOQ discards
  FaultDrop,       // fault injection: lost on the link, by a targeted rule or at random (link.faults)
  CrcError,        // fault injection: bit errors the receiver caught (VCRC, ICRC or a length check; iba-facts 4);
                   // the port's fault statistics split them by decode error
  Count
};
constexpr std::size_t kDropReasonCount = static_cast<std::size_t>(DropReason::Count);
const char* to_string(DropReason r);

// Laid out for the cache: a transmission updates the first line (a
// flow-control packet's transmission and reception count there too, on the VL
// it is for), a reception the second. Twelve drop reasons fill the third; a
// thirteenth would add a line to every VL of every port.
struct alignas(64) VlStats {
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;            // wire bytes, LRH through VCRC
  uint64_t tx_payload_bytes = 0;
  uint64_t tx_high_water_bytes = 0; // transmit buffer occupancy, wire bytes
  uint64_t credit_stall_ps = 0;     // time the link sat idle while this VL's head packet lacked credits
  uint64_t busy_ps = 0;             // time the transmitter serialized this VL's packets (flow control included)
  uint64_t fc_tx = 0;               // flow-control packets sent for this VL
  uint64_t fc_rx = 0;               // flow-control packets received for this VL
  alignas(64) uint64_t rx_packets = 0;
  uint64_t rx_bytes = 0;
  uint64_t rx_payload_bytes = 0;
  uint64_t rx_high_water_bytes = 0; // receive buffer occupancy, in 64-byte blocks x 64
  std::array<uint64_t, kDropReasonCount> drops{};
};

struct PortStats {
  std::array<VlStats, 16> vl;
  // Sums over the VLs: kept per VL so that a hop updates one line.
  uint64_t busy_ps() const { return sum(&VlStats::busy_ps); }  // time the transmitter was serializing
  uint64_t fc_tx() const { return sum(&VlStats::fc_tx); }      // flow-control packets sent
  uint64_t fc_rx() const { return sum(&VlStats::fc_rx); }      // flow-control packets received

 private:
  uint64_t sum(uint64_t VlStats::*field) const {
    uint64_t n = 0;
    for (const VlStats& s : vl) n += s.*field;
    return n;
  }
};

}  // namespace hcasim::link
