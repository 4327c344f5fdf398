#include "models/routing/routing.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>

#include "models/routing/opensm_order.hpp"
#include "models/routing/routing_graph.hpp"

namespace hcasim::routing {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;
using topology::kNoNode;

namespace detail {

SwitchGraph build_switch_graph(const Topology& t, const TopologyIndex& index) {
  SwitchGraph g;
  g.index.assign(t.nodes.size(), -1);
  for (unsigned i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].kind != NodeKind::Switch) continue;
    g.index[i] = static_cast<int>(g.node.size());
    g.node.push_back(i);
  }
  g.adj.resize(g.node.size());
  for (unsigned s = 0; s < g.size(); ++s) {
    const unsigned node = g.node[s];
    for (unsigned p = 1; p <= t.nodes[node].ports; ++p) {
      const auto peer = index.peer(node, p);
      if (peer && g.index[peer->node] >= 0) g.adj[s].emplace_back(p, static_cast<unsigned>(g.index[peer->node]));
    }
  }
  g.component.assign(g.size(), -1);
  int components = 0;
  for (unsigned s = 0; s < g.size(); ++s) {
    if (g.component[s] >= 0) continue;
    std::vector<unsigned> stack{s};
    g.component[s] = components;
    while (!stack.empty()) {
      const unsigned c = stack.back();
      stack.pop_back();
      for (const auto& [port, n] : g.adj[c]) {
        if (g.component[n] < 0) {
          g.component[n] = components;
          stack.push_back(n);
        }
      }
    }
    ++components;
  }
  return g;
}

std::vector<int> bfs_distances(const SwitchGraph& g, const std::vector<unsigned>& from) {
  std::vector<int> dist(g.size(), -1);
  std::vector<unsigned> queue;
  for (unsigned f : from) {
    if (dist[f] == 0) continue;
    dist[f] = 0;
    queue.push_back(f);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const unsigned c = queue[head];
    for (const auto& [port, n] : g.adj[c]) {
      if (dist[n] < 0) {
        dist[n] = dist[c] + 1;
        queue.push_back(n);
      }
    }
  }
  return dist;
}

void DistanceBlock::compute(const SwitchGraph& g, const std::vector<unsigned>& sources) {
  n_ = g.size();
  level_.assign(n_, 0);
  reached_.assign(n_, 0);
  active_.clear();
  for (unsigned b = 0; b < sources.size(); ++b) {
    const unsigned s = sources[b];
    if (level_[s] == 0) active_.push_back(s);
    level_[s] |= uint64_t{1} << b;
    reached_[s] |= uint64_t{1} << b;
  }
  // Level by level: the switches reached at the last level pass their source
  // bits to their neighbours; a bit new to a switch puts it on the next level.
  for (std::size_t d = 1; !active_.empty(); ++d) {
    level_.resize((d + 1) * n_, 0);
    const uint64_t* last = &level_[(d - 1) * n_];
    uint64_t* next = &level_[d * n_];
    touched_.clear();
    for (unsigned u : active_) {
      for (const auto& [port, v] : g.adj[u]) {
        const uint64_t fresh = last[u] & ~reached_[v];
        if (fresh == 0) continue;
        if (next[v] == 0) touched_.push_back(v);
        next[v] |= fresh;
      }
    }
    for (unsigned v : touched_) reached_[v] |= next[v];
    active_.swap(touched_);
    if (active_.empty()) level_.resize(d * n_);
  }
}

