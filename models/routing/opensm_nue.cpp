// OpenSM's nue engine (opensm 3.3.23: osm_ucast_nue.c, Domke's Nue routing
// as OpenSM builds it without METIS, as Debian does): per destination LID a
// Dijkstra on the complete channel dependency graph that never adds a
// dependency closing a cycle, so that the paths of one virtual layer are
// deadlock-free on any topology. Rules in routing.hpp.
//
// How, the same as OpenSM's:
// - Network: the switches with a LID, sorted by LID in network byte order;
//   each switch's links: its ports to other switches, in port order, one per
//   cable, each of weight P * P (P: the fabric's LIDs); a switch's terminals:
//   1 + the LIDs of the HCA ports linked to it.
// - Destinations: the HCA ports in port-table order (switches too with
//   nue_include_switches), dealt round robin onto the virtual layers.
// - Per layer: escape paths (a weighted spanning tree from the switch most
//   central to the layer's destinations, by Brandes' betweenness over the
//   convex hull of their switches) are painted into the graph; then every LID
//   of every destination in turn gets a Dijkstra over the graph from its
//   switch's fake channel, taking used dependencies before unused ones and
//   refusing any that closes a cycle; a switch left unreached is tried by
//   local backtracking, and failing that the destination takes the escape
//   paths. After each LID the link weights grow along the paths by each
//   switch's terminals.
// - Without nue_include_switches, the switches' own LIDs are routed last, on
//   a weighted spanning tree from each.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/routing/cl_heap.hpp"
#include "models/routing/opensm_nue_ccdg.hpp"
#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint64_t kInfinity = 0x7FFFFFFF;  // osm_ucast_nue.c: INFINITY
constexpr uint32_t kNone = UINT32_MAX;

struct Link {
  NueChannel info;
  uint32_t to = 0;                // the switch at the far end
  uint32_t vertex = kNone;        // its channel in the complete CDG
  uint64_t weight = 0;
};

struct Switch {
  unsigned node = 0;
  uint16_t lid = 0;
  uint8_t terminals = 0;          // 1 + the LIDs of its HCA ports (uint8_t, as OpenSM's)
  uint32_t first_link = 0, links = 0;
  uint32_t fake = kNone;          // its fake channel
  // Dijkstra on the network or the complete CDG.
  uint32_t used_link = kNone;
  uint64_t distance = 0;
  uint32_t escape_path = kNone;
  std::vector<uint32_t> stack;    // other links it could be reached by
  int32_t found_after = -1;       // the backtracking step it was found after
  // Convex hull and betweenness.
  bool in_hull = false, processed = false, has_adj_destinations = false;
  double centrality = 0, delta = 0;
  uint64_t sigma = 0;
  std::vector<uint32_t> ps;
  uint8_t hull_terminals = 0;
};

class Nue {
 public:
  Nue(const Topology& t, const TopologyIndex& index, const Lids& lids, std::vector<std::vector<uint8_t>>& lft)
      : t_(t), index_(index), lids_(lids), lft_(lft) {}

  std::string route(unsigned max_vls, bool include_switches, std::vector<uint8_t>& dlid_sl);

 private:
  bool is_switch(unsigned node) const { return t_.nodes[node].kind == NodeKind::Switch; }
  uint32_t switch_of_lid(uint16_t lid) const { return sw_of_lid_[lid]; }
  // The switch a destination LID hangs on (OpenSM's get_switch_lid).
  uint32_t attach_switch(uint16_t lid) const;
  void build();
  void convex_hull(const std::vector<uint16_t>& dests);
  uint32_t central_switch(const std::vector<uint16_t>& dests);
  void spanning_tree(uint32_t root);
  std::string mark_escape_paths(const std::vector<uint16_t>& dests, bool verify);
  std::string route_lid(uint16_t dlid, uint32_t colour);
  uint32_t backtrack(uint32_t source, uint32_t colour);
  bool shortcut(uint32_t sw, uint32_t vertex, uint32_t colour);
  void use_escape_paths(uint16_t dlid);
  void push_stack(uint32_t sw, uint32_t link);
  void write_lft(uint16_t dlid);
  std::string add_weights(uint32_t dest);

