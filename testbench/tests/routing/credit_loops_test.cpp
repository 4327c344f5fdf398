// Credit-loop check: loops where the theory says there are (min-hop on a torus
// and on a ring), none where up/down or a fat tree guarantees freedom, a VL
// dateline that breaks a ring's loop, and the report checked against a
// dependency graph built here by tracing every path separately.

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include "models/routing/credit_loops.hpp"
#include "testbench/tests/routing/routing_fixtures.hpp"

namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
namespace ft = hcasim::routing::test;
using topology::LinkEnd;
using routing::RoutingAlgorithm;
using Table = std::array<uint8_t, 16>;

namespace {

Table constant_table(uint8_t vl) {
  Table t;
  t.fill(vl);
  return t;
}

const routing::Sl2VlLookup kAllVl0 = [](unsigned, unsigned, unsigned) { return constant_table(0); };

routing::Routes route(const topology::Topology& t, const routing::Lids& lids, RoutingAlgorithm algorithm) {
  routing::RoutingConfig config;
  config.algorithm = algorithm;
  return routing::compute_routes(t, lids, config);
}

// The dependency graph the slow way: trace every (HCA port, LID) path and apply
// every SL. Edges as ((node, port, VL), (node, port, VL)).
using Vertex = std::tuple<unsigned, unsigned, unsigned>;
std::set<std::pair<Vertex, Vertex>> traced_dependencies(const topology::Topology& t, const routing::Lids& lids,
                                                        const routing::Routes& routes,
                                                        const routing::Sl2VlLookup& sl2vl) {
  const topology::TopologyIndex index(t);
  const auto peer = ft::peers(t);
  std::set<std::pair<Vertex, Vertex>> deps;
  for (const LinkEnd src : ft::linked_hca_ports(t)) {
    if (!ft::is_switch(t, peer[src.node][src.port].node)) continue;
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      if (lids.owner[lid].node == topology::kNoNode || lids.owner[lid] == src) continue;
      const routing::Path path = routing::trace_path(t, index, lids, routes, src, static_cast<uint16_t>(lid));
      REQUIRE(path.ok);
      for (unsigned sl = 0; sl < 16; ++sl) {
        LinkEnd from = src;
        unsigned vl = sl2vl(src.node, 0, src.port)[sl];
        for (const LinkEnd& hop : path.hops) {
          if (vl >= 15) break;
          const unsigned in = peer[from.node][from.port].port;
          const unsigned out_vl = sl2vl(hop.node, in, hop.port)[sl];
          if (out_vl >= 15) break;
          deps.insert({{from.node, from.port, vl}, {hop.node, hop.port, out_vl}});
          from = hop;
          vl = out_vl;
        }
      }
    }
  }
  return deps;
}

// The report is a real cycle: consecutive channels meet at one switch, and
// every step is a dependency some path creates (one that leaves by the port it
// came in on only when tables send packets back).
void check_cycle(const topology::Topology& t, const routing::CreditLoopReport& r,
                 const std::set<std::pair<Vertex, Vertex>>& deps, bool u_turns = false) {
  REQUIRE(r.loop);
  REQUIRE(!r.cycle.empty());
  const auto peer = ft::peers(t);
  for (std::size_t i = 0; i < r.cycle.size(); ++i) {
    const routing::Channel& a = r.cycle[i];
    const routing::Channel& b = r.cycle[(i + 1) % r.cycle.size()];
    const LinkEnd arrive = peer[a.from.node][a.from.port];
    REQUIRE(arrive.node != topology::kNoNode);
    CHECK(ft::is_switch(t, arrive.node));
    CHECK(arrive.node == b.from.node);
    if (!u_turns) CHECK(arrive.port != b.from.port);
    CHECK(deps.count({{a.from.node, a.from.port, a.vl}, {b.from.node, b.from.port, b.vl}}) == 1);
  }
}

// The same packet by packet, for tables with faults: a packet is dropped at
// a switch whose entry is kNoPath, 0 (not its own LID), a port out of range or
// unlinked, and on a VL of 15 or above; one that loops is followed until its
// (switch, input port, VL) repeats.
std::set<std::pair<Vertex, Vertex>> walked_dependencies(const topology::Topology& t, const routing::Lids& lids,
                                                        const routing::Routes& routes,
                                                        const routing::Sl2VlLookup& sl2vl) {
  const auto peer = ft::peers(t);
  std::set<std::pair<Vertex, Vertex>> deps;
  for (const LinkEnd src : ft::linked_hca_ports(t)) {
    const LinkEnd first = peer[src.node][src.port];
    if (!ft::is_switch(t, first.node)) continue;
    for (unsigned lid = 1; lid <= lids.top; ++lid) {
      if (lids.owner[lid].node == topology::kNoNode || lids.owner[lid] == src) continue;
      for (unsigned sl = 0; sl < 16; ++sl) {
        LinkEnd from = src;
        unsigned vl = sl2vl(src.node, 0, src.port)[sl];
        std::set<Vertex> seen;
        for (LinkEnd at = first; vl < 15 && ft::is_switch(t, at.node) && seen.insert({at.node, at.port, vl}).second;) {
          const unsigned out = routes.lft[at.node][lid];
          if (out == 0 || out > t.nodes[at.node].ports || peer[at.node][out].node == topology::kNoNode) break;
          const unsigned out_vl = sl2vl(at.node, at.port, out)[sl];
          if (out_vl >= 15) break;
          deps.insert({{from.node, from.port, vl}, {at.node, out, out_vl}});
          from = {at.node, out};
          vl = out_vl;
          at = peer[at.node][out];
        }
      }
    }
  }
  return deps;
}

