// OpenSM's dfsssp and sssp engines (opensm 3.3.23: osm_ucast_dfsssp.c):
// Dijkstra from every destination LID over switch-to-switch links whose
// weights count the paths already routed over them, then (dfsssp) the
// (source LID, destination LID) pairs spread over virtual layers until each
// layer's channel dependency graph has no cycle. Rules in routing.hpp.
//
// How, the same as OpenSM's:
// - Switches in OpenSM's switch-table order (guid_table_less on NodeGUIDs),
//   those the SM finds. A switch's links: its ports to other switches, in
//   port order, one per cable, each of weight P * P (P: the LIDs of the
//   fabric, HCA ports' and switches'); a switch counts 1 + the LIDs of the
//   HCA ports linked to it.
// - Destination order: switches in table order stably sorted by that count,
//   most first; each gives the HCA ports linked to it in port order; then the
//   switches themselves in the same sorted order. With a CN GUID file, its
//   ports come first (switch by switch as above), then those of an I/O GUID
//   file, then the other HCA ports (an empty file counts as none). Each LID of a destination
//   (all LMC offsets) in turn: Dijkstra from the destination (an HCA port as
//   an extra vertex with one link of weight 1 to its switch) over complib's
//   4-ary heap (cl_heap: every switch inserted at "infinity" 0x7FFFFFFF in
//   table order, then the HCA; the lightest child wins ties as the last of
//   them); a switch's LFT entry is the port its tree link arrives on; then
//   every link of the tree gains, for each switch the tree reaches, that
//   switch's count, on every link between it and the destination.
// - dfsssp's layers: every ordered pair of LIDs of two different ports of
//   that order (destination major, source minor) starts in layer 0. A path's
//   channels are its switch-to-switch hops (from an HCA; a switch's own
//   traffic has none); the graph of a layer keeps, per channel, its
//   dependencies in the order they were first used and the pairs using each.
//   Layer by layer (all but the last), a depth-first search finds a cycle; the
//   dependency of the cycle with the fewest pairs still on it (the first such)
//   is cut and its pairs moved to the next layer; the search resumes from the
//   cycle's channel, with the marks OpenSM leaves (a search keeps its marks:
//   channels off the cycle stay on the stack). A cycle in the last layer
//   refuses the fabric ("Not enough VLs available").
// - Balancing: with fewer layers needed than VLs available, each spare VL
//   goes to the layer with the most paths per VL so far; layers are then
//   renumbered to the first SL of their share (OpenSM's vltable_change_vl and
//   split count, with its quirk: a layer that keeps its number ends with a
//   spread of 0, that is its base SL only).
// - OpenSM keeps the pairs' table in the order of the LIDs' network byte
//   order read as host integers (byte-swapped on little-endian hosts); the
//   renumbering walks it in that order.

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint64_t kInfinity = 0x7FFFFFFF;  // osm_ucast_dfsssp.c: INF
constexpr uint32_t kNone = UINT32_MAX;
constexpr unsigned kHeapArity = 4;          // dijkstra: cl_heap_init(..., 4, ...)

// complib's cl_heap (a d-ary min-heap on 64-bit keys), with the same moves, so
// that equal keys come out in the same order. `where` gets each vertex's slot.
class ClHeap {
 public:
  explicit ClHeap(std::vector<std::size_t>& where) : where_(where) {}
  void insert(uint64_t key, uint32_t v) {
    elems_.push_back({key, v});
    where_[v] = elems_.size() - 1;
    up(elems_.size() - 1);
  }
  void modify_key(uint64_t key, std::size_t i) {
    const uint64_t old = elems_[i].key;
    elems_[i].key = key;
    if (key < old)
      up(i);
    else if (key > old)
      down(i);
  }
  uint32_t extract_root() {
    if (elems_.empty()) return kNone;
    if (elems_.size() == 1) {
      const uint32_t v = elems_[0].v;
      elems_.clear();
      return v;
    }
    const Elem root = elems_[0];
    elems_[0] = elems_.back();
    elems_.pop_back();
    where_[root.v] = elems_.size();
    where_[elems_[0].v] = 0;
    down(0);
    return root.v;
  }