namespace {

// One round of transpose64: swaps the off-diagonal j x j blocks of every
// 2j x 2j block (m: the low j bits of each 2j).
template <unsigned J>
void swap_blocks(uint64_t* a, uint64_t m) {
  for (unsigned base = 0; base < 64; base += 2 * J) {
    for (unsigned k = base; k < base + J; ++k) {
      const uint64_t t = ((a[k] >> J) ^ a[k + J]) & m;
      a[k + J] ^= t;
      a[k] ^= t << J;
    }
  }
}

// Transposes a 64 x 64 bit matrix: bit j of a[i] goes to bit i of a[j]
// (Hacker's Delight 7-3, for bit 0 the least significant).
void transpose64(uint64_t* a) {
  swap_blocks<32>(a, 0x00000000FFFFFFFFull);
  swap_blocks<16>(a, 0x0000FFFF0000FFFFull);
  swap_blocks<8>(a, 0x00FF00FF00FF00FFull);
  swap_blocks<4>(a, 0x0F0F0F0F0F0F0F0Full);
  swap_blocks<2>(a, 0x3333333333333333ull);
  swap_blocks<1>(a, 0x5555555555555555ull);
}

}  // namespace

void CandidateBlock::start(const std::vector<unsigned>& targets, const SwitchGraph& g) {
  targets_ = targets;
  std::size_t links = 0;
  for (const auto& adj : g.adj) links += adj.size();
  ports_.resize(targets.size());
  end_.resize(targets.size());
  first_.resize(targets.size());
  for (std::size_t b = 0; b < targets.size(); ++b) {
    if (ports_[b].size() < links) ports_[b].resize(links);
    end_[b] = ports_[b].data();
    first_[b].assign(std::size_t{g.size()} + 1, 0);
  }
}

void MinHopCandidates::compute(const std::vector<unsigned>& targets, CandidateBlock& out) {
  constexpr unsigned kWidth = DistanceBlock::kWidth;
  static_assert(CandidateBlock::kWidth == kWidth, "a block of candidates is a block of searches");
  block_.compute(g_, targets);
  out.start(targets, g_);
  const unsigned levels = block_.levels();
  uint64_t rows[kWidth];  // by port (its place in adj, 64 at a time): the targets it serves; transposed, by target
  for (unsigned s = 0; s < g_.size(); ++s) {
    const auto& adj = g_.adj[s];
    for (std::size_t first = 0; first < adj.size(); first += kWidth) {
      // Port j serves target b when s is at level d of b and the neighbour at level d - 1.
      const std::size_t count = std::min<std::size_t>(kWidth, adj.size() - first);
      std::fill(rows, rows + kWidth, 0);
      for (unsigned d = 1; d < levels; ++d) {
        const uint64_t here = block_.level(d)[s];
        if (here == 0) continue;
        const uint64_t* closer = block_.level(d - 1);
        for (std::size_t j = 0; j < count; ++j) rows[j] |= here & closer[adj[first + j].second];
      }
      transpose64(rows);  // now by target: the ports that serve it
      for (unsigned b = 0; b < targets.size(); ++b)
        for (uint64_t m = rows[b]; m != 0; m &= m - 1) out.add(b, static_cast<uint8_t>(adj[first + __builtin_ctzll(m)].first));
    }
    out.end_switch(s);
  }
}

}  // namespace detail

namespace {

// updown's port choice for one switch (iba-facts 7, minhop step 3): among the
// candidates, the port with the fewest LIDs counted so far, lowest port first;
// with LMC > 0 ports towards a neighbour not yet used by an earlier LID of the
// same target port come first.
class PortChooser {
 public:
  // shift: where, among the candidates, the tie-break search starts (0 = lowest port).
  PortChooser(const Topology& t, const TopologyIndex& index, unsigned node, unsigned shift)
      : index_(index), node_(node), shift_(shift), load_(t.nodes[node].ports + 1, 0) {}

  // A new target port (its 2^LMC LIDs follow one another).
  void new_target() { used_neighbours_.clear(); }

