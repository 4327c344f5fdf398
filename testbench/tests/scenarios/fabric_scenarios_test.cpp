// Fabric scenarios of configs/ run end to end: incast through one switch, VL
// isolation, a fat tree under a random permutation, an imported ibnetdiscover
// fabric, LMC multipath. Numbers are checked against analytic bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "models/link/credits.hpp"
#include "models/routing/routing.hpp"
#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

uint64_t fabric_drops(const Simulation& sim) {
  uint64_t n = 0;
  for (const link::Port* p : sim.fabric().ports())
    for (const link::VlStats& v : p->stats().vl) n += total_drops(v);
  return n;
}

const workloads::FlowResult& result_of(const Simulation& sim, const std::string& name) {
  for (std::size_t i = 0; i < sim.flows().size(); ++i)
    if (sim.flows()[i].name == name) return sim.flow_results()[i];
  FAIL("no flow " << name);
  return sim.flow_results().front();
}

}  // namespace

TEST_CASE("8-to-1 incast through one switch: no drops - the bottleneck link within 1% of its bound - fair shares") {
  ScenarioRun run = run_config("incast_8to1.json");
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  REQUIRE(sim.flows().size() == 8);

  uint64_t total = 0, first = UINT64_MAX, last = 0;
  for (const workloads::FlowResult& r : sim.flow_results()) {
    total += r.delivered;
    first = std::min(first, r.first_delivery_ps);
    last = std::max(last, r.last_delivery_ps);
  }
  const double measured = 8.0 * 4096 * static_cast<double>(total - 1) * 1e12 / static_cast<double>(last - first);
  const double bound = analytic_bound(run.scenario.link, 4096).data_bps;
  INFO("bottleneck " << measured / 1e9 << " Gb/s, bound " << bound / 1e9 << " Gb/s, " << total << " packets");
  REQUIRE(std::abs(measured - bound) / bound < 0.01);
  for (std::size_t i = 0; i < sim.flows().size(); ++i) {
    const double share = static_cast<double>(sim.flow_results()[i].delivered) / static_cast<double>(total);
    INFO(sim.flows()[i].name << " share " << share);
    REQUIRE(std::abs(share - 0.125) <= 0.05 * 0.125);
  }
}

namespace {

// configs/vl_isolation.json with the shared output's VLArb weights VL0:VL1 at
// w0:w1. Under the overshoot policy a turn sends packets until its weight in
// 64-byte blocks is reached, the last may overshoot: ceil(w / 65) packets of
// 4 KiB (65 blocks), so VL1 gets p1 / (p0 + p1) of the link.
void check_vl_isolation(unsigned w0, unsigned w1) {
  ScenarioRun run = run_config("vl_isolation.json", {"port.vlarb.low=0:" + std::to_string(w0) + ",1:" +
                                                     std::to_string(w1)});
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  const double bound = analytic_bound(run.scenario.link, 4096).data_bps;
  const unsigned blocks = link::blocks_for(ud_wire_bytes(4096));
  const double p0 = (w0 + blocks - 1) / blocks;  // whole packets per turn
  const double p1 = (w1 + blocks - 1) / blocks;
  const double vl1_share = p1 / (p0 + p1);

  const double vl1 = steady_bps(result_of(sim, "vl1_same_output"), 4096);
  double vl0 = 0;
  uint64_t vl0_packets = 0;
  for (std::size_t i = 0; i < sim.flows().size(); ++i)
    if (sim.flows()[i].pattern == "incast_vl0") {
      vl0 += steady_bps(sim.flow_results()[i], 4096);
      vl0_packets += sim.flow_results()[i].delivered;
    }
  INFO("VL1 " << vl1 / 1e9 << " Gb/s, VL0 incast " << vl0 / 1e9 << " Gb/s, bound " << bound / 1e9
              << " Gb/s, VL1's share by the weights " << vl1_share);
  REQUIRE(std::abs(vl1 / bound - vl1_share) < 0.02);
  REQUIRE(std::abs(vl0 / bound - (1 - vl1_share)) < 0.03);

  // The six incast senders share VL0's part evenly, hca0 too, though its input
  // is also busy moving its VL1 flow to another output.
  for (std::size_t i = 0; i < sim.flows().size(); ++i)
    if (sim.flows()[i].pattern == "incast_vl0") {
      const double share = static_cast<double>(sim.flow_results()[i].delivered) / static_cast<double>(vl0_packets);
      INFO(sim.flows()[i].name << ": " << sim.flow_results()[i].delivered << " of " << vl0_packets);
      REQUIRE(std::abs(share - 1.0 / 6) <= 0.05 / 6);
    }

  // hca0's VL1 flow to an idle output gets all it offers.
  const double rate = link::data_rate_bps(run.scenario.link.speed, run.scenario.link.width);
  const double offered = 0.5 * rate * 4096 / (ud_wire_bytes(4096) + run.scenario.link.framing_bytes);
  const double other = steady_bps(result_of(sim, "vl1_other_output"), 4096);
  INFO("VL1 to the idle output " << other / 1e9 << " Gb/s of " << offered / 1e9 << " offered");
  REQUIRE(other >= 0.98 * offered);
  REQUIRE(other <= 1.01 * offered);
}

}  // namespace

