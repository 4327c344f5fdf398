// OpenSM's fat-tree engine (opensm 3.3.23: osm_ucast_ftree.c), entry for
// entry: the fabric it builds (ranks, leaves, tuples, port groups), the checks
// that make it refuse a fabric, and its routing with up and down counters.
// Rules in routing.hpp; OpenSM's functions are cited by name.
//
// How:
// - OpenSM's switch and CA tables iterate in guid_table_less order of the
//   NodeGUIDs; so do switches_ and hcas_ here.
// - OpenSM keeps a hop count per switch per LID, but reads it only for the
//   LID it is routing (every LID is routed once; the dummy LID 0 is cleared
//   after each dummy). Here each switch keeps the hop count and the port of
//   the current target only, reset after the target: memory is linear in the
//   fabric, not switches x LIDs.

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <unordered_set>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint32_t kUnranked = 0xFFFFFFFFu;
constexpr uint8_t kNoHops = 0xFF;            // OpenSM's OSM_NO_PATH in its hop table
constexpr unsigned kTupleLength = 8;         // FTREE_TUPLE_LEN: ranks 0..7
constexpr unsigned kMinTreeRank = 2;         // FAT_TREE_MIN_RANK
constexpr unsigned kMaxTreeRank = 8;         // FAT_TREE_MAX_RANK
constexpr uint32_t kNoLoad = 1u << 30;       // recalculate_min_counter_down's start

// A switch's index in the tree: its rank, then one byte per level; 0xFF = unset.
using Tuple = std::array<uint8_t, kTupleLength>;

Tuple unset_tuple() {
  Tuple t;
  t.fill(0xFF);
  return t;
}

uint64_t tuple_key(const Tuple& t) {
  uint64_t key = 0;
  for (unsigned i = 0; i < kTupleLength; ++i) key |= uint64_t{t[i]} << (8 * i);
  return key;
}

std::string hex_guid(uint64_t guid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(guid));
  return text;
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
  unsigned owner = 0;                        // a switch or an HCA index, by this end's kind
  unsigned remote = 0;                       // a switch or an HCA index, by remote_switch
  bool remote_switch = false;
  bool cn = false, io = false;               // an HCA's group: a compute node, an I/O node
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
  unsigned down_index = 0;                   // down_port_groups_idx (read only with reverse hops)
  // The target being routed: OpenSM's new_lft[target] and hops[target].
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
  Ftree(const Topology& t, const TopologyIndex& index, const Lids& lids, const FtreeGuids& guids)
      : t_(t), index_(index), lids_(lids), guids_(guids) {}

  // construct_fabric: "" or why OpenSM refuses the fabric.
  std::string build();
  // do_routing: the tables of every switch.
  void route(std::vector<std::vector<uint8_t>>& lft);

 private:
  bool found(unsigned node, unsigned port) const;
  std::optional<LinkEnd> seen_peer(unsigned node, unsigned port) const;
  uint16_t lid_of(const LinkEnd& e) const;

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

  const Topology& t_;
  const TopologyIndex& index_;
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
  std::vector<unsigned> touched_;            // switches with a port or hop count for the target
};

bool Ftree::found(unsigned node, unsigned port) const {
  if (t_.nodes[node].kind == NodeKind::Switch) return lids_.base[node][0] != 0;
  return port >= 1 && port <= lids_.base[node].size() && lids_.base[node][port - 1] != 0;
}

// The far end of a port, when OpenSM's sweep found both ends.
std::optional<LinkEnd> Ftree::seen_peer(unsigned node, unsigned port) const {
  if (!found(node, port)) return std::nullopt;
  const auto peer = index_.peer(node, port);
  if (!peer || !found(peer->node, peer->port)) return std::nullopt;
  return peer;
}

uint16_t Ftree::lid_of(const LinkEnd& e) const {
  return t_.nodes[e.node].kind == NodeKind::Switch ? lids_.base[e.node][0] : lids_.base[e.node][e.port - 1];
}

