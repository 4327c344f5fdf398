#pragma once
// Counters of one port, per VL, owned by the port. The statistics writer reads
// them; the port never formats output.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

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

// A VL's drops by reason (indexed by DropReason). Most VLs of most ports never
// drop a packet, so the counters are made at the first drop: until then a VL
// keeps one pointer for them. Reading gives 0 for a reason never counted.
class DropCounts {
 public:
  DropCounts() = default;
  DropCounts(const DropCounts& o) { *this = o; }
  DropCounts& operator=(const DropCounts& o) {
    counts_ = o.counts_ ? std::make_unique<Counts>(*o.counts_) : nullptr;
    return *this;
  }
  DropCounts(DropCounts&&) = default;
  DropCounts& operator=(DropCounts&&) = default;
  uint64_t operator[](std::size_t reason) const { return counts_ ? (*counts_)[reason] : 0; }
  void add(DropReason why) {
    if (!counts_) counts_ = std::make_unique<Counts>();
    ++(*counts_)[static_cast<std::size_t>(why)];
  }
  std::size_t size() const { return kDropReasonCount; }
  // Every reason's count, in DropReason order.
  const uint64_t* begin() const { return counts_ ? counts_->data() : kNone.data(); }
  const uint64_t* end() const { return begin() + kDropReasonCount; }

 private:
  using Counts = std::array<uint64_t, kDropReasonCount>;
  static constexpr Counts kNone{};
  std::unique_ptr<Counts> counts_;
};

// A VL's counters. A port makes them at the VL's first packet or drop (a
// port operates up to 15 data VLs, and most carry nothing), so the VLs that
// never counted anything cost a null pointer. Laid out for the cache: a
// transmission and a reception update the first line; credit stalls and drops
// the second, with what the port keeps beside them (Port::VlRecord).
struct VlStats {
  uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;            // wire bytes, LRH through VCRC
  uint64_t tx_payload_bytes = 0;
  uint64_t tx_high_water_bytes = 0; // transmit buffer occupancy, wire bytes
  uint64_t rx_packets = 0;
  uint64_t rx_bytes = 0;
  uint64_t rx_payload_bytes = 0;
  uint64_t rx_high_water_bytes = 0; // receive buffer occupancy, in 64-byte blocks x 64
  uint64_t credit_stall_ps = 0;     // time the link sat idle while this VL's head packet lacked credits
  DropCounts drops;
};
static_assert(sizeof(VlStats) == 80, "a VL's counters: one line of traffic, then stalls and drops");

// A port's VlStats, one slot per VL it operates: data VLs 0..n-1, then VL15,
// then one shared by the VLs it does not operate (n..14: what arrives or is
// dropped on them). A slot is null until its VL counts something; reading it
// gives zeros. operator[] takes a VL number 0..15 (a VL n..14 reads the shared
// slot); the range is every slot, so a sum over it counts everything.
class VlStatsTable {
 public:
  // The data_vls + 2 slots at `slots` (not owned: the port keeps them with its
  // other per-VL state); data_vls: 0..15.
  VlStatsTable(VlStats* const* slots, unsigned data_vls) : slots_(slots), data_vls_(static_cast<uint8_t>(data_vls)) {}
  const VlStats& operator[](unsigned vl) const { return or_none(slots_[slot(vl)]); }
  // Where VL vl's counters are kept (see above).
  std::size_t slot(unsigned vl) const {
    return vl < data_vls_ ? vl : vl == 15 ? data_vls_ : data_vls_ + 1u;
  }

  class Iterator {
   public:
    explicit Iterator(VlStats* const* at) : at_(at) {}
    const VlStats& operator*() const { return or_none(*at_); }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return at_ != o.at_; }

   private:
    VlStats* const* at_;
  };
  Iterator begin() const { return Iterator(slots_); }
  Iterator end() const { return Iterator(slots_ + data_vls_ + 2); }

 private:
  static const VlStats& or_none(const VlStats* s) {
    static const VlStats none;
    return s != nullptr ? *s : none;
  }
  VlStats* const* slots_;
  uint8_t data_vls_;
};

// A port's counters: per VL, and the transmitter's time and flow-control
// packets per port (they are counted on every VL a port operates, and per VL
// they would make every VL's counters).
class PortStats {
 public:
  PortStats(VlStats* const* slots, unsigned data_vls) : vl(slots, data_vls) {}
  VlStatsTable vl;
  uint64_t busy_ps() const { return busy_ps_; }  // time the transmitter was serializing (flow control included)
  uint64_t fc_tx() const { return fc_tx_; }      // flow-control packets sent
  uint64_t fc_rx() const { return fc_rx_; }      // flow-control packets received
  // Time the link sat idle while at least one data VL's head packet lacked
  // credits: the union of the VLs' credit stalls (a stall opens when the link
  // goes idle and every open one closes at the next transmission, so the
  // union is each closing time less the earliest open stall's start).
  uint64_t xmit_wait_ps() const { return xmit_wait_ps_; }

 private:
  friend class Port;  // counts them
  uint64_t busy_ps_ = 0;
  uint64_t xmit_wait_ps_ = 0;
  uint64_t fc_tx_ = 0;
  uint64_t fc_rx_ = 0;
};

}  // namespace hcasim::link
