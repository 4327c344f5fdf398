#include "models/routing/credit_loops.hpp"

#include <algorithm>
#include <unordered_map>

#include "models/routing/route_turns.hpp"

namespace hcasim::routing {

using topology::LinkEnd;
using topology::Topology;
using topology::kNoNode;

namespace {

constexpr uint8_t kDropVl = 15;          // iba-facts 4: a data SL mapped to VL15 is dropped
constexpr uint32_t kNone = 0xFFFFFFFFu;

using Table = std::array<uint8_t, 16>;

struct TableHash {
  std::size_t operator()(const Table& t) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (uint8_t b : t) h = (h ^ b) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

// A directed graph on dense node ids, as adjacency lists in one array.
struct Graph {
  std::vector<uint32_t> offset;  // node -> first edge
  std::vector<uint32_t> target;

  // One cycle as a list of nodes in edge order, or empty. Iterative DFS.
  std::vector<uint32_t> find_cycle() const {
    const uint32_t n = static_cast<uint32_t>(offset.size() - 1);
    std::vector<uint8_t> colour(n, 0);  // 0 unseen, 1 on the stack, 2 done
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // (node, next edge)
    for (uint32_t root = 0; root < n; ++root) {
      if (colour[root] != 0 || offset[root] == offset[root + 1]) continue;
      stack.push_back({root, offset[root]});
      colour[root] = 1;
      while (!stack.empty()) {
        auto& [node, edge] = stack.back();
        if (edge == offset[node + 1]) {
          colour[node] = 2;
          stack.pop_back();
          continue;
        }
        const uint32_t next = target[edge++];
        if (colour[next] == 1) {
          std::vector<uint32_t> cycle;
          std::size_t i = stack.size();
          while (stack[i - 1].first != next) --i;
          for (; i <= stack.size(); ++i) cycle.push_back(stack[i - 1].first);
          return cycle;
        }
        if (colour[next] == 0) {
          colour[next] = 1;
          stack.push_back({next, offset[next]});
        }
      }
    }
    return {};
  }
};

// The graph of `edges` (from << 32 | to), each node's targets in increasing
// order. Grouped by a counting sort: edges come mostly grouped and ordered
// already, so only the rare unordered run of targets is sorted.
Graph make_graph(uint32_t nodes, const std::vector<uint64_t>& edges) {
  Graph g;
  g.offset.assign(std::size_t{nodes} + 1, 0);
  for (uint64_t e : edges) ++g.offset[(e >> 32) + 1];
  for (uint32_t i = 0; i < nodes; ++i) g.offset[i + 1] += g.offset[i];
  g.target.resize(edges.size());
  std::vector<uint32_t> at(g.offset.begin(), g.offset.end() - 1);
  for (uint64_t e : edges) g.target[at[e >> 32]++] = static_cast<uint32_t>(e);
  for (uint32_t i = 0; i < nodes; ++i) {
    const auto first = g.target.begin() + g.offset[i], last = g.target.begin() + g.offset[i + 1];
    if (!std::is_sorted(first, last)) std::sort(first, last);
  }
  return g;
}

class Checker {
 public:
  Checker(const Topology& t, const Lids& lids, const Routes& routes, const Sl2VlLookup& sl2vl)
      : t_(t), lids_(lids), routes_(routes), sl2vl_(sl2vl), index_(t) {
    channel_.resize(t.nodes.size() + 1, 0);
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      channel_[n + 1] = channel_[n] + t.nodes[n].ports;
      for (unsigned p = 1; p <= t.nodes[n].ports; ++p) port_of_channel_.push_back({n, p});
    }
    sources_.resize(t.nodes.size());
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      if (!is_switch(n)) continue;
      for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
        const auto peer = index_.peer(n, p);
        if (peer && !is_switch(peer->node)) sources_[n].push_back({p, *peer});
      }
      if (!sources_[n].empty()) source_switches_.push_back(n);
    }
    hca_table_.assign(channel_count(), kNone);
  }

  CreditLoopReport run();

