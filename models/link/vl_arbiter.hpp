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

enum class WeightPolicy { Overshoot, Deficit };

struct VlArbConfig {
  std::vector<VlArbEntry> high;        // high-priority table, <= 64 entries
  std::vector<VlArbEntry> low;         // low-priority table, <= 64 entries
  uint32_t high_limit = 0;             // LimitOfHighPriority, 4 KiB units, 255 = unbounded
  WeightPolicy policy = WeightPolicy::Overshoot;
};

// Per data VL: the size in blocks of the head packet when it may be sent now
// (it has credits), 0 when the VL cannot send.
using VlCandidates = std::array<uint32_t, kMaxDataVls>;

// The tables as a port of `operational_vls` data VLs serves them: entries for
// VL15 or a VL at or above operational_vls get weight 0; positions stay.
VlArbConfig operational_tables(const VlArbConfig& config, unsigned operational_vls);

class VlArbiter {
 public:
  // Serves operational_tables(config, operational_vls).
  explicit VlArbiter(const VlArbConfig& config, unsigned operational_vls = kMaxDataVls);

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
    Table(Turn& turn, const std::array<VlArbEntry, kMaxArbEntries>& entries, std::vector<int64_t>& carry,
          WeightPolicy policy)
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
    const std::array<VlArbEntry, kMaxArbEntries>& entries_;
    std::vector<int64_t>& carry_;
    WeightPolicy policy_;
  };
  Table high() { return Table(high_turn_, high_entries_, high_carry_, policy_); }
  Table low() { return Table(low_turn_, low_entries_, low_carry_, policy_); }
  static bool has_candidate(const Turn& t, const std::array<VlArbEntry, kMaxArbEntries>& e, const VlCandidates& c);

  // Laid out for the cache: a grant reads the first line (both turns, the
  // high-priority budget and the first four low-priority entries, which is
  // all of the default table for up to four data VLs) and the line or two of
  // entries of a larger table it serves.
  Turn high_turn_;
  Turn low_turn_;
  int64_t high_budget_reload_;     // blocks
  int64_t high_budget_;
  WeightPolicy policy_;
  bool unbounded_;
  bool high_exhausted_ = false;
  std::array<VlArbEntry, kMaxArbEntries> low_entries_{};
  std::array<VlArbEntry, kMaxArbEntries> high_entries_{};
  std::vector<int64_t> high_carry_;  // deficit policy: blocks overshot in an entry's last turn
  std::vector<int64_t> low_carry_;
};

}  // namespace hcasim::link