  const Topology& t_;
  const TopologyIndex& index_;
  const Lids& lids_;
  std::vector<std::vector<uint8_t>>& lft_;
  std::vector<Switch> sw_;
  std::vector<Link> links_;
  std::vector<uint32_t> sw_of_lid_;     // a switch's own LID -> its index; kNone otherwise
  NueCcdg ccdg_{{}};
  std::vector<std::size_t> where_ccdg_, where_sw_;
};

uint32_t Nue::attach_switch(uint16_t lid) const {
  const LinkEnd o = lids_.owner[lid];
  if (is_switch(o.node)) return switch_of_lid(lid);
  const auto peer = index_.peer(o.node, o.port);
  return peer && is_switch(peer->node) ? switch_of_lid(lids_.base[peer->node][0]) : kNone;
}

void Nue::build() {
  sw_of_lid_.assign(std::size_t{lids_.top} + 1, kNone);
  uint64_t lids_total = 0;
  for (unsigned lid = 1; lid <= lids_.top; ++lid) lids_total += lids_.owner[lid].node != topology::kNoNode;
  const uint64_t start_weight = lids_total * lids_total;
  for (unsigned node = 0; node < t_.nodes.size(); ++node)
    if (is_switch(node) && lids_.base[node][0] != 0) {
      Switch s;
      s.node = node;
      s.lid = lids_.base[node][0];
      sw_.push_back(s);
    }
  std::sort(sw_.begin(), sw_.end(), [](const Switch& a, const Switch& b) {
    return __builtin_bswap16(a.lid) < __builtin_bswap16(b.lid);
  });
  for (uint32_t i = 0; i < sw_.size(); ++i) sw_of_lid_[sw_[i].lid] = i;
  for (Switch& s : sw_) {
    s.first_link = static_cast<uint32_t>(links_.size());
    s.terminals = 1;  // the switch's own port 0 (LMC 0)
    for (unsigned p = 1; p <= t_.nodes[s.node].ports; ++p) {
      const auto peer = index_.peer(s.node, p);
      if (!peer || peer->node == s.node) continue;
      if (!is_switch(peer->node)) {
        s.terminals = static_cast<uint8_t>(s.terminals + (1u << lids_.lmc));
        continue;
      }
      const uint16_t far_lid = lids_.base[peer->node][0];
      if (far_lid == 0) continue;
      Link l;
      l.info = {s.lid, static_cast<uint8_t>(p), far_lid, static_cast<uint8_t>(peer->port)};
      l.to = sw_of_lid_[far_lid];
      l.weight = start_weight;
      links_.push_back(l);
    }
    s.links = static_cast<uint32_t>(links_.size()) - s.first_link;
  }
  std::vector<NueCcdg::Build> vertices;
  for (const Switch& s : sw_) {
    NueCcdg::Build fake;
    fake.id = {s.lid, 0, s.lid, 0};
    for (uint32_t l = s.first_link; l < s.first_link + s.links; ++l) fake.depends.push_back(links_[l].info);
    vertices.push_back(std::move(fake));
    for (uint32_t l = s.first_link; l < s.first_link + s.links; ++l) {
      NueCcdg::Build real;
      real.id = links_[l].info;
      real.link = l;
      const Switch& far = sw_[links_[l].to];
      for (uint32_t k = far.first_link; k < far.first_link + far.links; ++k) {
        const NueChannel& out = links_[k].info;
        if (out.remote_lid == real.id.local_lid && out.remote_port == real.id.local_port) continue;
        real.depends.push_back(out);
      }
      vertices.push_back(std::move(real));
    }
  }
  ccdg_ = NueCcdg(std::move(vertices));
  for (uint32_t v = 0; v < ccdg_.size(); ++v) {
    if (ccdg_[v].link != NueCcdg::kNone)
      links_[ccdg_[v].link].vertex = v;
    else
      sw_[switch_of_lid(ccdg_[v].id.local_lid)].fake = v;
  }
  where_ccdg_.assign(ccdg_.size(), 0);
  where_sw_.assign(sw_.size(), 0);
  for (Switch& s : sw_) s.ps.reserve(s.links);
}

