#pragma once
// The IBA data-VL arbiter as plain logic (IBA 7.6.9; seed 004 "Detailed
// Description of VL Arbitration"; iba-facts 3).
//
// Rules:
// - Two tables, high and low priority, of up to 64 {VL, weight} entries each.
//   A weight counts 64-byte blocks per turn (0 = the entry is skipped); a VL may
//   appear several times and in both tables.
// - An entry for VL15 or for a VL the port does not operate (at or above its
//   operational VLs) is skipped like a weight-0 entry: the IBA (7.6.9, as the
//   OpenSM QoS guide restates it) lets a port skip it or send from any VL for
//   it, and skipping is what tables written for more VLs than a port has (a
//   ConnectX-2's VL0-7 on a 4-VL port, OpenSM's default VL0-14) rely on. The
//   tables as programmed are kept by the port (an SMP reads them back).
// - Each table is served round robin from its current entry. An entry keeps the
//   turn while its used count is below its weight and its VL has a packet that
//   fits the credits; otherwise the turn moves to the next entry that can send.
// - Weight policy for the cases the spec leaves open (iba-facts "Where the
//   sources are silent"), chosen by name:
//     overshoot: per packet; the last packet of a turn may overshoot the weight;
//                the overshoot is forgotten when the turn moves on (default).
//     deficit:   as overshoot, but the overshoot is carried into the entry's
//                next turn (deficit round robin), so shares follow the weights
//                for any packet size.
// - LimitOfHighPriority (VLHighLimit) counts high-priority blocks in 4 KiB units
//   (64 blocks) that may go before low priority gets a turn: 255 = unbounded (low
//   may starve); 0 = one high packet, then low gets a turn if it has a packet.
//   When the limit is used up and low has nothing, high goes on.
// - VL15 and flow-control packets are not arbitrated here: the port sends them
//   first (VL15 > flow control > data VLs, iba-facts 3).

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace hcasim::link {

constexpr unsigned kMaxDataVls = 15;           // VL0..VL14 (seed 004: VLCap 5 = VL[14:0])
constexpr unsigned kVl15 = 15;                 // management VL
constexpr unsigned kMaxArbEntries = 64;        // iba-facts 3: VLArbHighCap / VLArbLowCap <= 64
constexpr unsigned kHighLimitUnbounded = 255;  // iba-facts 3: 255 = unbounded
constexpr uint32_t kHighLimitUnitBlocks = 64;  // 4 KiB in 64-byte blocks

struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;  // 64-byte blocks per turn, 0..255
};

enum class WeightPolicy : uint8_t { Overshoot, Deficit };

struct VlArbConfig {
  std::vector<VlArbEntry> high;        // high-priority table, <= 64 entries
  std::vector<VlArbEntry> low;         // low-priority table, <= 64 entries
  uint32_t high_limit = 0;             // LimitOfHighPriority, 4 KiB units, 255 = unbounded
  WeightPolicy policy = WeightPolicy::Overshoot;
};
inline bool operator==(const VlArbEntry& a, const VlArbEntry& b) { return a.vl == b.vl && a.weight == b.weight; }
inline bool operator==(const VlArbConfig& a, const VlArbConfig& b) {
  static_assert(sizeof(VlArbConfig) == 56, "a field was added: compare it here");
  return a.high == b.high && a.low == b.low && a.high_limit == b.high_limit && a.policy == b.policy;
}

// Per data VL: the size in blocks of the head packet when it may be sent now
// (it has credits), 0 when the VL cannot send.
using VlCandidates = std::array<uint32_t, kMaxDataVls>;

// The tables as a port of `operational_vls` data VLs serves them: entries for
// VL15 or a VL at or above operational_vls get weight 0; positions stay.
VlArbConfig operational_tables(const VlArbConfig& config, unsigned operational_vls);
// The data VLs these tables ever serve (an entry of weight above 0 in either), a bit each.
uint16_t served_data_vls(const VlArbConfig& config);