TEST_CASE("VL isolation: a VL1 flow keeps its arbitration share of a congested output and VL0 congestion does not spread") {
  check_vl_isolation(64, 64);  // the config's weights: half each
}

TEST_CASE("VL isolation at VLArb 64:192 - VL1 gets three quarters and every VL0 incast sender its sixth of the rest") {
  check_vl_isolation(64, 192);
}

TEST_CASE("VL isolation at VLArb 192:64 - VL1 gets one quarter and every VL0 incast sender its sixth of the rest") {
  check_vl_isolation(192, 64);
}

TEST_CASE("2-level fat tree - random permutation at full load: aggregate throughput against the bisection bound") {
  ScenarioRun run = run_config("fat_tree_permutation.json");
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  const unsigned hosts = 64;  // 8-ary 2-tree
  REQUIRE(sim.flows().size() == hosts);

  // Full bisection: every host can send at its link's bound at once.
  const double link_bound = analytic_bound(run.scenario.link, 4096).data_bps;
  const double bisection_bound = hosts * link_bound;
  double aggregate = 0;
  trace::LatencyRecord latency;
  for (const workloads::FlowResult& r : sim.flow_results()) {
    aggregate += steady_bps(r, 4096);
    latency.merge(r.latency_ps);
  }

  // Static routes share links: a flow can get no more than its link's bound
  // divided among the flows that share the busiest link of its path.
  const config::RoutedFabric routed = config::route_fabric(run.scenario);
  const topology::TopologyIndex index(run.scenario.graph);
  std::map<std::pair<unsigned, unsigned>, unsigned> load;  // (switch, output port) -> flows
  std::vector<routing::Path> paths;
  std::vector<unsigned> hca_node;
  for (unsigned n = 0; n < run.scenario.graph.nodes.size(); ++n)
    if (run.scenario.graph.nodes[n].kind == topology::NodeKind::Hca) hca_node.push_back(n);
  for (const workloads::FlowSpec& f : sim.flows()) {
    const uint16_t dlid = routed.lids.base[hca_node[f.dst_node]][f.dst_port];
    paths.push_back(routing::trace_path(run.scenario.graph, index, routed.lids, routed.routes,
                                       {hca_node[f.src_node], f.src_port + 1}, dlid));
    REQUIRE(paths.back().ok);
    for (const topology::LinkEnd& h : paths.back().hops) ++load[{h.node, h.port}];
  }
  double shared_bound = 0;
  for (const routing::Path& p : paths) {
    unsigned worst = 1;
    for (const topology::LinkEnd& h : p.hops) worst = std::max(worst, load[{h.node, h.port}]);
    shared_bound += link_bound / worst;
  }
  INFO("aggregate " << aggregate / 1e9 << " Gb/s; bisection bound " << bisection_bound / 1e9
                    << " Gb/s; bound from shared links " << shared_bound / 1e9 << " Gb/s");
  INFO("latency p50 " << latency.quantile(0.5) / 1e3 << " ns, p99 " << latency.quantile(0.99) / 1e3 << " ns, p99.9 "
                      << latency.quantile(0.999) / 1e3 << " ns, max " << latency.max() / 1e3 << " ns");
  REQUIRE(aggregate <= 1.001 * bisection_bound);
  REQUIRE(aggregate <= 1.001 * shared_bound);
  // And the crossbars and credits lose little of it (HOL blocking, allocation).
  REQUIRE(aggregate >= 0.98 * shared_bound);
  WARN("aggregate " << aggregate / 1e9 << " Gb/s = " << 100 * aggregate / bisection_bound
                    << "% of the bisection bound, " << 100 * aggregate / shared_bound << "% of the shared-link bound");

  // No packet beats the unloaded time of a same-leaf path: cut-through at the
  // leaf (LRH in, latency), full serialization out, two cables.
  const link::LinkTiming t(run.scenario.link);
  const uint64_t fastest = t.serialization_ps(ud_wire_bytes(4096)) + 2 * t.propagation_ps() +
                           run.scenario.switches.core.latency_ps;
  REQUIRE(latency.min() >= fastest);
  REQUIRE(latency.quantile(0.5) <= latency.quantile(0.99));
  REQUIRE(latency.quantile(0.99) <= latency.quantile(0.999));
  REQUIRE(latency.quantile(0.999) <= latency.max());
}

