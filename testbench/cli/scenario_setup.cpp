#include "testbench/cli/scenario_setup.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>

#include "models/config/service_level.hpp"
#include "models/routing/routing.hpp"
#include "testbench/workloads/traffic_patterns.hpp"

namespace hcasim {

namespace {

// The HCA ports of a fabric by name, as (HCA index, port index).
struct HcaPorts {
  std::vector<std::string> names;
  std::vector<workloads::Endpoint> ends;
  std::map<std::string, workloads::Endpoint> by_name;

  explicit HcaPorts(const config::FabricSpec& f) {
    unsigned hca = 0;
    for (const config::NodeSpec& n : f.nodes) {
      if (n.kind != topology::NodeKind::Hca) continue;
      for (unsigned p = 0; p < n.ports.size(); ++p) {
        names.push_back(n.name + ".p" + std::to_string(p + 1));
        ends.push_back({hca, p});
        by_name[names.back()] = ends.back();
      }
      ++hca;
    }
  }
  // The ports the names or wildcard patterns select, in fabric order; [] = all.
  std::vector<workloads::Endpoint> select(const std::vector<std::string>& patterns,
                                          std::vector<std::string>* chosen_names = nullptr) const {
    std::vector<workloads::Endpoint> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      bool hit = patterns.empty();
      for (const std::string& p : patterns) hit = hit || fnmatch(p.c_str(), names[i].c_str(), 0) == 0;
      if (!hit) continue;
      out.push_back(ends[i]);
      if (chosen_names) chosen_names->push_back(names[i]);
    }
    return out;
  }
};

}  // namespace

routing::CreditLoopReport check_credit_loops(const config::Scenario& s, const config::RoutedFabric& r) {
  return routing::find_credit_loop(s.graph, r.lids, r.routes, [&r](unsigned node, unsigned in, unsigned out) {
    return config::sl2vl_table(r.spec, node, in, out);
  });
}

SimulationSetup setup_from(const config::Scenario& s, const std::string& out_dir, bool quiet) {
  SimulationSetup r;
  config::RoutedFabric routed = config::route_fabric(s);
  if (s.routing.check_credit_loops) {
    r.credit_loops = check_credit_loops(s, routed);
    r.credit_loops_checked = true;
  }
  r.routing_engine = routed.routes.algorithm;
  r.routing_refusals = routed.routes.refusals;
  r.routing_layers = std::max(1u, routed.routes.sls.layers);
  for (uint8_t layer : routed.routes.dlid_sls) r.routing_layers = std::max(r.routing_layers, layer + 1u);  // nue
  r.fabric = std::move(routed.spec);
  // The SL the SA answers per path, for workloads with sl "path" (made only for
  // them: dfsssp's table is a byte per pair of LIDs).
  const auto on_path = [](const auto& list) {
    return std::any_of(list.begin(), list.end(), [](const auto& w) { return w.sl == config::kPathSl; });
  };
  const config::WorkloadConfig& work = s.workload;
  std::shared_ptr<const routing::PathSlTable> path_sls;
  if (on_path(work.flows) || on_path(work.patterns) || on_path(work.perftest) || on_path(work.verbs))
    path_sls = std::make_shared<const routing::PathSlTable>(s.graph, routed.lids, routed.routes);
  const auto sls_if = [&path_sls](uint32_t sl) {
    return sl == config::kPathSl ? path_sls : std::shared_ptr<const routing::PathSlTable>{};
  };
  routed = {};  // the routes' own copy of the LFTs, no longer needed

  const HcaPorts ports(r.fabric);
  for (std::size_t i = 0; i < s.workload.flows.size(); ++i) {
    const config::FlowConfig& f = s.workload.flows[i];
    workloads::FlowSpec w;
    w.name = f.name;
    // A flow's own random draws (arrivals), apart from every pattern's.
    w.seed = workloads::mix_seed(s.run.seed, 0x666c6f77ull, i);
    const workloads::Endpoint src = ports.by_name.at(f.src), dst = ports.by_name.at(f.dst);
    w.src_node = src.node;
    w.src_port = src.port;
    w.dst_node = dst.node;
    w.dst_port = dst.port;
    w.sl = f.sl == config::kPathSl ? 0 : static_cast<uint8_t>(f.sl);
    w.path_sls = sls_if(f.sl);
    w.vl15 = f.vl15;
    w.payload = static_cast<uint32_t>(f.payload);
    w.rate_bps = f.rate.bps;
    w.load = f.rate.load;
    w.source = f.source;
    w.count = f.count;
    w.start_ps = f.start_ps;
    r.flows.push_back(w);
  }
  for (unsigned i = 0; i < s.workload.patterns.size(); ++i) {
    const config::TrafficPatternConfig& p = s.workload.patterns[i];
    std::vector<std::string> names;
    const auto hosts = ports.select(p.hosts, &names);
    const auto targets = p.targets.empty() ? std::vector<workloads::Endpoint>{} : ports.select(p.targets);
    auto flows = workloads::expand_pattern(p, hosts, targets, s.run.seed, i, names,
                                           "workload.patterns." + std::to_string(i));
    for (workloads::FlowSpec& f : flows) f.path_sls = sls_if(p.sl);
    r.flows.insert(r.flows.end(), std::make_move_iterator(flows.begin()), std::make_move_iterator(flows.end()));
  }
  for (unsigned i = 0; i < s.workload.perftest.size(); ++i) {
    const config::PerftestConfig& t = s.workload.perftest[i];
    r.transport.perftest.push_back({t, ports.by_name.at(t.client), ports.by_name.at(t.server), i, false, sls_if(t.sl)});
  }
  for (unsigned i = 0; i < s.workload.swarm.size(); ++i) {
    workloads::SwarmSpec w{s.workload.swarm[i], {}, i, s.run.seed};
    for (const std::string& m : w.config.machines) w.machines.push_back(ports.by_name.at(m));
    r.transport.swarm.push_back(std::move(w));
  }
  for (unsigned i = 0; i < s.workload.dma.size(); ++i) {
    const config::DmaTestConfig& d = s.workload.dma[i];
    unsigned hca = 0;
    for (const topology::TopoNode& n : s.graph.nodes) {
      if (n.kind != topology::NodeKind::Hca) continue;
      if (n.name == d.hca) break;
      ++hca;
    }
    r.transport.dma.push_back({d, hca, i, s.run.seed});
  }
  for (unsigned i = 0; i < s.workload.verbs.size(); ++i) {
    const config::VerbsConnectionConfig& c = s.workload.verbs[i];
    r.transport.verbs.push_back({c, ports.by_name.at(c.a), ports.by_name.at(c.b), i, sls_if(c.sl)});
  }
  r.fabric.hosts = !r.transport.perftest.empty() || !r.transport.dma.empty() || !r.transport.verbs.empty() ||
                   !r.transport.swarm.empty();
  r.options.duration_ps = s.run.duration_ps;
  r.options.partitions = s.run.partitions;
  r.options.measure = s.run.measure;
  r.options.quiet = quiet;
  r.options.out_dir = out_dir;
  r.options.pcap = s.outputs.pcap;
  r.options.pcap_ports = s.outputs.pcap_ports;
  r.options.vcd = s.outputs.vcd;
  r.options.rtl_vcd = s.outputs.rtl_vcd;
  r.options.sample_interval_ps = s.outputs.sample_interval_ps;
  r.options.hop_latency = s.outputs.hop_latency;
  return r;
}

}  // namespace hcasim
