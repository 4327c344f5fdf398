#include "testbench/cli/detail_objects.hpp"

#include <deque>
#include <limits>

#include "testbench/cli/congestion_stats.hpp"
#include "testbench/cli/host_stats.hpp"
#include "testbench/cli/management_stats.hpp"
#include "testbench/cli/transport_stats.hpp"
#include "testbench/cli/version.hpp"

namespace hcasim {

std::vector<unsigned> node_levels(const config::FabricSpec& spec) {
  constexpr unsigned kUnreached = std::numeric_limits<unsigned>::max();
  std::vector<std::vector<unsigned>> next(spec.nodes.size());
  for (const config::LinkSpec& l : spec.links) {
    next[l.node_a].push_back(l.node_b);
    next[l.node_b].push_back(l.node_a);
  }
  std::vector<unsigned> level(spec.nodes.size(), kUnreached);
  std::deque<unsigned> todo;
  for (unsigned n = 0; n < spec.nodes.size(); ++n)
    if (spec.nodes[n].kind == topology::NodeKind::Hca) {
      level[n] = 0;
      todo.push_back(n);
    }
  while (!todo.empty()) {
    const unsigned n = todo.front();
    todo.pop_front();
    for (unsigned m : next[n])
      if (level[m] == kUnreached && spec.nodes[m].kind == topology::NodeKind::Switch) {
        level[m] = level[n] + 1;
        todo.push_back(m);
      }
  }
  for (unsigned& l : level)
    if (l == kUnreached) l = 0;
  return level;
}

void visit_detail_objects(const Simulation& sim, const RunMetadata& meta, const DetailVisitor& visit) {
  const fabric::Fabric& f = sim.fabric();
  const config::FabricSpec& spec = f.spec();
  const uint64_t end_ps = sim.sim_time_ps();
  visit("run", {{"scenario", meta.scenario},
                {"seed", meta.seed},
                {"config_hash", meta.config_hash},
                {"sim_time_ps", end_ps},
                {"version", version_line()}});

  // Ports come in node order, then port order (Fabric::ports); a port's peer
  // is found through the spec's links.
  const std::vector<unsigned> levels = node_levels(spec);
  std::vector<std::size_t> first_port(spec.nodes.size() + 1, 0);
  for (std::size_t n = 0; n < spec.nodes.size(); ++n) first_port[n + 1] = first_port[n] + spec.nodes[n].ports.size();
  std::vector<unsigned> peer_level(first_port.back(), 0);
  for (const config::LinkSpec& l : spec.links) {
    peer_level[first_port[l.node_a] + l.port_a] = levels[l.node_b];
    peer_level[first_port[l.node_b] + l.port_b] = levels[l.node_a];
  }
  const std::vector<link::Port*>& ports = f.ports();
  std::size_t node = 0;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    while (node + 1 < spec.nodes.size() && i >= first_port[node + 1]) ++node;
    nlohmann::json p = sim.port_json(*ports[i]);
    p["level"] = levels[node];
    p["peer_level"] = ports[i]->peer() != nullptr && i < peer_level.size() ? peer_level[i] : 0;
    visit("ports", std::move(p));
  }

  // Switches are built in node order (fabric.hpp).
  std::vector<unsigned> switch_nodes;
  for (unsigned n = 0; n < spec.nodes.size(); ++n)
    if (spec.nodes[n].kind == topology::NodeKind::Switch) switch_nodes.push_back(n);
  for (unsigned i = 0; i < f.switch_count(); ++i) {
    const sw::Switch& w = f.switch_at(i);
    visit("switches", {{"name", w.name()},
                       {"lid", w.lid()},
                       {"level", levels[switch_nodes.at(i)]},
                       {"ports", w.port_count()},
                       {"forwarded", w.stats().forwarded},
                       {"to_management", w.stats().to_management},
                       {"crossbar_wait_ps", w.stats().crossbar_wait_ps},
                       {"pool_peak_bytes", w.shared_pool() != nullptr
                                               ? w.shared_pool()->peak_drawn_blocks() * link::kCreditBlockBytes
                                               : 0},
                       {"ar_routed", w.adaptive() != nullptr ? w.adaptive()->stats().routed : 0},
                       {"ar_reroutes", w.adaptive() != nullptr ? w.adaptive()->stats().reroutes : 0}});
  }
  for (std::size_t i = 0; i < sim.flows().size(); ++i) visit("flows", sim.flow_json(i));
  each_qp_json(f, end_ps, sim.qp_owners(), [&](nlohmann::json&& o) { visit("qps", std::move(o)); });
  each_engine_json(f, end_ps, [&](nlohmann::json&& o) { visit("engines", std::move(o)); });
  each_host_json(f, end_ps, [&](nlohmann::json&& o) { visit("hosts", std::move(o)); });
  for (nlohmann::json& w : swarms_json(sim.swarms(), f)) visit("swarms", std::move(w));
  each_cc_switch_json(f, end_ps, [&](nlohmann::json&& o) { visit("cc_switches", std::move(o)); });
  each_cc_hca_port_json(f, [&](nlohmann::json&& o) { visit("cc_hca_ports", std::move(o)); });
  each_sa_server_json(f, [&](nlohmann::json&& o) { visit("sa_servers", std::move(o)); });
}

}  // namespace hcasim
