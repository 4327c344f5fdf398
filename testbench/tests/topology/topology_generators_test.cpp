// Topology generators: node, port and link counts against the closed forms of
// each pattern, the wiring rules of topology_generators.hpp checked from the
// names, and the parameter errors.

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "models/topology/topology.hpp"
#include "models/topology/topology_generators.hpp"

namespace topology = hcasim::topology;
using topology::NodeKind;

namespace {

struct Counts {
  unsigned hcas = 0, switches = 0;
  unsigned host_links = 0, switch_links = 0;
};

Counts count(const topology::Topology& t) {
  Counts c;
  for (const auto& n : t.nodes) (n.kind == NodeKind::Hca ? c.hcas : c.switches)++;
  for (const auto& l : t.links) {
    const bool both_switches =
        t.nodes[l.a.node].kind == NodeKind::Switch && t.nodes[l.b.node].kind == NodeKind::Switch;
    (both_switches ? c.switch_links : c.host_links)++;
  }
  return c;
}

unsigned pow_u(unsigned b, unsigned e) {
  unsigned r = 1;
  while (e--) r *= b;
  return r;
}

// The far end of a named port, as "<node>.p<port>", or "" when unlinked.
std::string far_end(const topology::Topology& t, const std::string& node, unsigned port) {
  const topology::TopologyIndex index(t);
  const int n = index.find(node);
  REQUIRE(n >= 0);
  const auto peer = index.peer(static_cast<unsigned>(n), port);
  return peer ? topology::port_name(t, *peer) : "";
}

template <class Fn>
std::string invalid_message(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  FAIL("no std::invalid_argument thrown");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("back to back joins hca0.p1 and hca1.p1") {
  const topology::Topology t = topology::back_to_back_topology();
  CHECK(topology::check_topology(t).empty());
  REQUIRE(t.nodes.size() == 2);
  REQUIRE(t.links.size() == 1);
  CHECK(far_end(t, "hca0", 1) == "hca1.p1");
}

TEST_CASE("single switch puts host h on sw0 port h+1") {
  const topology::Topology t = topology::single_switch_topology(5, 8);
  CHECK(topology::check_topology(t).empty());
  const Counts c = count(t);
  CHECK(c.hcas == 5);
  CHECK(c.switches == 1);
  CHECK(c.host_links == 5);
  CHECK(t.nodes.back().ports == 8);
  for (unsigned h = 0; h < 5; ++h) CHECK(far_end(t, "hca" + std::to_string(h), 1) == "sw0.p" + std::to_string(h + 1));
  CHECK(topology::single_switch_topology(12, 8).nodes.back().ports == 12);
}

TEST_CASE("k-ary n-trees have k^n hosts, n k^(n-1) switches and n k^n links") {
  for (unsigned n : {2u, 3u}) {
    for (unsigned k : {2u, 3u, 4u, 5u}) {
      const topology::Topology t = topology::fat_tree_topology(k, n);
      INFO("k=" << k << " n=" << n);
      CHECK(topology::check_topology(t).empty());
      const Counts c = count(t);
      CHECK(c.hcas == pow_u(k, n));
      CHECK(c.switches == n * pow_u(k, n - 1));
      CHECK(c.host_links + c.switch_links == n * pow_u(k, n));
      // Every switch port is used except the top level's up ports.
      const topology::TopologyIndex index(t);
      for (unsigned i = 0; i < t.nodes.size(); ++i) {
        if (t.nodes[i].kind != NodeKind::Switch) continue;
        CHECK(t.nodes[i].ports == 2 * k);
        const bool top = t.nodes[i].name.rfind("sw" + std::to_string(n) + "_", 0) == 0;
        for (unsigned p = 1; p <= 2 * k; ++p) CHECK(index.peer(i, p).has_value() == (!top || p <= k));
      }
    }
  }
}

TEST_CASE("fat tree hosts sit on leaf h / k port h % k + 1 and every leaf reaches every spine in two levels") {
  const unsigned k = 4;
  const topology::Topology t = topology::fat_tree_topology(k, 2);
  for (unsigned h = 0; h < k * k; ++h)
    CHECK(far_end(t, "hca" + std::to_string(h), 1) == "sw1_" + std::to_string(h / k) + ".p" + std::to_string(h % k + 1));
  for (unsigned leaf = 0; leaf < k; ++leaf) {
    for (unsigned j = 0; j < k; ++j)
      CHECK(far_end(t, "sw1_" + std::to_string(leaf), k + 1 + j) ==
            "sw2_" + std::to_string(j) + ".p" + std::to_string(leaf + 1));
  }
}

TEST_CASE("three-level fat tree: pods are complete bipartite, each top switch reaches one switch per pod") {
  const unsigned k = 3;
  const topology::Topology t = topology::fat_tree_topology(k, 3);
  const topology::TopologyIndex index(t);
  // Leaf i (digits d1 d0) reaches level-2 switches (d1, j): its own pod d1 = i / k.
  for (unsigned i = 0; i < k * k; ++i) {
    std::set<std::string> ups;
    for (unsigned j = 0; j < k; ++j) ups.insert(far_end(t, "sw1_" + std::to_string(i), k + 1 + j));
    std::set<std::string> expected;
    for (unsigned j = 0; j < k; ++j)
      expected.insert("sw2_" + std::to_string((i / k) * k + j) + ".p" + std::to_string(i % k + 1));
    CHECK(ups == expected);
  }
  // Top switch (j, x) reaches (d1, x) for every pod d1, through down port d1 + 1.
  for (unsigned top = 0; top < k * k; ++top) {
    for (unsigned pod = 0; pod < k; ++pod)
      CHECK(far_end(t, "sw3_" + std::to_string(top), pod + 1).rfind("sw2_" + std::to_string(pod * k + top % k) + ".p", 0) == 0);
  }
}

TEST_CASE("torus x by y has xy switches, 2xy switch links and every switch port used") {
  for (auto [x, y] : {std::pair{4u, 4u}, std::pair{2u, 3u}, std::pair{5u, 2u}, std::pair{2u, 2u}}) {
    const unsigned hps = 2;
    const topology::Topology t = topology::mesh_topology(x, y, hps, true);
    INFO(x << "x" << y);
    CHECK(topology::check_topology(t).empty());
    const Counts c = count(t);
    CHECK(c.switches == x * y);
    CHECK(c.hcas == x * y * hps);
    CHECK(c.switch_links == 2 * x * y);
    CHECK(c.host_links == x * y * hps);
    const topology::TopologyIndex index(t);
    for (unsigned i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].kind != NodeKind::Switch) continue;
      CHECK(t.nodes[i].ports == 4 + hps);
      for (unsigned p = 1; p <= 4 + hps; ++p) CHECK(index.peer(i, p).has_value());
    }
  }
}