 private:
  struct Elem {
    uint64_t key;
    uint32_t v;
  };
  void down(std::size_t index) {
    const Elem tmp = elems_[index];
    std::size_t parent = index;
    bool moved = false;
    while (parent * kHeapArity + 1 < elems_.size()) {
      const std::size_t first = parent * kHeapArity + 1;
      std::size_t pick = first;
      for (std::size_t c = first + 1; c < first + kHeapArity && c < elems_.size(); ++c)
        if (elems_[c].key <= elems_[pick].key) pick = c;
      if (tmp.key <= elems_[pick].key) break;
      elems_[parent] = elems_[pick];
      where_[elems_[parent].v] = parent;
      parent = pick;
      moved = true;
    }
    if (moved) {
      elems_[parent] = tmp;
      where_[tmp.v] = parent;
    }
  }
  void up(std::size_t index) {
    if (index == 0) return;
    const Elem tmp = elems_[index];
    std::size_t parent = index, slot = 0;
    bool moved = false;
    do {
      const std::size_t child = parent;
      parent = (child - 1) / kHeapArity;
      if (!(tmp.key < elems_[parent].key)) break;
      elems_[child] = elems_[parent];
      where_[elems_[child].v] = child;
      slot = parent;
      moved = true;
    } while (parent > 0);
    if (moved) {
      elems_[slot] = tmp;
      where_[tmp.v] = slot;
    }
  }
  std::vector<Elem> elems_;
  std::vector<std::size_t>& where_;
};

// One layer's channel dependency graph (OpenSM's cdg): channels in a binary
// search tree by channel id (its shape decides where a search restarts),
// dependencies per channel in the order first used.
class Cdg {
 public:
  enum : uint8_t { kUnknown = 0, kGray, kBlack };
  struct Dep {
    uint32_t to;                 // channel
    uint32_t pairs = 0;          // pairs added (OpenSM's num_pairs)
    uint32_t removed = 0;        // pairs moved away since
    std::vector<uint32_t> srcdest;  // slid << 16 | dlid
  };
  struct Node {
    uint64_t id;
    std::vector<uint32_t> deps;  // into deps_
    uint8_t status = kUnknown;
    uint32_t pre = kNone;
    uint32_t left = kNone, right = kNone;
  };

  bool empty() const { return nodes_.empty(); }
  uint32_t root() const { return nodes_.empty() ? kNone : 0; }

  // The pair's path (channel ids) into the graph: update_channel_dep_graph.
  void add(const std::vector<uint64_t>& path, uint32_t srcdest) {
    uint32_t last = kNone;
    for (const uint64_t id : path) {
      uint32_t c;
      const auto found = find_.find(id);
      if (found != find_.end()) {
        c = found->second;
        if (last != kNone) {
          if (const uint32_t d = dep_to(last, c); d != kNone)
            push(d, srcdest);
          else
            new_dep(last, c, srcdest);
        }
      } else {
        c = insert(id);
        if (last != kNone) new_dep(last, c, srcdest);
      }
      last = c;
    }
  }
  // remove_path_from_cdg: counts the pair off every dependency of its path still there.
  bool remove(const std::vector<uint64_t>& path) {
    uint32_t last = kNone;
    for (const uint64_t id : path) {
      const auto found = find_.find(id);
      if (found == find_.end()) return false;
      if (last != kNone)
        if (const uint32_t d = dep_to(last, found->second); d != kNone) ++deps_[d].removed;
      last = found->second;
    }
    return true;
  }

  // search_cycle_in_channel_dep_graph: a channel on a cycle, or kNone.
  uint32_t search_cycle(uint32_t start) {
    if (preorder_.empty()) make_preorder();
    uint32_t cur = start;
    while (cur != kNone) {
      Node& n = nodes_[cur];
      n.status = kGray;
      uint32_t next = kNone;
      for (const uint32_t d : n.deps) {
        const uint32_t to = deps_[d].to;
        if (nodes_[to].status == kUnknown) {
          next = to;
          break;
        }
        if (nodes_[to].status == kGray) return to;
      }
      if (next != kNone) {
        nodes_[next].pre = cur;
        cur = next;
        continue;
      }
      n.status = kBlack;
      for (const uint32_t d : n.deps) {  // a sink's pairs no longer matter
        deps_[d].srcdest = {};
        deps_[d].pairs = 0;
        deps_[d].removed = 0;
      }
      if (n.pre != kNone) {
        cur = n.pre;
        n.pre = kNone;
      } else {
        cur = next_unknown();
      }
    }
    return kNone;
  }

