#pragma once
// A switch's forwarding decision as plain logic: linear forwarding table (LFT)
// and the per-(input port, output port) SL-to-VL tables (seed 004 steps 6-7,
// "Switch Port SL-to-VL Mapping"; iba-facts 3 and 4).
//
// Rules:
// - The LFT maps a DLID to an output port number. DLID 0, a DLID at or beyond
//   the end of the table, an entry of kNoRoute (0xFF) or an entry naming no port
//   of the switch (> port count) = no route: the packet is dropped ("no_route").
// - Output port 0 = the switch's own management port: the packet goes there.
//   So does a VL15 packet to the permissive LID 0xFFFF (a directed-route SMP,
//   iba-facts 6), which has no LFT entry.
// - Output VL: a packet that arrived on VL15 (management, not flow-controlled)
//   leaves on VL15. A data packet leaves on entry SL of the SL-to-VL table of
//   its (input port, output port) pair; an entry of 15 = drop ("sl_to_vl15").
// - Input port 0 means "from the management port". Every (input, output) pair
//   has its own 16-entry table; the default is SL mod the output port's
//   operational data VLs (what the port's own default is).
// - A port with LMC l owns the 2^l LIDs base .. base + 2^l - 1 and each has its
//   own LFT entry (iba-facts 4); assign_lid_range fills them.

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "models/link/port_stats.hpp"

namespace hcasim::sw {

constexpr uint8_t kNoRoute = 0xFF;          // iba-facts 4: an unrouted LFT entry (OSM_NO_PATH)
constexpr unsigned kManagementPort = 0;     // iba-facts 4: a switch's port 0
constexpr unsigned kMaxSwitchPorts = 254;   // LFT entries are one byte; 0xFF means no route
constexpr unsigned kMaxLmc = 7;             // iba-facts 4: LMC is 3 bits
constexpr unsigned kVl15 = 15;              // management VL (iba-facts 3)
constexpr uint16_t kPermissiveLid = 0xFFFF; // iba-facts 6: DLID of a directed-route SMP
constexpr unsigned kLftBlockEntries = 64;   // iba-facts 6: LinearForwardingTable block
using Sl2VlTable = std::array<uint8_t, 16>; // iba-facts 3: 16 SL entries of 4 bits

enum class RouteKind : uint8_t { Forward, Management, Drop };

struct RouteDecision {
  RouteKind kind = RouteKind::Drop;
  uint8_t out_port = 0;                           // Forward: 1..port count
  uint8_t out_vl = 0;                             // Forward: data VL or 15
  link::DropReason why = link::DropReason::NoRoute;  // Drop
};

class ForwardingTable {
 public:
  // operational_vls[i]: data VLs port i + 1 operates. Throws std::invalid_argument
  // for a port count outside 1..254 or a VL count outside 1..15.
  explicit ForwardingTable(const std::vector<unsigned>& operational_vls);

  unsigned port_count() const { return ports_; }

  void set_lft(std::vector<uint8_t> lft) { lft_ = std::move(lft); }
  // Sets the 64 entries of LFT block `block` (LIDs 64 x block ..), growing the
  // table (new entries kNoRoute) as needed.
  void set_lft_block(unsigned block, const std::array<uint8_t, kLftBlockEntries>& entries);
  const std::vector<uint8_t>& lft() const { return lft_; }
  // The LFT entry for a DLID, kNoRoute when the table has none.
  uint8_t lookup(uint16_t dlid) const { return dlid < lft_.size() ? lft_[dlid] : kNoRoute; }

  // Throws std::invalid_argument for a port outside 0..port count or an entry above 15.
  void set_sl2vl(unsigned in_port, unsigned out_port, const Sl2VlTable& table);
  const Sl2VlTable& sl2vl(unsigned in_port, unsigned out_port) const { return tables_[which_[index(in_port, out_port)]]; }

  // The decision for a packet with this DLID and SL entering at in_port.
  RouteDecision route(unsigned in_port, uint16_t dlid, uint8_t sl, bool vl15) const;

 private:
  std::size_t index(unsigned in_port, unsigned out_port) const {
    return static_cast<std::size_t>(in_port) * (ports_ + 1) + out_port;
  }

  // What a route reads comes first, in the switch state's leading line: the
  // port count, the uniform table, the LFT and the distinct tables.
  static constexpr uint16_t kMixed = UINT16_MAX;
  unsigned ports_;
  // The table when all pairs toward ports 1..n (the ones a forwarded packet
  // reads) use one (the default tables, or one an SM programmed on every
  // pair): then a lookup needs no look at the pair's index, a cache line fewer
  // per packet. kMixed otherwise.
  uint16_t uniform_ = kMixed;
  std::vector<uint8_t> lft_;
  // The SL-to-VL table of each (input, output) pair as an index into the
  // distinct tables: fabrics use a handful, and a 64-port switch's lookup then
  // reads one byte pair of a 8 KB array instead of a 16-byte row of a 67 KB one.
  std::vector<Sl2VlTable> tables_;
  std::vector<uint16_t> which_;    // (ports + 1) x (ports + 1), by index()
  std::vector<uint32_t> uses_;     // by table: the pairs toward ports 1..n that use it
  std::map<Sl2VlTable, uint16_t> interned_;
  uint16_t intern(const Sl2VlTable& t);
  void set_which(unsigned in_port, unsigned out_port, uint16_t id);
};

// Sets the LFT entries of the 2^lmc LIDs from `base` to `port`, growing the table
// (new entries kNoRoute) as needed. Throws std::invalid_argument for lmc > 7, a
// base not aligned to 2^lmc, or LIDs beyond the unicast range (iba-facts 4:
// 0x0001-0xBFFF).
void assign_lid_range(std::vector<uint8_t>& lft, uint16_t base, unsigned lmc, uint8_t port);

}  // namespace hcasim::sw
