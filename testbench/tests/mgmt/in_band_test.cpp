// In-band bring-up: the SM sweeps a fabric whose ports start with no LIDs, no
// forwarding tables and power-on QoS tables, and must leave every port Active
// with exactly the tables the pre-configured mode installs (issue item 1).

#include <catch2/catch.hpp>

#include <systemc>

#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/link/port_config.hpp"

using namespace hcasim;

namespace {

std::vector<link::VlArbEntry> trimmed(std::vector<link::VlArbEntry> t) {
  while (!t.empty() && t.back().weight == 0) t.pop_back();
  return t;
}

bool same(const std::vector<link::VlArbEntry>& a, const std::vector<link::VlArbEntry>& b) {
  const auto x = trimmed(a), y = trimmed(b);
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i].vl != y[i].vl || x[i].weight != y[i].weight) return false;
  return true;
}

// The scenario in band, its SM on the first HCA port.
config::FabricSpec in_band_spec(nlohmann::json scenario) {
  scenario["management"]["mode"] = "in_band";
  const config::FabricSpec spec = config::route_fabric(config::load_scenario(scenario)).spec;
  REQUIRE(spec.management.in_band);
  return spec;
}

// Everything the pre-configured builder installs from `spec` (the routed spec
// the fabric was made from: the fabric moves the LFTs out of its own copy),
// compared with the fabric's state.
void require_as_preconfigured(const fabric::Fabric& f, const config::FabricSpec& spec) {
  unsigned hca = 0, sw = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    const config::NodeSpec& ns = spec.nodes[n];
    INFO("node " << ns.name);
    if (ns.kind == topology::NodeKind::Hca) {
      const hca::Hca& h = f.hca(hca++);
      for (unsigned p = 0; p < h.port_count(); ++p) {
        REQUIRE(h.lid(p) == ns.lids[p]);
        const link::Port& port = h.port(p);
        if (port.peer() != nullptr) REQUIRE(port.state() == link::PortState::Active);
        REQUIRE(port.sl2vl() == config::sl2vl_table(spec, n, 0, p + 1));
        const link::VlArbConfig want = link::resolved_vlarb(ns.ports[p]);
        REQUIRE(same(port.vlarb().low, want.low));
        REQUIRE(same(port.vlarb().high, want.high));
        REQUIRE(port.vlarb().high_limit == want.high_limit);
      }
    } else {
      const sw::Switch& s = f.switch_at(sw++);
      REQUIRE(s.lid() == ns.lids.front());
      for (uint16_t lid = 0; lid < std::max<size_t>(ns.lft.size(), s.forwarding().lft().size()); ++lid) {
        const uint8_t want = lid < ns.lft.size() ? ns.lft[lid] : sw::kNoRoute;
        REQUIRE(s.forwarding().lookup(lid) == want);
      }
      const unsigned ports = s.port_count();
      for (unsigned out = 1; out <= ports; ++out) {
        const link::Port& port = s.port(out);
        if (port.peer() != nullptr) REQUIRE(port.state() == link::PortState::Active);
        for (unsigned in = 0; in <= ports; ++in)
          REQUIRE(s.forwarding().sl2vl(in, out) == config::sl2vl_table(spec, n, in, out));
        const link::VlArbConfig want = link::resolved_vlarb(ns.ports[out - 1]);
        REQUIRE(same(port.vlarb().low, want.low));
        REQUIRE(same(port.vlarb().high, want.high));
        REQUIRE(port.vlarb().high_limit == want.high_limit);
      }
    }
  }
}

}  // namespace

TEST_CASE("in-band bring-up of a two-level fat tree leaves every table as the pre-configured mode has it", "[mgmt][inband]") {
  ib::PacketPool pool;
  const config::FabricSpec spec = in_band_spec({{"topology", {{"pattern", "fat_tree"}, {"k", 2}, {"levels", 2}}},
                                                {"port", {{"data_vls", 4}}}});
  fabric::Fabric f(spec, pool);
  for (const link::Port* p : f.ports()) REQUIRE(p->state() == link::PortState::Down);  // all Down at the start
  bool done = false;
  f.on_sweep_done([&] { done = true; });
  sc_core::sc_start();
  REQUIRE(done);
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().failed == 0);
  REQUIRE(sm.stats().errors == 0);
  REQUIRE(sm.stats().nodes == spec.nodes.size());
  REQUIRE(sm.stats().links == spec.links.size());
  require_as_preconfigured(f, spec);
}

TEST_CASE("in-band bring-up of a torus with up/down routing and LMC 1 leaves every table as the pre-configured mode has it", "[mgmt][inband]") {
  ib::PacketPool pool;
  const config::FabricSpec spec = in_band_spec(nlohmann::json::parse(R"({
    "topology": {"pattern": "torus", "x": 3, "y": 3, "hosts_per_switch": 2},
    "routing": {"algorithm": "updown", "lmc": 1},
    "port": {"data_vls": 4, "sl2vl": [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0],
             "vlarb": {"high": "3:8", "low": "0:64,1:32,2:16", "high_limit": 4}}
  })"));
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().failed == 0);
  REQUIRE(sm.stats().errors == 0);
  REQUIRE(sm.stats().links == spec.links.size());
  require_as_preconfigured(f, spec);
  WARN("torus 3x3: " << sm.stats().smps_sent << " SMPs, sweep " << (sm.stats().done_ps - sm.stats().start_ps) / 1e6 << " us");
}

