// dfsssp's deadlock removal (opensm 3.3.23: osm_ucast_dfsssp.c,
// dfsssp_remove_deadlocks): the (source LID, destination LID) pairs spread
// over virtual layers until each layer's channel dependency graph has no
// cycle, and the layers spread over the VLs available. Rules in routing.hpp.
//
// How, the same as OpenSM's:
// - Every ordered pair of LIDs of two different ports of the destination
//   order (opensm_dfsssp.cpp; destination major, source minor) starts in
//   layer 0. A path's channels are its switch-to-switch hops (from an HCA; a switch's own
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

#include "models/routing/opensm_dfsssp_layers.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace hcasim::routing::detail {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

namespace {

constexpr uint32_t kNone = UINT32_MAX;

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
    Cdg& last = cdg[vl_avail_ - 1];
    if (const uint32_t root = last.root(); root != kNone && last.search_cycle(root) != kNone)
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
  // ERR AD14, OpenSM's message when an LFT on a pair's path has no entry for its LID.
  static constexpr const char* kNoPathReason =
      "cannot allocate memory for cdg node or link in update_channel_dep_graph(...)";

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
      path.push_back(uint64_t{lids_.base[sw][0]} << 48 | uint64_t{port} << 32 |
                     uint64_t{lids_.base[next->node][0]} << 16 | next->port);
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

std::string dfsssp_layers(const Topology& t, const TopologyIndex& index, const Lids& lids,
                          const std::vector<std::vector<uint8_t>>& lft, const std::vector<LinkEnd>& order,
                          unsigned vl_avail, SwitchPairSls& counts, LidPairSls& sls) {
  Layers layers(t, index, lids, lft, vl_avail);
  return layers.assign(order, counts, sls);
}

}  // namespace hcasim::routing::detail
