// Link events in band: a switch whose port changes state sends Trap 128 to the
// SM, the SM represses it and re-sweeps, and the new LFTs are those the routing
// library computes offline on the topology without the failed link (with the
// LIDs kept); the time from the failure to the new tables is within the bound
// of trap delivery plus the re-sweep's SMPs times the longest SMP round trip;
// when the link trains back up, a re-sweep arms and activates its ports and
// the tables return to the original ones. A lost TrapRepress makes the trap
// repeat after exactly 4.096 us x 2^SubnetTimeout, and the repress stops it.

#include <catch2/catch.hpp>

#include <systemc>

#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "models/config/management_config.hpp"
#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/routing/adaptive_groups.hpp"

using namespace hcasim;

namespace {

constexpr uint64_t kMadWireBytes = 8 + 12 + 8 + 256 + 4 + 2;  // LRH, BTH, DETH, MAD, ICRC, VCRC (iba-facts 1)

struct Setup {
  config::Scenario scenario;
  config::FabricSpec spec;
};

Setup in_band(nlohmann::json j) {
  j["management"]["mode"] = "in_band";
  Setup s{config::load_scenario(j), {}};
  s.spec = config::route_fabric(s.scenario).spec;
  return s;
}

std::string port_name(const config::FabricSpec& spec, unsigned node, unsigned index) {
  return spec.nodes[node].name + ".p" + std::to_string(index + 1);
}

// The LFTs (scenario node order) the routing library gives the scenario's
// topology without link `dead`, LIDs as the whole fabric's (the SM's port
// first, as route_fabric assigns them; minhop does not depend on node order).
std::vector<std::vector<uint8_t>> offline_lfts(const config::Scenario& s, const config::FabricSpec& spec,
                                               std::size_t dead) {
  const routing::Lids lids =
      routing::assign_lids(s.graph, s.routing.lmc, {spec.management.sm_node, spec.management.sm_port});
  topology::Topology cut = s.graph;
  cut.links.erase(cut.links.begin() + static_cast<std::ptrdiff_t>(dead));
  routing::RoutingConfig config;
  config.algorithm = s.routing.algorithm;
  config.roots = s.routing.roots;
  config.tie_break = s.routing.tie_break;
  return routing::compute_routes(cut, lids, config).lft;
}

// The last switch-to-switch link that does not touch the SM's leaf (so no
// trap has to cross it); spec.links.size() when there is none.
std::size_t switch_link_away_from_sm(const config::FabricSpec& spec) {
  const unsigned sm_node = spec.management.sm_node;
  unsigned sm_leaf = UINT32_MAX;
  for (const config::LinkSpec& l : spec.links)
    if (l.node_a == sm_node || l.node_b == sm_node) sm_leaf = l.node_a == sm_node ? l.node_b : l.node_a;
  std::size_t dead = spec.links.size();
  for (std::size_t i = 0; i < spec.links.size(); ++i) {
    const config::LinkSpec& l = spec.links[i];
    const bool switches = spec.nodes[l.node_a].kind == topology::NodeKind::Switch &&
                          spec.nodes[l.node_b].kind == topology::NodeKind::Switch;
    if (switches && l.node_a != sm_leaf && l.node_b != sm_leaf) dead = i;
  }
  return dead;
}

std::vector<uint8_t> lft_of(const sw::Switch& s, std::size_t size) {
  std::vector<uint8_t> out;
  for (std::size_t lid = 0; lid < size; ++lid) out.push_back(s.forwarding().lookup(static_cast<uint16_t>(lid)));
  return out;
}

}  // namespace