TEST_CASE("an ibnetdiscover fabric imports with every node - port and link - and runs") {
  ScenarioRun run = run_config("ibnetdiscover_cluster.json");
  const topology::Topology& g = run.scenario.graph;
  unsigned switches = 0, hcas = 0, ports = 0;
  for (const topology::TopoNode& n : g.nodes) {
    (n.kind == topology::NodeKind::Switch ? switches : hcas) += 1;
    ports += n.ports;
  }
  // The file: 3 switches of 8 ports, 5 single-port HCAs and one dual-port HCA;
  // 3 spine-leaf links (two of them parallel) and 7 HCA links.
  REQUIRE(switches == 3);
  REQUIRE(hcas == 6);
  REQUIRE(ports == 3 * 8 + 5 + 2);
  REQUIRE(g.links.size() == 10);
  REQUIRE(run.sim->fabric().ports().size() == ports);
  // node2's cable is EDR, the rest HDR.
  const topology::TopologyIndex index(g);
  const int node2 = index.find("H-e41d2d0300a1c200");
  REQUIRE(node2 >= 0);
  const int l = index.link_of(static_cast<unsigned>(node2), 1);
  REQUIRE(l >= 0);
  REQUIRE(g.links[static_cast<unsigned>(l)].params.speed == link::Speed::Edr);

  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  // All-to-all among the 7 HCA ports, 200 packets each: everything arrives.
  REQUIRE(sim.flows().size() == 7);
  for (const workloads::FlowResult& r : sim.flow_results()) REQUIRE(r.delivered == 200);
}

TEST_CASE("LMC 2: every HCA port owns four LIDs and traffic to all of them arrives") {
  ScenarioRun run = run_config("fat_tree_permutation.json",
                               {"routing.lmc=2", "topology.k=4", "workload.patterns.0.kind=uniform",
                                "workload.patterns.0.rate=50%", "run.duration=20us"});
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  for (unsigned i = 0; i < sim.fabric().hca_count(); ++i) REQUIRE(sim.fabric().hca(i).lid(0) % 4 == 0);
  uint64_t delivered = 0;
  for (const workloads::FlowResult& r : sim.flow_results()) delivered += r.delivered;
  REQUIRE(delivered > 0);
}

TEST_CASE("traffic patterns are the same for the same seed and differ for another") {
  auto dests = [](uint64_t seed) {
    const config::Scenario s = load_config("fat_tree_permutation.json", {"run.seed=" + std::to_string(seed)});
    const SimulationSetup setup = setup_from(s, "", true);
    std::vector<unsigned> d;
    for (const workloads::FlowSpec& f : setup.flows) d.push_back(f.dst_node);
    return d;
  };
  REQUIRE(dests(7) == dests(7));
  REQUIRE(dests(7) != dests(8));
  // A permutation: every host receives exactly once, and nobody sends to itself.
  const std::vector<unsigned> d = dests(7);
  std::vector<unsigned> sorted = d;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
  for (unsigned i = 0; i < d.size(); ++i) REQUIRE(d[i] != i);
}

