// Link events back to back: a saturated link taken down at 20 us and
// reconnected at 40 us with 10 us of training. Every packet the flow made is
// delivered or dropped as link_down (nothing else is lost), the link checker
// counts every link_down drop as an announced loss and finds no violation,
// packets in flight and queued at the moment of failure are among them, and
// after training both ports are LinkUp in Init (not Active: no SM arms them)
// with their credits re-initialized whole.
#include <catch2/catch.hpp>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

uint64_t link_down_drops(const link::Port& p) {
  uint64_t n = 0;
  for (const link::VlStats& v : p.stats().vl) n += v.drops[static_cast<std::size_t>(link::DropReason::LinkDown)];
  return n;
}

}  // namespace

TEST_CASE("link events: a link fails under load, its losses are announced, and it trains back to Init") {
  config::FabricSpec spec = config::back_to_back({}, {}, {});
  link::LinkEventConfig e;
  e.link = "hca0.p1";
  e.down_ps = 20'000'000;
  e.up_ps = 40'000'000;
  e.training_ps = 10'000'000;
  spec.link_events.push_back(e);
  const uint64_t made = 200;  // 4 KiB packets: more than the link carries in 20 us
  RunOptions o;
  o.duration_ps = 100'000'000;  // past the training
  auto sim = std::make_unique<Simulation>(spec, std::vector<workloads::FlowSpec>{flow(0, 4096, made)}, o);
  sim->run();
  const checkers::LinkChecker& c = sim->checker();
  INFO((c.ok() ? std::string() : c.messages()[0]));
  REQUIRE(c.ok());
  const link::Port& tx = *sim->fabric().find_port("hca0.p1");
  const link::Port& rx = *sim->fabric().find_port("hca1.p1");
  const workloads::FlowResult& r = sim->flow_results().at(0);
  REQUIRE(r.created == made);
  REQUIRE(r.delivered > 0);
  REQUIRE(r.delivered < made);
  // Nothing lost but to the link event, and all of that announced.
  const uint64_t lost = drops_of(*sim, link::DropReason::LinkDown);
  CHECK(r.delivered + lost == made);
  CHECK(c.link_down_losses() == lost);
  CHECK(c.announced_losses() == lost);
  CHECK(drops_of(*sim, link::DropReason::BufferOverflow) == 0);
  // The packet on the wire toward hca1 at 20 us was dropped there; hca0 dropped
  // its queued ones and the rest at submission.
  CHECK(link_down_drops(rx) >= 1);
  CHECK(link_down_drops(tx) >= 1);
  CHECK(r.dropped_at_source + r.sent == made);
  // After training: LinkUp, Init, and credits exchanged afresh.
  CHECK(sim->fabric().link_events()->downs() == 1);
  CHECK(sim->fabric().link_events()->ups() == 1);
  for (const link::Port* p : {&tx, &rx}) {
    CHECK(p->link_trained());
    CHECK(p->state() == link::PortState::Init);
  }
  check_credits_whole(*sim);
}

TEST_CASE("link events: a link taken down for good stays Down and drops what is submitted") {
  config::FabricSpec spec = config::back_to_back({}, {}, {});
  link::LinkEventConfig e;
  e.link = "hca1.p1";  // either end names the link
  e.down_ps = 5'000'000;
  spec.link_events.push_back(e);
  auto sim = std::make_unique<Simulation>(spec, std::vector<workloads::FlowSpec>{flow(0, 1024, 400)}, RunOptions{});
  sim->run();
  REQUIRE(sim->checker().ok());
  const link::Port& tx = *sim->fabric().find_port("hca0.p1");
  CHECK(tx.state() == link::PortState::Down);
  CHECK(!tx.link_trained());
  const workloads::FlowResult& r = sim->flow_results().at(0);
  CHECK(r.delivered + drops_of(*sim, link::DropReason::LinkDown) == 400);
  CHECK(sim->fabric().link_events()->ups() == 0);
}

TEST_CASE("link events in band: an RC perftest across a failing spine link recovers by retry, every byte correct") {
  // k = 2 fat tree, SM in band; ib_write_bw from hca0 to hca2 (other leaf).
  // The uplink its packets take is cut at 1 ms and reconnected at 3 ms.
  // Transport: retry_cnt 7, Local ACK timeout 6 (Ttr = 4.096 us x 2^6 =
  // 262 us; seeds/002: the timer fires within Ttr..4 Ttr), so the first
  // retry comes after the re-sweep (tens of us: resweep_test bounds it) has
  // reprogrammed the LFTs, and seven retries leave room for more.
  nlohmann::json j = nlohmann::json::parse(R"({
    "name": "rc_across_failure",
    "topology": {"pattern": "fat_tree", "k": 2, "levels": 2},
    "link": {"speed": "HDR", "width": "4x"},
    "management": {"mode": "in_band", "subnet_timeout": 10},
    "workload": {"perftest": [{"test": "write_bw", "client": "hca0.p1", "server": "hca2.p1",
                               "sizes": ["64KiB"], "iterations": 3000, "timeout": 6, "retry_cnt": 7}]}
  })");
  // The uplink of hca0's leaf that the pre-configured tables send hca2's LID through.
  const config::FabricSpec pre = config::fabric_spec(config::load_scenario(j));
  unsigned client = 0, server = 0;
  for (unsigned n = 0; n < pre.nodes.size(); ++n) {
    if (pre.nodes[n].name == "hca0") client = n;
    if (pre.nodes[n].name == "hca2") server = n;
  }
  unsigned leaf = 0;
  for (const config::LinkSpec& l : pre.links)
    if (l.node_a == client || l.node_b == client) leaf = l.node_a == client ? l.node_b : l.node_a;
  const unsigned up_port = pre.nodes[leaf].lft.at(pre.nodes[server].lids[0]);
  j["link_events"] = {{{"link", pre.nodes[leaf].name + ".p" + std::to_string(up_port)}, {"down", "1ms"}, {"up", "3ms"}}};
  ScenarioRun run = run_scenario(config::load_scenario(j));
  const Simulation& sim = *run.sim;
  const checkers::LinkChecker& c = sim.checker();
  INFO((c.ok() ? std::string() : c.messages()[0]));
  REQUIRE(c.ok());
  CHECK(c.link_down_losses() >= 1);  // packets were lost to the failure, all announced
  CHECK(c.announced_losses() == c.link_down_losses());
  const mgmt::SubnetManager& sm = *sim.fabric().subnet_manager();
  CHECK(sm.traps() >= 2);  // down and up
  CHECK(sm.resweeps().size() >= 2);
  REQUIRE(sim.workload_failures().empty());
  const workloads::PerftestResult& r = sim.perftests().at(0)->result();
  REQUIRE(r.failures.empty());
  for (const workloads::PerftestSizeResult& z : r.sizes) CHECK(z.done);
  const uint64_t down = 1'000'000'000;
  CHECK(sm.resweeps().front().requested_ps >= down);
}