// A ring of n switches, one host each; switch i: port 1 to i+1, port 2 to i-1, port 3 to its host.
topology::Topology ring(unsigned n) {
  topology::Topology t;
  for (unsigned i = 0; i < n; ++i) t.nodes.push_back({"hca" + std::to_string(i), topology::NodeKind::Hca, 1, 0, ""});
  for (unsigned i = 0; i < n; ++i) t.nodes.push_back({"sw" + std::to_string(i), topology::NodeKind::Switch, 3, 0, ""});
  for (unsigned i = 0; i < n; ++i) {
    t.links.push_back({{i, 1}, {n + i, 3}, {}});
    t.links.push_back({{n + i, 1}, {n + (i + 1) % n, 2}, {}});
  }
  return t;
}

// Does the dependency graph have no cycle? (Kahn's algorithm.)
bool acyclic(const std::set<std::pair<Vertex, Vertex>>& deps) {
  std::map<Vertex, unsigned> in_degree;
  std::map<Vertex, std::vector<Vertex>> next;
  for (const auto& [a, b] : deps) {
    in_degree[a];
    ++in_degree[b];
    next[a].push_back(b);
  }
  std::vector<Vertex> ready;
  for (const auto& [v, d] : in_degree)
    if (d == 0) ready.push_back(v);
  std::size_t removed = 0;
  while (!ready.empty()) {
    const Vertex v = ready.back();
    ready.pop_back();
    ++removed;
    for (const Vertex& w : next[v])
      if (--in_degree[w] == 0) ready.push_back(w);
  }
  return removed == in_degree.size();
}

}  // namespace

TEST_CASE("min-hop on a 4x4 torus has a credit loop, and the report is a real cycle") {
  const topology::Topology t = topology::mesh_topology(4, 4, 1, true);
  for (unsigned lmc : {0u, 2u}) {
    const routing::Lids lids = routing::assign_lids(t, lmc);
    const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
    const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
    const auto deps = traced_dependencies(t, lids, routes, kAllVl0);
    check_cycle(t, r, deps);
    CHECK(r.dependencies == deps.size());
    for (const routing::Channel& c : r.cycle) CHECK(c.vl == 0);
    const std::string text = r.describe(t);
    CHECK(text.rfind("credit loop on VL 0: ", 0) == 0);
    CHECK(text.find(" -> ") != std::string::npos);
  }
}

TEST_CASE("up/down is free of credit loops on a torus, a mesh, a dragonfly and fat trees") {
  for (const auto& [name, t] : ft::small_topologies()) {
    for (unsigned lmc : {0u, 1u}) {
      INFO(name << " LMC " << lmc);
      const routing::Lids lids = routing::assign_lids(t, lmc);
      const routing::Routes routes = route(t, lids, RoutingAlgorithm::UpDown);
      const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
      CHECK_FALSE(r.loop);
      CHECK(r.dependencies == traced_dependencies(t, lids, routes, kAllVl0).size());
      CHECK(r.describe(t) == "no credit loop (" + std::to_string(r.dependencies) + " dependencies)");
    }
  }
}

TEST_CASE("dor on a 4x4 mesh is free of credit loops where min-hop has one, and on a 4x4 torus both have one") {
  // Dimension order (X before Y) cannot close a cycle of channel dependencies on a mesh; the
  // wrap-around links of a torus close one in each ring (Dally and Seitz, 1987).
  for (unsigned lmc : {0u, 1u}) {
    INFO("LMC " << lmc);
    const topology::Topology mesh = topology::mesh_topology(4, 4, 1, false);
    const routing::Lids mesh_lids = routing::assign_lids(mesh, lmc);
    const routing::Routes dor = route(mesh, mesh_lids, RoutingAlgorithm::Dor);
    const routing::CreditLoopReport clean = routing::find_credit_loop(mesh, mesh_lids, dor, kAllVl0);
    CHECK_FALSE(clean.loop);
    CHECK(clean.dependencies == traced_dependencies(mesh, mesh_lids, dor, kAllVl0).size());
    CHECK(routing::find_credit_loop(mesh, mesh_lids, route(mesh, mesh_lids, RoutingAlgorithm::MinHop), kAllVl0).loop);
    const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
    const routing::Lids torus_lids = routing::assign_lids(torus, lmc);
    const routing::Routes torus_dor = route(torus, torus_lids, RoutingAlgorithm::Dor);
    const routing::CreditLoopReport r = routing::find_credit_loop(torus, torus_lids, torus_dor, kAllVl0);
    check_cycle(torus, r, traced_dependencies(torus, torus_lids, torus_dor, kAllVl0));
  }
}