  uint8_t choose(const uint8_t* begin, const uint8_t* end, bool count) {
    if (begin == end) return kNoPath;
    const uint8_t* best = nullptr;
    bool best_fresh = false;
    const std::size_t n = static_cast<std::size_t>(end - begin);
    for (std::size_t k = 0; k < n; ++k) {
      const uint8_t* p = begin + (k + shift_) % n;
      const bool fresh = std::find(used_neighbours_.begin(), used_neighbours_.end(), neighbour(*p)) ==
                         used_neighbours_.end();
      if (!best || (fresh && !best_fresh) || (fresh == best_fresh && load_[*p] < load_[*best])) {
        best = p;
        best_fresh = fresh;
      }
    }
    used_neighbours_.push_back(neighbour(*best));
    if (count) ++load_[*best];
    return *best;
  }

  void count(uint8_t port) { ++load_[port]; }

 private:
  unsigned neighbour(uint8_t port) const { return index_.peer(node_, port)->node; }

  const TopologyIndex& index_;
  unsigned node_;
  unsigned shift_;
  std::vector<uint32_t> load_;
  std::vector<unsigned> used_neighbours_;
};

}  // namespace

LinkEnd default_sm_port(const Topology& t) {
  const TopologyIndex index(t);
  std::optional<LinkEnd> first;
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind != NodeKind::Hca) continue;
    for (unsigned p = 1; p <= t.nodes[n].ports; ++p) {
      if (index.peer(n, p)) return {n, p};
      if (!first) first = LinkEnd{n, p};
    }
  }
  return first ? *first : LinkEnd{0, 0};
}

Lids assign_lids(const Topology& t, unsigned lmc) { return assign_lids(t, lmc, default_sm_port(t)); }

Lids assign_lids(const Topology& t, unsigned lmc, LinkEnd sm_port) {
  if (lmc > kMaxLmc)
    throw std::invalid_argument("LMC " + std::to_string(lmc) + "; accepted: 0 to " + std::to_string(kMaxLmc));
  if (sm_port.node >= t.nodes.size() || sm_port.port > t.nodes[sm_port.node].ports)
    throw std::invalid_argument("the SM's port is not a port of the topology");
  const TopologyIndex index(t);
  const uint32_t block = 1u << lmc;
  Lids lids;
  lids.lmc = lmc;
  lids.base.resize(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n)
    lids.base[n].assign(t.nodes[n].kind == NodeKind::Switch ? 1 : t.nodes[n].ports, 0);
  lids.owner.push_back({kNoNode, 0});  // LID 0 is reserved
  uint32_t next = 1;                   // the lowest free LID (osm_lid_mgr.c: one free range on a fresh fabric)
  for (const LinkEnd& e : discovered_ports(t, index, sm_port)) {
    const bool is_switch = t.nodes[e.node].kind == NodeKind::Switch;
    const uint32_t count = is_switch ? 1 : block;
    const uint32_t base = count > 1 ? (next + block - 1) / block * block : next;
    if (base + count - 1 > kMaxUnicastLid)
      throw std::invalid_argument("the fabric needs more than " + std::to_string(kMaxUnicastLid) +
                                  " unicast LIDs with LMC " + std::to_string(lmc) +
                                  "; accepted: at most 0xBFFF LIDs (fewer ports or a smaller LMC)");
    lids.owner.resize(base, LinkEnd{kNoNode, 0});
    for (uint32_t i = 0; i < count; ++i) lids.owner.push_back(e);
    lids.base[e.node][is_switch ? 0 : e.port - 1] = static_cast<uint16_t>(base);
    next = base + count;
  }
  lids.top = static_cast<uint16_t>(lids.owner.size() - 1);
  return lids;
}