TEST_CASE("resweep: a failed spine link is trapped, routed around as offline routing says, and restored", "[mgmt][resweep]") {
  Setup s = in_band({{"topology", {{"pattern", "fat_tree"}, {"k", 2}, {"levels", 2}}},
                     {"management", {{"subnet_timeout", 10}}}});
  config::FabricSpec& spec = s.spec;
  // A switch-to-switch link away from the SM's node (so no trap has to cross it).
  const std::size_t dead = switch_link_away_from_sm(spec);
  REQUIRE(dead < spec.links.size());
  const config::LinkSpec dl = spec.links[dead];
  const uint64_t down = 500'000'000, up = 1'500'000'000;  // 500 us and 1.5 ms: the first sweep is long done
  link::LinkEventConfig e;
  e.link = port_name(spec, dl.node_a, dl.port_a);
  e.down_ps = down;
  e.up_ps = up;
  spec.link_events.push_back(e);

  ib::PacketPool pool;
  fabric::Fabric f(spec, pool);
  sc_core::sc_start(sc_core::sc_time::from_value(up));
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.stats().done_ps != 0);
  REQUIRE(sm.stats().done_ps < down);
  REQUIRE(sm.traps() >= 1);
  REQUIRE(!sm.resweeps().empty());
  const mgmt::ResweepRecord& r = sm.resweeps().front();
  CHECK(r.trigger == mgmt::SweepTrigger::Trap);
  REQUIRE(r.tables_ps != 0);
  REQUIRE(r.done_ps != 0);
  CHECK(r.lft_blocks >= 1);
  CHECK(r.ports_raised == 0);  // nothing came up

  // The new tables: nothing leaves by the dead ports, and every entry is the
  // offline routing's on the topology without the link.
  const auto lfts = offline_lfts(s.scenario, spec, dead);
  unsigned sw_index = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    if (spec.nodes[n].kind != topology::NodeKind::Switch) continue;
    const sw::Switch& sw = f.switch_at(sw_index++);
    INFO("switch " << spec.nodes[n].name);
    const std::vector<uint8_t> now = lft_of(sw, lfts[n].size());
    CHECK(now == lfts[n]);
    const unsigned dead_port = n == dl.node_a ? dl.port_a + 1 : n == dl.node_b ? dl.port_b + 1 : 0;
    if (dead_port != 0) CHECK(std::count(now.begin(), now.end(), dead_port) == 0);
    CHECK((now != spec.nodes[n].lft || dead_port == 0));  // the two ends had to change
  }

  // Failure to new tables: trap delivery (at most 3 hops to the SM) plus the
  // re-sweep's SMPs, each within the longest round trip (4 hops out and back,
  // an SMA queue of max_in_flight SMPs). A hop: a MAD's serialization,
  // propagation and a switch's forwarding latency.
  const link::Port& any = *f.ports().front();
  const uint64_t hop = any.timing().serialization_ps(kMadWireBytes) + any.timing().propagation_ps() +
                       spec.nodes[dl.node_a].switch_config.latency_ps;
  const uint64_t sma = spec.management.sma_latency_ps;
  const uint64_t rtt = 8 * hop + spec.management.sm.max_in_flight * sma;
  const uint64_t to_tables = r.tables_ps - down;
  CHECK(r.requested_ps - down <= 3 * hop);
  CHECK(to_tables <= 3 * hop + r.smps * rtt);
  CHECK(to_tables >= 2 * sma);  // at least a NodeInfo and an LFT block answered
  WARN("failure to new tables: " << to_tables / 1e6 << " us, " << r.smps << " SMPs, " << r.lft_blocks
                                  << " LFT blocks; bound " << (3 * hop + r.smps * rtt) / 1e6 << " us");

  // The link trains back up: a re-sweep raises its two ports, the tables are the original ones.
  sc_core::sc_start();
  const mgmt::ResweepRecord& last = sm.resweeps().back();
  bool raised = false;
  for (const mgmt::ResweepRecord& x : sm.resweeps()) raised = raised || x.ports_raised == 2;
  CHECK(raised);
  CHECK(last.done_ps != 0);
  sw_index = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    if (spec.nodes[n].kind != topology::NodeKind::Switch) continue;
    INFO("switch " << spec.nodes[n].name);
    CHECK(lft_of(f.switch_at(sw_index++), spec.nodes[n].lft.size()) == spec.nodes[n].lft);
  }
  for (const link::Port* p : f.ports())
    if (p->peer() != nullptr) CHECK(p->state() == link::PortState::Active);
  // Every trap was repressed in the end, and LIDs never moved.
  uint64_t sent = 0, represses = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    CHECK(!f.mad_node(n)->trap_pending());
    sent += f.mad_node(n)->stats().traps_sent;
    represses += f.mad_node(n)->stats().represses_in;
  }
  CHECK(sent >= 4);  // both ends, down and up
  CHECK(represses == sm.traps());
  for (unsigned i = 0; i < f.hca_count(); ++i) CHECK(f.hca(i).lid(0) == spec.nodes[f.node_of_hca(i)].lids[0]);
}

