#include "models/config/management_config.hpp"

#include <algorithm>
#include <utility>

#include "models/mgmt/sm_role.hpp"

namespace hcasim::config {

using topology::TopoLink;

namespace {

// Node index and port number of an HCA port name, or node -1.
std::pair<int, unsigned> hca_port(const std::string& name, const topology::TopologyIndex& index,
                                  const std::vector<std::string>& hca_ports) {
  const std::size_t dot = name.rfind(".p");
  if (dot == std::string::npos || std::find(hca_ports.begin(), hca_ports.end(), name) == hca_ports.end())
    return {-1, 0};
  return {index.find(name.substr(0, dot)), static_cast<unsigned>(std::stoul(name.substr(dot + 2)))};
}

}  // namespace

ManagementSpec management_spec(const ManagementConfig& m, const topology::Topology& graph,
                               const std::vector<std::string>& hca_ports, const routing::RoutingConfig& routing) {
  ManagementSpec ms;
  ms.in_band = m.mode != ManagementMode::Preconfigured;
  ms.external = m.mode == ManagementMode::External;
  ms.start_ps = m.start_ps;
  ms.link_up_ps = m.link_up_ps;
  ms.sma_latency_ps = m.sma_latency_ps;
  ms.sm.routing = routing;
  ms.sm.max_in_flight = m.max_smps_in_flight;
  ms.sm.smp_timeout_ps = m.smp_timeout_ps;
  ms.sm.smp_retries = m.smp_retries;
  ms.sm.subnet_timeout = static_cast<uint8_t>(m.subnet_timeout);
  ms.sm.m_key = m.m_key;
  ms.sm.role.priority = static_cast<uint8_t>(m.sm_priority);
  ms.sm.role.polling_ps = m.polling_ps;
  ms.sm.role.retries = m.polling_retries;
  ms.standby_priority = static_cast<uint8_t>(m.standby_priority);
  ms.standby_with_master = m.standby_start == StandbyStart::WithMaster;
  ms.handover_ps = m.handover_ps;
  ms.sm.sweep_interval_ps = m.sweep_interval_ps;
  ms.sa_server.resp_time_value = static_cast<uint8_t>(m.sa_resp_time_value);
  ms.sa_server.processing_ps = m.sa_processing_ps;
  ms.sa_server.per_record_ps = m.sa_per_record_ps;
  ms.sa_server.keepalives = m.sa_keepalives;
  ms.sa_server.packet_gap_ps = m.sa_packet_gap_ps;
  ms.sa_client.resp_time_value = ms.sa_server.resp_time_value;
  // The SM's port decides the LIDs (routing.hpp) in either mode.
  const topology::TopologyIndex index(graph);
  const std::string sm = m.sm.empty() && !hca_ports.empty() ? hca_ports.front() : m.sm;
  const auto [node, port] = hca_port(sm, index, hca_ports);
  if (node < 0)
    throw ConfigError("management.sm", "'" + sm + "' is not an HCA port; accepted: an HCA port name such as hca0.p1");
  ms.sm_node = static_cast<unsigned>(node);
  ms.sm_port = port;
  if (!ms.in_band || ms.external) return ms;
  if (m.handover_ps != 0 && m.standby.empty())
    throw ConfigError("management.handover", "a handover needs a second SM; accepted: 0 (none), or a time with management.standby set");
  // The SM knows nodes by their NodeDescription (the topology's description, else its name).
  for (std::string& root : ms.sm.routing.roots)
    if (const int r = index.find(root); r >= 0) root = topology::node_description(graph, static_cast<unsigned>(r));
  if (!m.standby.empty()) {
    const auto [snode, sport] = hca_port(m.standby, index, hca_ports);
    if (snode < 0 || snode == node)
      throw ConfigError("management.standby", "'" + m.standby +
                                                  "' is not a port of an HCA other than the SM's; accepted: such a "
                                                  "port name, or \"\" for none");
    ms.has_standby = true;
    ms.standby_node = static_cast<unsigned>(snode);
    ms.standby_port = sport;
    // Started together, the SMs elect the master, whose port decides the LIDs
    // (routing.hpp): the builder's SM is the one that will win.
    const mgmt::SmIdentity first{topology::port_guid(graph, {ms.sm_node, ms.sm_port}), ms.sm.role.priority};
    const mgmt::SmIdentity second{topology::port_guid(graph, {ms.standby_node, ms.standby_port}), ms.standby_priority};
    if (ms.standby_with_master && mgmt::wins(second, first)) {
      std::swap(ms.sm_node, ms.standby_node);
      std::swap(ms.sm_port, ms.standby_port);
      std::swap(ms.sm.role.priority, ms.standby_priority);
    }
  }
  return ms;
}

GuidOrdered guid_ordered(const topology::Topology& t) {
  const auto guid = [&t](unsigned i) { return topology::node_guid(t, i); };
  GuidOrdered g;
  g.at.resize(t.nodes.size());
  for (unsigned i = 0; i < g.at.size(); ++i) g.at[i] = i;
  std::stable_sort(g.at.begin(), g.at.end(), [&](unsigned a, unsigned b) { return guid(a) < guid(b); });
  std::vector<unsigned> pos(t.nodes.size());
  for (unsigned k = 0; k < g.at.size(); ++k) {
    pos[g.at[k]] = k;
    g.graph.nodes.push_back(t.nodes[g.at[k]]);
    g.graph.nodes.back().guid = guid(g.at[k]);
  }
  for (TopoLink l : t.links) {
    l.a.node = pos[l.a.node];
    l.b.node = pos[l.b.node];
    if (std::make_pair(l.b.node, l.b.port) < std::make_pair(l.a.node, l.a.port)) std::swap(l.a, l.b);
    g.graph.links.push_back(l);
  }
  std::sort(g.graph.links.begin(), g.graph.links.end(), [](const TopoLink& x, const TopoLink& y) {
    return std::make_pair(x.a.node, x.a.port) < std::make_pair(y.a.node, y.a.port);
  });
  return g;
}

void from_guid_order(const GuidOrdered& ordered, routing::Lids& lids, routing::Routes& routes) {
  routing::Lids l = lids;
  routing::Routes r = routes;
  for (unsigned k = 0; k < ordered.at.size(); ++k) {
    l.base[ordered.at[k]] = lids.base[k];
    r.lft[ordered.at[k]] = routes.lft[k];
  }
  for (topology::LinkEnd& e : l.owner)
    if (e.node != topology::kNoNode) e.node = ordered.at[e.node];
  for (unsigned& root : r.roots) root = ordered.at[root];
  lids = std::move(l);
  routes = std::move(r);
}

}  // namespace hcasim::config