namespace {

// One of OpenSM's engines (minhop, updn, dor) into routes; "" when it routed,
// else why it refused (OpenSM's reason).
std::string route_opensm(const Topology& t, const TopologyIndex& index, const detail::SwitchGraph& g,
                         const Lids& lids, RoutingAlgorithm engine, std::vector<unsigned> roots, TieBreak tie_break,
                         Routes& routes) {
  const bool updn = engine == RoutingAlgorithm::Updn;
  if (updn && roots.empty()) roots = detail::updn_automatic_roots(t, index, g, detail::lid_holders(lids));
  if (updn && roots.empty()) return "no root nodes were found";  // osm_ucast_updn.c: "disabling UPDN algorithm"
  std::unique_ptr<detail::TargetCandidates> candidates;
  if (updn) {
    for (unsigned s : roots) routes.roots.push_back(g.node[s]);
    std::sort(routes.roots.begin(), routes.roots.end());
    candidates = std::make_unique<detail::UpdnCandidates>(t, index, g, roots);
  } else {
    candidates = std::make_unique<detail::MinHopCandidates>(g);
  }
  detail::opensm_lfts(t, index, g, lids, *candidates, tie_break == TieBreak::Shifted,
                      engine == RoutingAlgorithm::Dor, routes.lft);
  return "";
}

// hcasim's own up*/down* into routes (never refuses).
void route_updown(const Topology& t, const TopologyIndex& index, const detail::SwitchGraph& g, const Lids& lids,
                  std::vector<unsigned> roots, TieBreak tie_break, Routes& routes) {
  const detail::Candidates candidates = detail::updown_candidates(t, index, g, roots);
  for (unsigned s : roots) routes.roots.push_back(g.node[s]);
  std::sort(routes.roots.begin(), routes.roots.end());

  for (unsigned s = 0; s < g.size(); ++s) {
    const unsigned node = g.node[s];
    std::vector<uint8_t>& lft = routes.lft[node];
    lft.assign(std::size_t{lids.top} + 1, kNoPath);
    PortChooser chooser(t, index, node, tie_break == TieBreak::Shifted ? s : 0);
    LinkEnd previous{kNoNode, 0};
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      const LinkEnd owner = lids.owner[lid];
      if (owner.node == kNoNode) continue;
      if (!(owner == previous)) chooser.new_target();
      previous = owner;
      if (t.nodes[owner.node].kind == NodeKind::Switch) {
        const unsigned target = static_cast<unsigned>(g.index[owner.node]);
        // OpenSM's default (port_profile_switch_nodes FALSE): routes to switches do not count.
        lft[lid] = target == s ? 0 : chooser.choose(candidates.begin(s, target), candidates.end(s, target), false);
        continue;
      }
      const auto attach = index.peer(owner.node, owner.port);
      if (!attach || g.index[attach->node] < 0) continue;  // unlinked, or HCA to HCA: no switch reaches it
      const unsigned target = static_cast<unsigned>(g.index[attach->node]);
      if (target == s) {
        lft[lid] = static_cast<uint8_t>(attach->port);
        chooser.count(lft[lid]);
      } else {
        lft[lid] = chooser.choose(candidates.begin(s, target), candidates.end(s, target), true);
      }
    }
  }
}

}  // namespace

const char* engine_name(RoutingAlgorithm a) {
  switch (a) {
    case RoutingAlgorithm::MinHop: return "minhop";
    case RoutingAlgorithm::UpDown: return "updown";
    case RoutingAlgorithm::Updn: return "updn";
    case RoutingAlgorithm::Dor: return "dor";
    case RoutingAlgorithm::Ftree: return "ftree";
    case RoutingAlgorithm::Lash: return "lash";
    case RoutingAlgorithm::Dfsssp: return "dfsssp";
    case RoutingAlgorithm::Sssp: return "sssp";
    case RoutingAlgorithm::Nue: return "nue";
  }
  return "?";
}

bool EngineChain::contains(RoutingAlgorithm a) const {
  return std::find(engines.begin(), engines.end(), a) != engines.end();
}

