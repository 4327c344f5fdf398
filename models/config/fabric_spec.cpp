#include "models/config/fabric_spec.hpp"

#include <set>
#include <utility>

namespace hcasim::config {

FabricSpec back_to_back(const link::PortConfig& a, const link::PortConfig& b, const link::LinkConfig& link) {
  FabricSpec s;
  s.nodes.resize(2);
  s.nodes[0].name = "hca0";
  s.nodes[0].ports = {a};
  s.nodes[1].name = "hca1";
  s.nodes[1].ports = {b};
  s.links.push_back({0, 0, 1, 0, link});
  return s;
}

std::string check_fabric(const FabricSpec& spec) {
  std::set<std::pair<unsigned, unsigned>> used;
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    const LinkSpec& l = spec.links[i];
    const std::string where = "link " + std::to_string(i);
    for (auto [n, p] : {std::pair{l.node_a, l.port_a}, std::pair{l.node_b, l.port_b}}) {
      if (n >= spec.nodes.size() || p >= spec.nodes[n].ports.size())
        return where + ": no such node or port; accepted: a node and port of the fabric";
      if (!used.insert({n, p}).second)
        return where + ": " + spec.nodes[n].name + " port " + std::to_string(p + 1) +
               " is already on a link; accepted: one link per port";
    }
    const link::PortConfig& a = spec.nodes[l.node_a].ports[l.port_a];
    const link::PortConfig& b = spec.nodes[l.node_b].ports[l.port_b];
    if (a.effective_vls() != b.effective_vls())
      return where + " (" + spec.nodes[l.node_a].name + ".p" + std::to_string(l.port_a + 1) + " - " +
             spec.nodes[l.node_b].name + ".p" + std::to_string(l.port_b + 1) + "): the ends operate " +
             std::to_string(a.effective_vls()) + " and " + std::to_string(b.effective_vls()) +
             " data VLs; accepted: the same operational_vls on both ports";
  }
  return "";
}

std::array<uint8_t, 16> sl2vl_table(const FabricSpec& spec, unsigned node, unsigned in_port, unsigned out_port) {
  const NodeSpec& n = spec.nodes[node];
  if (n.kind == topology::NodeKind::Switch) {
    const auto it = spec.sl2vl.find({node, in_port, out_port});
    if (it != spec.sl2vl.end()) return it->second;
  }
  return link::resolved_sl2vl(n.ports[out_port - 1]);
}

uint64_t node_guid(const FabricSpec& spec, unsigned node) {
  const uint64_t g = spec.nodes[node].guid;
  return g != 0 ? g : topology::derived_guid(node);
}

mgmt::QosPolicy qos_policy(const FabricSpec& spec) {
  mgmt::QosPolicy policy;
  for (unsigned i = 0; i < spec.nodes.size(); ++i) {
    const NodeSpec& n = spec.nodes[i];
    mgmt::NodeQos& q = policy[node_guid(spec, i)];
    const unsigned ports = static_cast<unsigned>(n.ports.size());
    q.vlarb.resize(ports + 1);
    for (unsigned out = 1; out <= ports; ++out) {
      q.vlarb[out] = link::resolved_vlarb(n.ports[out - 1]);
      if (n.kind == topology::NodeKind::Switch) {
        for (unsigned in = 0; in <= ports; ++in)
          q.sl2vl[{static_cast<uint8_t>(in), static_cast<uint8_t>(out)}] = sl2vl_table(spec, i, in, out);
      } else {
        q.sl2vl[{0, static_cast<uint8_t>(out)}] = sl2vl_table(spec, i, 0, out);
      }
    }
  }
  return policy;
}

mgmt::PartitionPolicy partition_policy(const FabricSpec& spec) {
  mgmt::PartitionPolicy policy;
  for (unsigned i = 0; i < spec.nodes.size(); ++i)
    if (!spec.nodes[i].partitions.pkeys.empty()) policy[node_guid(spec, i)] = spec.nodes[i].partitions;
  return policy;
}

}  // namespace hcasim::config
