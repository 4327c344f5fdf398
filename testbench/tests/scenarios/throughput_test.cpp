// Saturated link throughput against the analytic bound: link data rate (lanes
// x signalling x line code), packet bytes (headers, CRCs, pad), framing bytes
// and the flow-control packets' share of the same direction.
#include <catch2/catch.hpp>

#include <cmath>

#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

void check_saturated(link::Speed speed, link::Width width, uint64_t count) {
  link::PortConfig pc;
  pc.mtu = 4096;
  link::LinkConfig lc;
  lc.speed = speed;
  lc.width = width;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, count)});
  const auto& r = sim->flow_results()[0];
  REQUIRE(r.delivered == count);
  REQUIRE(sim->checker().ok());
  // Steady state: from the first delivery to the last, count - 1 packets arrived.
  const double measured = 8.0 * 4096.0 * static_cast<double>(count - 1) * 1e12 /
                          static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
  const Bound b = analytic_bound(lc, 4096);
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << b.data_bps / 1e9 << " Gb/s");
  // The issue asks for 0.5%; the model lands within 0.1%.
  REQUIRE(std::abs(measured - b.data_bps) / b.data_bps < 0.001);
  // The flow-control share itself: packets on the data direction.
  const double fc_sent = static_cast<double>(sim->fabric().ports()[0]->stats().fc_tx());
  INFO("flow-control packets " << fc_sent << ", expected about " << b.fc_per_packet * count);
  REQUIRE(std::abs(fc_sent - b.fc_per_packet * count) <= 0.02 * b.fc_per_packet * count + 10);
}

}  // namespace

TEST_CASE("HDR 4x - MTU 4096 - one saturated VL: data throughput within 0.1% of the analytic bound") {
  check_saturated(link::Speed::Hdr, link::Width::X4, 50000);
}

TEST_CASE("SDR 1x - MTU 4096 - one saturated VL: data throughput within 0.1% of the analytic bound") {
  check_saturated(link::Speed::Sdr, link::Width::X1, 2000);
}

TEST_CASE("EDR 4x follows the same bound") { check_saturated(link::Speed::Edr, link::Width::X4, 20000); }

TEST_CASE("NDR 4x follows the same bound") { check_saturated(link::Speed::Ndr, link::Width::X4, 20000); }

TEST_CASE("both directions saturated: each keeps the bound - flow control rides along") {
  link::PortConfig pc;
  link::LinkConfig lc;
  const uint64_t n = 30000;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, n, 0, 1), flow(0, 4096, n, 1, 0)});
  const Bound b = analytic_bound(lc, 4096);
  for (const auto& r : sim->flow_results()) {
    REQUIRE(r.delivered == n);
    const double measured = 8.0 * 4096.0 * static_cast<double>(n - 1) * 1e12 /
                            static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
    // Each direction also carries the other's credit updates: at most one per
    // data packet it carries, and at least one per period.
    REQUIRE(measured <= b.data_bps * 1.0005);
    REQUIRE(measured >= b.data_bps * 0.995);
  }
  REQUIRE(sim->checker().ok());
}

TEST_CASE("a flow's throughput counts to the run's end while it is still sending, to its last delivery once it is done") {
  // b2b_hdr cut at 50 us: bulk_sl0 sends until the run ends; bulk_sl1 loses
  // every packet after its first on the wire (a starved flow); reverse sends
  // 20 packets and is done long before the end.
  ScenarioRun run = run_config("b2b_hdr.json", {"run.duration=50us", "workload.flows.0.count=0",
                                                "workload.flows.2.count=20", "outputs.pcap=false",
                                                "outputs.vcd=false",
                                                R"(link.faults.drops=[{"nth": 2, "count": 100000, "vl": 1}])"});
  const Simulation& sim = *run.sim;
  const uint64_t end = sim.sim_time_ps();
  REQUIRE(end == 50'000'000);
  const nlohmann::json flows = {sim.flow_json(0), sim.flow_json(1), sim.flow_json(2)};
  const auto bps = [](const nlohmann::json& f, uint64_t span_ps) {
    return 8.0 * f["bytes_delivered"].get<double>() * 1e12 / static_cast<double>(span_ps);
  };

  const nlohmann::json& bulk = flows[0];
  REQUIRE(bulk["throughput_bps"].get<double>() == Approx(bps(bulk, end)));

  const nlohmann::json& starved = flows[1];
  REQUIRE(starved["packets_delivered"] == 1);
  REQUIRE(starved["packets_sent"].get<uint64_t>() > 100);
  // One 4 KiB packet in 50 us, not one packet over the microsecond it took.
  REQUIRE(starved["throughput_bps"].get<double>() == Approx(bps(starved, end)));
  REQUIRE(starved["throughput_bps"].get<double>() < 1e9);

  const nlohmann::json& done = flows[2];
  const workloads::FlowResult& r = sim.flow_results()[2];
  REQUIRE(done["packets_delivered"] == 20);
  REQUIRE(r.last_delivery_ps < end / 2);
  REQUIRE(done["throughput_bps"].get<double>() == Approx(bps(done, r.last_delivery_ps - sim.flows()[2].start_ps)));

  // hca0.p1's transmitter never idles; the packet on the wire at the end counts
  // only up to the end, so its utilization is 1 at most.
  const link::Port& sender = *sim.fabric().ports()[0];
  REQUIRE(std::string(sender.name()) == "hca0.p1");
  const double utilization = sim.port_json(sender)["utilization"].get<double>();
  REQUIRE(utilization <= 1.0);
  REQUIRE(utilization > 0.99);
}