std::string Ftree::build() {
  if (lids_.lmc > 0) return "LMC > 0 is not supported by fat-tree routing";
  std::vector<unsigned> sw_nodes, hca_nodes;
  for (unsigned n = 0; n < t_.nodes.size(); ++n) {
    if (t_.nodes[n].kind == NodeKind::Switch) {
      if (found(n, 0)) sw_nodes.push_back(n);
      continue;
    }
    for (unsigned p = 1; p <= t_.nodes[n].ports; ++p)
      if (found(n, p)) {
        hca_nodes.push_back(n);
        break;
      }
  }
  if (sw_nodes.size() < 2)
    return "Fabric has " + std::to_string(sw_nodes.size()) + " switches - topology is not fat-tree";
  if (hca_nodes.size() < 2)
    return "Fabric has " + std::to_string(sw_nodes.size() + hca_nodes.size()) + " nodes (" +
           std::to_string(sw_nodes.size()) + " switches) - topology is not fat-tree";
  const auto by_table = [&](unsigned a, unsigned b) {
    const uint64_t ga = topology::node_guid(t_, a), gb = topology::node_guid(t_, b);
    if (ga != gb) return guid_table_less(ga, gb);
    return a < b;
  };
  std::sort(sw_nodes.begin(), sw_nodes.end(), by_table);
  std::sort(hca_nodes.begin(), hca_nodes.end(), by_table);
  switch_of_.assign(t_.nodes.size(), -1);
  hca_of_.assign(t_.nodes.size(), -1);
  for (unsigned n : sw_nodes) {
    switch_of_[n] = static_cast<int>(switches_.size());
    Switch s;
    s.node = n;
    s.lid = lids_.base[n][0];
    switches_.push_back(s);
  }
  for (unsigned n : hca_nodes) {
    hca_of_[n] = static_cast<int>(hcas_.size());
    Hca h;
    h.node = n;
    h.disconnected.assign(t_.nodes[n].ports + 1, 0);
    hcas_.push_back(h);
  }
  removed_.assign(switches_.size(), 0);

  // fabric_read_guid_files
  if (guids_.cns) {
    cn_guids_.insert(guids_.cns->begin(), guids_.cns->end());
    if (cn_guids_.empty()) return "Failed reading guid files - compute node guids file has no valid guids";
  }
  if (guids_.ios) {
    io_guids_.insert(guids_.ios->begin(), guids_.ios->end());
    if (io_guids_.empty()) return "Failed reading guid files - I/O node guids file has no valid guids";
  }
  if (hcas_.size() < 2) return "Fabric has " + std::to_string(hcas_.size()) + " CAs - topology is not fat-tree";

  if (std::string why = rank(); !why.empty()) return "Failed ranking the tree: " + why;
  remove_unranked();
  unsigned kept = 0;
  for (unsigned s = 0; s < switches_.size(); ++s) kept += !removed_[s];
  if (max_rank_ == 0 && kept > 1) return "Found more than one root on fabric with maximum rank 0";

  if (std::string why = populate_ports(); !why.empty()) return "Fabric topology is not a fat-tree: " + why;
  if (cn_count_ == 0) return "Fabric has no valid compute nodes";

  // fabric_set_leaf_rank
  if (!guids_.roots) {
    leaf_rank_ = max_rank_;
  } else {
    for (const Hca& h : hcas_) {
      if (h.cns == 0) continue;
      for (unsigned g : h.up)
        if (groups_[g].cn) {
          leaf_rank_ = switches_[groups_[g].remote].rank;
          break;
        }
      break;
    }
  }
  const unsigned tree_rank = leaf_rank_ + 1;
  if (tree_rank > kMaxTreeRank || tree_rank < kMinTreeRank)
    return "Fabric rank is " + std::to_string(tree_rank) + " (should be between " + std::to_string(kMinTreeRank) +
           " and " + std::to_string(kMaxTreeRank) + ")";
  if (std::string why = mark_leaves(); !why.empty()) return "Fabric topology is not a fat-tree: " + why;
  index_tuples();
  if (std::string why = leaf_array(); !why.empty()) return why;

  // fabric_set_max_cn_per_leaf
  for (unsigned s : leaves_) {
    unsigned cns = 0;
    for (unsigned g : switches_[s].down) {
      const Group& group = groups_[g];
      if (group.remote_switch) continue;
      for (unsigned hg : hcas_[group.remote].up)
        if (groups_[hg].lid == group.remote_lid) cns += groups_[hg].cn;
    }
    max_cn_per_leaf_ = std::max(max_cn_per_leaf_, cns);
  }
  if (!guids_.roots)
    if (std::string why = validate(); !why.empty()) return "Fabric topology is not a fat-tree: " + why;
  return "";
}