TEST_CASE("torus and mesh ports go +x, -x, +y, -y and hosts are numbered in (y, x) order") {
  const topology::Topology t = topology::mesh_topology(3, 4, 2, true);
  CHECK(far_end(t, "sw0_0", 1) == "sw1_0.p2");
  CHECK(far_end(t, "sw0_0", 2) == "sw2_0.p1");  // wraps
  CHECK(far_end(t, "sw0_0", 3) == "sw0_1.p4");
  CHECK(far_end(t, "sw0_0", 4) == "sw0_3.p3");  // wraps
  CHECK(far_end(t, "sw2_1", 1) == "sw0_1.p2");
  // Switch (x, y) holds hosts 2 (3y + x) and 2 (3y + x) + 1 on ports 5 and 6.
  CHECK(far_end(t, "sw1_2", 5) == "hca" + std::to_string(2 * (3 * 2 + 1)) + ".p1");
  CHECK(far_end(t, "sw1_2", 6) == "hca" + std::to_string(2 * (3 * 2 + 1) + 1) + ".p1");

  const topology::Topology m = topology::mesh_topology(3, 4, 1, false);
  CHECK(topology::check_topology(m).empty());
  CHECK(count(m).switch_links == (3 - 1) * 4 + 3 * (4 - 1));
  CHECK(far_end(m, "sw0_0", 2).empty());
  CHECK(far_end(m, "sw2_3", 1).empty());
  CHECK(far_end(m, "sw2_3", 3).empty());
  CHECK(far_end(m, "sw2_3", 2) == "sw1_3.p1");
}

TEST_CASE("a torus of size 2 in a dimension links the two switches twice") {
  const topology::Topology t = topology::mesh_topology(2, 3, 1, true);
  CHECK(far_end(t, "sw0_0", 1) == "sw1_0.p2");
  CHECK(far_end(t, "sw0_0", 2) == "sw1_0.p1");
}

