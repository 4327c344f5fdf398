// Link fault injection across a switch: every link loses 5% of its data
// packets (each direction on its own stream); the drops counted at the ports
// equal the packets sent minus delivered, the link checker accounts each as an
// announced loss, the credits end whole and the run ends.
#include <catch2/catch.hpp>

#include <cmath>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

TEST_CASE("switch faults: 5 percent loss on every link through a switch is counted and heals") {
  StarOptions o;
  o.hosts = 4;
  o.link.faults.drop_rate = 0.05;
  o.link.faults.seed = 17;
  Star star(o);
  const uint64_t n = 5000;
  std::vector<unsigned> flows;
  for (unsigned h = 0; h < o.hosts; ++h) {
    flows.push_back(star.add_flow(flow(h, (h + 1) % o.hosts, 0, 1024, n)));
    flows.push_back(star.add_flow(flow(h, (h + 2) % o.hosts, 1, 256, n)));
  }
  star.run();
  INFO((star.checker().ok() ? std::string() : star.checker().messages()[0]));
  REQUIRE(star.checker().ok());
  uint64_t sent = 0, delivered = 0;
  for (unsigned f : flows) {
    sent += star.result(f).sent;
    delivered += star.result(f).delivered;
  }
  REQUIRE(sent == 2 * o.hosts * n);
  uint64_t lost = 0;
  const std::size_t fault = static_cast<std::size_t>(link::DropReason::FaultDrop);
  std::vector<link::Port*> ports;
  for (unsigned h = 0; h < o.hosts; ++h) {
    ports.push_back(&star.host_port(h));
    ports.push_back(&star.sw().port(h + 1));
  }
  for (link::Port* p : ports) {
    REQUIRE(p->faults() != nullptr);
    for (const link::VlStats& v : p->stats().vl) lost += v.drops[fault];
    // Nothing else was dropped: the fabric is lossless but for the faults.
    for (const link::VlStats& v : p->stats().vl)
      for (std::size_t r = 0; r < link::kDropReasonCount; ++r)
        if (r != fault) CHECK(v.drops[r] == 0);
  }
  REQUIRE(lost == sent - delivered);
  REQUIRE(lost == star.checker().announced_losses());
  // Two links per packet, each losing 5%: 1 - 0.95^2 of the packets lost.
  const double p = 1 - 0.95 * 0.95;
  const double mean = p * static_cast<double>(sent);
  CHECK(std::abs(static_cast<double>(lost) - mean) <= 5 * std::sqrt(mean * (1 - p)));
  for (link::Port* port : ports)
    for (unsigned vl = 0; vl < port->vl_count(); ++vl) {
      INFO(port->name() << " VL" << vl);
      CHECK(port->credits_available(vl) ==
            std::min(port->peer()->rx_capacity_blocks(vl), link::kMaxAdvertisedBlocks));
    }
}

TEST_CASE("switch faults: a targeted drop on one link drops only that packet") {
  StarOptions o;
  o.hosts = 3;
  link::LinkConfig lossy;
  link::DropRule r;
  r.nth = 3;
  r.dlid = 3;  // toward host 2, on its own link (the switch's port 3 transmits them)
  lossy.faults.drops.push_back(r);
  o.links = {link::LinkConfig{}, link::LinkConfig{}, lossy};
  Star star(o);
  const unsigned to2 = star.add_flow(flow(0, 2, 0, 512, 10));
  const unsigned to1 = star.add_flow(flow(0, 1, 0, 512, 10));
  star.run();
  REQUIRE(star.checker().ok());
  CHECK(star.result(to2).delivered == 9);
  CHECK(star.result(to1).delivered == 10);
  CHECK(star.host_port(2).faults()->stats().targeted == 1);
  CHECK(star.sw().port(3).faults()->stats().judged == 0);  // the reverse direction carried no data
  CHECK(star.host_port(0).faults() == nullptr);
}