TEST_CASE("resweep: a lost TrapRepress makes Trap 128 repeat after 4.096 us x 2^SubnetTimeout, and the repress stops it", "[mgmt][resweep]") {
  // hca0 (the SM) and hca1 on one switch; hca1's link fails for good. The
  // first TrapRepress on the SM's link is dropped by a fault rule.
  Setup s = in_band(nlohmann::json::parse(R"({
    "topology": {"pattern": "single_switch", "hosts": 2, "switch_ports": 2},
    "management": {"subnet_timeout": 8},
    "link_overrides": [{"port": "hca0.p1", "faults": {"drops": [{"mad_class": "0x01", "mad_method": 7, "nth": 1}]}}]
  })"));
  config::FabricSpec& spec = s.spec;
  link::LinkEventConfig e;
  e.link = "hca1.p1";
  e.down_ps = 200'000'000;
  spec.link_events.push_back(e);
  ib::PacketPool pool;
  fabric::Fabric f(spec, pool);
  // Trap repeats do not keep a run going (mad_node.hpp): something else must, past the repeat.
  link::Alarm keep_going([] {});
  keep_going.notify_at(3'000'000'000);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  unsigned sw_node = 0;
  while (spec.nodes[sw_node].kind != topology::NodeKind::Switch) ++sw_node;
  const mgmt::MadNodeStats& st = f.mad_node(sw_node)->stats();
  CHECK(st.traps_sent == 2);
  CHECK(st.trap_repeats == 1);
  CHECK(st.represses_in == 1);
  CHECK(!f.mad_node(sw_node)->trap_pending());
  CHECK(sm.traps() == 2);
  REQUIRE(sm.resweeps().size() == 2);
  const uint64_t period = uint64_t{4'096'000} << 8;  // 4.096 us x 2^8 = 1.048576 ms
  CHECK(sm.resweeps()[1].requested_ps - sm.resweeps()[0].requested_ps == period);
  // The SA's database was refilled from the re-sweep: hca0 alone has no PathRecord (it had 2 before).
  REQUIRE(f.sa_agent(spec.management.sm_node) != nullptr);
  CHECK(f.sa_agent(spec.management.sm_node)->database().size(ib::kAttrPathRecord) == 0);
  CHECK(f.sa_agent(spec.management.sm_node)->database().size(ib::kAttrNodeRecord) == 2);  // hca0 and the switch
  // hca1 is gone: its LID is unrouted; one LFT block changed, then none.
  unsigned hca1 = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n)
    if (spec.nodes[n].name == "hca1") hca1 = n;
  CHECK(f.switch_at(0).forwarding().lookup(spec.nodes[hca1].lids[0]) == routing::kNoPath);
  CHECK(sm.resweeps()[0].lft_blocks == 1);
  CHECK(sm.resweeps()[1].lft_blocks == 0);
  CHECK(sm.resweeps()[1].smps < sm.resweeps()[0].smps);
}