// fabric_rank: from the roots file's switches when it names any, else from
// the switches linked to CAs (reversed), then again from the rank-0 switches.
std::string Ftree::rank() {
  std::deque<unsigned> queue;
  if (guids_.roots) {
    for (uint64_t guid : *guids_.roots)
      for (unsigned s = 0; s < switches_.size(); ++s)
        if (topology::node_guid(t_, switches_[s].node) == guid) {
          switches_[s].rank = 0;
          queue.push_back(s);
          break;
        }
    if (!queue.empty()) {
      max_rank_ = rank_bfs(queue);
      return "";
    }
  }
  for (const Hca& h : hcas_) {  // rank_leaf_switches
    for (unsigned p = 1; p <= t_.nodes[h.node].ports; ++p) {
      const auto peer = seen_peer(h.node, p);
      if (!peer) continue;
      if (t_.nodes[peer->node].kind == NodeKind::Hca)
        return "CA connected directly to another CA: " + hex_guid(topology::node_guid(t_, h.node)) + " <---> " +
               hex_guid(topology::node_guid(t_, peer->node));
      Switch& s = switches_[switch_of_[peer->node]];
      if (s.rank == 0) continue;
      s.rank = 0;
      queue.push_back(static_cast<unsigned>(switch_of_[peer->node]));
    }
  }
  const uint32_t reversed_max = rank_bfs(queue);
  for (Switch& s : switches_)
    if (s.rank != kUnranked) s.rank = reversed_max - s.rank;
  for (unsigned s = 0; s < switches_.size(); ++s) {  // fabric_rerank_using_root
    if (switches_[s].rank == 0)
      queue.push_back(s);
    else
      switches_[s].rank = kUnranked;
  }
  max_rank_ = rank_bfs(queue);
  return "";
}

// Breadth first from the queued switches through switch ports 1..N: a
// neighbour gets rank + 1 when that is new or lower. The last rank given, or 0.
uint32_t Ftree::rank_bfs(std::deque<unsigned>& queue) {
  uint32_t last = 0;
  while (!queue.empty()) {
    const unsigned s = queue.front();
    queue.pop_front();
    const unsigned node = switches_[s].node;
    for (unsigned p = 1; p <= t_.nodes[node].ports; ++p) {
      const auto peer = seen_peer(node, p);
      if (!peer || t_.nodes[peer->node].kind != NodeKind::Switch) continue;
      Switch& r = switches_[switch_of_[peer->node]];
      const uint32_t rank = switches_[s].rank + 1;
      if (r.rank != kUnranked && r.rank <= rank) continue;
      r.rank = rank;
      last = rank;
      queue.push_back(static_cast<unsigned>(switch_of_[peer->node]));
    }
  }
  return last;
}

// fabric_remove_unranked_sw: a switch no rank reached leaves the tree, and the
// CA ports linked to it with it.
void Ftree::remove_unranked() {
  for (unsigned s = 0; s < switches_.size(); ++s) {
    if (switches_[s].rank != kUnranked) continue;
    removed_[s] = 1;
    const unsigned node = switches_[s].node;
    for (unsigned p = 1; p <= t_.nodes[node].ports; ++p) {
      const auto peer = seen_peer(node, p);
      if (peer && t_.nodes[peer->node].kind == NodeKind::Hca) hcas_[hca_of_[peer->node]].disconnected[peer->port] = 1;
    }
  }
}

std::string Ftree::populate_ports() {
  for (unsigned h = 0; h < hcas_.size(); ++h)
    if (std::string why = add_hca_ports(h); !why.empty()) return why;
  for (unsigned s = 0; s < switches_.size(); ++s)
    if (!removed_[s]) add_switch_ports(s);
  return "";
}

