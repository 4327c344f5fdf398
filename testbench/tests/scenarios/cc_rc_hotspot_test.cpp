// Congestion control of RC QPs (issue 35) in the hot spot of
// configs/cc_rc_hotspot.json: three ib_write_bw clients on three leaves of a
// 4-ary 2-tree write 64 KiB messages to one server, hca0, whose link they
// share (ACK coalescing on: an ACK per message). Bounds:
// - the hot link carries at most B = R x MTU / (MTU + LRH 8 + BTH 12 + ICRC 4
//   + VCRC 2 + framing) of payload, so the three tests together take at least
//   their bytes / B;
// - every write lands byte for byte (the perftest data check) with control
//   on or off;
// - control on: the switches mark FECN on the requests that queue for the hot
//   link; hca0 answers each in the ACK that covers it (A10.2.2: BECN in the
//   ACK; several marked requests may share an ACK, never a CNP for an RC
//   request), the fabric is lossless so every BECN sent is received, and
//   each BECN raised a client QP's CCTI, which then delayed its requests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr unsigned kClients[] = {4, 8, 12};

// The payload rate the hot link can carry (file comment).
double hot_link_bound(const config::Scenario& s) {
  const double mtu = s.port.mtu;
  return link::data_rate_bps(s.link.speed, s.link.width) * mtu / (mtu + 8 + 12 + 4 + 2 + s.link.framing_bytes);
}

// Checks what holds with control on or off; returns the aggregate payload rate.
double check_delivery(const ScenarioRun& run) {
  const Simulation& sim = *run.sim;
  REQUIRE(sim.workload_failures().empty());  // every completion a success, every byte as written
  REQUIRE(sim.checker().ok());
  REQUIRE(sim.perftests().size() == 3);
  uint64_t first = UINT64_MAX, last = 0;
  double bytes = 0;
  for (const auto& t : sim.perftests()) {
    const workloads::PerftestSizeResult& r = t->result().sizes.at(0);
    REQUIRE(r.done);
    REQUIRE(r.messages == r.iterations);
    first = std::min(first, r.start_ps);
    last = std::max(last, r.end_ps);
    bytes += static_cast<double>(r.messages * r.bytes);
  }
  uint64_t drops = 0;
  for (const link::Port* p : sim.fabric().ports())
    for (const link::VlStats& v : p->stats().vl) drops += total_drops(v);
  CHECK(drops == 0);
  const double bps = bytes * 8 * 1e12 / static_cast<double>(last - first);
  const double b = hot_link_bound(run.scenario);
  INFO("aggregate " << bps / 1e9 << " Gb/s, hot link bound " << b / 1e9 << " Gb/s");
  CHECK(bps <= b);
  return bps;
}

// Control on: what the file comment says of FECN, BECN and the CCTIs.
void check_control_on(const ScenarioRun& run) {
  const double bps = check_delivery(run);
  const fabric::Fabric& f = run.sim->fabric();
  const hca::CaCongestionControl* hot = f.hca(0).congestion(0);
  REQUIRE(hot != nullptr);
  const hca::CaCcStats& s = hot->stats();
  INFO("hca0: fecn " << s.fecn_received << ", becns sent " << s.becns_sent << "; aggregate " << bps / 1e9
                     << " Gb/s");
  CHECK(s.fecn_received > 0);
  CHECK(s.becns_sent > 0);
  CHECK(s.becns_sent <= s.fecn_received);  // one per covering ACK
  CHECK(s.cnps_sent == 0);                 // RC requests are answered in their ACKs
  uint64_t heard = 0, raised = 0, delayed = 0;
  for (unsigned i = 0; i < 3; ++i) {  // the perftests in config order: hca4's, hca8's, hca12's
    const hca::CaCongestionControl* cc = f.hca(kClients[i]).congestion(0);
    REQUIRE(cc != nullptr);
    heard += cc->stats().becns_received;
    for (const auto& qps : run.sim->perftests()[i]->result().qpns) {
      const hca::CctiState* st = cc->state(cc->key_of(qps.first, 0));
      REQUIRE(st != nullptr);
      raised += st->ccti_max >= 1;
      delayed += st->delay_sum_ps > 0;
    }
  }
  CHECK(heard == s.becns_sent);  // lossless: every ACK arrives
  CHECK(raised > 0);
  CHECK(delayed > 0);  // and then delayed requests
}

}  // namespace

TEST_CASE("CC RC hot spot with control off: writes land - no congestion control anywhere", "[scenario][cc]") {
  const ScenarioRun run = run_config("cc_rc_hotspot.json");
  check_delivery(run);
  const fabric::Fabric& f = run.sim->fabric();
  for (unsigned h = 0; h < f.hca_count(); ++h) CHECK(f.hca(h).congestion(0) == nullptr);
}

TEST_CASE("CC RC hot spot with control on: BECNs in coalesced ACKs raise the writers' CCTIs - writes land",
          "[scenario][cc]") {
  check_control_on(run_config("cc_rc_hotspot.json", {"congestion_control.enabled=true"}));
}

TEST_CASE("CC RC hot spot with control on and an ACK per request: BECNs raise the CCTIs - writes land",
          "[scenario][cc]") {
  check_control_on(
      run_config("cc_rc_hotspot.json", {"congestion_control.enabled=true", "transport.ack_coalescing=false"}));
}
