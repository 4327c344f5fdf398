// The fat tree OpenSM builds (construct_fabric): ranks, port groups, leaves,
// tuples, and the checks that make it refuse a fabric. See opensm_ftree.hpp.

#include <algorithm>
#include <cstdio>

#include "models/routing/opensm_ftree.hpp"
#include "models/routing/opensm_order.hpp"

namespace hcasim::routing::detail::ftree {

using topology::LinkEnd;
using topology::NodeKind;

namespace {

std::string hex_guid(uint64_t guid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(guid));
  return text;
}

}  // namespace

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
    // Without a CN file every CA port is a CN; with one, those it names. An
    // I/O node is never a CN (it differs from other non-CNs only with reverse hops).
    const bool in_cn_file = guids_.cns && cn_guids_.count(guid) != 0;
    const bool io = !in_cn_file && guids_.ios && io_guids_.count(guid) != 0;
    const bool cn = (!guids_.cns || in_cn_file) && !io;
    if (cn) {
      ++cn_count_;
      ++hca.cns;
    }
    Group g;
    g.lid = lids_.base[hca.node][p - 1];
    g.remote_lid = lids_.base[peer->node][0];
    g.remote = static_cast<unsigned>(switch_of_[peer->node]);
    g.remote_switch = true;
    g.cn = cn;
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
  leaves_.assign(level.begin() + static_cast<std::ptrdiff_t>(first),
                 level.begin() + static_cast<std::ptrdiff_t>(last) + 1);
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

}  // namespace hcasim::routing::detail::ftree
