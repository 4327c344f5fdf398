// Two switches in a row: host 0 - sw0 - sw1 - host 1. Switch-to-switch links
// carry credits both ways with the switches' latency on each receiver, and
// the cut-through and store-and-forward sums add up hop by hop.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>

#include "models/hca/hca.hpp"
#include "models/switch/switch.hpp"
#include "testbench/checkers/link_checker.hpp"
#include "testbench/tests/switch/star_fixture.hpp"
#include "testbench/workloads/flow_recorder.hpp"
#include "testbench/workloads/raw_generator.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr double kHdr4x = 4 * 53.125e9 * (256.0 / 257.0) * (514.0 / 544.0);
constexpr double kProp = 2.0 * 5000;
constexpr uint64_t kLatency = 100000;

double ser(uint32_t bytes) { return (bytes + 2) * 8.0 * 1e12 / kHdr4x; }
double head() { return 8 * 8.0 * 1e12 / kHdr4x; }

struct Chain {
  ib::PacketPool pool;
  std::vector<workloads::FlowSpec> specs;
  std::vector<workloads::FlowResult> results;
  workloads::FlowRecorder recorder{results, pool};
  hca::Hca h0{"h0", {link::PortConfig{}}, {1}, pool};
  hca::Hca h1{"h1", {link::PortConfig{}}, {2}, pool};
  std::unique_ptr<sw::Switch> s0, s1;
  std::unique_ptr<workloads::RawGenerator> gen;
  checkers::LinkChecker checker;
  std::vector<link::Port*> ports;

  Chain(sw::Forwarding mode, workloads::FlowSpec f) {
    sw::SwitchConfig c;
    c.forwarding = mode;
    c.latency_ps = kLatency;
    s0 = std::make_unique<sw::Switch>("s0", c, std::vector<link::PortConfig>(2), 3, pool);
    s1 = std::make_unique<sw::Switch>("s1", c, std::vector<link::PortConfig>(2), 4, pool);
    link::Port::connect(h0.port(0), s0->port(1), link::LinkConfig{});
    link::Port::connect(s0->port(2), s1->port(1), link::LinkConfig{});
    link::Port::connect(s1->port(2), h1.port(0), link::LinkConfig{});
    s0->set_lft({sw::kNoRoute, 1, 2});
    s1->set_lft({sw::kNoRoute, 1, 2});
    h0.set_sink(&recorder);
    h1.set_sink(&recorder);
    ports = {&h0.port(0), &s0->port(1), &s0->port(2), &s1->port(1), &s1->port(2), &h1.port(0)};
    for (unsigned i = 0; i < ports.size(); ++i) {
      ports[i]->set_id(i);
      checker.watch(*ports[i]);
    }
    f.slid = 1;
    f.dlid = 2;
    f.dest_qp = 0x100;
    specs.push_back(f);
    results.emplace_back();
    gen = std::make_unique<workloads::RawGenerator>("gen", h0, 0, specs, std::vector<unsigned>{0}, results, pool);
  }
  void run(uint64_t duration_ps = 0) {
    if (duration_ps) sc_core::sc_start(sc_core::sc_time::from_value(duration_ps));
    else sc_core::sc_start();
    for (link::Port* p : ports) p->finish();
    checker.finish(sc_core::sc_time_stamp().value());
  }
};

}  // namespace

TEST_CASE("two switches - cut-through: each switch adds its LRH time and latency, the packet is serialized once") {
  Chain c(sw::Forwarding::CutThrough, flow(0, 1, 0, 1024, 1, 1'000'000));
  c.run();
  REQUIRE(c.checker.ok());
  REQUIRE(c.results[0].delivered == 1);
  const double expected = 3 * kProp + 2 * (head() + kLatency) + ser(ud_bytes(1024));
  REQUIRE(static_cast<double>(c.results[0].latency_ps.min()) == Approx(expected).margin(4));
}

TEST_CASE("two switches - store-and-forward: three serializations and two latencies") {
  Chain c(sw::Forwarding::StoreAndForward, flow(0, 1, 0, 1024, 1, 1'000'000));
  c.run();
  REQUIRE(c.checker.ok());
  const double expected = 3 * kProp + 2 * kLatency + 3 * ser(ud_bytes(1024));
  REQUIRE(static_cast<double>(c.results[0].latency_ps.min()) == Approx(expected).margin(4));
}

TEST_CASE("two switches - saturated: the link bound end to end and credits balance on every link") {
  Chain c(sw::Forwarding::CutThrough, flow(0, 1, 0, 4096, 20000));
  c.run();
  REQUIRE(c.checker.ok());
  const auto& r = c.results[0];
  REQUIRE(r.delivered == 20000);
  const double measured = 8.0 * 4096 * static_cast<double>(r.delivered - 1) * 1e12 /
                          static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
  // Bound as in incast_test.cpp: one flow-control packet per ceil(period / slot) packets.
  const double slot_ps = ser(ud_bytes(4096));
  const double packets_per_fc = std::ceil(4096000.0 / slot_ps);
  const double bound = kHdr4x * 4096 / (ud_bytes(4096) + 2 + 8.0 / packets_per_fc);
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << bound / 1e9);
  REQUIRE(measured <= bound * 1.0001);
  REQUIRE(measured >= bound * 0.99);
  REQUIRE(c.s0->stats().forwarded == 20000);
  REQUIRE(c.s1->stats().forwarded == 20000);
}
