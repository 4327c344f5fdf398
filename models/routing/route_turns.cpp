#include "models/routing/route_turns.hpp"

#include <array>

namespace hcasim::routing {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;
using topology::kNoNode;

TurnSet::TurnSet(const Topology& t) : width_(t.nodes.size(), 0), first_bit_(t.nodes.size() + 1, 0) {
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind == NodeKind::Switch) width_[n] = t.nodes[n].ports + 1;
    first_bit_[n + 1] = first_bit_[n] + uint64_t{width_[n]} * width_[n];
  }
  bits_.assign(first_bit_.back() / 64 + 1, 0);
}

uint32_t TurnSet::id(unsigned node, unsigned in, unsigned out) const {
  const uint64_t bit = base(node, in) + out, w = bit / 64;
  return rank_[w] + static_cast<uint32_t>(__builtin_popcountll(bits_[w] & ((uint64_t{1} << (bit % 64)) - 1)));
}

void TurnSet::complete() {
  rank_.resize(bits_.size());
  uint32_t count = 0;
  for (std::size_t w = 0; w < bits_.size(); ++w) {
    rank_[w] = count;
    count += static_cast<uint32_t>(__builtin_popcountll(bits_[w]));
  }
  size_ = count;
}

namespace {

constexpr uint32_t kNone = 0xFFFFFFFFu;
constexpr unsigned kEntries = 256;  // values an LFT entry can hold

// The switches by number, each port's far end looked up once.
class Walker {
 public:
  Walker(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes, TurnSet& set)
      : t_(t), lids_(lids), set_(set) {
    std::vector<uint32_t> number(t.nodes.size(), kNone);
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      if (t.nodes[n].kind != NodeKind::Switch) continue;
      number[n] = static_cast<uint32_t>(node_.size());
      node_.push_back(n);
    }
    const std::size_t lid_count = std::size_t{lids.top} + 1;
    assigned_.assign(lid_count, 0);
    for (unsigned lid = 1; lid < lid_count && lid < lids.owner.size(); ++lid)
      assigned_[lid] = lids.owner[lid].node != kNoNode &&
                       !(routes.switch_lids_outside_layers && t.nodes[lids.owner[lid].node].kind == NodeKind::Switch);
    first_slot_.assign(node_.size() + 1, 0);
    for (uint32_t sw = 0; sw < node_.size(); ++sw) first_slot_[sw + 1] = first_slot_[sw] + t.nodes[node_[sw]].ports + 1;
    next_.assign(first_slot_.back(), kNone);
    turn_.assign(first_slot_.back(), 0);
    forwards_.assign(node_.size(), {});
    source_.assign(node_.size(), 0);
    for (uint32_t sw = 0; sw < node_.size(); ++sw) {
      const unsigned n = node_[sw];
      // Its table, padded with kNoPath to every LID when short (or missing).
      if (n < routes.lft.size() && routes.lft[n].size() >= lid_count) {
        row_.push_back(routes.lft[n].data());
      } else {
        padded_.emplace_back(lid_count, kNoPath);
        if (n < routes.lft.size())
          std::copy(routes.lft[n].begin(), routes.lft[n].begin() + std::min(routes.lft[n].size(), lid_count),
                    padded_.back().begin());
        row_.push_back(padded_.back().data());
      }
      for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
        const auto peer = index.peer(n, p);
        if (!peer) continue;
        forwards_[sw][p / 64] |= uint64_t{1} << (p % 64);
        const std::size_t k = first_slot_[sw] + p;
        if (t.nodes[peer->node].kind == NodeKind::Switch) {
          next_[k] = number[peer->node];
          turn_[k] = set.base(peer->node, peer->port);
        } else {
          source_[sw] = 1;
          hcas_.push_back({sw, p, *peer});
        }
      }
      if (source_[sw]) sources_.push_back(sw);
    }
    // A switch with one HCA port sends nothing to that port's own LIDs.
    sole_.assign(lid_count, kNone);
    fed_.assign(lid_count, 0);
    for (std::size_t h = 0; h < hcas_.size(); ++h) {
      if ((h > 0 && hcas_[h - 1].sw == hcas_[h].sw) || (h + 1 < hcas_.size() && hcas_[h + 1].sw == hcas_[h].sw)) continue;
      const LinkEnd& port = hcas_[h].port;
      const unsigned base = lids.base[port.node][port.port - 1];
      for (unsigned lid = base; base != 0 && lid < base + (1u << lids.lmc) && lid < lid_count; ++lid)
        if (lids.owner[lid] == port) sole_[lid] = hcas_[h].sw;
    }
  }

  // A source switch is on the way to every LID (but the own LIDs of its HCA
  // port when it has one): one pass over its table gives its HCAs' turns into
  // it, (s, the HCA's port, out) for every out it forwards some LID on that the
  // HCA port does not own, and the turn every LID it sends takes at the switch
  // it forwards that LID to (and whether that is the switch of the LID's sole
  // HCA port: fed_).
  void source_turns() {
    struct Next {
      const uint8_t* row = nullptr;       // the next switch's table, null when the entry leads to no switch
      const Forwards* forwards = nullptr; // its ports with links
      uint64_t base = 0;                  // set.base(next switch, the port it arrives on)
      uint32_t sw = kNone;                // its number
    };
    std::array<Next, kEntries> next;
    std::array<uint32_t, kEntries> routed, own;
    std::size_t h = 0;
    for (uint32_t sw : sources_) {
      next.fill({});
      for (unsigned p = 1; first_slot_[sw] + p < first_slot_[sw + 1]; ++p) {
        const uint32_t k = first_slot_[sw] + p, n = next_[k];
        if (n != kNone) next[p] = {row_[n], &forwards_[n], turn_[k], n};
      }
      const Forwards& mine = forwards_[sw];
      const uint8_t* row = row_[sw];
      routed.fill(0);
      for (unsigned lid = 1; lid <= lids_.top; ++lid) {
        if (!assigned_[lid]) continue;
        const uint8_t e = row[lid];
        ++routed[e];
        const Next& x = next[e];
        if (x.row == nullptr || sole_[lid] == sw) continue;
        const uint8_t e2 = x.row[lid];
        if (forwards(*x.forwards, e2)) set_.add_bit(x.base + e2);
        fed_[lid] |= x.sw == sole_[lid];
      }
      for (; h < hcas_.size() && hcas_[h].sw == sw; ++h) {
        const Hca& hca = hcas_[h];
        own.fill(0);
        const unsigned base = lids_.base[hca.port.node][hca.port.port - 1];
        for (unsigned lid = base; base != 0 && lid < base + (1u << lids_.lmc) && lid <= lids_.top; ++lid)
          if (lids_.owner[lid] == hca.port) ++own[row[lid]];
        for (unsigned e = 1; e < kEntries; ++e)
          if (routed[e] > own[e] && forwards(mine, static_cast<uint8_t>(e))) set_.add(node_[sw], hca.in, e);
      }
    }
  }

  // Switches with no HCA, and the switch of a LID's sole HCA port, are on the
  // way to the LID only when some switch on the way forwards it there: LID by
  // LID, from what every other source forwards it to, along the tables while
  // no source that source_turns covered and no switch this LID has already
  // reached is met; each step into the next switch is the turn the next one
  // takes. Then from the switch of the sole HCA port, when it was reached.
  void transit_turns() {
    const bool walk = sources_.size() < node_.size();  // else every switch that feeds another is a source
    std::vector<unsigned> stamp(node_.size(), 0);       // switch -> the last LID that reached it
    for (unsigned lid = 1; lid <= lids_.top; ++lid) {
      if (!assigned_[lid]) continue;
      const uint32_t sole = sole_[lid];
      if (walk)
        for (uint32_t s : sources_)
          if (s != sole) follow(step(s, lid), lid, stamp);
      if (sole != kNone && fed_[lid]) follow(sole, lid, stamp);
    }
  }

 private:
  using Forwards = std::array<uint64_t, 4>;  // a bit per LFT entry value that is a port with a link
  struct Hca {
    uint32_t sw;          // the switch it is linked to
    unsigned in;          // the switch's port
    LinkEnd port;         // the HCA port
  };

  static bool forwards(const Forwards& f, uint8_t e) { return f[e / 64] >> (e % 64) & 1; }

  // Walks `lid` from switch u (reached), adding the turns, until a switch
  // covered by source_turns or one this LID has reached already.
  void follow(uint32_t u, unsigned lid, std::vector<unsigned>& stamp) {
    const uint32_t sole = sole_[lid];
    while (u != kNone && stamp[u] != lid) {
      if (source_[u] && u != sole) return;  // source_turns has it
      if (u == sole && !fed_[lid]) {          // reached after all: walked from there once this LID is done
        fed_[lid] = 1;
        return;
      }
      stamp[u] = lid;
      const uint32_t next = step(u, lid);
      if (next != kNone && forwards(forwards_[next], row_[next][lid]))
        set_.add_bit(turn_[first_slot_[u] + row_[u][lid]] + row_[next][lid]);
      u = next;
    }
  }

  // The switch that switch sw forwards `lid` to, or kNone (an HCA, no link, no port).
  uint32_t step(uint32_t sw, unsigned lid) const {
    const uint8_t e = row_[sw][lid];
    return first_slot_[sw] + e < first_slot_[sw + 1] ? next_[first_slot_[sw] + e] : kNone;
  }

  const Topology& t_;
  const Lids& lids_;
  TurnSet& set_;
  std::vector<uint8_t> assigned_;               // LID -> 1 when some port holds it
  std::vector<unsigned> node_;                  // switch number -> node
  std::vector<const uint8_t*> row_;             // switch number -> LFT, every LID 0..top
  std::vector<std::vector<uint8_t>> padded_;    // the tables of row_ that had to be extended
  std::vector<Forwards> forwards_;              // switch number -> its ports with links
  std::vector<uint8_t> source_;                 // switch number -> 1 when an HCA is linked to it
  std::vector<uint32_t> first_slot_;            // switch number -> the slot of its port 0; ports 1..N follow
  // Per slot (switch port):
  std::vector<uint32_t> next_;                  // the switch its link leads to, or kNone
  std::vector<uint64_t> turn_;                  // set.base(that switch, the port it arrives on)
  std::vector<uint32_t> sources_;               // switch numbers with HCAs linked, ascending
  std::vector<uint32_t> sole_;                  // LID -> the switch whose only HCA port owns it, or kNone
  std::vector<uint8_t> fed_;                    // LID -> 1 when a switch on the way forwards it to sole_[LID]
  std::vector<Hca> hcas_;                       // HCA ports linked to switches, by switch number and port
};

}  // namespace

TurnSet used_turns(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes) {
  TurnSet set(t);
  Walker walker(t, index, lids, routes, set);
  walker.source_turns();
  walker.transit_turns();
  set.complete();
  return set;
}

}  // namespace hcasim::routing