  // get_weakest_link_in_cycle: follows the first dependency to a channel on
  // the stack from each, round to `cycle`, clearing the marks; unlinks and
  // returns the one with the fewest pairs left (the first of them). kNone when
  // the walk cannot go on (OpenSM would loop for ever).
  uint32_t cut_weakest(uint32_t cycle) {
    uint32_t weakest = kNone, owner = kNone, cur = cycle;
    for (const uint32_t d : nodes_[cur].deps)
      if (nodes_[deps_[d].to].status == kGray) {
        weakest = d;
        owner = cur;
        cur = deps_[d].to;
        break;
      }
    if (weakest == kNone) return kNone;
    for (;;) {
      set_unknown(cur);
      uint32_t next = kNone;
      for (const uint32_t d : nodes_[cur].deps)
        if (nodes_[deps_[d].to].status == kGray) {
          if (deps_[d].pairs - deps_[d].removed < deps_[weakest].pairs - deps_[weakest].removed) {
            weakest = d;
            owner = cur;
          }
          next = deps_[d].to;
          break;
        }
      if (next == kNone) return kNone;
      cur = next;
      if (cur == cycle) {
        set_unknown(cur);
        break;
      }
    }
    std::vector<uint32_t>& list = nodes_[owner].deps;
    list.erase(std::find(list.begin(), list.end(), weakest));
    return weakest;
  }
  Dep& dep(uint32_t d) { return deps_[d]; }

 private:
  uint32_t dep_to(uint32_t from, uint32_t to) const {
    for (const uint32_t d : nodes_[from].deps)
      if (deps_[d].to == to) return d;
    return kNone;
  }
  void push(uint32_t d, uint32_t srcdest) {
    deps_[d].srcdest.push_back(srcdest);
    ++deps_[d].pairs;
  }
  void new_dep(uint32_t from, uint32_t to, uint32_t srcdest) {
    deps_.push_back(Dep{to, 0, 0, {}});
    push(static_cast<uint32_t>(deps_.size() - 1), srcdest);
    nodes_[from].deps.push_back(static_cast<uint32_t>(deps_.size() - 1));
  }
  uint32_t insert(uint64_t id) {
    const uint32_t c = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(Node{id, {}});
    find_.emplace(id, c);
    if (c != 0) {  // cdg_insert: an unbalanced search tree
      uint32_t at = 0;
      for (;;) {
        uint32_t& child = id < nodes_[at].id ? nodes_[at].left : nodes_[at].right;
        if (child == kNone) {
          child = c;
          break;
        }
        at = child;
      }
    }
    preorder_.clear();
    return c;
  }
  // get_next_cdg_node: the first unmarked channel in the tree's preorder.
  void make_preorder() {
    position_.assign(nodes_.size(), 0);
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
      const uint32_t c = stack.back();
      stack.pop_back();
      position_[c] = static_cast<uint32_t>(preorder_.size());
      preorder_.push_back(c);
      if (nodes_[c].right != kNone) stack.push_back(nodes_[c].right);
      if (nodes_[c].left != kNone) stack.push_back(nodes_[c].left);
    }
    cursor_ = 0;
  }
  uint32_t next_unknown() {
    while (cursor_ < preorder_.size() && nodes_[preorder_[cursor_]].status != kUnknown) ++cursor_;
    return cursor_ < preorder_.size() ? preorder_[cursor_] : kNone;
  }
  void set_unknown(uint32_t c) {
    nodes_[c].status = kUnknown;
    if (!preorder_.empty()) cursor_ = std::min<std::size_t>(cursor_, position_[c]);
  }

  std::vector<Node> nodes_;
  std::vector<Dep> deps_;
  std::unordered_map<uint64_t, uint32_t> find_;
  std::vector<uint32_t> preorder_, position_;  // fixed while the layer is searched (nothing is added to it)
  std::size_t cursor_ = 0;                     // no unmarked channel before it in preorder_
};