// The switches on some shortest path (in hops) between two switches of the
// destinations (OpenSM's calculate_convex_subnetwork).
void Nue::convex_hull(const std::vector<uint16_t>& dests) {
  for (Switch& s : sw_) s.in_hull = s.has_adj_destinations = false;
  for (uint16_t d : dests) {
    Switch& s = sw_[attach_switch(d)];
    s.in_hull = s.has_adj_destinations = true;
  }
  std::vector<uint32_t> queue;
  queue.reserve(sw_.size());
  for (uint32_t a = 0; a < sw_.size(); ++a) {
    if (!sw_[a].in_hull) continue;
    for (Switch& s : sw_) {
      s.distance = kInfinity;
      s.processed = false;
    }
    sw_[a].distance = 0;
    sw_[a].processed = true;
    queue.assign(1, a);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const Switch& u = sw_[queue[head]];
      for (uint32_t l = u.first_link; l < u.first_link + u.links; ++l) {
        Switch& v = sw_[links_[l].to];
        if (v.distance == kInfinity) {
          v.distance = u.distance + 1;
          queue.push_back(links_[l].to);
        }
      }
    }
    for (uint32_t b = 0; b < sw_.size(); ++b) {
      if (!sw_[b].in_hull || sw_[b].processed) continue;
      sw_[b].processed = true;
      queue.assign(1, b);
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const Switch& v = sw_[queue[head]];
        for (uint32_t l = v.first_link; l < v.first_link + v.links; ++l) {
          Switch& u = sw_[links_[l].to];
          if (u.processed) continue;
          if (u.distance + 1 == v.distance) {
            u.in_hull = u.processed = true;
            queue.push_back(links_[l].to);
          }
        }
      }
    }
  }
}

// The hull's switch of highest betweenness centrality, the first of equals
// (OpenSM's get_central_node_wrt_subnetwork: Brandes' algorithm over the
// hull, each destination HCA counted at its switch).
uint32_t Nue::central_switch(const std::vector<uint16_t>& dests) {
  for (Switch& s : sw_) {
    s.centrality = 0;
    s.hull_terminals = 0;
    s.ps.clear();
  }
  for (uint16_t d : dests)
    if (!is_switch(lids_.owner[d].node)) ++sw_[attach_switch(d)].hull_terminals;
  std::vector<uint32_t> queue, stack;
  for (uint32_t a = 0; a < sw_.size(); ++a) {
    Switch& root = sw_[a];
    if (!root.in_hull) continue;
    for (Switch& s : sw_) {
      s.ps.clear();
      s.sigma = 0;
      s.distance = kInfinity;
    }
    root.sigma = 1;
    root.distance = 0;
    stack.clear();
    queue.assign(1, a);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const uint32_t u = queue[head];
      stack.push_back(u);
      for (uint32_t l = sw_[u].first_link; l < sw_[u].first_link + sw_[u].links; ++l) {
        const uint32_t v = links_[l].to;
        if (!sw_[v].in_hull) continue;
        if (sw_[v].distance == kInfinity) {
          sw_[v].distance = sw_[u].distance + 1;
          queue.push_back(v);
        }
        if (sw_[v].distance == sw_[u].distance + 1) {
          sw_[v].sigma += sw_[u].sigma;
          sw_[v].ps.push_back(u);
        }
      }
    }
    // Once for the switch, once more for each destination HCA on it.
    for (unsigned j = 0; j < root.hull_terminals + 1u; ++j) {
      for (Switch& s : sw_) s.delta = 0.0;
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        Switch& v = sw_[*it];
        unsigned update = v.hull_terminals;
        if (&v == &root && j > 0) update = v.hull_terminals > 0 ? v.hull_terminals - 1u : update;
        for (unsigned k = 0; k < update; ++k) v.delta += (1.0 * static_cast<double>(v.sigma)) / static_cast<double>(v.sigma);
        for (uint32_t u : v.ps)
          sw_[u].delta += (1.0 * static_cast<double>(sw_[u].sigma)) / static_cast<double>(v.sigma) * (1 + v.delta);
        if (j > 0 || &root != &v) v.centrality += v.delta;
      }
    }
  }
  uint32_t central = kNone;
  double best = -1.0;
  for (uint32_t s = 0; s < sw_.size(); ++s)
    if (sw_[s].in_hull && best < sw_[s].centrality) {
      central = s;
      best = sw_[s].centrality;
    }
  return central;
}