TEST_CASE("min-hop on fat trees is free of credit loops") {
  for (auto [k, n] : {std::pair{4u, 2u}, std::pair{3u, 3u}, std::pair{4u, 3u}}) {
    const topology::Topology t = topology::fat_tree_topology(k, n);
    const routing::Lids lids = routing::assign_lids(t, 1);
    const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
    const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
    CHECK_FALSE(r.loop);
    CHECK(r.dependencies == traced_dependencies(t, lids, routes, kAllVl0).size());
  }
}

TEST_CASE("a ring of five: 30 dependencies per VL, one loop each way, VLs counted per class") {
  // Per switch: host -> either neighbour, either neighbour -> host, and passing
  // on in the same direction (two-hop paths): 6 dependencies, 30 in all.
  const topology::Topology t = ring(5);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
  CHECK(r.dependencies == 30);
  check_cycle(t, r, traced_dependencies(t, lids, routes, kAllVl0));
  CHECK(r.cycle.size() == 5);
  // SL -> VL = SL mod 2 everywhere: two classes, each on its own VL: twice the graph.
  const routing::Sl2VlLookup two_vls = [](unsigned, unsigned, unsigned) {
    Table tb;
    for (unsigned sl = 0; sl < 16; ++sl) tb[sl] = static_cast<uint8_t>(sl % 2);
    return tb;
  };
  const routing::CreditLoopReport r2 = routing::find_credit_loop(t, lids, routes, two_vls);
  CHECK(r2.dependencies == 60);
  CHECK(r2.loop);
  // Every SL dropped (VL 15): no traffic, nothing depends on anything.
  const routing::CreditLoopReport none =
      routing::find_credit_loop(t, lids, routes, [](unsigned, unsigned, unsigned) { return constant_table(15); });
  CHECK_FALSE(none.loop);
  CHECK(none.dependencies == 0);
}

TEST_CASE("a VL dateline breaks the loop of a ring, and a second SL on VL 0 brings it back") {
  const unsigned n = 5;
  const topology::Topology t = ring(n);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  // Switch node n + i. The datelines are the links sw4 -> sw0 (port 1 of sw4)
  // and sw0 -> sw4 (port 2 of sw0): a packet crossing one moves to VL 1 and
  // stays there at the next switch. Min-hop paths have at most two hops.
  const unsigned sw0 = n, sw4 = n + 4;
  const auto dateline = [=](unsigned node, unsigned in, unsigned out) {
    const bool crossing = (node == sw4 && out == 1) || (node == sw0 && out == 2);
    const bool crossed = (node == sw0 && in == 2) || (node == sw4 && in == 1);
    return constant_table(crossing || crossed ? 1 : 0);
  };
  const routing::Sl2VlLookup lookup = dateline;
  const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, lookup);
  const auto deps = traced_dependencies(t, lids, routes, lookup);
  CHECK_FALSE(r.loop);
  CHECK(r.dependencies == deps.size());

  // SL 1 follows the dateline, SL 0 and the rest stay on VL 0: the SL 0 loop is back.
  const routing::Sl2VlLookup mixed = [=](unsigned node, unsigned in, unsigned out) {
    Table tb = constant_table(0);
    tb[1] = dateline(node, in, out)[1];
    return tb;
  };
  const routing::CreditLoopReport r2 = routing::find_credit_loop(t, lids, routes, mixed);
  const auto deps2 = traced_dependencies(t, lids, routes, mixed);
  check_cycle(t, r2, deps2);
  CHECK(r2.dependencies == deps2.size());
  for (const routing::Channel& c : r2.cycle) CHECK(c.vl == 0);
}

TEST_CASE("a cycle that changes VL is reported with the VL of every channel") {
  // SL 0 on VL 0 from HCAs and VL 1 on every switch hop: the loop sits on VL 1
  // and the graph has VLs (no constant class).
  const topology::Topology t = ring(5);
  const routing::Lids lids = routing::assign_lids(t, 0);
  const routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  const routing::Sl2VlLookup lookup = [](unsigned, unsigned in, unsigned) { return constant_table(in == 0 ? 0 : 1); };
  const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, lookup);
  const auto deps = traced_dependencies(t, lids, routes, lookup);
  check_cycle(t, r, deps);
  CHECK(r.dependencies == deps.size());
  for (const routing::Channel& c : r.cycle) CHECK(c.vl == 1);
  CHECK(r.describe(t).rfind("credit loop on VL 1: ", 0) == 0);
}