class Dfsssp {
 public:
  Dfsssp(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids)
      : t_(t), index_(index), g_(g), lids_(lids) {
    for (unsigned s = 0; s < g.size(); ++s)
      if (lids.base[g.node[s]][0] != 0) table_.push_back(g.node[s]);
    std::sort(table_.begin(), table_.end(), [&](unsigned a, unsigned b) {
      return guid_table_less(topology::node_guid(t, a), topology::node_guid(t, b));
    });
    const unsigned n = static_cast<unsigned>(table_.size());
    vertex_of_.assign(t.nodes.size(), 0);
    for (unsigned i = 0; i < n; ++i) vertex_of_[table_[i]] = i + 1;
    uint64_t lids_total = 0;
    for (unsigned lid = 1; lid <= lids.top; ++lid) lids_total += lids.owner[lid].node != topology::kNoNode;
    const uint64_t start_weight = lids_total * lids_total;  // P^2: shortest paths first
    links_.push_back(Link{});                                // the HCA source's link
    first_link_.assign(n + 2, 1);
    num_hca_.assign(n + 1, 0);
    for (unsigned v = 1; v <= n; ++v) {
      const unsigned node = table_[v - 1];
      first_link_[v] = static_cast<uint32_t>(links_.size());
      num_hca_[v] = 1;  // the switch's own LID (base port 0: LMC 0)
      for (unsigned p = 1; p <= t.nodes[node].ports; ++p) {
        const auto peer = index.peer(node, p);
        if (!peer || peer->node == node) continue;
        if (t.nodes[peer->node].kind != NodeKind::Switch) {
          num_hca_[v] += 1u << lids.lmc;
          continue;
        }
        if (vertex_of_[peer->node] == 0) continue;
        links_.push_back(Link{v, static_cast<uint8_t>(p), vertex_of_[peer->node], static_cast<uint8_t>(peer->port),
                              start_weight});
      }
    }
    first_link_[n + 1] = static_cast<uint32_t>(links_.size());
    used_.assign(n + 1, kNone);
    distance_.assign(n + 1, 0);
    discovered_.assign(n + 1, 0);
    where_.assign(n + 1, 0);
  }