TEST_CASE("dragonfly: a h + 1 groups, local all-to-all, one global link per pair of groups") {
  for (auto [a, p, h] : {std::tuple{4u, 2u, 2u}, std::tuple{2u, 1u, 1u}, std::tuple{3u, 2u, 4u}, std::tuple{1u, 1u, 3u}}) {
    INFO("a=" << a << " p=" << p << " h=" << h);
    const topology::Topology t = topology::dragonfly_topology(a, p, h);
    CHECK(topology::check_topology(t).empty());
    const unsigned g = a * h + 1;
    const Counts c = count(t);
    CHECK(c.switches == g * a);
    CHECK(c.hcas == g * a * p);
    CHECK(c.host_links == g * a * p);
    CHECK(c.switch_links == g * a * (a - 1) / 2 + g * a * h / 2);
    // Classify switch links by the groups in the names "sw<g>_<r>".
    const auto group_of = [&](unsigned node) {
      const std::string& name = t.nodes[node].name;
      return std::stoul(name.substr(2, name.find('_') - 2));
    };
    std::map<std::pair<unsigned long, unsigned long>, unsigned> global;
    unsigned local = 0;
    for (const auto& l : t.links) {
      if (t.nodes[l.a.node].kind != NodeKind::Switch || t.nodes[l.b.node].kind != NodeKind::Switch) continue;
      const auto ga = group_of(l.a.node), gb = group_of(l.b.node);
      if (ga == gb) {
        ++local;
        CHECK(l.a.port > p);
        CHECK(l.a.port <= p + a - 1);
      } else {
        ++global[{std::min(ga, gb), std::max(ga, gb)}];
        CHECK(l.a.port > p + a - 1);
        CHECK(l.b.port > p + a - 1);
      }
    }
    CHECK(local == g * a * (a - 1) / 2);
    CHECK(global.size() == g * (g - 1) / 2);
    for (const auto& entry : global) CHECK(entry.second == 1);
    const topology::TopologyIndex index(t);
    for (unsigned i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].kind != NodeKind::Switch) continue;
      for (unsigned port = 1; port <= t.nodes[i].ports; ++port) CHECK(index.peer(i, port).has_value());
    }
  }
}

TEST_CASE("generators reject parameters out of range and say what is accepted") {
  CHECK(contains(invalid_message([] { topology::fat_tree_topology(1, 2); }), "k >= 2"));
  CHECK(contains(invalid_message([] { topology::fat_tree_topology(4, 4); }), "2 or 3"));
  CHECK(contains(invalid_message([] { topology::fat_tree_topology(4, 1); }), "2 or 3"));
  CHECK(contains(invalid_message([] { topology::fat_tree_topology(128, 2); }), "at most 254"));
  CHECK(contains(invalid_message([] { topology::mesh_topology(1, 4, 1, true); }), "at least 2"));
  CHECK(contains(invalid_message([] { topology::mesh_topology(4, 0, 1, false); }), "at least 2"));
  CHECK(contains(invalid_message([] { topology::mesh_topology(4, 4, 251, false); }), "at most 254"));
  CHECK(contains(invalid_message([] { topology::dragonfly_topology(0, 1, 1); }), "at least 1"));
  CHECK(contains(invalid_message([] { topology::dragonfly_topology(2, 0, 1); }), "at least 1"));
  CHECK(contains(invalid_message([] { topology::dragonfly_topology(2, 1, 0); }), "at least 1"));
  CHECK(contains(invalid_message([] { topology::dragonfly_topology(100, 100, 100); }), "at most 254"));
  CHECK(contains(invalid_message([] { topology::single_switch_topology(0, 8); }), "accepted"));
  CHECK(contains(invalid_message([] { topology::single_switch_topology(4, 255); }), "at most 254"));
  CHECK_NOTHROW(topology::fat_tree_topology(127, 2));
  CHECK_NOTHROW(topology::mesh_topology(2, 2, 250, true));
}

TEST_CASE("check_topology names the fault") {
  topology::Topology t = topology::back_to_back_topology();
  t.links.push_back(t.links[0]);
  CHECK(contains(topology::check_topology(t), "hca0.p1 is on link 0 and on link 1"));
  t = topology::back_to_back_topology();
  t.links[0].b.port = 2;
  CHECK(contains(topology::check_topology(t), "port 2 of 'hca1'"));
  t = topology::back_to_back_topology();
  t.links[0].b = t.links[0].a;
  CHECK(contains(topology::check_topology(t), "to itself"));
  t = topology::back_to_back_topology();
  t.nodes[1].name = "hca0";
  CHECK(contains(topology::check_topology(t), "two nodes are named 'hca0'"));
  t = topology::back_to_back_topology();
  t.nodes[1].ports = 255;
  CHECK(contains(topology::check_topology(t), "1 to 254"));
}
