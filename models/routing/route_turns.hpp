#pragma once
// The turns a routed fabric's packets take: every (switch, input port, output
// port) that some route from an HCA port to a LID uses. The credit-loop check
// (credit_loops.hpp) builds its channel dependency graph from them. Pure C++.
//
// Rules (the sources and drops of credit_loops.hpp):
// - Every HCA port linked to a switch sends to every assigned LID but its own
//   (but switches' own LIDs when the routes leave them outside their layers:
//   Routes::switch_lids_outside_layers).
//   A switch forwards a LID on the port its LFT names when that port has a
//   link (0, kNoPath, a port out of range or an unlinked port: it does not).
// - A turn (s, in, out): a packet arrives at switch s on port `in` and s
//   forwards it on `out`. From an HCA on s: `in` is the HCA's link, for every
//   LID the HCA port does not own. Inside the fabric: a switch some packet to
//   the LID reaches (from any source) forwards it to switch s.
// - Turns are numbered in (switch node, in, out) order.
//
// How: a switch with an HCA is on the way to every LID (its HCA sends to all),
// so its table alone gives its HCAs' turns into it and the turn each LID takes
// at the switch it forwards that LID to: one pass over the table. A switch
// without HCAs is on the way to a LID only when some switch on the way forwards
// it there: those are walked LID by LID, in LID order so that the entries read
// stay in cache. About one step per (switch, LID) reached, no work per
// (source, LID).

#include <cstdint>
#include <vector>

#include "models/routing/routing.hpp"

namespace hcasim::routing {

class TurnSet {
 public:
  // An empty set for the switches of t.
  explicit TurnSet(const topology::Topology& t);

  void add(unsigned node, unsigned in, unsigned out) { add_bit(base(node, in) + out); }
  // The number of turns (valid once complete).
  uint32_t size() const { return size_; }
  // The number of a turn in the set, 0 .. size() - 1.
  uint32_t id(unsigned node, unsigned in, unsigned out) const;
  // body(node, in, out) for every turn, in number order.
  template <class Body>
  void each(Body&& body) const;

  // For loops that add many turns: the turn (node, in, out) is bit
  // base(node, in) + out.
  uint64_t base(unsigned node, unsigned in) const { return first_bit_[node] + uint64_t{in} * width_[node]; }
  void add_bit(uint64_t bit) { bits_[bit / 64] |= uint64_t{1} << (bit % 64); }
  // Numbers the turns; add none after this.
  void complete();

 private:

  std::vector<unsigned> width_;        // node -> ports + 1 for a switch, 0 for an HCA
  std::vector<uint64_t> first_bit_;    // node -> its first bit: a bit per (in, out), in * width + out
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> rank_;         // word -> turns in the words before it
  uint32_t size_ = 0;
};

// The turns the routes use (rules above).
TurnSet used_turns(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                   const Routes& routes);

template <class Body>
void TurnSet::each(Body&& body) const {
  for (unsigned n = 0; n < width_.size(); ++n) {
    const uint64_t first = first_bit_[n], last = first_bit_[n + 1];
    for (uint64_t w = first / 64; w * 64 < last; ++w) {
      uint64_t word = bits_[w];
      if (w * 64 < first) word &= ~uint64_t{0} << (first - w * 64);
      if ((w + 1) * 64 > last) word &= (uint64_t{1} << (last - w * 64)) - 1;
      for (; word != 0; word &= word - 1) {
        const uint64_t bit = w * 64 + __builtin_ctzll(word) - first;
        body(n, static_cast<unsigned>(bit / width_[n]), static_cast<unsigned>(bit % width_[n]));
      }
    }
  }
}

}  // namespace hcasim::routing