  // The destination order (the port order list): HCA ports, then switches
  // (port 0). With OpenSM's CN and I/O GUID files (non-empty): the CN ports
  // first, then the I/O ports, then the others, each pass switch by switch.
  std::vector<LinkEnd> order(const FtreeGuids& guids) const {
    std::vector<uint32_t> sorted(table_.size());
    for (uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i + 1;
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return num_hca_[a] > num_hca_[b]; });
    const std::vector<uint64_t> none;
    const std::vector<uint64_t>& cns = guids.cns ? *guids.cns : none;
    const std::vector<uint64_t>& ios = guids.ios ? *guids.ios : none;
    std::vector<uint64_t> mixed = cns;  // the others: ports in neither file given
    if (!ios.empty()) mixed.insert(mixed.end(), ios.begin(), ios.end());
    std::vector<LinkEnd> out;
    std::vector<char> listed;
    // add_sw_endports_to_order_list: `only` the ports in `file`, or (false) those not in it.
    const auto add_ports = [&](const std::vector<uint64_t>& file, bool only) {
      for (const uint32_t v : sorted) {
        const unsigned node = table_[v - 1];
        for (unsigned p = 1; p <= t_.nodes[node].ports; ++p) {
          const auto peer = index_.peer(node, p);
          if (!peer || t_.nodes[peer->node].kind == NodeKind::Switch) continue;
          const uint16_t base = lids_.base[peer->node][peer->port - 1];
          if (base == 0) continue;
          if (!file.empty() &&
              only != (std::find(file.begin(), file.end(), topology::port_guid(t_, *peer)) != file.end()))
            continue;
          if (listed.size() <= base) listed.resize(std::size_t{base} + 1, 0);
          if (listed[base]) continue;
          listed[base] = 1;
          out.push_back(*peer);
        }
      }
    };
    if (!cns.empty()) add_ports(cns, true);
    if (!ios.empty()) add_ports(ios, true);
    add_ports(mixed, false);
    for (const uint32_t v : sorted) out.push_back({table_[v - 1], 0});
    return out;
  }

  // The LIDs of a port of the order.
  std::pair<unsigned, unsigned> lid_range(const LinkEnd& e) const {
    if (t_.nodes[e.node].kind == NodeKind::Switch) return {lids_.base[e.node][0], lids_.base[e.node][0]};
    const unsigned base = lids_.base[e.node][e.port - 1];
    return {base, base + (1u << lids_.lmc) - 1};
  }

  void route(const std::vector<LinkEnd>& order, std::vector<std::vector<uint8_t>>& lft) {
    for (unsigned s = 0; s < g_.size(); ++s) lft[g_.node[s]].assign(std::size_t{lids_.top} + 1, kNoPath);
    for (const unsigned node : table_) lft[node][lids_.base[node][0]] = 0;
    for (const LinkEnd& dst : order) {
      const auto [first, last] = lid_range(dst);
      for (unsigned lid = first; lid <= last; ++lid) {
        dijkstra(dst);
        for (uint32_t v = 1; v < used_.size(); ++v)
          if (used_[v] != kNone) lft[table_[v - 1]][lid] = links_[used_[v]].to_port;
        add_weights();
      }
    }
  }

 private:
  struct Link {
    uint32_t from = 0;
    uint8_t from_port = 0;
    uint32_t to = 0;
    uint8_t to_port = 0;
    uint64_t weight = 0;
  };

  void dijkstra(const LinkEnd& dst) {
    const uint32_t n = static_cast<uint32_t>(table_.size());
    ClHeap heap(where_);
    for (uint32_t v = 1; v <= n; ++v) {
      used_[v] = kNone;
      distance_[v] = kInfinity;
      discovered_[v] = 0;
      heap.insert(kInfinity, v);
    }
    uint32_t source;
    if (t_.nodes[dst.node].kind == NodeKind::Switch) {
      source = vertex_of_[dst.node];
      first_link_[0] = first_link_[1];  // no links from vertex 0
    } else {
      const LinkEnd sw = *index_.peer(dst.node, dst.port);
      links_[0] = Link{0, static_cast<uint8_t>(dst.port), vertex_of_[sw.node], static_cast<uint8_t>(sw.port), 1};
      first_link_[0] = 0;
      used_[0] = kNone;
      discovered_[0] = 0;
      heap.insert(kInfinity, 0);
      source = 0;
    }
    distance_[source] = 0;
    discovered_[source] = 1;
    heap.modify_key(0, where_[source]);
    for (uint32_t cur = heap.extract_root(); cur != kNone; cur = heap.extract_root()) {
      discovered_[cur] = 1;
      const uint32_t end = cur == 0 ? 1 : first_link_[cur + 1];
      for (uint32_t l = first_link_[cur]; l < end; ++l) {
        const Link& link = links_[l];
        if (discovered_[link.to] || distance_[cur] + link.weight >= distance_[link.to]) continue;
        used_[link.to] = l;
        distance_[link.to] = distance_[cur] + link.weight;
        heap.modify_key(distance_[link.to], where_[link.to]);
      }
    }
  }

  // update_weights: every switch the tree reaches adds its count to each link on its way.
  void add_weights() {
    for (uint32_t v = 1; v < used_.size(); ++v) {
      if (used_[v] == kNone) continue;
      for (uint32_t j = v; used_[j] != kNone; j = links_[used_[j]].from) links_[used_[j]].weight += num_hca_[v];
    }
  }

  const Topology& t_;
  const TopologyIndex& index_;
  const SwitchGraph& g_;
  const Lids& lids_;
  std::vector<unsigned> table_;        // vertex - 1 -> switch node, in switch-table order
  std::vector<uint32_t> vertex_of_;    // node -> vertex (1..n), 0 for none
  std::vector<Link> links_;            // [0]: the HCA source's; then each switch's, in port order
  std::vector<uint32_t> first_link_;   // vertex -> its first link; [n + 1]: the end
  std::vector<uint32_t> num_hca_;      // vertex -> its LIDs and those of its HCA ports
  std::vector<uint32_t> used_;         // vertex -> its tree link, kNone for none
  std::vector<uint64_t> distance_;
  std::vector<char> discovered_;
  std::vector<std::size_t> where_;     // vertex -> heap slot
};

// dfsssp_remove_deadlocks: the layer of every pair; "" or OpenSM's reason.
class Layers {
 public:
  Layers(const Topology& t, const TopologyIndex& index, const Lids& lids, const std::vector<std::vector<uint8_t>>& lft,
         unsigned vl_avail)
      : t_(t), index_(index), lids_(lids), lft_(lft), vl_avail_(vl_avail) {}