TEST_CASE("resweep: a change while a trap waits for its repress sends a new trap at once", "[mgmt][resweep]") {
  // The first TrapRepress is lost and SubnetTimeout 18 would repeat the trap
  // only after 1.07 s; the link coming back (Init at 500 us) sends a new trap
  // then, and the SM re-sweeps at once.
  Setup s = in_band(nlohmann::json::parse(R"({
    "topology": {"pattern": "single_switch", "hosts": 2, "switch_ports": 2},
    "link_overrides": [{"port": "hca0.p1", "faults": {"drops": [{"mad_class": "0x01", "mad_method": 7, "nth": 1}]}}]
  })"));
  link::LinkEventConfig e;
  e.link = "hca1.p1";
  e.down_ps = 200'000'000;
  e.up_ps = 400'000'000;  // + 100 us training: Init at 500 us
  s.spec.link_events.push_back(e);
  ib::PacketPool pool;
  fabric::Fabric f(s.spec, pool);
  sc_core::sc_start(sc_core::sc_time::from_value(uint64_t{100'000'000'000}));  // 100 ms, well before a repeat
  unsigned sw_node = 0;
  while (s.spec.nodes[sw_node].kind != topology::NodeKind::Switch) ++sw_node;
  const mgmt::MadNodeStats& st = f.mad_node(sw_node)->stats();
  CHECK(st.traps_sent == 2);
  CHECK(st.trap_repeats == 0);
  CHECK(st.represses_in == 1);
  CHECK(!f.mad_node(sw_node)->trap_pending());
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  REQUIRE(sm.resweeps().size() == 2);
  const uint64_t init_at = 500'000'000;
  CHECK(sm.resweeps()[1].requested_ps >= init_at);
  CHECK(sm.resweeps()[1].requested_ps - init_at < 10'000'000);  // within 10 us: no 1.07 s wait
  CHECK(sm.resweeps()[1].ports_raised == 2);
  for (const link::Port* p : f.ports()) CHECK(p->state() == link::PortState::Active);
}

TEST_CASE("resweep: an HCA whose link was down at the first sweep gets a new LID, its QoS tables and Active", "[mgmt][resweep]") {
  Setup s = in_band(nlohmann::json::parse(R"({
    "topology": {"pattern": "single_switch", "hosts": 3, "switch_ports": 3},
    "port": {"data_vls": 4, "sl2vl": [0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0],
             "vlarb": {"high": "3:8", "low": "0:64,1:32,2:16", "high_limit": 4}}
  })"));
  link::LinkEventConfig e;
  e.link = "hca2.p1";
  e.down_ps = 0;            // down before the first sweep
  e.up_ps = 300'000'000;    // back (Init) at 400 us
  s.spec.link_events.push_back(e);
  ib::PacketPool pool;
  fabric::Fabric f(s.spec, pool);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  CHECK(sm.stats().done_ps < 400'000'000);
  REQUIRE(sm.resweeps().size() == 1);
  CHECK(sm.resweeps()[0].ports_raised == 2);
  unsigned n2 = 0;
  for (unsigned n = 0; n < s.spec.nodes.size(); ++n)
    if (s.spec.nodes[n].name == "hca2") n2 = n;
  const hca::Hca* h2 = nullptr;
  uint16_t top_other = 0;
  for (unsigned i = 0; i < f.hca_count(); ++i) {
    if (f.node_of_hca(i) == n2) h2 = &f.hca(i);
    else top_other = std::max(top_other, f.hca(i).lid(0));
  }
  REQUIRE(h2 != nullptr);
  CHECK(h2->lid(0) > top_other);  // known LIDs kept; the newcomer gets one above them
  CHECK(h2->lid(0) > f.switch_at(0).lid());
  CHECK(f.switch_at(0).forwarding().lookup(h2->lid(0)) != routing::kNoPath);
  const link::Port& p = h2->port(0);
  CHECK(p.state() == link::PortState::Active);
  CHECK(p.sl2vl() == config::sl2vl_table(s.spec, n2, 0, 1));
  CHECK(p.vlarb().high_limit == 4);
}

TEST_CASE("resweep: with every trap lost, the periodic light sweep finds the failed link by SwitchInfo.PortStateChange", "[mgmt][resweep]") {
  // k = 2 fat tree; a spine link fails at 500 us and every SubnTrap() is
  // dropped where it enters the SM's HCA, so only a light sweep (every
  // 300 us after the SM last finished) can find the change.
  // Every Trap() (LID-routed SMP class 0x01, method 5) dropped as it reaches the SM's port, hca0.p1.
  Setup s = in_band(nlohmann::json::parse(R"({
    "topology": {"pattern": "fat_tree", "k": 2, "levels": 2},
    "management": {"subnet_timeout": 10, "sweep_interval": "300us"},
    "link_overrides": [{"port": "hca0.p1", "faults": {"drops": [{"mad_class": "0x01", "mad_method": 5, "every": true}]}}]
  })"));
  config::FabricSpec& spec = s.spec;
  REQUIRE(spec.nodes[spec.management.sm_node].name == "hca0");
  const std::size_t dead = switch_link_away_from_sm(spec);
  REQUIRE(dead < spec.links.size());
  const config::LinkSpec dl = spec.links[dead];
  const uint64_t down = 500'000'000, interval = 300'000'000;
  link::LinkEventConfig e;
  e.link = port_name(spec, dl.node_a, dl.port_a);
  e.down_ps = down;
  spec.link_events.push_back(e);
  ib::PacketPool pool;
  fabric::Fabric f(spec, pool);
  link::Alarm keep_going([] {});  // light sweeps do not keep a run going
  keep_going.notify_at(2'000'000'000);
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  REQUIRE(sm.stats().done_ps < down);
  CHECK(sm.traps() == 0);
  REQUIRE(sm.resweeps().size() == 1);
  const mgmt::ResweepRecord& r = sm.resweeps().front();
  CHECK(r.trigger == mgmt::SweepTrigger::Periodic);
  // The first light sweep that starts after the failure finds it: light
  // sweeps start `interval` after the SM last finished, so within one
  // interval plus one light sweep (4 switches, one SwitchInfo each).
  CHECK(r.requested_ps > down);
  CHECK(r.requested_ps <= down + interval + 50'000'000);
  CHECK(sm.stats().light_changes == 1);
  CHECK(sm.stats().light_sweeps >= 2);
  // 4 switches: 4 SwitchInfo Gets per light sweep, no SMs to ask.
  CHECK(sm.stats().light_sweep_smps == 4 * sm.stats().light_sweeps);
  // Tables as offline routing gives them without the link, and every PortStateChange cleared.
  const auto lfts = offline_lfts(s.scenario, spec, dead);
  unsigned sw_index = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    if (spec.nodes[n].kind != topology::NodeKind::Switch) continue;
    const sw::Switch& sw = f.switch_at(sw_index++);
    INFO("switch " << spec.nodes[n].name);
    CHECK(lft_of(sw, lfts[n].size()) == lfts[n]);
    CHECK_FALSE(f.mad_node(n)->sma().port_state_change());
  }
}

namespace {

// The k=4 tree in band with free AR and one link going down at 5 ms (the
// first sweep long done) and up at 12 ms, run to 10 ms; the fabric holds what
// the SM wrote.
struct ArResweep {
  Setup s;
  std::size_t dead = 0;
  uint64_t first_blocks = 0;  // AR blocks the first sweep wrote
  ib::PacketPool pool;
  std::unique_ptr<fabric::Fabric> f;
};

void run_ar_resweep(ArResweep& r, bool switch_link) {
  r.s = in_band({{"topology", {{"pattern", "fat_tree"}, {"k", 4}, {"levels", 2}}},
                 {"routing", {{"algorithm", "minhop"}, {"adaptive", {{"mode", "free"}}}}},
                 {"management", {{"subnet_timeout", 10}}}});
  config::FabricSpec& spec = r.s.spec;
  r.dead = spec.links.size();
  if (switch_link) {
    r.dead = switch_link_away_from_sm(spec);
  } else {  // the last HCA's link
    for (std::size_t i = 0; i < spec.links.size(); ++i)
      if (spec.nodes[spec.links[i].node_a].kind == topology::NodeKind::Hca ||
          spec.nodes[spec.links[i].node_b].kind == topology::NodeKind::Hca)
        r.dead = i;
  }
  REQUIRE(r.dead < spec.links.size());
  const config::LinkSpec& dl = spec.links[r.dead];
  const bool a_is_switch = spec.nodes[dl.node_a].kind == topology::NodeKind::Switch;
  link::LinkEventConfig e;
  e.link = a_is_switch ? port_name(spec, dl.node_a, dl.port_a) : port_name(spec, dl.node_b, dl.port_b);
  e.down_ps = 5'000'000'000;
  e.up_ps = 12'000'000'000;  // after the checks at 10 ms
  spec.link_events.push_back(e);
  r.f = std::make_unique<fabric::Fabric>(spec, r.pool);
  sc_core::sc_start(sc_core::sc_time::from_value(e.down_ps));
  const mgmt::SubnetManager& sm = *r.f->subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().ar_refusals == 0);
  r.first_blocks = sm.stats().ar_blocks;
  REQUIRE(r.first_blocks > 0);
  sc_core::sc_start(sc_core::sc_time::from_value(e.down_ps));  // a duration: to 10 ms
  REQUIRE(!sm.resweeps().empty());
  REQUIRE(sm.resweeps().back().done_ps != 0);
}

}  // namespace

TEST_CASE("resweep: with adaptive routing the SM rewrites only the AR blocks of the LID that left", "[mgmt][resweep]") {
  ArResweep r;
  run_ar_resweep(r, false);
  const config::FabricSpec& spec = r.s.spec;
  const mgmt::SubnetManager& sm = *r.f->subnet_manager();
  INFO(sm.ar_loop());
  CHECK(sm.stats().ar_refusals == 0);
  // The HCA's LID loses its group at every switch but its own leaf (where the
  // LFT routed it already): one LID block each, the groups and ArInfo unchanged.
  unsigned switches = 0;
  for (const config::NodeSpec& n : spec.nodes) switches += n.kind == topology::NodeKind::Switch;
  CHECK(sm.stats().ar_blocks - r.first_blocks == switches - 1);
  // Every switch's groups are those of the topology without the link (LIDs kept).
  const routing::Lids lids = routing::assign_lids(r.s.scenario.graph, r.s.scenario.routing.lmc,
                                                  {spec.management.sm_node, spec.management.sm_port});
  topology::Topology cut = r.s.scenario.graph;
  cut.links.erase(cut.links.begin() + static_cast<std::ptrdiff_t>(r.dead));
  const std::vector<sw::ArGroupTable> want = routing::adaptive_groups(cut, topology::TopologyIndex(cut), lids);
  unsigned sw_index = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    if (spec.nodes[n].kind != topology::NodeKind::Switch) continue;
    const sw::AdaptiveRouter& ar = *r.f->switch_at(sw_index++).adaptive();
    INFO("switch " << spec.nodes[n].name);
    CHECK(ar.config().mode == sw::ArMode::Free);
    for (uint16_t lid = 1; lid < spec.nodes[n].lft.size(); ++lid) {
      INFO("LID " << lid);
      const std::vector<uint8_t> none;
      const uint16_t g = ar.group(lid, 0);
      CHECK((g == 0 ? none : ar.groups().ports[g]) == (want[n].group(lid) == 0 ? none : want[n].ports[want[n].group(lid)]));
    }
  }
}

TEST_CASE("resweep: a spine link down makes the AR groups close a credit loop and the SM turns AR off",
          "[mgmt][resweep]") {
  // Without the link, its spine reaches its leaf's hosts through another leaf
  // and back up (a minimum-hop bounce); with minhop's switch-to-switch paths
  // (down to a leaf, up to a spine) that closes a cycle of channels on one VL.
  ArResweep r;
  run_ar_resweep(r, true);
  const mgmt::SubnetManager& sm = *r.f->subnet_manager();
  CHECK(sm.stats().ar_refusals >= 1);
  REQUIRE(!sm.ar_loop().empty());
  CHECK(sm.ar_loop().find(" -> ") != std::string::npos);
  for (unsigned i = 0; i < r.f->switch_count(); ++i) {
    const sw::AdaptiveRouter& ar = *r.f->switch_at(i).adaptive();
    CHECK(ar.config().mode == sw::ArMode::Off);
    for (uint16_t lid = 1; lid < 64; ++lid) CHECK(ar.groups().group(lid) == 0);
  }
  // The link comes back at 12 ms: the re-sweep finds no loop and programs AR again.
  sc_core::sc_start(sc_core::sc_time::from_value(10'000'000'000));  // to 20 ms
  CHECK(sm.ar_loop().empty());
  for (unsigned i = 0; i < r.f->switch_count(); ++i) {
    const sw::AdaptiveRouter& ar = *r.f->switch_at(i).adaptive();
    CHECK(ar.config().mode == sw::ArMode::Free);
    CHECK(ar.groups().ports.size() > 1);
  }
}