// Dijkstra over the network's current link weights from `root`; each switch
// keeps the link it was reached by in escape_path (OpenSM's
// calculate_spanning_tree_in_network).
void Nue::spanning_tree(uint32_t root) {
  ClHeap heap(where_sw_, sw_.size());
  for (uint32_t s = 0; s < sw_.size(); ++s) {
    sw_[s].distance = kInfinity;
    sw_[s].escape_path = kNone;
    heap.insert(kInfinity, s);
  }
  sw_[root].distance = 0;
  heap.modify_key(0, where_sw_[root]);
  for (uint32_t cur = heap.extract_root(); cur != ClHeap::kNone; cur = heap.extract_root()) {
    for (uint32_t l = sw_[cur].first_link; l < sw_[cur].first_link + sw_[cur].links; ++l) {
      Switch& adj = sw_[links_[l].to];
      const uint64_t d = sw_[cur].distance + links_[l].weight;
      if (d < adj.distance) {
        adj.escape_path = l;
        adj.distance = d;
        heap.modify_key(d, where_sw_[links_[l].to]);
      }
    }
  }
}

std::string Nue::mark_escape_paths(const std::vector<uint16_t>& dests, bool verify) {
  convex_hull(dests);
  const uint32_t central = central_switch(dests);
  if (central == kNone) return "nue found no central switch for its escape paths";
  spanning_tree(central);
  if (verify) {
    std::size_t undiscovered = 0;
    for (const Switch& s : sw_) undiscovered += s.escape_path == kNone;
    if (undiscovered > 1)
      return "unsupported network state (detached and inaccessible switches found; gracefully shutdown this "
             "routing engine)";
  }
  std::vector<uint32_t> into_central;  // the tree's links out of the central switch, in the order found
  for (uint32_t a = 0; a < sw_.size(); ++a) {
    uint32_t cur = sw_[a].escape_path;
    while (cur != kNone) {
      const uint32_t up = switch_of_lid(links_[cur].info.local_lid);
      const uint32_t cur_v = links_[cur].vertex;
      ccdg_.paint_escape(cur_v);
      const uint32_t next = sw_[up].escape_path;
      if (next == kNone) {
        if (std::find(into_central.begin(), into_central.end(), cur) == into_central.end() &&
            into_central.size() < sw_[central].links)
          into_central.push_back(cur);
        break;
      }
      const uint32_t next_v = links_[next].vertex;
      ccdg_.paint_escape(next_v);
      ccdg_.paint_escape_edge(next_v, cur_v);
      if (sw_[a].has_adj_destinations) {
        const uint32_t rev_cur = ccdg_.find(links_[cur].info.inverted());
        const uint32_t rev_next = ccdg_.find(links_[next].info.inverted());
        ccdg_.paint_escape(rev_cur);
        ccdg_.paint_escape(rev_next);
        ccdg_.paint_escape_edge(rev_cur, rev_next);
        for (uint32_t l = sw_[up].first_link; l < sw_[up].first_link + sw_[up].links; ++l) {
          const uint32_t adj = sw_[links_[l].to].escape_path;
          if (adj == kNone) continue;
          if (links_[cur].info.local_lid == links_[adj].info.local_lid &&
              links_[cur].info.remote_lid != links_[adj].info.remote_lid)
            ccdg_.paint_escape_edge(rev_cur, links_[adj].vertex);
        }
      }
      cur = next;
    }
  }
  for (uint32_t in : into_central)
    for (uint32_t out : into_central) {
      if (in == out) continue;
      const uint32_t in_v = links_[in].vertex;
      const uint32_t rev_out = ccdg_.find(links_[out].info.inverted());
      ccdg_.paint_escape(in_v);
      ccdg_.paint_escape(rev_out);
      ccdg_.paint_escape_edge(rev_out, in_v);
    }
  return "";
}

