#pragma once
// Internals of routing.cpp, shared with routing_updown.cpp, routing_opensm.cpp,
// opensm_lfts.cpp and opensm_ftree.cpp: the switch graph and, per (switch,
// target switch), the output ports a routing algorithm allows; ftree's entry
// point. Not part of the library's interface.
//
// Rules:
// - Only switches forward; an HCA is a leaf of the graph. Parallel links
//   between two switches are separate ports.
// - Candidates of (s, t), s != t, are ports of s in port order, each leading to
//   a switch one hop closer to t under the algorithm's rules; empty = no path.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing::detail {

struct SwitchGraph {
  std::vector<unsigned> node;                 // switch index -> node index
  std::vector<int> index;                     // node index -> switch index, or -1 for an HCA
  // adj[s]: (port of s, neighbour switch index), in port order.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> adj;
  std::vector<int> component;                 // switch index -> connected component number
  unsigned size() const { return static_cast<unsigned>(node.size()); }
};

SwitchGraph build_switch_graph(const topology::Topology& t, const topology::TopologyIndex& index);

// Hop distances from the nearest of `from` to every switch (-1 = unreachable).
std::vector<int> bfs_distances(const SwitchGraph& g, const std::vector<unsigned>& from);
inline std::vector<int> bfs_distances(const SwitchGraph& g, unsigned from) {
  return bfs_distances(g, std::vector<unsigned>{from});
}

// Hop distances from up to 64 switches at once: one breadth-first search that
// carries a bit per source switch, so a block of sources costs about one
// search, not 64. The result is by level: level(d)[v] has bit b set when
// switch v is d hops from sources[b].
class DistanceBlock {
 public:
  static constexpr unsigned kWidth = 64;
  // Searches from `sources` (at most kWidth switches).
  void compute(const SwitchGraph& g, const std::vector<unsigned>& sources);
  unsigned levels() const { return static_cast<unsigned>(level_.size() / (n_ ? n_ : 1)); }
  const uint64_t* level(unsigned d) const { return level_.data() + std::size_t{d} * n_; }

 private:
  std::size_t n_ = 0;
  std::vector<uint64_t> level_;               // [d * switches + v]
  std::vector<uint64_t> reached_;
  std::vector<unsigned> active_, touched_;
};

// The candidate ports of every switch towards a few target switches: what
// the OpenSM engines route those destination switches' LIDs with.
class CandidateBlock {
 public:
  static constexpr unsigned kWidth = 64;  // targets at most
  // Starts a block for the given targets (switch indices) of the switches of
  // g; a switch has at most as many candidates as links to switches.
  void start(const std::vector<unsigned>& targets, const SwitchGraph& g);
  const std::vector<unsigned>& targets() const { return targets_; }
  // Appends port p to the candidates of the switch being filled in column b.
  // Columns are filled switch by switch: a switch's ports (in port order),
  // then its end, from switch 0 to the last.
  void add(unsigned b, uint8_t port) { *end_[b]++ = port; }
  // The end of switch s in column b, or in every column.
  void end_switch(unsigned b, unsigned s) { first_[b][s + 1] = static_cast<uint32_t>(end_[b] - ports_[b].data()); }
  void end_switch(unsigned s) {
    for (unsigned b = 0; b < targets_.size(); ++b) end_switch(b, s);
  }
  // The candidates of switch s towards targets()[b], in port order.
  const uint8_t* begin(unsigned b, unsigned s) const { return ports_[b].data() + first_[b][s]; }
  unsigned size(unsigned b, unsigned s) const { return first_[b][s + 1] - first_[b][s]; }

 private:
  std::vector<unsigned> targets_;
  std::vector<std::vector<uint8_t>> ports_;    // [b]: the candidates, switch by switch
  std::vector<uint8_t*> end_;                  // [b]: where the next candidate goes
  std::vector<std::vector<uint32_t>> first_;   // [b][s]: switch s's first candidate in ports_[b]
};

// An engine's candidates: of every switch towards each target of a block.
class TargetCandidates {
 public:
  virtual ~TargetCandidates() = default;
  // The candidates towards `targets` (at most CandidateBlock::kWidth), in port
  // order; none for the target itself or a switch with no path.
  virtual void compute(const std::vector<unsigned>& targets, CandidateBlock& out) = 0;
};

// Min-hop: every port to a neighbour one hop closer to the target. A block's
// targets are searched together (DistanceBlock). A neighbour is one hop
// closer to the targets whose distance level at it is one below the
// switch's own: a mask of targets per port, one AND per level, turned into
// ports per target (a bit matrix transposed).
class MinHopCandidates : public TargetCandidates {
 public:
  explicit MinHopCandidates(const SwitchGraph& g) : g_(g) {}
  void compute(const std::vector<unsigned>& targets, CandidateBlock& out) override;

 private:
  const SwitchGraph& g_;
  DistanceBlock block_;
};

// Candidate ports by (target, switch), stored target-major (hcasim's updown).
class Candidates {
 public:
  explicit Candidates(unsigned switches) : n_(switches) { offset_.reserve(std::size_t{n_} * n_ + 1); offset_.push_back(0); }
  // Appends the candidates of the next (target, switch) pair, in target-major order.
  void add(const std::vector<uint8_t>& ports) {
    ports_.insert(ports_.end(), ports.begin(), ports.end());
    offset_.push_back(static_cast<uint32_t>(ports_.size()));
  }
  const uint8_t* begin(unsigned s, unsigned target) const { return ports_.data() + offset_[std::size_t{target} * n_ + s]; }
  const uint8_t* end(unsigned s, unsigned target) const { return ports_.data() + offset_[std::size_t{target} * n_ + s + 1]; }