 private:
  // A (switch, input port, output port) that some route uses: one
  // dependency of the graph without VLs.
  struct Hop {
    uint32_t from = 0, to = 0;        // channels: arriving at the input port, leaving by the output port
    uint32_t table = kNone;           // SL-to-VL table id of (switch, in, out)
  };

  bool is_switch(unsigned n) const { return t_.nodes[n].kind == topology::NodeKind::Switch; }
  uint32_t channel(unsigned node, unsigned port) const { return channel_[node] + port - 1; }
  uint32_t channel(const LinkEnd& e) const { return channel(e.node, e.port); }
  uint32_t channel_count() const { return channel_.back(); }

  // The output port of switch n for `lid`, or 0 when it does not forward it on a link.
  unsigned forward(unsigned n, unsigned lid) const {
    if (n >= routes_.lft.size()) return 0;
    const std::vector<uint8_t>& lft = routes_.lft[n];
    if (lid >= lft.size()) return 0;
    const unsigned port = lft[lid];
    if (port == 0 || port > t_.nodes[n].ports || !index_.peer(n, port)) return 0;
    return port;
  }
  template <class Body>
  void each_destination(Body&& body);

  // Switches that packets to the current LID pass through, from every source,
  // each with its output port and the switch (and input port) it feeds.
  void walk_destination();
  void vl_edges(const std::vector<uint8_t>& sls);
  uint32_t intern(const Table& table);
  CreditLoopReport report(const std::vector<uint32_t>& cycle, bool with_vls, unsigned vl) const;

  const Topology& t_;
  const Lids& lids_;
  const Routes& routes_;
  const Sl2VlLookup& sl2vl_;
  topology::TopologyIndex index_;
  std::vector<uint32_t> channel_;            // node -> first channel id (ports 1..N follow)
  std::vector<LinkEnd> port_of_channel_;
  std::vector<std::vector<std::pair<unsigned, LinkEnd>>> sources_;  // switch -> (its port, HCA port there)
  std::vector<unsigned> source_switches_;
  std::vector<Hop> hops_;                    // in TurnSet order
  const TurnSet* turns_ = nullptr;           // numbers hops_ (while run() runs)
  std::vector<std::array<uint16_t, 16>> vls_;  // per hop, [VL in]: set of VLs out (dependencies with VLs)

  // The SL of the path from switch s's HCA ports to the current LID (lash's path SLs).
  uint8_t path_sl_from(unsigned s) const {
    if (is_switch(owner_.node)) return routes_.sls.between(s, owner_.node);
    const auto peer = index_.peer(owner_.node, owner_.port);
    return peer && is_switch(peer->node) ? routes_.sls.between(s, peer->node) : 0;
  }
  // The SL classes HCA port `hca` on switch s sends to the current LID on
  // (bit per class), with the engine's path SLs: nue's one per destination LID; lash's one SL per pair of
  // switches; dfsssp's per pair of LIDs, every LID of the port, each over the
  // SLs OpenSM may draw for it (base to base + spread - 1).
  uint32_t path_classes(unsigned s, const LinkEnd& hca) const {
    if (!routes_.dlid_sls.empty()) return 1u << class_of_sl_[routes_.dlid_sls[lid_]];
    if (routes_.lid_sls.empty()) return 1u << class_of_sl_[path_sl_from(s)];
    uint32_t mask = 0;
    const uint16_t base = lids_.base[hca.node][hca.port - 1];
    for (unsigned k = 0; base != 0 && k < (1u << lids_.lmc); ++k) {
      const int sl = routes_.lid_sls.base(static_cast<uint16_t>(base + k), static_cast<uint16_t>(lid_));
      const unsigned first = sl < 0 ? 0u : static_cast<unsigned>(sl);
      const unsigned width = sl < 0 ? 1u : routes_.lid_sls.width(first);
      for (unsigned x = first; x < first + width && x < 16; ++x) mask |= 1u << class_of_sl_[x];
    }
    return mask;
  }