namespace {
// The switch of a LID's port: the port's own node, or the switch an HCA port is
// linked to (OpenSM's get_osm_switch_from_port); kNoNode for neither.
unsigned switch_of_lid(const Topology& t, const TopologyIndex& index, const Lids& lids, uint16_t lid) {
  const LinkEnd o = lids.owner[lid];
  if (o.node == kNoNode) return kNoNode;
  if (t.nodes[o.node].kind == NodeKind::Switch) return o.node;
  const auto peer = index.peer(o.node, o.port);
  return peer && t.nodes[peer->node].kind == NodeKind::Switch ? peer->node : kNoNode;
}

uint8_t sl_between(const SwitchPairSls& sls, unsigned a, unsigned b) {
  return a == kNoNode || b == kNoNode ? 0 : sls.between(a, b);
}
}  // namespace

uint8_t path_sl(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes, uint16_t slid,
                uint16_t dlid) {
  if (!routes.lid_sls.empty()) return routes.lid_sls.drawn_sl(slid, dlid);
  if (!routes.dlid_sls.empty()) return dlid < routes.dlid_sls.size() ? routes.dlid_sls[dlid] : 0;
  if (routes.sls.sl.empty() || slid > lids.top || dlid > lids.top) return 0;
  return sl_between(routes.sls, switch_of_lid(t, index, lids, slid), switch_of_lid(t, index, lids, dlid));
}

PathSlTable::PathSlTable(const Topology& t, const Lids& lids, const Routes& routes)
    : sls_(routes.sls), lid_sls_(routes.lid_sls), dlid_sls_(routes.dlid_sls) {
  if (sls_.sl.empty()) return;
  const TopologyIndex index(t);
  switch_of_lid_.resize(static_cast<std::size_t>(lids.top) + 1);
  for (unsigned lid = 0; lid <= lids.top; ++lid)
    switch_of_lid_[lid] = switch_of_lid(t, index, lids, static_cast<uint16_t>(lid));
}

uint8_t PathSlTable::operator()(uint16_t slid, uint16_t dlid) const {
  if (!lid_sls_.empty()) return lid_sls_.drawn_sl(slid, dlid);
  if (!dlid_sls_.empty()) return dlid < dlid_sls_.size() ? dlid_sls_[dlid] : 0;
  if (slid >= switch_of_lid_.size() || dlid >= switch_of_lid_.size()) return 0;
  return sl_between(sls_, switch_of_lid_[slid], switch_of_lid_[dlid]);
}

namespace {
// nue's virtual layers (OpenSM's get_max_num_vls): nue_max_num_vls when the
// ports have that many VLs, else every VL they have.
unsigned nue_layers(const RoutingConfig& config) {
  const unsigned vls = std::max(1u, std::min(config.vls, 15u));
  return config.nue_max_num_vls != 0 && config.nue_max_num_vls <= vls ? config.nue_max_num_vls : vls;
}
}  // namespace