void Nue::push_stack(uint32_t sw, uint32_t link) {
  std::vector<uint32_t>& stack = sw_[sw].stack;
  if (std::find(stack.begin(), stack.end(), link) == stack.end()) stack.push_back(link);
}

// The escape paths' tree, turned round towards dlid's switch (OpenSM's
// use_escape_paths_to_solve_impass).
void Nue::use_escape_paths(uint16_t dlid) {
  for (Switch& s : sw_) s.used_link = s.escape_path;
  uint32_t a = attach_switch(dlid);
  uint32_t cur = sw_[a].used_link;
  if (cur == kNone) return;
  sw_[a].used_link = kNone;
  while (cur != kNone) {
    const uint32_t b = switch_of_lid(links_[cur].info.local_lid);
    const uint64_t reverse = links_[cur].info.inverted().key();
    uint32_t reverse_link = kNone;
    for (uint32_t l = sw_[a].first_link; l < sw_[a].first_link + sw_[a].links; ++l)
      if (links_[l].info.key() == reverse) reverse_link = l;
    cur = sw_[b].used_link;
    sw_[b].used_link = reverse_link;
    a = b;
  }
}

// Local backtracking (OpenSM's attempt_local_backtracking): for the first
// unreached switch that can be, a neighbour's other way in that closes no
// cycle; returns the channel into the unreached switch, or kNone.
uint32_t Nue::backtrack(uint32_t source, uint32_t colour) {
  struct Candidate {
    uint32_t link;      // from the unreached switch to the neighbour
    uint32_t vertex;    // the neighbour's other way in
  };
  std::vector<Candidate> candidates;
  std::vector<uint32_t> depended;
  uint32_t found = kNone;
  for (uint32_t u = 0; u < sw_.size(); ++u) {
    if (sw_[u].distance != kInfinity) continue;
    candidates.clear();
    for (uint32_t l1 = sw_[u].first_link; l1 < sw_[u].first_link + sw_[u].links; ++l1) {
      const Switch& adj = sw_[links_[l1].to];
      if (adj.distance == kInfinity) continue;
      depended.clear();
      for (uint32_t l2 = adj.first_link; l2 < adj.first_link + adj.links; ++l2) {
        const uint32_t used = sw_[links_[l2].to].used_link;
        if (used != kNone && links_[used].info.local_lid == adj.lid) depended.push_back(links_[used].vertex);
      }
      for (uint32_t in : adj.stack) {
        const uint32_t v = links_[in].vertex;
        bool ok = true;
        for (uint32_t d : depended) {
          if (ccdg_[v].id.reverse_of(ccdg_[d].id)) {
            ok = false;
            break;
          }
          const uint32_t e = ccdg_.edge_between(v, d);
          if (e == NueCcdg::kNone) throw std::logic_error("nue: backtracking over a dependency that does not exist");
          if (ccdg_.edge_colour(e) < NueCcdg::kEscape) {
            ok = false;
            break;
          }
        }
        if (ok) candidates.push_back({l1, v});
      }
    }
    if (candidates.empty()) continue;
    std::stable_sort(candidates.begin(), candidates.end(), [this](const Candidate& a, const Candidate& b) {
      return ccdg_[a.vertex].distance < ccdg_[b.vertex].distance;
    });
    for (const Candidate& c : candidates) {
      const uint32_t pre = c.vertex;
      const uint32_t into = ccdg_.find(links_[c.link].info.inverted());
      const uint32_t pre_into = ccdg_.edge_between(pre, into);
      if (pre_into == NueCcdg::kNone) throw std::logic_error("nue: backtracking into a dependency that does not exist");
      if (ccdg_.edge_colour(pre_into) == NueCcdg::kBlocked) continue;
      const uint32_t before = switch_of_lid(ccdg_[pre].id.local_lid);
      if (before == source) continue;
      if (sw_[before].used_link == kNone) throw std::logic_error("nue: backtracking from an unreached switch");
      const uint32_t pre_pre = links_[sw_[before].used_link].vertex;
      if (ccdg_[pre].id.reverse_of(ccdg_[pre_pre].id)) continue;
      const uint32_t pre_edge = ccdg_.edge_between(pre_pre, pre);
      if (pre_edge == NueCcdg::kNone) throw std::logic_error("nue: backtracking over a dependency that does not exist");
      if (ccdg_.edge_colour(pre_edge) == NueCcdg::kBlocked) continue;
      const bool was_wet = ccdg_.edge(pre_edge).wet;
      if (ccdg_.closes_cycle(pre_pre, pre_edge, colour)) continue;
      if (ccdg_.closes_cycle(pre, pre_into, colour)) {
        if (!was_wet) ccdg_.reset_edge(pre_edge);
        continue;
      }
      ccdg_[into].distance = ccdg_[pre].distance + links_[ccdg_[into].link].weight;
      if (found == kNone) {
        sw_[u].used_link = ccdg_[into].link;
        sw_[u].distance = ccdg_[into].distance;
        Switch& adj = sw_[links_[c.link].to];
        adj.used_link = ccdg_[pre].link;
        adj.distance = ccdg_[pre].distance;
        found = into;
      } else {
        push_stack(u, ccdg_[into].link);
      }
    }
    if (found != kNone) break;
  }
  return found;
}

