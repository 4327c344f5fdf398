#include "models/topology/topology_generators.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace hcasim::topology {

namespace {

unsigned add_node(Topology& t, std::string name, NodeKind kind, unsigned ports) {
  TopoNode n;
  n.name = std::move(name);
  n.kind = kind;
  n.ports = ports;
  t.nodes.push_back(std::move(n));
  return static_cast<unsigned>(t.nodes.size() - 1);
}

void add_link(Topology& t, unsigned node_a, unsigned port_a, unsigned node_b, unsigned port_b) {
  TopoLink l;
  l.a = {node_a, port_a};
  l.b = {node_b, port_b};
  t.links.push_back(l);
}

// hca0 .. hca<count-1>, single-port, at node indices 0 .. count-1.
void add_hosts(Topology& t, unsigned count) {
  for (unsigned i = 0; i < count; ++i) add_node(t, "hca" + std::to_string(i), NodeKind::Hca, 1);
}

void check_ports(const char* what, uint64_t ports, const std::string& formula) {
  if (ports > kMaxPorts)
    throw std::invalid_argument(std::string(what) + ": switches would need " + std::to_string(ports) + " ports (" +
                                formula + "); accepted: at most " + std::to_string(kMaxPorts));
}

uint64_t power(uint64_t base, unsigned exp) {
  uint64_t r = 1;
  for (unsigned i = 0; i < exp; ++i) r *= base;
  return r;
}

}  // namespace

Topology back_to_back_topology() {
  Topology t;
  add_hosts(t, 2);
  add_link(t, 0, 1, 1, 1);
  return t;
}

Topology single_switch_topology(unsigned hosts, unsigned switch_ports) {
  if (hosts < 1) throw std::invalid_argument("single_switch: hosts is 0; accepted: 1 to 254 hosts");
  const unsigned ports = std::max(hosts, switch_ports);
  check_ports("single_switch", ports, "max(hosts, switch_ports)");
  Topology t;
  add_hosts(t, hosts);
  const unsigned sw = add_node(t, "sw0", NodeKind::Switch, ports);
  for (unsigned h = 0; h < hosts; ++h) add_link(t, h, 1, sw, h + 1);
  return t;
}

Topology fat_tree_topology(unsigned k, unsigned levels) {
  if (k < 2) throw std::invalid_argument("fat_tree: k = " + std::to_string(k) + "; accepted: k >= 2");
  if (levels != 2 && levels != 3)
    throw std::invalid_argument("fat_tree: levels = " + std::to_string(levels) + "; accepted: 2 or 3");
  check_ports("fat_tree", 2ull * k, "2k");
  const unsigned n = levels;
  const unsigned per_level = static_cast<unsigned>(power(k, n - 1));
  const unsigned hosts = per_level * k;
  Topology t;
  add_hosts(t, hosts);
  // Switch (level L, index i) sits at node hosts + (L-1) * per_level + i.
  const auto sw = [&](unsigned level, unsigned i) { return hosts + (level - 1) * per_level + i; };
  for (unsigned level = 1; level <= n; ++level) {
    for (unsigned i = 0; i < per_level; ++i) {
      add_node(t, "sw" + std::to_string(level) + "_" + std::to_string(i), NodeKind::Switch, 2 * k);
    }
  }
  for (unsigned h = 0; h < hosts; ++h) add_link(t, h, 1, sw(1, h / k), h % k + 1);
  for (unsigned level = 1; level < n; ++level) {
    const unsigned weight = static_cast<unsigned>(power(k, level - 1));  // value of digit d[level-1]
    for (unsigned i = 0; i < per_level; ++i) {
      const unsigned digit = (i / weight) % k;
      for (unsigned j = 0; j < k; ++j) {
        const unsigned upper = i - digit * weight + j * weight;
        add_link(t, sw(level, i), k + 1 + j, sw(level + 1, upper), digit + 1);
      }
    }
  }
  return t;
}

Topology mesh_topology(unsigned x, unsigned y, unsigned hosts_per_switch, bool torus) {
  const char* what = torus ? "torus" : "mesh";
  if (x < 2 || y < 2)
    throw std::invalid_argument(std::string(what) + ": dimensions " + std::to_string(x) + " x " + std::to_string(y) +
                                "; accepted: both at least 2");
  check_ports(what, 4ull + hosts_per_switch, "4 + hosts_per_switch");
  const uint64_t switches = uint64_t{x} * y;
  if (switches * (hosts_per_switch + 1) > 0xFFFFFFull)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(switches) +
                                " switches is too many; accepted: at most 16777215 nodes");
  const unsigned hosts = static_cast<unsigned>(switches) * hosts_per_switch;
  Topology t;
  add_hosts(t, hosts);
  const auto sw = [&](unsigned i, unsigned j) { return hosts + j * x + i; };
  for (unsigned j = 0; j < y; ++j) {
    for (unsigned i = 0; i < x; ++i) {
      add_node(t, "sw" + std::to_string(i) + "_" + std::to_string(j), NodeKind::Switch, 4 + hosts_per_switch);
    }
  }
  for (unsigned h = 0; h < hosts; ++h) {
    const unsigned s = h / hosts_per_switch;
    add_link(t, h, 1, hosts + s, 5 + h % hosts_per_switch);
  }
  for (unsigned j = 0; j < y; ++j) {
    for (unsigned i = 0; i < x; ++i) {
      if (torus || i + 1 < x) add_link(t, sw(i, j), 1, sw((i + 1) % x, j), 2);
      if (torus || j + 1 < y) add_link(t, sw(i, j), 3, sw(i, (j + 1) % y), 4);
    }
  }
  return t;
}

Topology dragonfly_topology(unsigned a, unsigned p, unsigned h) {
  if (a < 1 || p < 1 || h < 1)
    throw std::invalid_argument("dragonfly: a = " + std::to_string(a) + ", p = " + std::to_string(p) +
                                ", h = " + std::to_string(h) + "; accepted: a, p, h all at least 1");
  check_ports("dragonfly", uint64_t{p} + a - 1 + h, "p + a - 1 + h");
  const unsigned groups = a * h + 1;
  const unsigned routers = groups * a;
  const unsigned hosts = routers * p;
  Topology t;
  add_hosts(t, hosts);
  const auto router = [&](unsigned g, unsigned r) { return hosts + g * a + r; };
  for (unsigned g = 0; g < groups; ++g) {
    for (unsigned r = 0; r < a; ++r) {
      add_node(t, "sw" + std::to_string(g) + "_" + std::to_string(r), NodeKind::Switch, p + a - 1 + h);
    }
  }
  for (unsigned host = 0; host < hosts; ++host) add_link(t, host, 1, hosts + host / p, host % p + 1);
  // Local port of router r towards router s (s != r) of its group.
  const auto local_port = [&](unsigned r, unsigned s) { return p + 1 + (s < r ? s : s - 1); };
  for (unsigned g = 0; g < groups; ++g) {
    for (unsigned r = 0; r < a; ++r) {
      for (unsigned s = r + 1; s < a; ++s) add_link(t, router(g, r), local_port(r, s), router(g, s), local_port(s, r));
    }
  }
  for (unsigned g = 0; g < groups; ++g) {
    for (unsigned q = 0; q < groups - 1; ++q) {
      const unsigned g2 = (g + q + 1) % groups;
      if (g2 < g) continue;  // made from the other side
      const unsigned q2 = groups - q - 2;
      add_link(t, router(g, q / h), p + a + q % h, router(g2, q2 / h), p + a + q2 % h);
    }
  }
  return t;
}

}  // namespace hcasim::topology