Routes compute_routes(const Topology& t, const Lids& lids, const RoutingConfig& config) {
  const TopologyIndex index(t);
  const detail::SwitchGraph g = detail::build_switch_graph(t, index);
  std::vector<unsigned> roots;
  for (const std::string& name : config.roots) {
    const int node = index.find(name);
    if (node < 0 || t.nodes[node].kind != NodeKind::Switch)
      throw std::invalid_argument("up/down root '" + name + "' is not a switch of the topology; accepted: switch names");
    const unsigned s = static_cast<unsigned>(g.index[node]);
    if (std::find(roots.begin(), roots.end(), s) == roots.end()) roots.push_back(s);
  }
  Routes routes;
  std::vector<RoutingAlgorithm> tried = config.algorithm.engines;
  if (config.algorithm.fallback) tried.push_back(RoutingAlgorithm::MinHop);  // OpenSM's default engine
  for (RoutingAlgorithm engine : tried) {
    routes.algorithm = engine;
    routes.roots.clear();
    routes.sls = {};
    routes.lid_sls = {};
    routes.dlid_sls = {};
    routes.switch_lids_outside_layers = false;
    routes.lft.assign(t.nodes.size(), {});
    if (engine == RoutingAlgorithm::UpDown) {
      route_updown(t, index, g, lids, roots, config.tie_break, routes);
      return routes;
    }
    std::string why;
    if (engine == RoutingAlgorithm::Ftree)
      why = detail::opensm_ftree(t, index, lids, config.ftree, routes.lft);
    else if (engine == RoutingAlgorithm::Lash)
      why = detail::opensm_lash(t, index, g, lids, config.vls, config.lash_start_vl, routes.lft, routes.sls);
    else if (engine == RoutingAlgorithm::Dfsssp || engine == RoutingAlgorithm::Sssp)
      why = detail::opensm_dfsssp(t, index, g, lids, config.vls, engine == RoutingAlgorithm::Dfsssp, config.ftree,
                                  routes.lft, routes.sls, routes.lid_sls);
    else if (engine == RoutingAlgorithm::Nue)
      why = detail::opensm_nue(t, index, lids, nue_layers(config), config.nue_include_switches, routes.lft,
                               routes.dlid_sls);
    else
      why = route_opensm(t, index, g, lids, engine, roots, config.tie_break, routes);
    routes.switch_lids_outside_layers = engine == RoutingAlgorithm::Nue && !config.nue_include_switches;
    if (why.empty()) return routes;
    routes.refusals.push_back({engine, why});
  }
  std::string reasons;
  for (const Routes::Refusal& r : routes.refusals) reasons += (reasons.empty() ? "" : "; ") + std::string(engine_name(r.engine)) + ": " + r.why;
  throw NoEngineRoutes("no routing engine routes this fabric (" + reasons +
                              "), and no_fallback leaves out min-hop; accepted: an engine that routes it, or a chain "
                              "without no_fallback");
}

namespace {

// Follows the LFTs from `at` (an HCA port reached, or a switch whose LFT is
// read) until the packet reaches an HCA, the owner's switch, or gets stuck.
Path follow(const Topology& t, const TopologyIndex& index, const Routes& routes, std::optional<LinkEnd> at,
            LinkEnd owner, uint16_t dlid) {
  Path path;
  std::size_t switches = 0;
  for (const topology::TopoNode& n : t.nodes) switches += n.kind == NodeKind::Switch;
  while (at) {
    if (t.nodes[at->node].kind == NodeKind::Hca) {
      path.ok = *at == owner;
      return path;
    }
    if (at->node >= routes.lft.size()) return path;
    const std::vector<uint8_t>& lft = routes.lft[at->node];
    if (dlid >= lft.size() || lft[dlid] == kNoPath) return path;
    const uint8_t port = lft[dlid];
    if (port == 0) {
      path.ok = owner.node == at->node && owner.port == 0;
      return path;
    }
    if (path.hops.size() >= switches) return path;  // a loop: more hops than switches
    path.hops.push_back({at->node, port});
    at = index.peer(at->node, port);
  }
  return path;  // dead end: an unlinked port
}

}  // namespace

Path trace_path(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes, LinkEnd src,
                uint16_t dlid) {
  if (dlid == 0 || dlid > lids.top || src.node >= t.nodes.size()) return {};
  const LinkEnd owner = lids.owner[dlid];
  if (owner.node == kNoNode) return {};
  if (owner == src) return {{}, true};  // the port's own LID: loopback, no switch
  return follow(t, index, routes, index.peer(src.node, src.port), owner, dlid);
}

Path trace_from_switch(const Topology& t, const TopologyIndex& index, const Lids& lids, const Routes& routes,
                       unsigned sw, uint16_t dlid) {
  if (dlid == 0 || dlid > lids.top || sw >= t.nodes.size() || t.nodes[sw].kind != NodeKind::Switch) return {};
  const LinkEnd owner = lids.owner[dlid];
  if (owner.node == kNoNode) return {};
  return follow(t, index, routes, LinkEnd{sw, 0}, owner, dlid);
}

}  // namespace hcasim::routing