// Whether switch `sw`, found before the last backtracking step, may now be
// reached through `vertex` instead (OpenSM's attempt_shortcut_discovery).
bool Nue::shortcut(uint32_t sw, uint32_t vertex, uint32_t colour) {
  const uint32_t old = links_[sw_[sw].used_link].vertex;
  const uint32_t before = switch_of_lid(ccdg_[old].id.local_lid);
  if (sw_[before].used_link == kNone) throw std::logic_error("nue: a shortcut behind an unreached switch");
  const uint32_t pre_old = links_[sw_[before].used_link].vertex;
  std::vector<uint32_t> dependent;
  for (uint32_t l = sw_[sw].first_link; l < sw_[sw].first_link + sw_[sw].links; ++l) {
    const uint32_t used = sw_[links_[l].to].used_link;
    if (used == kNone || links_[used].info.local_lid != sw_[sw].lid) continue;
    const uint32_t e = ccdg_.edge_between(vertex, links_[used].vertex);
    if (e == NueCcdg::kNone) throw std::logic_error("nue: a shortcut over a dependency that does not exist");
    dependent.push_back(e);
  }
  std::vector<bool> was_wet;
  for (uint32_t e : dependent) was_wet.push_back(ccdg_.edge(e).wet);
  std::size_t broken = dependent.size();
  for (std::size_t i = 0; i < dependent.size(); ++i)
    if (ccdg_.edge_colour(dependent[i]) == NueCcdg::kBlocked || ccdg_.closes_cycle(vertex, dependent[i], colour)) {
      broken = i;
      break;
    }
  if (broken == dependent.size()) {
    ccdg_.reset_edge_between(pre_old, old);
    for (uint32_t e : dependent) ccdg_.reset_edge(e);
    return true;
  }
  for (std::size_t i = 0; i < broken; ++i)
    if (ccdg_.edge_colour(dependent[i]) != NueCcdg::kBlocked && !was_wet[i]) ccdg_.reset_edge(dependent[i]);
  return false;
}

