#include "models/routing/opensm_order.hpp"

#include <algorithm>
#include <tuple>

namespace hcasim::routing {

using topology::LinkEnd;
using topology::NodeKind;
using topology::Topology;
using topology::TopologyIndex;

bool guid_table_less(uint64_t a, uint64_t b) { return __builtin_bswap64(a) < __builtin_bswap64(b); }

void sort_port_table(const Topology& t, std::vector<LinkEnd>& ports) {
  std::sort(ports.begin(), ports.end(), [&t](const LinkEnd& x, const LinkEnd& y) {
    const uint64_t gx = topology::port_guid(t, x), gy = topology::port_guid(t, y);
    if (gx != gy) return guid_table_less(gx, gy);
    return std::tie(x.node, x.port) < std::tie(y.node, y.port);
  });
}

std::vector<LinkEnd> discovered_ports(const Topology& t, const TopologyIndex& index, LinkEnd sm_port) {
  const auto is_switch = [&t](unsigned n) { return t.nodes[n].kind == NodeKind::Switch; };
  std::vector<std::vector<char>> seen(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) seen[n].assign(t.nodes[n].ports + 1, 0);
  std::vector<LinkEnd> found;
  std::vector<unsigned> queue;
  const auto visit = [&](LinkEnd e) {
    if (is_switch(e.node)) e.port = 0;
    if (seen[e.node][e.port]) return;
    seen[e.node][e.port] = 1;
    found.push_back(e);
    if (is_switch(e.node)) queue.push_back(e.node);
  };
  visit(sm_port);
  if (!is_switch(sm_port.node))
    if (const auto peer = index.peer(sm_port.node, sm_port.port)) visit(*peer);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const unsigned s = queue[head];
    for (unsigned p = 1; p <= t.nodes[s].ports; ++p)
      if (const auto peer = index.peer(s, p)) visit(*peer);
  }
  std::vector<LinkEnd> rest(found.begin() + 1, found.end());
  sort_port_table(t, rest);
  rest.insert(rest.begin(), found.front());
  return rest;
}

std::vector<LinkEnd> destination_order(const Topology& t, const TopologyIndex& index, std::vector<LinkEnd> ports) {
  sort_port_table(t, ports);
  std::vector<std::vector<char>> listed(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) listed[n].assign(t.nodes[n].ports + 1, 0);
  std::vector<std::vector<char>> has_lid(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) has_lid[n].assign(t.nodes[n].ports + 1, 0);
  for (const LinkEnd& e : ports) has_lid[e.node][e.port] = 1;

  struct Load {
    unsigned node;
    unsigned endports;
  };
  std::vector<Load> switches;
  for (const LinkEnd& e : ports) {
    if (t.nodes[e.node].kind != NodeKind::Switch) continue;
    unsigned endports = 0;
    for (unsigned p = 1; p <= t.nodes[e.node].ports; ++p) {
      const auto peer = index.peer(e.node, p);
      endports += peer && t.nodes[peer->node].kind == NodeKind::Hca;
    }
    switches.push_back({e.node, endports});
  }
  std::stable_sort(switches.begin(), switches.end(),
                   [](const Load& a, const Load& b) { return a.endports > b.endports; });
  std::vector<LinkEnd> order;
  order.reserve(ports.size());
  for (const Load& s : switches) {
    for (unsigned p = 1; p <= t.nodes[s.node].ports; ++p) {
      const auto peer = index.peer(s.node, p);
      if (!peer || t.nodes[peer->node].kind != NodeKind::Hca) continue;
      if (!has_lid[peer->node][peer->port] || listed[peer->node][peer->port]) continue;
      listed[peer->node][peer->port] = 1;
      order.push_back(*peer);
    }
  }
  for (const LinkEnd& e : ports)
    if (!listed[e.node][e.port]) order.push_back(e);
  return order;
}

}  // namespace hcasim::routing