  std::vector<int> class_of_sl_;             // SL -> its class, with path SLs; empty without
  // Per destination LID.
  unsigned lid_ = 0;
  LinkEnd owner_{kNoNode, 0};
  std::vector<unsigned> stamp_;               // switch node -> last LID that made it active
  std::vector<unsigned> active_;              // active switches of this LID
  std::vector<unsigned> out_;                 // switch node -> output port (0 = none)
  std::vector<LinkEnd> next_;                 // switch node -> switch and input port it feeds, node kNoNode if none

  // SL-to-VL tables, deduplicated.
  std::vector<Table> tables_;
  std::unordered_map<Table, uint32_t, TableHash> table_ids_;
  uint32_t last_table_ = 0;                   // the table intern returned last
  std::vector<uint32_t> hca_table_;           // HCA port channel -> table id of its own traffic

  // vl_edges scratch.
  std::vector<uint16_t> mask_;                // [switch node * classes + class]: VLs it sends
  std::vector<unsigned> feeders_;             // switch node -> active switches feeding it, not yet handled
  std::vector<unsigned> ready_;
};

template <class Body>
void Checker::each_destination(Body&& body) {
  for (unsigned lid = 1; lid <= lids_.top && lid < lids_.owner.size(); ++lid) {
    if (lids_.owner[lid].node == kNoNode) continue;
    if (routes_.switch_lids_outside_layers && is_switch(lids_.owner[lid].node)) continue;
    lid_ = lid;
    owner_ = lids_.owner[lid];
    body();
  }
}

void Checker::walk_destination() {
  active_.clear();
  for (unsigned start : source_switches_) {
    for (unsigned s = start; s != kNoNode && stamp_[s] != lid_;) {
      stamp_[s] = lid_;
      active_.push_back(s);
      out_[s] = forward(s, lid_);
      next_[s] = {kNoNode, 0};
      if (out_[s] == 0) break;
      const LinkEnd peer = *index_.peer(s, out_[s]);
      if (!is_switch(peer.node)) break;
      next_[s] = peer;
      s = peer.node;
    }
  }
}

uint32_t Checker::intern(const Table& table) {
  if (!tables_.empty() && table == tables_[last_table_]) return last_table_;  // neighbouring hops mostly share one
  const auto [pos, fresh] = table_ids_.emplace(table, static_cast<uint32_t>(tables_.size()));
  if (fresh) tables_.push_back(table);
  last_table_ = pos->second;
  return pos->second;
}

// Dependencies of the SL classes `sls` (one SL each) on their VLs, for the
// current LID. The VLs a switch sends on are known once every switch feeding
// it has been handled, so switches go in feeding order; a routing loop is
// iterated until nothing changes.
void Checker::vl_edges(const std::vector<uint8_t>& sls) {
  const std::size_t classes = sls.size();
  mask_.resize(t_.nodes.size() * classes);
  feeders_.resize(t_.nodes.size());
  for (unsigned s : active_) {
    std::fill_n(&mask_[s * classes], classes, uint16_t{0});
    feeders_[s] = 0;
  }
  // Traffic entering switch s at port `in` on VL sets `vls` (per class); true when s sends on a new VL.
  const auto enter = [&](unsigned s, unsigned in, const uint16_t* vls) {
    if (out_[s] == 0) return false;
    const uint32_t id = turns_->id(s, in, out_[s]);
    const Table& table = tables_[hops_[id].table];
    std::array<uint16_t, 16>& hop_vls = vls_[id];
    bool changed = false;
    for (std::size_t c = 0; c < classes; ++c) {
      const uint8_t vl = table[sls[c]];
      if (vl >= kDropVl || vls[c] == 0) continue;
      const uint16_t bit = static_cast<uint16_t>(1u << vl);
      for (uint16_t in_vls = vls[c]; in_vls != 0; in_vls &= static_cast<uint16_t>(in_vls - 1)) {
        hop_vls[__builtin_ctz(in_vls)] |= bit;
      }
      uint16_t& sent = mask_[s * classes + c];
      changed |= (sent & bit) == 0;
      sent |= bit;
    }
    return changed;
  };
  uint16_t vls[16];
  for (unsigned s : active_) {
    // Path SLs: each source sends to this LID on the SLs the engine hands out for the pair.
    for (const auto& [port, hca] : sources_[s]) {
      if (hca == owner_) continue;
      const uint32_t only = class_of_sl_.empty() ? ~0u : path_classes(s, hca);
      const Table& own = tables_[hca_table_[channel(hca)]];
      for (std::size_t c = 0; c < classes; ++c)
        vls[c] = own[sls[c]] < kDropVl && (only >> c & 1u) ? static_cast<uint16_t>(1u << own[sls[c]]) : 0;
      enter(s, port, vls);
    }
    if (next_[s].node != kNoNode) ++feeders_[next_[s].node];
  }
  ready_.clear();
  for (unsigned s : active_) {
    if (feeders_[s] == 0) ready_.push_back(s);
  }
  std::size_t done = 0;
  while (!ready_.empty()) {
    const unsigned s = ready_.back();
    ready_.pop_back();
    ++done;
    const LinkEnd n = next_[s];
    if (n.node == kNoNode) continue;
    enter(n.node, n.port, &mask_[s * classes]);
    if (--feeders_[n.node] == 0) ready_.push_back(n.node);
  }
  if (done == active_.size()) return;
  // A routing loop: pass VLs round until nothing changes (VL sets only grow).
  for (unsigned s : active_) {
    if (feeders_[s] != 0) ready_.push_back(s);
  }
  while (!ready_.empty()) {
    const unsigned s = ready_.back();
    ready_.pop_back();
    const LinkEnd n = next_[s];
    if (n.node != kNoNode && enter(n.node, n.port, &mask_[s * classes])) ready_.push_back(n.node);
  }
}