// OpenSM's route_via_modified_dijkstra_on_ccdg: "" or why it failed.
std::string Nue::route_lid(uint16_t dlid, uint32_t colour) {
  for (Switch& s : sw_) {
    s.distance = kInfinity;
    s.used_link = kNone;
    s.stack.clear();
    s.found_after = -1;
  }
  ClHeap heap(where_ccdg_, ccdg_.size());
  const uint32_t source = attach_switch(dlid);
  sw_[source].distance = 0;
  std::size_t found = 1;
  const uint32_t source_v = sw_[source].fake;
  ccdg_.paint_source(source_v, colour);
  ccdg_[source_v].distance = 0;
  int32_t step = 0;
  uint32_t cur = source_v;
  do {
    const uint32_t edges = ccdg_[cur].edges;
    for (uint32_t j = 0; j < 2 * edges; ++j) {
      const uint32_t e = ccdg_[cur].first_edge + j % edges;
      if (j < edges ? ccdg_.edge_colour(e) < NueCcdg::kEscape : ccdg_.edge_colour(e) != NueCcdg::kUnused) continue;
      const uint32_t next = ccdg_.edge(e).to;
      const Link& link = links_[ccdg_[next].link];
      const uint64_t d = ccdg_[cur].distance + link.weight;
      Switch& reached = sw_[link.to];
      if (d < reached.distance) {
        if (ccdg_.closes_cycle(cur, e, colour)) continue;
        if (step != 0 && reached.used_link != kNone && step != reached.found_after) {
          if (!shortcut(link.to, next, colour)) continue;
        } else {
          if (reached.used_link != kNone) {
            const uint32_t old = heap.remove(where_ccdg_[links_[reached.used_link].vertex]);
            if (old == ClHeap::kNone) return "nue lost a channel from its heap (OpenSM would crash here)";
            const uint32_t before = switch_of_lid(ccdg_[old].id.local_lid);
            if (sw_[before].used_link != kNone) ccdg_.reset_edge_between(links_[sw_[before].used_link].vertex, old);
          } else {
            ++found;
            reached.found_after = step;
          }
          ccdg_[next].distance = d;
          if (!heap.insert(d, next)) return "nue's heap is full (OpenSM's ERR NUE34)";
        }
        reached.distance = d;
        reached.used_link = ccdg_[next].link;
      } else if (ccdg_.edge_colour(e) > NueCcdg::kUnused) {
        if (step != 0 && reached.used_link != kNone) continue;
        ccdg_[next].distance = d;
        push_stack(link.to, ccdg_[next].link);
      }
    }
    cur = heap.extract_root();
    if (cur == ClHeap::kNone && found != sw_.size()) {
      cur = backtrack(source, colour);
      if (cur != kNone) {
        ++found;
        ++step;
      } else {
        use_escape_paths(dlid);
        step = 0;
      }
    }
  } while (cur != ClHeap::kNone);
  std::vector<std::pair<uint32_t, uint32_t>> used;
  for (uint32_t s = 0; s < sw_.size(); ++s) {
    if (sw_[s].used_link == kNone) continue;
    const uint32_t v = links_[sw_[s].used_link].vertex;
    const uint32_t before = switch_of_lid(ccdg_[v].id.local_lid);
    if (before != source && sw_[before].used_link == kNone)
      return "nue left a switch without a path (OpenSM would crash here)";
    used.push_back({before == source ? source_v : links_[sw_[before].used_link].vertex, v});
  }
  ccdg_.fix(used);
  return "";
}

void Nue::write_lft(uint16_t dlid) {
  const LinkEnd owner = lids_.owner[dlid];
  for (const Switch& s : sw_) {
    uint8_t port;
    if (s.used_link == kNone) {
      if (is_switch(owner.node)) continue;  // its own LID: port 0 already
      port = static_cast<uint8_t>(index_.peer(owner.node, owner.port)->port);
    } else {
      port = links_[s.used_link].info.remote_port;
    }
    lft_[s.node][dlid] = port;
  }
}

// Every switch's terminals added to the links of its path to `dest`
// (OpenSM's update_network_link_weights).
std::string Nue::add_weights(uint32_t dest) {
  for (uint32_t s = 0; s < sw_.size(); ++s) {
    if (s == dest) continue;
    const uint8_t add = sw_[s].terminals;
    uint32_t cur = s;
    do {
      const uint32_t l = sw_[cur].used_link;
      if (l == kNone) return "nue left a switch without a path (OpenSM would crash here)";
      links_[l].weight += add;
      cur = switch_of_lid(links_[l].info.local_lid);
    } while (cur != dest);
  }
  return "";
}