TEST_CASE("routing loops in the LFTs are found as credit loops") {
  const topology::Topology t = ring(4);
  const routing::Lids lids = routing::assign_lids(t, 0);
  routing::Routes routes = route(t, lids, RoutingAlgorithm::MinHop);
  // LID of hca0: every switch forwards it on port 1, round the ring for ever.
  for (unsigned s = 4; s < 8; ++s) routes.lft[s][1] = 1;
  const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
  CHECK(r.loop);
  CHECK(r.cycle.size() == 4);
  // Also when the VLs differ along the way (the general graph).
  const routing::CreditLoopReport r2 = routing::find_credit_loop(
      t, lids, routes, [](unsigned, unsigned in, unsigned) { return constant_table(in == 0 ? 0 : 1); });
  CHECK(r2.loop);
}

TEST_CASE("random fabrics: up/down never loops, dependencies match path tracing") {
  std::mt19937 rng(99);
  for (int i = 0; i < 60; ++i) {
    const unsigned switches = 2 + rng() % 10;
    const topology::Topology t = ft::random_topology(rng, switches, rng() % (2 * switches));
    INFO("random fabric " << i);
    const routing::Lids lids = routing::assign_lids(t, 0);
    for (auto algorithm : {RoutingAlgorithm::UpDown, RoutingAlgorithm::MinHop}) {
      const routing::Routes routes = route(t, lids, algorithm);
      const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, kAllVl0);
      const auto deps = traced_dependencies(t, lids, routes, kAllVl0);
      CHECK(r.dependencies == deps.size());
      if (algorithm == RoutingAlgorithm::UpDown) CHECK_FALSE(r.loop);
      if (r.loop) check_cycle(t, r, deps);
    }
  }
}

TEST_CASE("tables with faults: the dependencies are those of every packet followed on its own") {
  // Entries set to kNoPath, 0, a port beyond the switch, an unlinked port, the
  // wrong host, or a neighbour that may send the packet back (routing loops);
  // tables cut short; VLs that change per hop, some SLs dropped on VL 15.
  const routing::Sl2VlLookup per_hop = [](unsigned node, unsigned in, unsigned out) {
    Table table;
    for (unsigned sl = 0; sl < 16; ++sl) table[sl] = static_cast<uint8_t>(sl >= 14 ? 15 : (sl + in + out + node) % 4);
    return table;
  };
  std::mt19937 rng(4242);
  for (int i = 0; i < 1000; ++i) {
    const unsigned switches = 2 + rng() % 8;
    topology::Topology t = ft::random_topology(rng, switches, rng() % (2 * switches));
    const routing::Lids lids = routing::assign_lids(t, rng() % 2);
    routing::Routes routes = route(t, lids, i % 2 ? RoutingAlgorithm::MinHop : RoutingAlgorithm::UpDown);
    const auto peer = ft::peers(t);
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      if (!ft::is_switch(t, n)) continue;
      for (uint8_t& entry : routes.lft[n]) {
        switch (rng() % 12) {
          case 0: entry = routing::kNoPath; break;
          case 1: entry = 0; break;
          case 2: entry = static_cast<uint8_t>(t.nodes[n].ports + 1 + rng() % 3); break;
          case 3: case 4: entry = static_cast<uint8_t>(1 + rng() % t.nodes[n].ports); break;  // any port, linked or not
          default: break;
        }
      }
      if (rng() % 5 == 0) routes.lft[n].resize(routes.lft[n].size() / 2);
    }
    INFO("random fabric " << i);
    // The packet walk reads entries beyond a short table as kNoPath.
    routing::Routes padded = routes;
    for (unsigned n = 0; n < t.nodes.size(); ++n)
      if (ft::is_switch(t, n)) padded.lft[n].resize(std::size_t{lids.top} + 1, routing::kNoPath);
    for (const routing::Sl2VlLookup* lookup : {&kAllVl0, &per_hop}) {
      INFO((lookup == &kAllVl0 ? "every SL on VL 0" : "VLs per hop"));
      const routing::CreditLoopReport r = routing::find_credit_loop(t, lids, routes, *lookup);
      const auto deps = walked_dependencies(t, lids, padded, *lookup);
      CHECK(r.dependencies == deps.size());
      CHECK(r.loop == !acyclic(deps));
      if (r.loop) check_cycle(t, r, deps, true);
    }
  }
}