CreditLoopReport Checker::run() {
  stamp_.assign(t_.nodes.size(), 0);
  out_.assign(t_.nodes.size(), 0);
  next_.assign(t_.nodes.size(), LinkEnd{kNoNode, 0});
  // 1. The channel dependency graph without VLs: every (switch, in, out) that routes use.
  const TurnSet turns = used_turns(t_, index_, lids_, routes_);
  turns_ = &turns;
  hops_.reserve(turns.size());
  turns.each([this](unsigned s, unsigned in, unsigned out) {
    Hop h;
    h.from = channel(*index_.peer(s, in));
    h.to = channel(s, out);
    hops_.push_back(h);
  });

  // 2. The SL-to-VL tables of those hops, and SL classes: SLs that map alike in every table.
  for (Hop& hop : hops_) {
    const LinkEnd in = *index_.peer(port_of_channel_[hop.from].node, port_of_channel_[hop.from].port);
    hop.table = intern(sl2vl_(in.node, in.port, port_of_channel_[hop.to].port));
  }
  for (unsigned s : source_switches_) {
    for (const auto& [port, hca] : sources_[s]) hca_table_[channel(hca)] = intern(sl2vl_(hca.node, 0, hca.port));
  }
  std::vector<uint8_t> representative;  // first SL of each class
  std::vector<int> class_of(16, -1);
  for (uint8_t sl = 0; sl < 16; ++sl) {
    for (std::size_t c = 0; c < representative.size() && class_of[sl] < 0; ++c) {
      bool same = true;
      for (const Table& table : tables_) same = same && table[sl] == table[representative[c]];
      if (same) class_of[sl] = static_cast<int>(c);
    }
    if (class_of[sl] < 0) {
      class_of[sl] = static_cast<int>(representative.size());
      representative.push_back(sl);
    }
  }
  // A class on one VL everywhere, a VL no other class touches, sees exactly the graph of step 1.
  std::vector<int> constant_vl(representative.size(), -1);
  uint16_t vls_of_others = 0;
  for (std::size_t c = 0; c < representative.size(); ++c) {
    bool constant = !tables_.empty();
    for (const Table& table : tables_) constant = constant && table[representative[c]] == tables_[0][representative[c]];
    if (constant) {
      constant_vl[c] = tables_[0][representative[c]];
    } else {
      for (const Table& table : tables_) {
        if (table[representative[c]] < kDropVl) vls_of_others |= static_cast<uint16_t>(1u << table[representative[c]]);
      }
    }
  }
  std::vector<uint8_t> general;
  int plain_vl = -1;
  unsigned plain_copies = 0;
  // With path SLs every source sends on one SL per destination: every class goes the general way.
  const bool path_sls = routes_.has_path_sls();
  if (path_sls) class_of_sl_ = class_of;
  for (std::size_t c = 0; c < representative.size(); ++c) {
    if (constant_vl[c] >= kDropVl && !path_sls) continue;  // every packet of the class is dropped
    if (constant_vl[c] >= 0 && !(vls_of_others >> constant_vl[c] & 1) && !path_sls) {
      if (plain_vl < 0) plain_vl = constant_vl[c];
      ++plain_copies;
    } else {
      general.push_back(representative[c]);
    }
  }
  CreditLoopReport result;
  uint64_t dependencies = 0;
  if (plain_copies > 0) {
    std::vector<uint64_t> edges;
    edges.reserve(hops_.size());
    for (const Hop& hop : hops_) edges.push_back(uint64_t{hop.from} << 32 | hop.to);
    dependencies = edges.size() * plain_copies;
    const std::vector<uint32_t> cycle = make_graph(channel_count(), edges).find_cycle();
    if (!cycle.empty()) result = report(cycle, false, static_cast<unsigned>(plain_vl));
  }
  // 3. The other classes: dependencies between (channel, VL) pairs.
  if (!general.empty()) {
    vls_.assign(hops_.size(), {});
    each_destination([&] {
      walk_destination();
      vl_edges(general);
    });
    std::vector<uint64_t> edges;
    for (std::size_t h = 0; h < hops_.size(); ++h) {
      const Hop& hop = hops_[h];
      for (unsigned in = 0; in < kDropVl; ++in) {
        for (uint16_t out = vls_[h][in]; out != 0; out &= static_cast<uint16_t>(out - 1)) {
          edges.push_back((uint64_t{hop.from} * 16 + in) << 32 | (uint64_t{hop.to} * 16 + __builtin_ctz(out)));
        }
      }
    }
    dependencies += edges.size();
    if (!result.loop) {
      const std::vector<uint32_t> cycle = make_graph(channel_count() * 16, edges).find_cycle();
      if (!cycle.empty()) result = report(cycle, true, 0);
    }
  }
  result.dependencies = dependencies;
  result.switch_lids_left_out = routes_.switch_lids_outside_layers;
  return result;
}

