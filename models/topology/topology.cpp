#include "models/topology/topology.hpp"

#include <unordered_map>

namespace hcasim::topology {

bool operator==(const TopoNode& a, const TopoNode& b) {
  return a.name == b.name && a.kind == b.kind && a.ports == b.ports && a.guid == b.guid &&
         a.description == b.description && a.system_guid == b.system_guid;
}

bool operator==(const LinkParams& a, const LinkParams& b) {
  return a.speed == b.speed && a.width == b.width && a.length_m == b.length_m;
}

bool operator==(const TopoLink& a, const TopoLink& b) { return a.a == b.a && a.b == b.b && a.params == b.params; }

bool operator==(const Topology& a, const Topology& b) { return a.nodes == b.nodes && a.links == b.links; }

std::string check_topology(const Topology& t) {
  std::unordered_map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const TopoNode& n = t.nodes[i];
    if (n.name.empty()) return "node " + std::to_string(i) + " has no name";
    if (!names.emplace(n.name, i).second) return "two nodes are named '" + n.name + "'";
    if (n.ports < 1 || n.ports > kMaxPorts)
      return "node '" + n.name + "' has " + std::to_string(n.ports) + " ports; accepted: 1 to " +
             std::to_string(kMaxPorts);
  }
  std::vector<std::vector<int>> used(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) used[i].assign(t.nodes[i].ports + 1, -1);
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const TopoLink& link = t.links[l];
    const std::string where = "link " + std::to_string(l);
    for (const LinkEnd* e : {&link.a, &link.b}) {
      if (e->node >= t.nodes.size())
        return where + " names node " + std::to_string(e->node) + " of " + std::to_string(t.nodes.size());
      const TopoNode& n = t.nodes[e->node];
      if (e->port < 1 || e->port > n.ports)
        return where + " uses port " + std::to_string(e->port) + " of '" + n.name + "', which has ports 1 to " +
               std::to_string(n.ports);
    }
    if (link.a == link.b) return where + " joins " + port_name(t, link.a) + " to itself";
    for (const LinkEnd* e : {&link.a, &link.b}) {
      int& slot = used[e->node][e->port];
      if (slot >= 0) return port_name(t, *e) + " is on link " + std::to_string(slot) + " and on " + where;
      slot = static_cast<int>(l);
    }
  }
  return "";
}

TopologyIndex::TopologyIndex(const Topology& t) {
  link_of_.resize(t.nodes.size());
  peer_.resize(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    link_of_[i].assign(t.nodes[i].ports + 1, -1);
    peer_[i].assign(t.nodes[i].ports + 1, LinkEnd{kNoNode, 0});
  }
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const TopoLink& link = t.links[l];
    const auto valid = [&t](const LinkEnd& e) { return e.node < t.nodes.size() && e.port <= t.nodes[e.node].ports; };
    if (!valid(link.a) || !valid(link.b)) continue;  // check_topology reports these
    link_of_[link.a.node][link.a.port] = static_cast<int>(l);
    link_of_[link.b.node][link.b.port] = static_cast<int>(l);
    peer_[link.a.node][link.a.port] = link.b;
    peer_[link.b.node][link.b.port] = link.a;
  }
  for (std::size_t i = 0; i < t.nodes.size(); ++i) names_.emplace(t.nodes[i].name, static_cast<int>(i));
}

std::optional<LinkEnd> TopologyIndex::peer(unsigned node, unsigned port) const {
  if (node >= peer_.size() || port >= peer_[node].size()) return std::nullopt;
  const LinkEnd& e = peer_[node][port];
  if (e.node == kNoNode) return std::nullopt;
  return e;
}

int TopologyIndex::link_of(unsigned node, unsigned port) const {
  if (node >= link_of_.size() || port >= link_of_[node].size()) return -1;
  return link_of_[node][port];
}

int TopologyIndex::find(const std::string& name) const {
  const auto it = names_.find(name);
  return it == names_.end() ? -1 : it->second;
}

std::string port_name(const Topology& t, const LinkEnd& e) {
  const std::string node = e.node < t.nodes.size() ? t.nodes[e.node].name : "node" + std::to_string(e.node);
  return node + ".p" + std::to_string(e.port);
}

uint64_t derived_guid(unsigned node) { return kDerivedGuidBase + (uint64_t{node} + 1) * 256; }

uint64_t node_guid(const Topology& t, unsigned node) {
  const uint64_t g = t.nodes[node].guid;
  return g != 0 ? g : derived_guid(node);
}

uint64_t system_guid(const Topology& t, unsigned node) {
  const uint64_t g = t.nodes[node].system_guid;
  return g != 0 ? g : node_guid(t, node);
}

const std::string& node_description(const Topology& t, unsigned node) {
  const TopoNode& n = t.nodes[node];
  return n.description.empty() ? n.name : n.description;
}

uint64_t port_guid(const Topology& t, const LinkEnd& e) {
  const uint64_t g = node_guid(t, e.node);
  return t.nodes[e.node].kind == NodeKind::Switch ? g : g + e.port;
}

}  // namespace hcasim::topology