class VlArbiter {
 public:
  // Serves operational_tables(config, operational_vls).
  explicit VlArbiter(const VlArbConfig& config, unsigned operational_vls = kMaxDataVls);
  VlArbiter(const VlArbiter& o) { copy_from(o); }
  VlArbiter& operator=(const VlArbiter& o) {
    if (this != &o) copy_from(o);
    return *this;
  }

  // Picks the VL that sends next and charges the packet to its table entry.
  // Returns -1 when no entry of either table can send.
  int grant(const VlCandidates& candidates);

  // True when some entry of either table could send one of these candidates.
  bool can_grant(const VlCandidates& candidates) const;

 private:
  // One table's turn: the state a grant reads and writes besides the entries.
  struct Turn {
    int64_t used = 0;       // blocks sent in the current entry's turn
    uint32_t current = 0;   // the entry holding the turn
    uint32_t size = 0;      // entries in the table
  };
  // A table as the search sees it: its turn, entries and (deficit) carries.
  class Table {
   public:
    Table(Turn& turn, const VlArbEntry* entries, int64_t* carry, WeightPolicy policy)
        : turn_(turn), entries_(entries), carry_(carry), policy_(policy) {}
    int pick(const VlCandidates& c);
    int pick_work_conserving(const VlCandidates& c);
    // What pick does when no VL has a candidate (the turn goes round once and
    // comes back fresh), without searching.
    void idle(const VlCandidates& none);
    bool has_candidate(const VlCandidates& c) const;

   private:
    bool sendable(const VlArbEntry& e, const VlCandidates& c) const {
      return e.weight != 0 && e.vl < kMaxDataVls && c[e.vl] != 0;
    }
    int pick_overshoot(const VlCandidates& c);
    int pick_deficit(const VlCandidates& c);

    Turn& turn_;
    const VlArbEntry* entries_;
    int64_t* carry_;  // deficit only
    WeightPolicy policy_;
  };
  // The entries: the low table's, then the high table's, in entries_inline_
  // when they fit (the default table for up to 16 data VLs), else on the heap.
  const VlArbEntry* entries() const { return on_heap_ ? entries_heap_.get() : entries_inline_.data(); }
  const VlArbEntry* low_entries() const { return entries(); }
  const VlArbEntry* high_entries() const { return entries() + low_turn_.size; }
  // Deficit policy: the blocks each entry overshot in its last turn (low's,
  // then high's); null under overshoot, which carries nothing.
  int64_t* low_carry() { return carry_.get(); }
  int64_t* high_carry() { return carry_ ? carry_.get() + low_turn_.size : nullptr; }
  Table high() { return Table(high_turn_, high_entries(), high_carry(), policy_); }
  Table low() { return Table(low_turn_, low_entries(), low_carry(), policy_); }
  static bool has_candidate(const Turn& t, const VlArbEntry* e, const VlCandidates& c);
  void copy_from(const VlArbiter& o);

  // Laid out for the cache: a grant reads the first line (both turns, the
  // high-priority budget and the first six entries, which is all of the
  // default table for up to six data VLs) and the line of entries after it
  // for a larger table. An arbiter keeps no room for entries it does not
  // have (64 of each table's would be 256 bytes: every port has one).
  static constexpr unsigned kInlineEntries = 16;
  Turn high_turn_;
  Turn low_turn_;
  int64_t high_budget_reload_;     // blocks
  int64_t high_budget_;
  WeightPolicy policy_;
  bool unbounded_;
  bool high_exhausted_ = false;
  bool on_heap_ = false;  // entries_heap_ holds the entries
  std::array<VlArbEntry, kInlineEntries> entries_inline_{};
  std::unique_ptr<VlArbEntry[]> entries_heap_;  // when low + high entries exceed kInlineEntries
  std::unique_ptr<int64_t[]> carry_;
};

}  // namespace hcasim::link
