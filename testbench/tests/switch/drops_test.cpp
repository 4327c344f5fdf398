// The switch's drop rules (iba-facts 3 and 4; seed 004 Table 25-2), each
// counted at the port the rules name and on the right VL, with the link
// checker watching that credits still balance.
#include <catch2/catch.hpp>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using link::DropReason;

namespace {

constexpr uint64_t kStart = 1'000'000;

uint64_t all_drops(Star& star) {
  uint64_t n = 0;
  for (unsigned p = 1; p <= star.sw().port_count(); ++p)
    for (const link::VlStats& v : star.sw().port(p).stats().vl)
      for (uint64_t d : v.drops) n += d;
  return n;
}

}  // namespace

TEST_CASE("no route: beyond the LFT - entry 0xFF - a port the switch lacks - dropped at the input port") {
  StarOptions o;
  o.hosts = 3;
  Star star(o);
  // LIDs: 1..3 the hosts; LID 3 unrouted; LID 5 names port 9 of a 3-port switch.
  star.sw().set_lft({sw::kNoRoute, 1, 2, sw::kNoRoute, sw::kNoRoute, 9});
  auto beyond = flow(0, 1, 0, 512, 30, kStart);
  beyond.dlid = 99;
  auto unrouted = flow(0, 2, 1, 512, 20, kStart);
  auto no_port = flow(0, 1, 2, 512, 10, kStart);
  no_port.dlid = 5;
  const unsigned a = star.add_flow(beyond);
  const unsigned b = star.add_flow(unrouted);
  const unsigned c = star.add_flow(no_port);
  const unsigned good = star.add_flow(flow(0, 1, 3, 512, 40, kStart));
  star.run();
  const link::Port& in = star.sw().port(1);
  REQUIRE(drops(in, 0, DropReason::NoRoute) == 30);  // counted on the input VL (SL n -> VL n)
  REQUIRE(drops(in, 1, DropReason::NoRoute) == 20);
  REQUIRE(drops(in, 2, DropReason::NoRoute) == 10);
  REQUIRE(all_drops(star) == 60);
  REQUIRE(star.result(a).sent == 30);
  REQUIRE(star.result(b).sent == 20);
  REQUIRE(star.result(c).sent == 10);
  REQUIRE(star.result(a).delivered + star.result(b).delivered + star.result(c).delivered == 0);
  REQUIRE(star.result(good).delivered == 40);
  REQUIRE(star.sw().stats().forwarded == 40);
  REQUIRE(star.checker().ok());
  // Dropped packets gave their buffer space back: the sender holds every credit again.
  for (unsigned vl = 0; vl < 4; ++vl)
    REQUIRE(star.host_port(0).credits_available(vl) == star.sw().port(1).rx_capacity_blocks(vl));
}

TEST_CASE("an SL mapped to VL15 by the (input, output) table is dropped at the input port") {
  StarOptions o;
  o.hosts = 3;
  Star star(o);
  sw::Sl2VlTable t{};
  for (unsigned sl = 0; sl < 16; ++sl) t[sl] = static_cast<uint8_t>(sl % 8);
  t[3] = 15;
  star.sw().set_sl2vl(1, 2, t);  // from port 1 to port 2 only
  const unsigned dropped = star.add_flow(flow(0, 1, 3, 256, 25, kStart));
  const unsigned kept = star.add_flow(flow(0, 1, 2, 256, 25, kStart));
  const unsigned other_in = star.add_flow(flow(2, 1, 3, 256, 25, kStart));
  star.run();
  REQUIRE(drops(star.sw().port(1), 3, DropReason::SlToVl15) == 25);
  REQUIRE(all_drops(star) == 25);
  REQUIRE(star.result(dropped).delivered == 0);
  REQUIRE(star.result(kept).delivered == 25);
  REQUIRE(star.result(other_in).delivered == 25);
  REQUIRE(star.sw().port(2).stats().vl[3].tx_packets == 25);  // port 3's SL3 packets, on VL3
  REQUIRE(star.checker().ok());
}

TEST_CASE("a payload over the output port's MTU is dropped at the output port") {
  StarOptions o;
  o.hosts = 3;
  link::PortConfig small;
  small.mtu = 1024;
  o.switch_ports_by_number = {link::PortConfig{}, small};
  Star star(o);
  const unsigned big = star.add_flow(flow(0, 1, 0, 2048, 15, kStart));
  const unsigned fits = star.add_flow(flow(0, 1, 1, 1024, 15, kStart));
  const unsigned elsewhere = star.add_flow(flow(0, 2, 0, 2048, 15, kStart));
  star.run();
  REQUIRE(drops(star.sw().port(2), 0, DropReason::MtuExceeded) == 15);
  REQUIRE(drops(star.sw().port(1), 0, DropReason::MtuExceeded) == 0);
  REQUIRE(all_drops(star) == 15);
  REQUIRE(star.result(big).delivered == 0);
  REQUIRE(star.result(fits).delivered == 15);
  REQUIRE(star.result(elsewhere).delivered == 15);
  REQUIRE(star.checker().ok());
}

TEST_CASE("a DLID routed to port 0 goes to the management port and is counted") {
  StarOptions o;
  o.hosts = 2;
  Star star(o);
  const uint16_t switch_lid = star.sw().lid();
  std::vector<uint8_t> lft(switch_lid + 1, sw::kNoRoute);
  lft[1] = 1;
  lft[2] = 2;
  lft[switch_lid] = 0;
  star.sw().set_lft(lft);
  auto to_switch = flow(0, 1, 0, 256, 12, kStart);
  to_switch.dlid = switch_lid;
  auto smp = flow(1, 0, 0, 256, 3, kStart);
  smp.dlid = switch_lid;
  smp.vl15 = true;
  star.add_flow(to_switch);
  star.add_flow(smp);
  star.run();
  REQUIRE(star.sw().stats().to_management == 15);
  REQUIRE(star.sw().stats().forwarded == 0);
  REQUIRE(all_drops(star) == 0);
  REQUIRE(star.checker().ok());
}

TEST_CASE("an output port without a link drops what is routed to it and counts link_down there") {
  StarOptions o;
  o.hosts = 2;
  o.switch_ports = 4;  // ports 3 and 4 have no cable
  Star star(o);
  star.sw().set_lft({sw::kNoRoute, 1, 2, 4});
  auto f = flow(0, 1, 5, 256, 9, kStart);
  f.dlid = 3;
  star.add_flow(f);
  star.run();
  REQUIRE(drops(star.sw().port(4), 5, DropReason::LinkDown) == 9);
  REQUIRE(all_drops(star) == 9);
  REQUIRE(star.checker().ok());
}
