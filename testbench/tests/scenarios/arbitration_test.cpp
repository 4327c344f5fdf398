// VL arbitration end to end on a link: byte shares from the weights, absent
// VLs, LimitOfHighPriority, and VL15 priority (seed 004; iba-facts 3).
#include <catch2/catch.hpp>

#include <cmath>

#include "testbench/tests/scenarios/b2b_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

link::PortConfig two_vl_port(std::vector<link::VlArbEntry> high, std::vector<link::VlArbEntry> low, uint32_t limit) {
  link::PortConfig pc;
  pc.data_vls = 4;
  pc.vlarb.high = std::move(high);
  pc.vlarb.low = std::move(low);
  pc.vlarb.high_limit = limit;
  return pc;
}

double byte_share(const Simulation& sim, unsigned vl, std::initializer_list<unsigned> vls) {
  const auto& s = sim.fabric().ports()[0]->stats();
  double total = 0;
  for (unsigned v : vls) total += static_cast<double>(s.vl[v].tx_bytes);
  return static_cast<double>(s.vl[vl].tx_bytes) / total;
}

uint64_t packets(const Simulation& sim, unsigned vl) { return sim.fabric().ports()[0]->stats().vl[vl].tx_packets; }

}  // namespace

// Two saturated low-priority VLs with the given table; byte shares of VL0 and
// VL1 within 1% (relative) of the expected values over at least 10,000 packets.
void check_shares(std::vector<link::VlArbEntry> low, uint32_t payload, uint64_t duration_ps, double share0,
                  link::WeightPolicy policy = link::WeightPolicy::Overshoot) {
  auto pc = two_vl_port({}, std::move(low), 0);
  pc.vlarb.policy = policy;
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, payload, 0), flow(1, payload, 0)}, duration_ps);
  REQUIRE(packets(*sim, 0) + packets(*sim, 1) >= 10000);
  CHECK(byte_share(*sim, 0, {0, 1}) == Approx(share0).epsilon(0.01));
  CHECK(byte_share(*sim, 1, {0, 1}) == Approx(1.0 - share0).epsilon(0.01));
  REQUIRE(sim->checker().ok());
}

TEST_CASE("weights 1:3 with one-block packets: byte shares 25% / 75% over 10 000+ packets") {
  // 28-byte payload: 62 bytes on the wire = one 64-byte block per packet.
  REQUIRE(ud_wire_bytes(28) == 62);
  check_shares({{0, 1}, {1, 3}}, 28, 200'000'000, 0.25);
}

TEST_CASE("weights 64:192 with 4 KiB packets: byte shares 25% / 75% over 10 000+ packets") {
  check_shares({{0, 64}, {1, 192}}, 4096, 2'000'000'000, 0.25);
}

TEST_CASE("weights 1:3 with 4 KiB packets: the overshoot policy alternates packets") {
  // Each turn sends one 65-block packet, which overshoots either weight.
  check_shares({{0, 1}, {1, 3}}, 4096, 2'000'000'000, 0.5);
}

TEST_CASE("weights 16:48 with 4 KiB packets: the deficit policy keeps 25% / 75%") {
  check_shares({{0, 16}, {1, 48}}, 4096, 2'000'000'000, 0.25, link::WeightPolicy::Deficit);
}

TEST_CASE("a VL absent from both tables gets nothing") {
  auto pc = two_vl_port({}, {{0, 64}, {1, 64}}, 0);
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 4096, 0), flow(1, 4096, 0), flow(2, 4096, 0)},
                     500'000'000);
  REQUIRE(packets(*sim, 2) == 0);
  REQUIRE(packets(*sim, 0) > 1000);
  CHECK(byte_share(*sim, 0, {0, 1}) == Approx(0.5).margin(0.01));
}

TEST_CASE("high limit 255: a saturated high-priority VL starves the low VL") {
  auto pc = two_vl_port({{0, 255}}, {{1, 255}}, 255);
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 4096, 0), flow(1, 4096, 0)}, 500'000'000);
  REQUIRE(packets(*sim, 0) > 1000);
  REQUIRE(packets(*sim, 1) == 0);
}

// Limit L = L x 4 KiB = 64 L blocks of high priority before low gets a packet;
// a 4 KiB packet is 65 blocks, so ceil(64 L / 65) high packets per low packet
// (one for L = 0).
void check_high_limit(uint32_t limit) {
  auto pc = two_vl_port({{0, 255}}, {{1, 255}}, limit);
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 4096, 0), flow(1, 4096, 0)}, 1'000'000'000);
  const double high_per_low = limit == 0 ? 1.0 : std::ceil(64.0 * limit / 65.0);
  REQUIRE(packets(*sim, 1) > 500);
  CHECK(byte_share(*sim, 1, {0, 1}) == Approx(1.0 / (1.0 + high_per_low)).margin(0.01));
}

TEST_CASE("high limit 0 lets one low packet through after each high packet") { check_high_limit(0); }
TEST_CASE("high limit 1 (4 KiB) lets one low packet through per high packet") { check_high_limit(1); }
TEST_CASE("high limit 4 (16 KiB) lets one low packet through per 4 high packets") { check_high_limit(4); }
TEST_CASE("high limit 10 (40 KiB) lets one low packet through per 10 high packets") { check_high_limit(10); }

TEST_CASE("VL15 goes next at a packet boundary - ahead of saturated data") {
  link::PortConfig pc;
  link::LinkConfig lc;
  auto mgmt = flow(0, 256, 50);
  mgmt.vl15 = true;
  mgmt.rate_bps = 100e6;  // one 290-byte packet every 23.2 us
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, 0), mgmt}, 2'000'000'000);
  const auto& r = sim->flow_results()[1];
  REQUIRE(r.delivered == 50);
  const link::LinkTiming t(lc);
  // Worst case: the packet waits for the data packet on the wire to finish.
  const uint64_t bound = t.serialization_ps(ud_wire_bytes(4096)) + t.serialization_ps(ud_wire_bytes(256)) +
                         t.propagation_ps();
  INFO("max VL15 latency " << r.latency_ps.max() << " ps, bound " << bound << " ps");
  REQUIRE(r.latency_ps.max() <= bound);
  REQUIRE(r.latency_ps.min() >= t.serialization_ps(ud_wire_bytes(256)) + t.propagation_ps());
  REQUIRE(sim->flow_results()[0].delivered > 10000);
}