 private:
  unsigned n_;
  std::vector<uint32_t> offset_;
  std::vector<uint8_t> ports_;
};

// Up/down from the given roots (switch indices); fills `roots` by the automatic
// rule for every component that has none. See routing.hpp for the rules.
Candidates updown_candidates(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                             std::vector<unsigned>& roots);

// The automatic up/down roots of one component (switch indices); see routing.hpp.
std::vector<unsigned> automatic_roots(const topology::Topology& t, const topology::TopologyIndex& index,
                                      const SwitchGraph& g, int component);

// The ports that hold LIDs (a switch as port 0), each once, in LID order.
std::vector<topology::LinkEnd> lid_holders(const Lids& lids);

// OpenSM's updn (routing_opensm.cpp): the automatic roots (switch indices) for
// the HCA ports among `ports`.
std::vector<unsigned> updn_automatic_roots(const topology::Topology& t, const topology::TopologyIndex& index,
                                           const SwitchGraph& g, const std::vector<topology::LinkEnd>& ports);

// OpenSM's up/down search from each target (updn_bfs_by_node), from `roots`:
// the ports with the fewest hops to the target on a legal path.
class UpdnCandidates : public TargetCandidates {
 public:
  UpdnCandidates(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                 const std::vector<unsigned>& roots);
  void compute(const std::vector<unsigned>& targets, CandidateBlock& out) override;

 private:
  void search(unsigned target);

  // A move from a switch to a neighbour (OpenSM's direction: updn_get_dir).
  struct Move {
    unsigned to;                              // the neighbour
    uint32_t port;                            // the port it arrives on, in hops_
    bool up;
  };

  const SwitchGraph& g_;
  std::vector<uint32_t> first_port_;          // switch -> its port 0 in hops_ (ports 1..N follow)
  std::vector<uint32_t> first_move_;          // switch -> its first move in moves_ (adj order)
  std::vector<Move> moves_;
  std::vector<uint8_t> hops_;                 // hop count of every switch port to the target
  std::vector<uint8_t> least_;                // switch -> fewest hops of its ports
  std::vector<char> down_, queued_;
  std::vector<unsigned> queue_;
};

// OpenSM's LFTs of every switch (opensm_lfts.cpp), routing destination switch
// by destination switch with the candidates of `candidates`, a block of
// destination switches at a time; dor: OpenSM's dor choice among them.
void opensm_lfts(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                 const Lids& lids, TargetCandidates& candidates, bool shifted, bool dor,
                 std::vector<std::vector<uint8_t>>& lft);

// glibc's random() (and rand()): the additive feedback generator of degree
// 31 that OpenSM's LASH draws from, seeded as srandom(seed) seeds it.
class GlibcRandom {
 public:
  explicit GlibcRandom(uint32_t seed);
  int32_t next();  // 0 .. 2^31 - 1

 private:
  static constexpr unsigned kDegree = 31;
  uint32_t state_[kDegree];
  unsigned front_ = 3, rear_ = 0;  // glibc's fptr and rptr: 3 apart
};

// OpenSM's lash (opensm_lash.cpp): the LFTs of every switch and the SL of
// every pair of switches, with `vls` operational VLs from `start_vl`; "" when
// it routed, else why it refused (OpenSM's reason).
std::string opensm_lash(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                        const Lids& lids, unsigned vls, unsigned start_vl, std::vector<std::vector<uint8_t>>& lft,
                        SwitchPairSls& sls);
// OpenSM's dfsssp, or sssp without `remove_deadlocks` (opensm_dfsssp.cpp):
// the LFTs of every switch and, for dfsssp, the layer counts (`counts`:
// layers, lanes_before, lanes_after) and the SL of every pair of LIDs, with
// `vls` operational VLs, destinations ordered by the CN and I/O GUID files of
// `guids` (OpenSM's cn_guid_file, io_guid_file); "" when it routed, else why
// it refused (OpenSM's reason).
std::string opensm_dfsssp(const topology::Topology& t, const topology::TopologyIndex& index, const SwitchGraph& g,
                          const Lids& lids, unsigned vls, bool remove_deadlocks, const FtreeGuids& guids,
                          std::vector<std::vector<uint8_t>>& lft, SwitchPairSls& counts, LidPairSls& sls);
// OpenSM's nue (opensm_nue.cpp): the LFTs of every switch and, with more than
// one virtual layer, the SL (layer) of every destination LID, with `layers`
// virtual layers (OpenSM's nue_max_num_vls after its checks) and switches as
// destinations when `include_switches` (nue_include_switches); "" when it
// routed, else why it failed.
std::string opensm_nue(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                       unsigned layers, bool include_switches, std::vector<std::vector<uint8_t>>& lft,
                       std::vector<uint8_t>& dlid_sl);
// OpenSM's fat-tree engine (opensm_ftree.cpp): fills the table of every
// switch and returns "", or returns why OpenSM refuses the fabric (one line,
// as its log says it) and leaves `lft` alone. Rules in routing.hpp.
std::string opensm_ftree(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                         const FtreeGuids& guids, std::vector<std::vector<uint8_t>>& lft);

}  // namespace hcasim::routing::detail
