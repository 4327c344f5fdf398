#pragma once
// OpenSM's fat-tree engine (opensm 3.3.23: osm_ucast_ftree.c), shared by
// opensm_ftree_build.cpp (the tree OpenSM builds, and why it refuses a
// fabric) and opensm_ftree.cpp (the routing). Not part of the library's
// interface: routing_graph.hpp declares the entry point, routing.hpp has the
// rules. OpenSM's functions are cited by name.
//
// - OpenSM's switch and CA tables iterate in guid_table_less order of the
//   NodeGUIDs; so do switches_ and hcas_ here.
// - OpenSM keeps a hop count per switch per LID, but reads it only for the
//   LID it is routing (every LID is routed once; the dummy LID 0 is cleared
//   after each dummy). Here each switch keeps the hop count and the port of
//   the current target only, reset after the target: memory is linear in the
//   fabric, not switches x LIDs.

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing::detail::ftree {

constexpr uint32_t kUnranked = 0xFFFFFFFFu;
constexpr uint8_t kNoHops = 0xFF;            // OpenSM's OSM_NO_PATH in its hop table
constexpr unsigned kTupleLength = 8;         // FTREE_TUPLE_LEN: ranks 0..7
constexpr unsigned kMinTreeRank = 2;         // FAT_TREE_MIN_RANK
constexpr unsigned kMaxTreeRank = 8;         // FAT_TREE_MAX_RANK
constexpr uint32_t kNoLoad = 1u << 30;       // recalculate_min_counter_down's start

// A switch's index in the tree: its rank, then one byte per level; 0xFF = unset.
using Tuple = std::array<uint8_t, kTupleLength>;

inline Tuple unset_tuple() {
  Tuple t;
  t.fill(0xFF);
  return t;
}

inline uint64_t tuple_key(const Tuple& t) {
  uint64_t key = 0;
  for (unsigned i = 0; i < kTupleLength; ++i) key |= uint64_t{t[i]} << (8 * i);
  return key;
}

// One link of a port group: the port here and the port at the far end.
struct GroupPort {
  uint8_t port;
  uint8_t remote_port;
  uint32_t up = 0;                           // routes allocated upwards through it
  uint32_t down = 0;                         // routes allocated downwards through it
};

// The links from one node to one other node (OpenSM's port group, keyed by
// the far end's LID).
struct Group {
  uint16_t lid = 0;                          // this end's LID (a switch's, or the HCA port's)
  uint16_t remote_lid = 0;
  unsigned remote = 0;                       // a switch or an HCA index, by remote_switch
  bool remote_switch = false;
  bool cn = false;                           // an HCA's group: a compute node (an I/O node is not)
  uint32_t up = 0, down = 0;
  std::vector<GroupPort> ports;              // in the order found
};

struct Switch {
  unsigned node = 0;
  uint16_t lid = 0;
  uint32_t rank = kUnranked;
  Tuple tuple = unset_tuple();
  std::vector<unsigned> down, sibling, up;   // group indices
  bool leaf = false;
  uint32_t min_down = 0;                     // the least counter_down of its down groups
  bool up_changed = false;                   // a down group's up counter moved since the last sort
};

// A switch's state for the target being routed: OpenSM's new_lft[target] and
// hops[target] (kept apart from Switch: the routing reads it most).
struct TargetState {
  uint8_t port = kNoPath;
  uint8_t hops = kNoHops;
  bool touched = false;
};

struct Hca {
  unsigned node = 0;
  std::vector<unsigned> up;                  // group indices, one per linked port
  std::vector<char> disconnected;            // [port]: linked to a switch left out of the tree
  unsigned cns = 0;
};

class Ftree {
 public:
  Ftree(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
        const FtreeGuids& guids)
      : t_(t), index_(index), lids_(lids), guids_(guids) {}

  // construct_fabric: "" or why OpenSM refuses the fabric.
  std::string build();
  // do_routing: the tables of every switch.
  void route(std::vector<std::vector<uint8_t>>& lft);

 private:
  bool found(unsigned node, unsigned port) const;
  std::optional<topology::LinkEnd> seen_peer(unsigned node, unsigned port) const;
  uint16_t lid_of(const topology::LinkEnd& e) const;

  std::string rank();
  uint32_t rank_bfs(std::deque<unsigned>& queue);
  void remove_unranked();
  std::string populate_ports();
  std::string add_hca_ports(unsigned h);
  void add_switch_ports(unsigned s);
  std::string mark_leaves();
  void index_tuples();
  void assign_tuple(unsigned s, const Tuple& tuple);
  Tuple new_tuple(const Tuple& from, bool down) const;
  std::string leaf_array();
  std::string validate() const;

  bool group_less_by_index(unsigned a, unsigned b) const;
  int compare_index(unsigned a, unsigned b) const;
  int compare_load_up(unsigned a, unsigned b) const;
  int compare_load_down(unsigned a, unsigned b) const;
  template <class Compare>
  void bubble_sort(std::vector<unsigned>& groups, Compare compare);
  void recalculate_min_down(unsigned s);

  void set_port(unsigned s, uint8_t port);
  void set_hops(unsigned s, uint8_t hops);
  void finish_target(int lid, std::vector<std::vector<uint8_t>>& lft);
  bool route_up_by_going_down(unsigned s, int prev, int lid, bool main, uint8_t hops);
  bool route_down_by_going_up(unsigned s, int prev, int lid, bool main, uint8_t hops);

  const topology::Topology& t_;
  const topology::TopologyIndex& index_;
  const Lids& lids_;
  const FtreeGuids& guids_;

  std::vector<Switch> switches_;             // OpenSM's sw_tbl order
  std::vector<Hca> hcas_;                    // OpenSM's hca_tbl order
  std::vector<Group> groups_;
  std::vector<int> switch_of_;               // node -> switch index, -1
  std::vector<int> hca_of_;                  // node -> HCA index, -1
  std::vector<char> removed_;                // switch index -> left out (unranked)
  std::unordered_set<uint64_t> tuples_;      // sw_by_tuple_tbl
  std::unordered_set<uint64_t> cn_guids_, io_guids_;
  unsigned cn_count_ = 0;
  uint32_t max_rank_ = 0;
  uint32_t leaf_rank_ = 0;
  std::vector<unsigned> leaves_;             // leaf_switches, by tuple
  unsigned max_cn_per_leaf_ = 0;
  std::vector<TargetState> target_;          // switch index -> its state for the target
  std::vector<unsigned> touched_;            // switches with a port or hop count for the target
};

}  // namespace hcasim::routing::detail::ftree