// fabric_construct_hca_ports: one group per CA port linked to a switch, a
// compute node unless a CN file leaves it out (an I/O node when the I/O file
// names it).
std::string Ftree::add_hca_ports(unsigned h) {
  Hca& hca = hcas_[h];
  for (unsigned p = 1; p <= t_.nodes[hca.node].ports; ++p) {
    if (hca.disconnected[p]) continue;
    const auto peer = seen_peer(hca.node, p);
    if (!peer) continue;
    if (t_.nodes[peer->node].kind == NodeKind::Hca)
      return "CA connected directly to another CA: " + hex_guid(topology::node_guid(t_, hca.node)) + " <---> " +
             hex_guid(topology::node_guid(t_, peer->node));
    const uint64_t guid = topology::port_guid(t_, {hca.node, p});
    bool cn = true, io = false, in_cn_file = false;
    if (guids_.cns) {
      in_cn_file = cn_guids_.count(guid) != 0;
      cn = in_cn_file;
    }
    if (!in_cn_file && guids_.ios && io_guids_.count(guid)) {
      io = true;
      cn = false;
    }
    if (cn) {
      ++cn_count_;
      ++hca.cns;
    }
    Group g;
    g.lid = lids_.base[hca.node][p - 1];
    g.remote_lid = lids_.base[peer->node][0];
    g.owner = h;
    g.remote = static_cast<unsigned>(switch_of_[peer->node]);
    g.remote_switch = true;
    g.cn = cn;
    g.io = io;
    g.ports.push_back({static_cast<uint8_t>(p), static_cast<uint8_t>(peer->port)});
    hca.up.push_back(static_cast<unsigned>(groups_.size()));
    groups_.push_back(std::move(g));
  }
  return "";
}

// fabric_construct_sw_ports: links to CAs go down; to a switch up when its
// rank is lower, sideways when equal, else down. Links to one far end (by its
// LID) form one group.
void Ftree::add_switch_ports(unsigned s) {
  const unsigned node = switches_[s].node;
  for (unsigned p = 1; p <= t_.nodes[node].ports; ++p) {
    const auto peer = seen_peer(node, p);
    if (!peer || peer->node == node) continue;  // unlinked, or a loopback
    const bool to_switch = t_.nodes[peer->node].kind == NodeKind::Switch;
    std::vector<unsigned>* list = &switches_[s].down;
    unsigned remote = 0;
    if (to_switch) {
      remote = static_cast<unsigned>(switch_of_[peer->node]);
      const uint32_t mine = switches_[s].rank, theirs = switches_[remote].rank;
      list = mine > theirs ? &switches_[s].up : mine == theirs ? &switches_[s].sibling : &switches_[s].down;
    } else {
      remote = static_cast<unsigned>(hca_of_[peer->node]);
    }
    const uint16_t remote_lid = lid_of(*peer);
    auto it = std::find_if(list->begin(), list->end(), [&](unsigned g) { return groups_[g].remote_lid == remote_lid; });
    if (it == list->end()) {
      Group g;
      g.lid = switches_[s].lid;
      g.remote_lid = remote_lid;
      g.owner = s;
      g.remote = remote;
      g.remote_switch = to_switch;
      list->push_back(static_cast<unsigned>(groups_.size()));
      groups_.push_back(std::move(g));
      it = list->end() - 1;
    }
    std::vector<GroupPort>& ports = groups_[*it].ports;
    if (std::none_of(ports.begin(), ports.end(), [&](const GroupPort& gp) { return gp.port == p; }))
      ports.push_back({static_cast<uint8_t>(p), static_cast<uint8_t>(peer->port)});
  }
}

// fabric_mark_leaf_switches: the switches of CN ports are leaves, at the leaf rank.
std::string Ftree::mark_leaves() {
  for (const Hca& h : hcas_) {
    if (h.cns == 0) continue;
    for (unsigned g : h.up) {
      if (!groups_[g].cn) continue;
      Switch& s = switches_[groups_[g].remote];
      if (s.leaf) continue;
      s.leaf = true;
      if (s.rank != leaf_rank_)
        return "CN port " + hex_guid(topology::port_guid(t_, {h.node, groups_[g].ports[0].port})) +
               " is connected to switch " + hex_guid(topology::node_guid(t_, s.node)) + " with rank " +
               std::to_string(s.rank) + ", while FatTree leaf rank is " + std::to_string(leaf_rank_);
    }
  }
  return "";
}