TEST_CASE("the SM resends SMPs lost on the links and still programs every table", "[mgmt][inband]") {
  ib::PacketPool pool;
  // Every link direction loses its 3rd and 4th VL15 packet (SMPs and answers).
  config::FabricSpec spec = in_band_spec(nlohmann::json::parse(R"({
    "topology": {"pattern": "fat_tree", "k": 2, "levels": 2},
    "link": {"faults": {"drops": [{"vl": 15, "nth": 3, "count": 2}]}}
  })"));
  spec.management.sm.smp_timeout_ps = 50'000'000;  // 50 us: far above a round trip here
  // An SMP crosses at most 4 link directions out and back, each losing at most 2.
  spec.management.sm.smp_retries = 8;
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().timeouts > 0);
  INFO("timeouts " << sm.stats().timeouts << " retries " << sm.stats().retries << " failed " << sm.stats().failed << " sent " << sm.stats().smps_sent << " responses " << sm.stats().responses);
  REQUIRE(sm.stats().retries == sm.stats().timeouts);
  REQUIRE(sm.stats().failed == 0);
  require_as_preconfigured(f, spec);
}

TEST_CASE("in band on a fabric whose NodeGUIDs are not in node order: LIDs in OpenSM's order, as the SM assigns them", "[mgmt][inband]") {
  ib::PacketPool pool;
  // The HCAs come first in the file but have the largest GUIDs.
  const nlohmann::json scenario = nlohmann::json::parse(R"({
    "topology": {"pattern": "explicit", "graph": {
      "nodes": [
        {"name": "h0", "kind": "hca", "ports": 1, "guid": "0x0000000000000f00"},
        {"name": "h1", "kind": "hca", "ports": 1, "guid": "0x0000000000000e00"},
        {"name": "h2", "kind": "hca", "ports": 1, "guid": "0x0000000000000d00"},
        {"name": "s0", "kind": "switch", "ports": 4, "guid": "0x0000000000000200"},
        {"name": "s1", "kind": "switch", "ports": 4, "guid": "0x0000000000000100"}],
      "links": [{"a": "h0.p1", "b": "s0.p1"}, {"a": "h1.p1", "b": "s1.p1"}, {"a": "h2.p1", "b": "s1.p2"},
                {"a": "s0.p3", "b": "s1.p3"}, {"a": "s0.p4", "b": "s1.p4"}]}}
  })");
  const config::FabricSpec spec = in_band_spec(scenario);
  // OpenSM (routing.hpp): the SM's port (h0.p1, the default) LID 1, then the port GUIDs
  // byte-reversed: the switches' end in 0x00 (s1 0x01.. before s0 0x02..), the HCA ports' in
  // 0x01 (h2 0x0d.. before h1 0x0e..): s1 2, s0 3, h2 4, h1 5.
  REQUIRE(spec.nodes[0].lids[0] == 1);
  REQUIRE(spec.nodes[4].lids[0] == 2);
  REQUIRE(spec.nodes[3].lids[0] == 3);
  REQUIRE(spec.nodes[2].lids[0] == 4);
  REQUIRE(spec.nodes[1].lids[0] == 5);
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  require_as_preconfigured(f, spec);
}

TEST_CASE("in-band bring-up with adaptive routing writes every switch the AR groups and settings the pre-configured "
          "mode installs", "[mgmt][inband]") {
  const nlohmann::json scenario = nlohmann::json::parse(R"({
    "topology": {"pattern": "fat_tree", "k": 4, "levels": 2},
    "routing": {"algorithm": "minhop",
                "adaptive": {"mode": "bounded", "ageing": "10us", "sls": [0, 2], "choice": "least_queued_of_k", "k": 3}}
  })");
  const config::FabricSpec pre = config::route_fabric(config::load_scenario(scenario)).spec;
  ib::PacketPool pool;
  const config::FabricSpec spec = in_band_spec(scenario);
  fabric::Fabric f(spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().errors == 0);
  REQUIRE(sm.stats().ar_refusals == 0);
  require_as_preconfigured(f, spec);
  uint64_t blocks = 0;  // what the SM must write: per switch its group blocks, LID blocks and one ArInfo
  unsigned sw = 0;
  for (const config::NodeSpec& ns : pre.nodes) {
    if (ns.kind != topology::NodeKind::Switch) continue;
    INFO("switch " << ns.name);
    const sw::AdaptiveRouter* ar = f.switch_at(sw++).adaptive();
    REQUIRE(ar != nullptr);
    CHECK(ar->config().mode == sw::ArMode::Bounded);
    CHECK(ar->config().ageing_ps == 10'000'000);
    CHECK(ar->config().sl_mask == 0x0005);
    CHECK(ar->config().choice == sw::ArChoice::LeastQueuedOfK);
    CHECK(ar->config().k == 3);
    const sw::ArGroupTable& want = ns.ar_groups;
    REQUIRE(want.ports.size() > 1);  // every switch of the tree has a group
    for (uint16_t lid = 0; lid < ns.lft.size(); ++lid) {
      INFO("LID " << lid);
      const std::vector<uint8_t> none;
      const std::vector<uint8_t>& w = want.group(lid) == 0 ? none : want.ports[want.group(lid)];
      const uint16_t g = ar->group(lid, 0);
      CHECK((g == 0 ? none : ar->groups().ports[g]) == w);
    }
    blocks += (want.ports.size() + 1) / 2 + (ns.lft.size() + 31) / 32 + 1;
  }
  CHECK(sm.stats().ar_blocks == blocks);
}
