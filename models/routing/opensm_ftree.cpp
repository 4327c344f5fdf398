// OpenSM's fat-tree routing (do_routing) on the tree opensm_ftree_build.cpp
// builds, and the engine's entry point. See opensm_ftree.hpp.

#include <algorithm>

#include "models/routing/opensm_ftree.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace ftree {

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
  if (!target_[s].touched) touched_.push_back(s);
  target_[s].touched = true;
  target_[s].port = port;
}

void Ftree::set_hops(unsigned s, uint8_t hops) {
  if (!target_[s].touched) touched_.push_back(s);
  target_[s].touched = true;
  target_[s].hops = hops;
}

// The target's ports into the tables (a real LID), then clean for the next.
void Ftree::finish_target(int lid, std::vector<std::vector<uint8_t>>& lft) {
  for (unsigned s : touched_) {
    if (lid > 0 && target_[s].port != kNoPath) lft[switches_[s].node][static_cast<unsigned>(lid)] = target_[s].port;
    target_[s] = TargetState{};
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
    const unsigned r = group.remote;
    const uint8_t least = target_[r].hops;
    if (least != kNoHops && hops + 1 >= least) continue;  // OpenSM picks the port first; no matter
    GroupPort& port = least_loaded(group, [](const GroupPort& p) { return p.up; });
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
  return created;  // OpenSM also turns down_port_groups_idx here, read only with reverse hops
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
    if (target_[r].port == kNoPath || hops + 1 < target_[r].hops) {
      set_port(r, min_port->remote_port);
      set_hops(r, static_cast<uint8_t>(hops + 1));
    }
    created = route_down_by_going_up(r, static_cast<int>(s), lid, main, static_cast<uint8_t>(hops + 1)) || created;
  }
  for (std::size_t i = main ? 1 : 0; i < switches_[s].up.size(); ++i) {
    const unsigned g = switches_[s].up[i];
    const unsigned r = groups_[g].remote;
    if (target_[r].port != kNoPath && hops + 1 >= target_[r].hops) continue;
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
    if (target_[r].port != kNoPath && hops + 1 >= target_[r].hops) continue;
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
  target_.assign(switches_.size(), TargetState{});
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

}  // namespace ftree

std::string opensm_ftree(const Topology& t, const TopologyIndex& index, const Lids& lids, const FtreeGuids& guids,
                         std::vector<std::vector<uint8_t>>& lft) {
  ftree::Ftree tree(t, index, lids, guids);
  if (std::string why = tree.build(); !why.empty()) return why;
  for (unsigned n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].kind == NodeKind::Switch) lft[n].assign(std::size_t{lids.top} + 1, kNoPath);
  tree.route(lft);
  return "";
}

}  // namespace hcasim::routing::detail