std::string Nue::route(unsigned max_vls, bool include_switches, std::vector<uint8_t>& dlid_sl) {
  // The ports OpenSM's port table holds, in its order; their base LIDs.
  std::vector<LinkEnd> ports;
  for (unsigned lid = 1; lid <= lids_.top; ++lid) {
    const LinkEnd o = lids_.owner[lid];
    if (o.node == topology::kNoNode) continue;
    const uint16_t base = is_switch(o.node) ? lids_.base[o.node][0] : lids_.base[o.node][o.port - 1];
    if (base == lid) ports.push_back(o);
  }
  sort_port_table(t_, ports);
  build();
  unsigned max_lmc = 0;
  std::vector<std::vector<uint16_t>> dests(max_vls);
  unsigned vl = 0;
  for (const LinkEnd& p : ports) {
    if (is_switch(p.node)) {
      if (!include_switches) continue;
    } else {
      max_lmc = lids_.lmc;
      if (attach_switch(lids_.base[p.node][p.port - 1]) == kNone)
        return "an HCA port linked to no switch (OpenSM's nue would crash on it)";
    }
    dests[vl].push_back(is_switch(p.node) ? lids_.base[p.node][0] : lids_.base[p.node][p.port - 1]);
    vl = (vl + 1) % max_vls;
  }
  for (const Switch& s : sw_) {
    lft_[s.node].assign(std::size_t{lids_.top} + 1, kNoPath);
    lft_[s.node][s.lid] = 0;
  }
  dlid_sl.assign(std::size_t{lids_.top} + 1, 0);
  std::size_t most = 1;
  for (const auto& d : dests) most = std::max(most, d.size());
  const std::size_t colours = most * (std::size_t{1} << max_lmc) + 3;
  const auto route_one = [&](uint16_t lid, uint32_t colour, unsigned layer) -> std::string {
    if (std::string why = route_lid(lid, colour); !why.empty()) return why;
    write_lft(lid);
    if (std::string why = add_weights(attach_switch(lid)); !why.empty()) return why;
    dlid_sl[lid] = static_cast<uint8_t>(layer);
    return "";
  };
  for (unsigned layer = 0; layer < max_vls; ++layer) {
    if (dests[layer].empty()) continue;
    uint32_t colour = NueCcdg::kEscape + 1;
    ccdg_.reset_colours(colours);
    if (std::string why = mark_escape_paths(dests[layer], layer == 0); !why.empty()) return why;
    for (const bool switches : {false, true}) {
      if (switches && !include_switches) break;
      for (uint16_t base : dests[layer]) {
        if (is_switch(lids_.owner[base].node) != switches) continue;
        const unsigned count = switches ? 1u : 1u << lids_.lmc;
        for (unsigned k = 0; k < count; ++k)
          if (std::string why = route_one(static_cast<uint16_t>(base + k), colour++, layer); !why.empty()) return why;
      }
    }
  }
  if (!include_switches)
    for (uint32_t s = 0; s < sw_.size(); ++s) {
      spanning_tree(s);
      use_escape_paths(sw_[s].lid);
      write_lft(sw_[s].lid);
      if (std::string why = add_weights(s); !why.empty()) return why;
    }
  return "";
}

}  // namespace

std::string opensm_nue(const Topology& t, const TopologyIndex& index, const Lids& lids, unsigned max_vls,
                       bool include_switches, std::vector<std::vector<uint8_t>>& lft, std::vector<uint8_t>& dlid_sl) {
  Nue nue(t, index, lids, lft);
  std::string why = nue.route(std::max(1u, max_vls), include_switches, dlid_sl);
  if (!why.empty() || max_vls <= 1) dlid_sl.clear();
  return why;
}

}  // namespace hcasim::routing::detail