void Ftree::assign_tuple(unsigned s, const Tuple& tuple) {
  switches_[s].tuple = tuple;
  tuples_.insert(tuple_key(tuple));
}

// fabric_get_new_tuple: the next rank's (down) or the previous rank's (up)
// tuple with the lowest free byte at the level between them.
Tuple Ftree::new_tuple(const Tuple& from, bool down) const {
  Tuple tuple = from;
  unsigned level = from[0];
  if (down) {
    ++tuple[0];
    ++level;
  } else {
    --tuple[0];
  }
  for (unsigned i = 0; i < 0xFF; ++i) {
    tuple[level] = static_cast<uint8_t>(i);
    if (!tuples_.count(tuple_key(tuple))) return tuple;
  }
  return unset_tuple();
}

// fabric_make_indexing (quasi_ftree_indexing off): from the first leaf in
// table order, breadth first; each switch indexes the unindexed far ends of
// its down groups (above the leaf rank) and of its up groups (below the
// roots), then sorts those groups by the far end's tuple.
void Ftree::index_tuples() {
  unsigned first = 0;
  while (first < switches_.size() && (removed_[first] || !switches_[first].leaf)) ++first;
  if (first == switches_.size()) return;
  Tuple tuple = unset_tuple();
  tuple[0] = static_cast<uint8_t>(switches_[first].rank);
  for (unsigned i = 1; i <= leaf_rank_; ++i) tuple[i] = 0;
  assign_tuple(first, tuple);
  std::deque<unsigned> queue{first};
  const auto by_index = [&](unsigned a, unsigned b) { return group_less_by_index(a, b); };
  while (!queue.empty()) {
    const unsigned s = queue.front();
    queue.pop_front();
    Switch& sw = switches_[s];
    if (sw.rank < leaf_rank_) {
      for (unsigned g : sw.down) {
        if (!groups_[g].remote_switch) continue;
        const unsigned r = groups_[g].remote;
        if (switches_[r].tuple[0] != 0xFF) continue;
        assign_tuple(r, new_tuple(sw.tuple, true));
        queue.push_back(r);
      }
      std::stable_sort(sw.down.begin(), sw.down.end(), by_index);
    }
    if (sw.rank != 0) {
      for (unsigned g : sw.up) {
        const unsigned r = groups_[g].remote;
        if (switches_[r].tuple[0] != 0xFF) continue;
        assign_tuple(r, new_tuple(sw.tuple, false));
        queue.push_back(r);
      }
      std::stable_sort(sw.up.begin(), sw.up.end(), by_index);
    }
  }
}

