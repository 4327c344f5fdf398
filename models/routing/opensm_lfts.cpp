// OpenSM's LFTs from the candidates of its min-hop and up/down engines
// (opensm 3.3: osm_ucast_mgr.c ucast_mgr_build_lfts, osm_switch.c
// osm_switch_recommend_path with OpenSM's defaults: no scatter, no port
// shifting, no existing LFT honoured on a first sweep). Rules in routing.hpp.
//
// How, entry for entry the same as OpenSM's switch by switch, LID by LID loop:
// - A switch's choice for a LID depends only on its own port loads and on its
//   earlier choices for the same port's LIDs, so the switches may take a LID in
//   any order as long as each takes the LIDs in OpenSM's order.
// - OpenSM's destination order lists the HCA ports of one destination switch
//   one after the other. Such a run is routed at once: every switch takes the
//   run's LIDs with its candidates towards the run's switch, computed for the
//   destination switches of up to 64 runs at a time (TargetCandidates). With
//   LMC 0 every LID of a run starts the ring search at the same port (1, or 1 +
//   the switch's index when shifted) and takes the least loaded candidate, the
//   first in ring order on a tie, then counts it: the run's picks are the
//   candidates in ring order that have the least load, then those that now
//   have the next load, and so on (a water-fill), one pass per load level; a
//   single candidate takes them all. Switch LIDs come last in OpenSM's order,
//   each a run of its own, so every destination switch's candidates are
//   computed twice: memory stays linear in switches, not switches^2.
// - With LMC > 0 each LID is chosen as OpenSM chooses it; the remote systems
//   the port's earlier LIDs use (OpenSM's port->priv) are read back from the
//   entries already chosen.
// - Choices are written LID-major (one row of all switches per LID, so a run
//   fills its rows switch by switch), and turned into a table per switch at
//   the end: for a moment the tables take twice their size.
// - Cost: about (destination switches x switches) x (candidates + LIDs per
//   run), against LIDs x switches x ports, and candidate lists for every
//   (switch, destination switch), before (docs/performance.md).

#include <algorithm>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

// A destination port in OpenSM's order.
struct Destination {
  uint16_t base = 0;          // its first LID
  bool to_switch = false;     // a switch's own LID (port 0)
  bool routed = false;        // false: an HCA port no switch reaches (kNoPath everywhere)
  unsigned target = 0;        // the destination switch (switch index): the switch itself, or the HCA port's
  uint8_t attach_port = 0;    // HCA port: the port of the target it is linked to
};

// Consecutive destinations of one pass with the same target switch.
struct Run {
  unsigned target = 0;
  bool to_switch = false;
  std::vector<std::size_t> members;  // indices into the destinations
  std::vector<uint16_t> lids;        // their LIDs in this pass
};

class LftBuilder {
 public:
  LftBuilder(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids, bool shifted,
             bool dor)
      : t_(t), index_(index), g_(g), lids_(lids), n_(g.size()), dor_(dor) {
    const std::vector<LinkEnd> order = destination_order(t, index, lid_holders(lids));
    for (const LinkEnd& e : order) {
      Destination d;
      d.to_switch = t.nodes[e.node].kind == NodeKind::Switch;
      d.base = d.to_switch ? lids.base[e.node][0] : lids.base[e.node][e.port - 1];
      if (d.to_switch) {
        d.routed = true;
        d.target = static_cast<unsigned>(g.index[e.node]);
      } else if (const auto attach = index.peer(e.node, e.port); attach && g.index[attach->node] >= 0) {
        d.routed = true;
        d.target = static_cast<unsigned>(g.index[attach->node]);
        d.attach_port = static_cast<uint8_t>(attach->port);
      }
      destinations_.push_back(d);
    }
    first_port_.assign(n_ + 1, 0);
    start_.resize(n_);
    for (unsigned s = 0; s < n_; ++s) {
      first_port_[s + 1] = first_port_[s] + t.nodes[g.node[s]].ports + 1;
      start_[s] = (1 + (shifted ? s : 0)) % num_ports(s);  // where the ring search of a LID at offset 0 starts
    }
    load_.assign(first_port_.back(), 0);
    by_lid_.assign((std::size_t{lids.top} + 1) * n_, kNoPath);
    ring_.resize(topology::kMaxPorts + 1);
    dimension_.resize(topology::kMaxPorts + 1);
  }