  std::string assign(const std::vector<LinkEnd>& order, SwitchPairSls& counts, LidPairSls& out) {
    std::vector<std::pair<unsigned, unsigned>> range;
    for (const LinkEnd& e : order) {
      if (t_.nodes[e.node].kind == NodeKind::Switch)
        range.emplace_back(lids_.base[e.node][0], lids_.base[e.node][0]);
      else
        range.emplace_back(lids_.base[e.node][e.port - 1], lids_.base[e.node][e.port - 1] + (1u << lids_.lmc) - 1);
    }
    std::vector<uint16_t> table_lids;
    for (const auto& [first, last] : range)
      for (unsigned lid = first; lid <= last; ++lid) table_lids.push_back(static_cast<uint16_t>(lid));
    // vltable_sort_lids: network byte order compared as host integers
    const auto swapped = [](uint16_t lid) { return static_cast<uint16_t>(lid << 8 | lid >> 8); };
    std::sort(table_lids.begin(), table_lids.end(),
              [&](uint16_t a, uint16_t b) { return swapped(a) < swapped(b); });
    n_ = static_cast<unsigned>(table_lids.size());
    row_.assign(std::size_t{lids_.top} + 1, -1);
    for (unsigned i = 0; i < n_; ++i) row_[table_lids[i]] = static_cast<int32_t>(i);
    vl_.assign(std::size_t{n_} * n_, 0);  // OSM_DEFAULT_SL
    std::vector<uint64_t> paths(vl_avail_, 0);
    std::vector<Cdg> cdg(vl_avail_);
    std::vector<uint64_t> path;

    for (std::size_t d = 0; d < order.size(); ++d)
      for (std::size_t s = 0; s < order.size(); ++s) {
        if (s == d) continue;
        for (unsigned slid = range[s].first; slid <= range[s].second; ++slid)
          for (unsigned dlid = range[d].first; dlid <= range[d].second; ++dlid) {
            if (!channels(order[s], dlid, path)) return kNoPathReason;
            cdg[0].add(path, slid << 16 | dlid);
            ++paths[0];
          }
      }

    unsigned needed = 1;
    for (unsigned vl = 0; vl + 1 < vl_avail_; ++vl) {
      for (uint32_t start = cdg[vl].root(); start != kNone;) {
        const uint32_t cycle = cdg[vl].search_cycle(start);
        if (cycle != kNone) {
          needed = vl + 2;
          const uint32_t weak = cdg[vl].cut_weakest(cycle);
          if (weak == kNone) return "dfsssp: the cycle walk of get_weakest_link_in_cycle finds no way on "
                                    "(OpenSM 3.3.23 does not terminate here)";
          Cdg::Dep& dep = cdg[vl].dep(weak);
          paths[vl] -= dep.pairs;
          paths[vl + 1] += dep.pairs;
          for (uint32_t i = 0; i < dep.pairs; ++i) {
            const uint32_t pair = dep.srcdest[i];
            const uint16_t slid = static_cast<uint16_t>(pair >> 16), dlid = static_cast<uint16_t>(pair & 0xFFFF);
            uint8_t& vl_of = vl_[cell(slid, dlid)];
            if (vl_of != vl) {  // moved before
              ++paths[vl];
              --paths[vl + 1];
              continue;
            }
            LinkEnd src = lids_.owner[slid];
            if (t_.nodes[src.node].kind == NodeKind::Switch) src.port = 0;
            if (!channels(src, dlid, path)) return kNoPathReason;
            if (!cdg[vl].remove(path)) return "dfsssp: a moved path's channel is missing from its layer";
            cdg[vl + 1].add(path, pair);
            vl_of = static_cast<uint8_t>(vl + 1);
          }
          dep.srcdest = {};
        }
        start = cycle;
      }
      cdg[vl] = Cdg{};  // searched: free it
    }
    if (const uint32_t root = cdg[vl_avail_ - 1].root(); root != kNone && cdg[vl_avail_ - 1].search_cycle(root) != kNone)
      needed = vl_avail_ + 1;
    if (needed > vl_avail_)
      return "Not enough VLs available (avail=" + std::to_string(vl_avail_) + ", needed=" + std::to_string(needed) +
             "); Stopping dfsssp routing!";

    counts.layers = needed;
    counts.lanes_before.clear();
    for (const uint64_t n : paths) counts.lanes_before.push_back(static_cast<int>(n));
    std::vector<uint8_t> split(vl_avail_, 0);
    for (unsigned i = 0; i < needed; ++i) split[i] = 1;
    if (needed < vl_avail_) {
      for (unsigned i = needed; i < vl_avail_; ++i) {
        unsigned fullest = 0;
        double most = 0.0;
        for (unsigned vl = 0; vl < needed; ++vl)
          if (most < static_cast<double>(paths[vl]) / split[vl]) {
            fullest = vl;
            most = static_cast<double>(paths[vl]) / split[vl];
          }
        ++split[fullest];
      }
      for (unsigned from = needed - 1; from > 0; --from) {
        unsigned to = 0;
        for (unsigned i = 0; i < from; ++i) to += split[i];
        renumber(static_cast<uint8_t>(from), static_cast<uint8_t>(to), paths[from]);
        split[to] = split[from];
        split[from] = 0;
        paths[to] = paths[from];
        paths[from] = 0;
      }
    }
    counts.lanes_after.clear();
    for (unsigned i = 0, j = 0, share = 1; i < vl_avail_; ++i) {  // OpenSM's "Approx. #paths per VL"
      if (split[i] > 0) {
        j = i;
        share = split[i];
      }
      counts.lanes_after.push_back(static_cast<int>(paths[j] / share));
    }
    out.row = std::move(row_);
    out.lids = n_;
    out.sl = std::move(vl_);
    out.spread = std::move(split);
    return "";
  }