CreditLoopReport Checker::report(const std::vector<uint32_t>& cycle, bool with_vls, unsigned vl) const {
  CreditLoopReport r;
  r.loop = true;
  for (uint32_t node : cycle) {
    Channel c;
    c.from = port_of_channel_[with_vls ? node / 16 : node];
    c.vl = with_vls ? node % 16 : vl;
    r.cycle.push_back(c);
  }
  return r;
}

}  // namespace

std::string CreditLoopReport::describe(const Topology& t) const {
  if (!loop)
    return "no credit loop (" + std::to_string(dependencies) + " dependencies" +
           (switch_lids_left_out ? "; paths to switch LIDs, which nue routes outside its layers, left out" : "") + ")";
  bool one_vl = true;
  for (const Channel& c : cycle) one_vl = one_vl && c.vl == cycle.front().vl;
  std::string text = one_vl ? "credit loop on VL " + std::to_string(cycle.front().vl) + ": " : "credit loop: ";
  for (std::size_t i = 0; i <= cycle.size(); ++i) {
    const Channel& c = cycle[i % cycle.size()];
    if (i > 0) text += " -> ";
    text += topology::port_name(t, c.from);
    if (!one_vl) text += " VL " + std::to_string(c.vl);
  }
  return text;
}

CreditLoopReport find_credit_loop(const Topology& t, const Lids& lids, const Routes& routes, const Sl2VlLookup& sl2vl) {
  Checker checker(t, lids, routes, sl2vl);
  return checker.run();
}

std::vector<uint32_t> find_cycle(uint32_t nodes, const std::vector<uint64_t>& edges) {
  return make_graph(nodes, edges).find_cycle();
}

}  // namespace hcasim::routing