// fabric_create_leaf_switch_array: the switches at the leaf rank by tuple,
// from the first leaf to the last.
std::string Ftree::leaf_array() {
  std::vector<unsigned> level;
  for (unsigned s = 0; s < switches_.size(); ++s)
    if (!removed_[s] && switches_[s].rank == leaf_rank_) level.push_back(s);
  std::stable_sort(level.begin(), level.end(),
                   [&](unsigned a, unsigned b) { return switches_[a].tuple < switches_[b].tuple; });
  std::size_t first = level.size(), last = 0;
  for (std::size_t i = 0; i < level.size(); ++i) {
    if (!switches_[level[i]].leaf) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first >= last) return "Failed to find leaf switches - topology is not fat-tree";
  leaves_.assign(level.begin() + static_cast<std::ptrdiff_t>(first), level.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  return "";
}

// fabric_validate_topology (no roots file): every switch against the first of
// its rank in table order: as many up groups; as many down groups above the
// leaves; its up groups as many ports as the reference's first; above the
// leaves, its first down group as many ports as the reference's first.
std::string Ftree::validate() const {
  const unsigned tree_rank = leaf_rank_ + 1;
  std::vector<int> reference(tree_rank, -1);
  for (unsigned s = 0; s < switches_.size(); ++s) {
    if (removed_[s]) continue;
    const Switch& sw = switches_[s];
    if (sw.rank >= tree_rank) return "switch " + hex_guid(topology::node_guid(t_, sw.node)) + " is below the leaves";
    if (reference[sw.rank] < 0) {
      reference[sw.rank] = static_cast<int>(s);
      continue;
    }
    const Switch& ref = switches_[reference[sw.rank]];
    const std::string pair = " on switches " + hex_guid(topology::node_guid(t_, ref.node)) + " and " +
                             hex_guid(topology::node_guid(t_, sw.node));
    if (ref.up.size() != sw.up.size()) return "different number of upward port groups" + pair;
    const bool above_leaves = sw.rank != tree_rank - 1;
    if (above_leaves && ref.down.size() != sw.down.size()) return "different number of downward port groups" + pair;
    if (!ref.up.empty())
      for (unsigned g : sw.up)
        if (groups_[g].ports.size() != groups_[ref.up[0]].ports.size())
          return "different number of ports in an upward port group" + pair;
    if (!ref.down.empty() && above_leaves && !sw.down.empty())
      if (groups_[sw.down[0]].ports.size() != groups_[ref.down[0]].ports.size())
        return "different number of ports in a downward port group" + pair;
  }
  return "";
}

// compare_switches_by_index of the far ends (switches; a CA's group compares
// as an unindexed switch).
int Ftree::compare_index(unsigned a, unsigned b) const {
  const Tuple& ta = groups_[a].remote_switch ? switches_[groups_[a].remote].tuple : unset_tuple();
  const Tuple& tb = groups_[b].remote_switch ? switches_[groups_[b].remote].tuple : unset_tuple();
  return ta < tb ? -1 : tb < ta ? 1 : 0;
}

bool Ftree::group_less_by_index(unsigned a, unsigned b) const { return compare_index(a, b) < 0; }

// port_group_compare_load_up: fewer up routes first, then by index.
int Ftree::compare_load_up(unsigned a, unsigned b) const {
  const int diff = static_cast<int>(groups_[a].up - groups_[b].up);
  if (diff != 0) return diff > 0 ? 1 : -1;
  return compare_index(a, b);
}

// port_group_compare_load_down: fewer down routes first; on a tie a far end
// whose least loaded down group is more loaded comes later (only that way:
// a less loaded one falls through), then by index.
int Ftree::compare_load_down(unsigned a, unsigned b) const {
  const int diff = static_cast<int>(groups_[a].down - groups_[b].down);
  if (diff != 0) return diff > 0 ? 1 : -1;
  const int load = static_cast<int>(switches_[groups_[a].remote].min_down - switches_[groups_[b].remote].min_down);
  if (load > 0) return 1;
  return compare_index(a, b);
}

// OpenSM's bubble sorts: passes over the shrinking front until one swaps nothing.
template <class Compare>
void Ftree::bubble_sort(std::vector<unsigned>& groups, Compare compare) {
  const std::size_t n = groups.size();
  bool swapped = true;
  for (std::size_t pass = 0; swapped; ++pass) {
    swapped = false;
    for (std::size_t j = 1; j + pass < n; ++j) {
      if (compare(groups[j], groups[j - 1]) < 0) {
        std::swap(groups[j], groups[j - 1]);
        swapped = true;
      }
    }
  }
}

void Ftree::recalculate_min_down(unsigned s) {
  uint32_t least = kNoLoad;
  for (unsigned g : switches_[s].down) least = std::min(least, groups_[g].down);
  switches_[s].min_down = least;
}

void Ftree::set_port(unsigned s, uint8_t port) {
  if (!switches_[s].touched) touched_.push_back(s);
  switches_[s].touched = true;
  switches_[s].port = port;
}

void Ftree::set_hops(unsigned s, uint8_t hops) {
  if (!switches_[s].touched) touched_.push_back(s);
  switches_[s].touched = true;
  switches_[s].hops = hops;
}

// The target's ports into the tables (a real LID), then clean for the next.
void Ftree::finish_target(int lid, std::vector<std::vector<uint8_t>>& lft) {
  for (unsigned s : touched_) {
    Switch& sw = switches_[s];
    if (lid > 0 && sw.port != kNoPath) lft[sw.node][static_cast<unsigned>(lid)] = sw.port;
    sw.port = kNoPath;
    sw.hops = kNoHops;
    sw.touched = false;
  }
  touched_.clear();
}

// The least loaded port of a group by `load`, the first of them in group order.
template <class Load>
GroupPort& least_loaded(Group& g, Load load) {
  GroupPort* best = &g.ports[0];
  for (GroupPort& p : g.ports)
    if (load(p) < load(*best)) best = &p;
  return *best;
}

// fabric_route_upgoing_by_going_down: from switch s (entered from prev going
// up, or -1 going down) every down group (and sibling, not for the dummy LID
// 0) but the one back to prev, least up-loaded first, routes the switch below
// to the LID through its end of the group's least up-loaded port, unless it
// has a route no longer; counters count when a CA lies below.
bool Ftree::route_up_by_going_down(unsigned s, int prev, int lid, bool main, uint8_t hops) {
  Switch& sw = switches_[s];
  if (sw.down.empty()) return false;
  if (sw.up_changed) {
    bubble_sort(sw.down, [&](unsigned a, unsigned b) { return compare_load_up(a, b); });
    switches_[s].up_changed = false;
  }
  if (!switches_[s].sibling.empty())
    bubble_sort(switches_[s].sibling, [&](unsigned a, unsigned b) { return compare_load_up(a, b); });
  bool created = false;
  const std::size_t downs = switches_[s].down.size();
  const std::size_t count = downs + (lid != 0 ? switches_[s].sibling.size() : 0);
  for (std::size_t k = 0; k < count; ++k) {
    const unsigned g = k < downs ? switches_[s].down[k] : switches_[s].sibling[k - downs];
    Group& group = groups_[g];
    if (!group.remote_switch) {
      created = true;
      continue;
    }
    if (prev >= 0 && group.remote == static_cast<unsigned>(prev)) continue;
    if (group.ports.empty()) continue;
    GroupPort& port = least_loaded(group, [](const GroupPort& p) { return p.up; });
    const unsigned r = group.remote;
    const uint8_t least = switches_[r].hops;
    if (least != kNoHops && hops + 1 >= least) continue;
    set_port(r, port.remote_port);
    set_hops(r, static_cast<uint8_t>(hops + 1));
    const bool routed = route_up_by_going_down(r, -1, lid, main, static_cast<uint8_t>(hops + 1));
    created = created || routed;
    if (routed) {
      ++port.up;
      ++groups_[g].up;
      switches_[s].up_changed = true;
    }
  }
  if (created) switches_[s].down_index = (switches_[s].down_index + 1) % static_cast<unsigned>(downs);
  return created;
}

// fabric_route_downgoing_by_going_up (no reverse hops): down from s first,
// then up: the least down-loaded up group's least down-loaded port carries the
// main path (counted), every other up group and sibling a secondary path to a
// switch without a shorter route.
bool Ftree::route_down_by_going_up(unsigned s, int prev, int lid, bool main, uint8_t hops) {
  bool created = route_up_by_going_down(s, prev, lid, main, hops);
  if (switches_[s].rank == 0) return created;
  const auto load_down = [&](unsigned a, unsigned b) { return compare_load_down(a, b); };
  bubble_sort(switches_[s].up, load_down);
  const unsigned min_group = switches_[s].up[0];
  GroupPort* min_port = &least_loaded(groups_[min_group], [](const GroupPort& p) { return p.down; });
  if (main) {
    const unsigned r = groups_[min_group].remote;
    ++groups_[min_group].down;
    ++min_port->down;
    if (groups_[min_group].down == switches_[r].min_down + 1) recalculate_min_down(r);
    if (switches_[r].port == kNoPath || hops + 1 < switches_[r].hops) {
      set_port(r, min_port->remote_port);
      set_hops(r, static_cast<uint8_t>(hops + 1));
    }
    created = route_down_by_going_up(r, static_cast<int>(s), lid, main, static_cast<uint8_t>(hops + 1)) || created;
  }
  for (std::size_t i = main ? 1 : 0; i < switches_[s].up.size(); ++i) {
    const unsigned g = switches_[s].up[i];
    const unsigned r = groups_[g].remote;
    if (switches_[r].port != kNoPath && hops + 1 >= switches_[r].hops) continue;
    if (groups_[g].ports.empty()) continue;
    const GroupPort& port = least_loaded(groups_[g], [](const GroupPort& p) { return p.down; });
    set_port(r, port.remote_port);
    set_hops(r, static_cast<uint8_t>(hops + 1));
    created = route_down_by_going_up(r, static_cast<int>(s), lid, false, static_cast<uint8_t>(hops + 1)) || created;
  }
  if (!switches_[s].sibling.empty()) bubble_sort(switches_[s].sibling, load_down);
  for (std::size_t i = 0; i < switches_[s].sibling.size(); ++i) {
    const unsigned g = switches_[s].sibling[i];
    const unsigned r = groups_[g].remote;
    if (switches_[r].port != kNoPath && hops + 1 >= switches_[r].hops) continue;
    if (groups_[g].ports.empty()) continue;
    GroupPort& port = least_loaded(groups_[g], [](const GroupPort& p) { return p.down; });
    set_port(r, port.remote_port);
    set_hops(r, static_cast<uint8_t>(hops + 1));
    const bool routed = route_down_by_going_up(r, static_cast<int>(s), lid, false, static_cast<uint8_t>(hops + 1));
    created = created || routed;
    if (routed) {  // OpenSM counts the main up group and this sibling's port
      ++groups_[min_group].down;
      ++port.down;
    }
  }
  return created;
}

void Ftree::route(std::vector<std::vector<uint8_t>>& lft) {
  // fabric_route_to_cns: leaf by leaf, its CN ports in group order, then
  // dummies up to the most CNs any leaf has.
  for (unsigned s : leaves_) {
    unsigned routed = 0;
    for (std::size_t j = 0; j < switches_[s].down.size(); ++j) {
      const Group& group = groups_[switches_[s].down[j]];
      if (group.remote_switch) continue;
      const Hca& hca = hcas_[group.remote];
      if (hca.cns == 0) continue;
      bool cn = false;
      for (unsigned hg : hca.up)
        if (groups_[hg].lid == group.remote_lid) cn = groups_[hg].cn;
      if (!cn) continue;
      const uint16_t lid = group.remote_lid;
      set_port(s, group.ports[0].port);
      set_hops(s, 1);
      route_down_by_going_up(s, -1, lid, true, 1);
      finish_target(lid, lft);
      ++routed;
    }
    for (unsigned j = routed; j < max_cn_per_leaf_; ++j) {
      set_hops(s, 1);
      route_down_by_going_up(s, -1, 0, true, 1);
      finish_target(0, lft);
    }
  }
  // fabric_route_to_non_cns: CA by CA, its other ports, counted.
  for (const Hca& hca : hcas_) {
    for (unsigned g : hca.up) {
      const Group& group = groups_[g];
      if (group.cn || !group.remote_switch) continue;
      set_port(group.remote, group.ports[0].remote_port);
      set_hops(group.remote, 1);
      route_down_by_going_up(group.remote, -1, group.lid, true, 1);
      finish_target(group.lid, lft);
    }
  }
  // fabric_route_to_switches: switch by switch, not counted.
  for (unsigned s = 0; s < switches_.size(); ++s) {
    if (removed_[s]) continue;
    set_port(s, 0);
    set_hops(s, 0);
    route_down_by_going_up(s, -1, switches_[s].lid, false, 0);
    finish_target(switches_[s].lid, lft);
  }
}

}  // namespace

std::string opensm_ftree(const Topology& t, const TopologyIndex& index, const Lids& lids, const FtreeGuids& guids,
                         std::vector<std::vector<uint8_t>>& lft) {
  Ftree tree(t, index, lids, guids);
  if (std::string why = tree.build(); !why.empty()) return why;
  for (unsigned n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].kind == NodeKind::Switch) lft[n].assign(std::size_t{lids.top} + 1, kNoPath);
  tree.route(lft);
  return "";
}

}  // namespace hcasim::routing::detail
