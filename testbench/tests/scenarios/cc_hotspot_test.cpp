// The classic hot spot of congestion control (issue 35, item 2) on a 4-ary
// 2-tree (configs/cc_hotspot.json): three contributors on three leaves send to
// hca0, and each also sends a victim flow to a host of its own on another
// leaf, sharing the contributor's links but not the hot spot. Analytic rates,
// with B the payload bound of one HDR link (analytic_bound): the hot link
// gives each contributor B/3; each victim's fair rate is what its source link
// has left, 2B/3.
// - Control off: the victim's packets wait behind the hot flow's in the same
//   VL's buffers (head-of-line blocking) and the source alternates the two
//   flows, so a victim gets the hot flow's rate, B/3: half its fair rate.
// - Control on (the scenario's settings, crossbar speedup 1): once the CCTIs have settled (the
//   measured window starts at 500 us), each victim gets at least 90% of its
//   fair rate, the hot link carries at least 95% of B, and nothing is dropped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

struct Rates {
  double hot_bps = 0;                // the hot flows together
  std::vector<double> victim_bps;    // each victim
  uint64_t drops = 0;
};

Rates measure(const ScenarioRun& run) {
  const Simulation& sim = *run.sim;
  const double window_s = static_cast<double>(run.scenario.run.measure.measure_ps) * 1e-12;
  Rates r;
  for (std::size_t i = 0; i < sim.flows().size(); ++i) {
    const double bps = 8.0 * static_cast<double>(sim.flow_results()[i].accepted_payload) / window_s;
    if (sim.flows()[i].name.rfind("hot", 0) == 0) r.hot_bps += bps;
    else r.victim_bps.push_back(bps);
  }
  for (const link::Port* p : sim.fabric().ports())
    for (const link::VlStats& v : p->stats().vl) r.drops += total_drops(v);
  return r;
}

}  // namespace

TEST_CASE("CC hot spot with control off: victims get half their fair rate (head-of-line blocking)", "[scenario][cc]") {
  const ScenarioRun run = run_config("cc_hotspot.json");
  const Rates r = measure(run);
  const double b = analytic_bound(run.scenario.link, 4096).data_bps;
  REQUIRE(r.victim_bps.size() == 3);
  REQUIRE(r.drops == 0);
  CHECK(r.hot_bps >= 0.95 * b);
  for (double v : r.victim_bps) {
    INFO("victim " << v / 1e9 << " Gb/s, fair " << 2 * b / 3 / 1e9 << " Gb/s");
    CHECK(v < 0.6 * (2 * b / 3));
    CHECK(v > 0.45 * (2 * b / 3));
  }
  CHECK(run.sim->fabric().hca(0).congestion(0) == nullptr);  // nothing installed
}

TEST_CASE("CC hot spot with control on: victims >= 90% of fair - hot link >= 95% busy - no drops", "[scenario][cc]") {
  const ScenarioRun run = run_config("cc_hotspot.json", {"congestion_control.enabled=true"});
  const Rates r = measure(run);
  const double b = analytic_bound(run.scenario.link, 4096).data_bps;
  REQUIRE(r.victim_bps.size() == 3);
  REQUIRE(r.drops == 0);
  INFO("hot link " << r.hot_bps / b << " of B");
  CHECK(r.hot_bps >= 0.95 * b);
  for (double v : r.victim_bps) {
    INFO("victim " << v / (2 * b / 3) << " of its fair rate");
    CHECK(v >= 0.9 * (2 * b / 3));
  }
  // The hot HCA answered every FECN with a CNP, and the contributors heard them.
  const fabric::Fabric& f = run.sim->fabric();
  const hca::CaCongestionControl* hot = f.hca(0).congestion(0);
  REQUIRE(hot != nullptr);
  CHECK(hot->stats().fecn_received > 0);
  CHECK(hot->stats().cnps_sent == hot->stats().fecn_received);
  // Every CNP heard was sent (a victim's destination may send some while the
  // congestion tree builds); the hot host's CNPs go to the contributors only.
  uint64_t heard = 0, sent = 0;
  for (unsigned h : {4u, 8u, 12u}) heard += f.hca(h).congestion(0)->stats().cnps_received;
  for (unsigned h = 0; h < f.hca_count(); ++h) sent += f.hca(h).congestion(0)->stats().cnps_sent;
  CHECK(heard >= hot->stats().cnps_sent - 3);  // at most one in flight per contributor at the end
  CHECK(heard <= sent);
}

// Where the switches mark, at crossbar speedup 1: the congestion's root is the
// spine's output toward the hot leaf (it sends at line rate, with credit) and
// is congested most of the time; the leaves' uplinks that carry the hot flows
// toward it are congested too but wait for its credit (victims of
// congestion) and, without victim marking, never mark.
TEST_CASE("CC hot spot: the root port marks and is congested most of the run - the victim uplinks never mark", "[scenario][cc]") {
  const ScenarioRun run = run_config("cc_hotspot.json", {"congestion_control.enabled=true"});
  REQUIRE(run.scenario.switches.core.speedup == 1.0);
  const fabric::Fabric& f = run.sim->fabric();
  const uint64_t end = run.scenario.run.duration_ps;
  struct Seen {
    uint64_t marked = 0, congested_ps = 0;
  };
  std::vector<Seen> ports;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    const sw::CongestionMarker* m = f.switch_at(s).congestion();
    REQUIRE(m != nullptr);
    for (unsigned p = 1; p <= m->ports(); ++p) {
      const sw::CcVlStats st = m->stats(p, 0, end);
      ports.push_back({st.marked, st.congested_ps});
    }
  }
  std::sort(ports.begin(), ports.end(), [](const Seen& a, const Seen& b) { return a.marked > b.marked; });
  const Seen& root = ports.front();
  CHECK(root.marked > 0);
  CHECK(root.congested_ps > end / 2);
  unsigned victims = 0;
  for (std::size_t i = 1; i < ports.size(); ++i)
    if (ports[i].congested_ps > end / 20) {  // the uplinks toward the root
      ++victims;
      CHECK(ports[i].marked == 0);
    }
  CHECK(victims == 3);
}