  void route(TargetCandidates& candidates) {
    CandidateBlock block;
    std::vector<int> column(n_, -1);  // target switch -> its column in the block, or -1
    for (unsigned offset = 0; offset < (1u << lids_.lmc); ++offset) {
      const std::vector<Run> runs = runs_of(offset);
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run& r = runs[i];
        if (column[r.target] < 0) {  // the next block: the targets of this run and the next runs
          for (unsigned t : block.targets()) column[t] = -1;
          std::vector<unsigned> targets;
          for (std::size_t j = i; j < runs.size() && targets.size() < CandidateBlock::kWidth; ++j) {
            if (column[runs[j].target] >= 0) continue;
            column[runs[j].target] = static_cast<int>(targets.size());
            targets.push_back(runs[j].target);
          }
          candidates.compute(targets, block);
        }
        const unsigned b = static_cast<unsigned>(column[r.target]);
        for (unsigned s = 0; s < n_; ++s) {
          if (s == r.target)
            route_at_target(r, offset, s);
          else if (const unsigned count = block.size(b, s))
            route_run(r, offset, s, block.begin(b, s), count);
          // else no path: kNoPath, not counted
        }
      }
    }
  }

  // The tables per switch node, from the LID-major choices.
  void write(std::vector<std::vector<uint8_t>>& lft) const {
    const std::size_t lids = std::size_t{lids_.top} + 1;
    for (unsigned s = 0; s < n_; ++s) lft[g_.node[s]].assign(lids, kNoPath);
    constexpr std::size_t kBlock = 64;  // a square of 64 x 64 entries at a time, in cache both ways
    for (std::size_t s0 = 0; s0 < n_; s0 += kBlock) {
      const std::size_t s1 = std::min<std::size_t>(n_, s0 + kBlock);
      for (std::size_t l0 = 0; l0 < lids; l0 += kBlock) {
        const std::size_t l1 = std::min(lids, l0 + kBlock);
        for (std::size_t s = s0; s < s1; ++s) {
          uint8_t* row = lft[g_.node[s]].data();
          for (std::size_t lid = l0; lid < l1; ++lid) row[lid] = by_lid_[lid * n_ + s];
        }
      }
    }
  }

 private:
  std::vector<Run> runs_of(unsigned offset) const {
    std::vector<Run> runs;
    for (std::size_t k = 0; k < destinations_.size(); ++k) {
      const Destination& d = destinations_[k];
      if (!d.routed || (d.to_switch && offset > 0)) continue;  // a switch has one LID
      if (runs.empty() || runs.back().target != d.target || runs.back().to_switch != d.to_switch)
        runs.push_back(Run{d.target, d.to_switch, {}, {}});
      runs.back().members.push_back(k);
      runs.back().lids.push_back(static_cast<uint16_t>(d.base + offset));
    }
    return runs;
  }

  uint8_t& entry(unsigned lid, unsigned s) { return by_lid_[std::size_t{lid} * n_ + s]; }
  uint32_t* load(unsigned s) { return &load_[first_port_[s]]; }
  unsigned num_ports(unsigned s) const { return first_port_[s + 1] - first_port_[s]; }

  // The `count` candidates `ports` (in port order) in the order of OpenSM's
  // ring search from port `start` (0 .. ports): `ports` itself when the search
  // starts at or before its first port, else rotated into ring_.
  const uint8_t* ring_order(const uint8_t* ports, unsigned count, unsigned start) {
    if (start <= ports[0]) return ports;
    const unsigned first = static_cast<unsigned>(std::lower_bound(ports, ports + count, start) - ports);
    uint8_t* ring = ring_.data();
    for (unsigned i = first; i < count; ++i) *ring++ = ports[i];
    for (unsigned i = 0; i < first; ++i) *ring++ = ports[i];
    return ring_.data();
  }

  // The run's LIDs at their own destination switch: its own LID 0; an HCA
  // port linked to it, that port, counted.
  void route_at_target(const Run& r, unsigned offset, unsigned s) {
    if (r.to_switch) {
      entry(r.lids.front(), s) = 0;
      return;
    }
    for (std::size_t k : r.members) {
      const Destination& d = destinations_[k];
      entry(d.base + offset, s) = d.attach_port;
      ++load(s)[d.attach_port];
    }
  }

  // The run's LIDs at switch s, from its `count` candidates `ports`. Routes to
  // switches are not counted (port_profile_switch_nodes FALSE).
  void route_run(const Run& r, unsigned offset, unsigned s, const uint8_t* ports, unsigned count) {
    if (dor_) ports = first_dimension(s, ports, &count);
    if (count == 1) {  // one way: the choice is made, the load follows
      for (uint16_t lid : r.lids) entry(lid, s) = ports[0];
      if (!r.to_switch) load(s)[ports[0]] += static_cast<uint32_t>(r.lids.size());
      return;
    }
    if (lids_.lmc == 0) {
      const uint8_t* ring = ring_order(ports, count, start_[s]);
      if (r.to_switch)
        entry(r.lids.front(), s) = least_loaded(s, ring, count);
      else
        water_fill(s, ring, count, r);
      return;
    }
    for (std::size_t i = 0; i < r.lids.size(); ++i) {
      const unsigned lid = r.lids[i];
      const unsigned start_from = offset > 0 && !dor_ ? entry(lid - 1, s) + 1u : start_[s];
      const uint8_t* ring = ring_order(ports, count, start_from % num_ports(s));
      const std::vector<Used> earlier = r.to_switch ? std::vector<Used>{} : used(s, lid - offset, offset);
      const uint8_t port = choose(s, ring, count, earlier);
      entry(lid, s) = port;
      if (!r.to_switch) ++load(s)[port];
    }
  }

  // dor: of the candidates (in port order), those to the neighbour the first
  // of them in the ring search from start_[s] leads to, in port order (in
  // dimension_ when that drops some).
  const uint8_t* first_dimension(unsigned s, const uint8_t* ports, unsigned* count) {
    const unsigned node = g_.node[s];
    const unsigned first = index_.peer(node, ring_order(ports, *count, start_[s])[0])->node;
    unsigned kept = 0;
    for (unsigned i = 0; i < *count; ++i)
      if (index_.peer(node, ports[i])->node == first) dimension_[kept++] = ports[i];
    if (kept == *count) return ports;
    *count = kept;
    return dimension_.data();
  }

  // LMC 0, a switch LID: the first least loaded candidate in ring order.
  uint8_t least_loaded(unsigned s, const uint8_t* ring, unsigned count) {
    const uint32_t* l = load(s);
    uint8_t best = ring[0];
    for (unsigned i = 1; i < count; ++i)
      if (l[ring[i]] < l[best]) best = ring[i];
    return best;
  }

  // LMC 0, the run's HCA LIDs, in order: each the first least loaded candidate
  // in ring order, counted.
  void water_fill(unsigned s, const uint8_t* ring, unsigned count, const Run& r) {
    uint32_t* l = load(s);
    uint32_t level = l[ring[0]];
    for (unsigned i = 1; i < count; ++i) level = std::min(level, l[ring[i]]);
    std::size_t next = 0;
    for (; next < r.lids.size(); ++level) {
      for (unsigned i = 0; i < count && next < r.lids.size(); ++i) {
        const uint8_t port = ring[i];
        if (l[port] != level) continue;
        entry(r.lids[next++], s) = port;
        l[port] = level + 1;
      }
    }
  }

  // Remote systems used by a port's earlier LIDs on switch s (OpenSM's
  // port->priv, osm_remote_guids_count): every LID counted went to a port.
  // dor tells them apart by the neighbour's port too (find_and_add_remote_sys).
  struct Used {
    unsigned node;
    unsigned port;  // dor: the neighbour's port; else 0
    uint32_t forwarded_to;
  };
  std::vector<Used> used(unsigned s, unsigned base, unsigned offset) {
    std::vector<Used> out;
    for (unsigned o = 0; o < offset; ++o) {
      const uint8_t port = entry(base + o, s);
      if (port == kNoPath) continue;
      const LinkEnd remote = *index_.peer(g_.node[s], port);
      const unsigned remote_port = dor_ ? remote.port : 0;
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const Used& u) { return u.node == remote.node && u.port == remote_port; });
      if (it == out.end()) it = out.insert(out.end(), Used{remote.node, remote_port, 0});
      ++it->forwarded_to;
    }
    return out;
  }

  template <class Match>
  static const Used* find(const std::vector<Used>& used, Match match) {
    for (const Used& u : used)
      if (match(u)) return &u;
    return nullptr;
  }

  // osm_switch_recommend_path with LMC > 0: among the candidates in ring
  // order, a port to a system (then a node) no earlier LID of the port uses,
  // else the least loaded, the one with the fewest earlier LIDs to its system
  // on a tie. dor: no preference for another system or node; the tie goes by
  // the earlier LIDs through the same neighbour port (none: 0).
  uint8_t choose(unsigned s, const uint8_t* ring, unsigned count, const std::vector<Used>& used) const {
    static constexpr Used kNone{0, 0, 0};
    const unsigned node = g_.node[s];
    const uint32_t* l = &load_[first_port_[s]];
    uint32_t least = UINT32_MAX, least_other_sys = UINT32_MAX, least_other_node = UINT32_MAX;
    uint32_t least_forwarded = UINT32_MAX;
    uint8_t best = 0, best_other_sys = 0, best_other_node = 0;
    for (unsigned i = 0; i < count; ++i) {
      const uint8_t port = ring[i];
      const uint32_t load = l[port];
      const LinkEnd peer = *index_.peer(node, port);
      const unsigned remote = peer.node;
      const Used* same = dor_ ? find(used, [&](const Used& u) { return u.node == peer.node && u.port == peer.port; })
                              : find(used, [&](const Used& u) {
                                  return topology::system_guid(t_, u.node) == topology::system_guid(t_, remote);
                                });
      if (dor_) {
        if (!same) same = &kNone;
      } else if (!same) {
        if (load < least_other_sys) {
          least_other_sys = load;
          best_other_sys = port;
          least_forwarded = 0;
        }
      } else {
        same = find(used, [&](const Used& u) { return topology::node_guid(t_, u.node) == topology::node_guid(t_, remote); });
        if (!same && load < least_other_node) {
          least_other_node = load;
          best_other_node = port;
          least_forwarded = 0;
        }
      }
      if (load < least) {
        best = port;
        least = load;
        if (same && same->forwarded_to < least_forwarded) least_forwarded = same->forwarded_to;
      } else if (same && load == least && same->forwarded_to < least_forwarded) {
        least_forwarded = same->forwarded_to;
        best = port;
      }
    }
    if (best_other_sys) return best_other_sys;
    if (best_other_node) return best_other_node;
    return best;
  }

  const Topology& t_;
  const TopologyIndex& index_;
  const SwitchGraph& g_;
  const Lids& lids_;
  unsigned n_;                               // switches
  bool dor_;                                 // OpenSM's dor engine
  std::vector<Destination> destinations_;    // OpenSM's destination order
  std::vector<uint32_t> first_port_;         // switch -> its port 0 in load_
  std::vector<unsigned> start_;              // switch -> the port its ring search starts at (offset 0)
  std::vector<uint32_t> load_;               // HCA LIDs routed through each switch port so far
  std::vector<uint8_t> by_lid_;              // [lid * switches + switch]: the chosen port
  std::vector<uint8_t> ring_;                // scratch: one switch's candidates in ring order
  std::vector<uint8_t> dimension_;           // scratch: dor's candidates of the first dimension
};

}  // namespace

void opensm_lfts(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids,
                 TargetCandidates& candidates, bool shifted, bool dor, std::vector<std::vector<uint8_t>>& lft) {
  LftBuilder builder(t, index, g, lids, shifted, dor);
  builder.route(candidates);
  builder.write(lft);
}

}  // namespace hcasim::routing::detail