 private:
  static constexpr const char* kNoPathReason =
      "cannot allocate memory for cdg node or link in update_channel_dep_graph(...)";  // ERR AD14: an LFT without the LID

  std::size_t cell(uint16_t slid, uint16_t dlid) const {
    return static_cast<std::size_t>(row_[slid]) + static_cast<std::size_t>(row_[dlid]) * n_;
  }

  // The switch-to-switch hops from port `src` (a switch's own: none) to `dlid`,
  // as channel ids (switch LID, port, next switch's LID, its port). False when
  // an LFT has no entry for the LID on the way.
  bool channels(const LinkEnd& src, unsigned dlid, std::vector<uint64_t>& path) const {
    path.clear();
    if (t_.nodes[src.node].kind == NodeKind::Switch) return true;
    const auto first = index_.peer(src.node, src.port);
    if (!first || t_.nodes[first->node].kind != NodeKind::Switch) return true;
    unsigned sw = first->node;
    for (std::size_t hops = 0; hops <= lft_.size(); ++hops) {
      const uint8_t port = lft_[sw][dlid];
      if (port == kNoPath) return false;
      if (port == 0) return true;
      const auto next = index_.peer(sw, port);
      if (!next || t_.nodes[next->node].kind != NodeKind::Switch) return true;
      path.push_back(uint64_t{lids_.base[sw][0]} << 48 | uint64_t{port} << 32 | uint64_t{lids_.base[next->node][0]} << 16 |
                     next->port);
      sw = next->node;
    }
    return false;  // a routing loop
  }

  // vltable_change_vl: the first `count` pairs (source major, table order) on `from` go to `to`.
  void renumber(uint8_t from, uint8_t to, uint64_t count) {
    uint64_t done = 0;
    for (std::size_t s = 0; s < n_ && done < count; ++s)
      for (std::size_t d = 0; d < n_ && done < count; ++d) {
        if (s == d) continue;
        uint8_t& vl = vl_[s + d * n_];
        if (vl == from) {
          vl = to;
          ++done;
        }
      }
  }

  const Topology& t_;
  const TopologyIndex& index_;
  const Lids& lids_;
  const std::vector<std::vector<uint8_t>>& lft_;
  unsigned vl_avail_;
  unsigned n_ = 0;
  std::vector<int32_t> row_;   // LID -> table index, -1
  std::vector<uint8_t> vl_;    // [source index + destination index * n]
};

}  // namespace

std::string opensm_dfsssp(const Topology& t, const TopologyIndex& index, const SwitchGraph& g, const Lids& lids,
                          unsigned vls, bool remove_deadlocks, const FtreeGuids& guids,
                          std::vector<std::vector<uint8_t>>& lft, SwitchPairSls& counts, LidPairSls& sls) {
  Dfsssp engine(t, index, g, lids);
  const std::vector<LinkEnd> order = engine.order(guids);
  engine.route(order, lft);
  if (!remove_deadlocks) return "";
  const unsigned vl_avail = std::max(1u, std::min(15u, vls));  // get_avail_vl_in_subn
  Layers layers(t, index, lids, lft, vl_avail);
  return layers.assign(order, counts, sls);
}

}  // namespace hcasim::routing::detail