TEST_CASE("in band: the SM brings a fat tree up from Down and the permutation traffic then runs on its tables") {
  ScenarioRun run = run_config("inband_fat_tree.json", {});
  const Simulation& sim = *run.sim;
  const mgmt::SubnetManager& sm = *sim.fabric().subnet_manager();
  REQUIRE(sm.done());
  REQUIRE(sim.workload_failures().empty());
  REQUIRE(sim.checker().ok());
  REQUIRE(fabric_drops(sim) == 0);
  for (const link::Port* p : sim.fabric().ports())
    if (p->peer() != nullptr) REQUIRE(p->state() == link::PortState::Active);
  // 16 hosts x 200 packets, none sent before the sweep ended.
  uint64_t delivered = 0;
  for (std::size_t i = 0; i < sim.flows().size(); ++i) {
    const workloads::FlowResult& r = sim.flow_results()[i];
    delivered += r.delivered;
    REQUIRE(r.first_delivery_ps > sm.stats().done_ps);
  }
  REQUIRE(delivered == 16 * 200);
  // Nothing lingers: the run ends with its traffic (no SA or SM timer left behind).
  uint64_t last = 0;
  for (const workloads::FlowResult& r : sim.flow_results()) last = std::max(last, r.last_delivery_ps);
  // The standby SM (management.standby) discovers the fabric after the
  // master's sweep and stands by (docs/sm-roles.md); its polls do not keep the run going.
  const config::ManagementSpec& m = sim.fabric().spec().management;
  REQUIRE(m.has_standby);
  const mgmt::SubnetManager& standby = *sim.fabric().mad_node(m.standby_node)->sm();
  REQUIRE(standby.role() == ib::SmState::Standby);
  last = std::max(last, standby.role_changes().back().time_ps);
  REQUIRE(sim.sim_time_ps() - last < 20'000'000);  // 20 us: within a few flow-control periods
  WARN("sweep " << (sm.stats().done_ps - sm.stats().start_ps) / 1e6 << " us, " << sm.stats().smps_sent << " SMPs");
}

TEST_CASE("in band: a perftest looks up its PathRecord through the SA client and then runs at the link's rate") {
  ScenarioRun run = run_config("perftest_write_bw.json", {"management.mode=in_band"});
  const Simulation& sim = *run.sim;
  REQUIRE(sim.fabric().subnet_manager()->done());
  REQUIRE(sim.workload_failures().empty());
  REQUIRE(sim.path_lookups() == 1);
  REQUIRE(sim.perftests().size() == 1);
  const workloads::PerftestResult& r = sim.perftests()[0]->result();
  REQUIRE(r.failures.empty());
  REQUIRE(!r.sizes.empty());
  for (const workloads::PerftestSizeResult& z : r.sizes) REQUIRE(z.done);
}

TEST_CASE("link_overrides set a link's speed, width and length: its throughput bound and flight time follow") {
  // b2b_hdr's link made EDR 2x (50 Gb/s) and 20 m long by an override naming
  // one end; one saturated flow of 4 KiB packets.
  ScenarioRun run = run_config(
      "b2b_hdr.json",
      {"outputs.pcap=false", "outputs.vcd=false",
       R"(workload.flows=[{"name": "f", "src": "hca0.p1", "dst": "hca1.p1", "payload": "4KiB", "rate": "saturate", "count": 3000}])",
       R"(link_overrides=[{"port": "hca1.p1", "speed": "EDR", "width": "2x", "propagation": "20m"}])"});
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  link::LinkConfig edr = run.scenario.link;
  edr.speed = link::Speed::Edr;
  edr.width = link::Width::X2;
  edr.length_m = 20;
  edr.propagation_ps = 0;
  const link::LinkTiming t(edr);
  REQUIRE(t.data_rate_bps() == 50e9);
  REQUIRE(t.propagation_ps() == 100'000);  // 20 m at 5 ns/m

  const workloads::FlowResult& r = sim.flow_results()[0];
  REQUIRE(r.delivered == 3000);
  const double bound = analytic_bound(edr, 4096).data_bps;
  const double measured = steady_bps(r, 4096);
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << bound / 1e9 << " Gb/s");
  REQUIRE(std::abs(measured - bound) / bound < 0.001);
  // The first packet, made at time 0, waits for the receiver's first
  // flow-control packet (6 bytes, VL0's credits) to cross the link, then
  // crosses it itself.
  const uint64_t flight = t.serialization_ps(6) + t.serialization_ps(ud_wire_bytes(4096)) + 2 * t.propagation_ps();
  INFO("fastest " << r.latency_ps.min() << " ps, expected " << flight);
  REQUIRE(r.latency_ps.min() == flight);
}
