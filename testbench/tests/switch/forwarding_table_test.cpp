// The forwarding decision against iba-facts 3 and 4: LFT entries by LID (LMC
// ranges), no-route cases, port 0, SL-to-VL per (input, output) pair.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "models/switch/forwarding_table.hpp"

using namespace hcasim;
using namespace hcasim::sw;

namespace {
ForwardingTable four_ports(unsigned vls = 8) { return ForwardingTable(std::vector<unsigned>(4, vls)); }
}  // namespace

TEST_CASE("LMC l gives the 2^l LIDs from the base their own LFT entries") {
  std::vector<uint8_t> lft;
  assign_lid_range(lft, 8, 3, 2);   // LIDs 8..15 -> port 2
  assign_lid_range(lft, 16, 0, 3);  // LID 16 -> port 3
  auto t = four_ports();
  t.set_lft(lft);
  REQUIRE(lft.size() == 17);
  for (uint16_t lid = 8; lid <= 15; ++lid) {
    const RouteDecision d = t.route(1, lid, 0, false);
    REQUIRE(d.kind == RouteKind::Forward);
    REQUIRE(d.out_port == 2);
  }
  REQUIRE(t.route(1, 16, 0, false).out_port == 3);
  for (uint16_t lid = 1; lid < 8; ++lid) REQUIRE(t.route(1, lid, 0, false).kind == RouteKind::Drop);
}

TEST_CASE("LID ranges are checked: LMC at most 7 - base aligned to 2^LMC - unicast LIDs only") {
  std::vector<uint8_t> lft;
  REQUIRE_THROWS_AS(assign_lid_range(lft, 256, 8, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(assign_lid_range(lft, 12, 3, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(assign_lid_range(lft, 0, 0, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(assign_lid_range(lft, 0xC000, 0, 1), std::invalid_argument);
  REQUIRE_NOTHROW(assign_lid_range(lft, 0xBF80, 7, 1));
  REQUIRE(lft.size() == 0xC000);
}

TEST_CASE("no route: DLID 0 - beyond the table - entry 0xFF - a port the switch lacks") {
  auto t = four_ports();
  t.set_lft({1, 2, kNoRoute, 5, 4});  // LID 0 has an entry but is never routed
  for (uint16_t dlid : {0, 2, 3, 5, 100, 0xFFFF}) {
    const RouteDecision d = t.route(1, dlid, 0, false);
    INFO("DLID " << dlid);
    REQUIRE(d.kind == RouteKind::Drop);
    REQUIRE(d.why == link::DropReason::NoRoute);
  }
  REQUIRE(t.route(1, 1, 0, false).kind == RouteKind::Forward);
  REQUIRE(t.route(1, 4, 0, false).out_port == 4);
}

TEST_CASE("LFT entry 0 is the switch's management port") {
  auto t = four_ports();
  t.set_lft({kNoRoute, 0, 2});
  REQUIRE(t.route(3, 1, 5, false).kind == RouteKind::Management);
  REQUIRE(t.route(3, 1, 0, true).kind == RouteKind::Management);
}

TEST_CASE("default SL-to-VL: SL mod the output port's operational VLs") {
  ForwardingTable t({8, 2, 1});
  t.set_lft({kNoRoute, 1, 2, 3});
  for (uint8_t sl = 0; sl < 16; ++sl) {
    REQUIRE(t.route(3, 1, sl, false).out_vl == sl % 8);
    REQUIRE(t.route(1, 2, sl, false).out_vl == sl % 2);
    REQUIRE(t.route(1, 3, sl, false).out_vl == 0);
  }
}

TEST_CASE("each (input, output) pair has its own SL-to-VL table") {
  auto t = four_ports();
  t.set_lft({kNoRoute, 1, 2});
  Sl2VlTable a{};
  a.fill(3);
  Sl2VlTable b{};
  b.fill(5);
  t.set_sl2vl(1, 2, a);
  t.set_sl2vl(3, 2, b);
  REQUIRE(t.route(1, 2, 7, false).out_vl == 3);
  REQUIRE(t.route(3, 2, 7, false).out_vl == 5);
  REQUIRE(t.route(4, 2, 7, false).out_vl == 7);  // untouched pair: default
  REQUIRE(t.route(1, 1, 7, false).out_vl == 7);
  REQUIRE(t.sl2vl(0, 2)[7] == 7);               // from the management port
}

TEST_CASE("one table on every pair, then a pair of its own, then one table again: lookups follow each step") {
  ForwardingTable t({2, 2, 2});  // every pair starts with SL mod 2
  t.set_lft({kNoRoute, 1, 2, 3});
  REQUIRE(t.route(1, 2, 5, false).out_vl == 1);
  Sl2VlTable zero{};
  t.set_sl2vl(1, 2, zero);  // one pair differs
  REQUIRE(t.route(1, 2, 5, false).out_vl == 0);
  REQUIRE(t.route(3, 2, 5, false).out_vl == 1);
  // Every pair toward ports 1..3 on the all-zero table (the pairs toward the
  // management port keep theirs, which forwarding never reads).
  for (unsigned in = 0; in <= 3; ++in)
    for (unsigned out = 1; out <= 3; ++out) t.set_sl2vl(in, out, zero);
  for (unsigned in = 1; in <= 3; ++in) REQUIRE(t.route(in, 3, 5, false).out_vl == 0);
  Sl2VlTable one{};
  one.fill(1);
  t.set_sl2vl(2, 3, one);
  REQUIRE(t.route(2, 3, 5, false).out_vl == 1);
  REQUIRE(t.route(1, 3, 5, false).out_vl == 0);
}

TEST_CASE("an SL mapped to VL15 is dropped - a VL15 packet stays on VL15") {
  auto t = four_ports();
  t.set_lft({kNoRoute, 1, 2});
  Sl2VlTable m{};
  m[4] = 15;
  t.set_sl2vl(1, 2, m);
  const RouteDecision d = t.route(1, 2, 4, false);
  REQUIRE(d.kind == RouteKind::Drop);
  REQUIRE(d.why == link::DropReason::SlToVl15);
  REQUIRE(t.route(1, 2, 3, false).out_vl == 0);
  const RouteDecision smp = t.route(1, 2, 4, true);  // SL ignored on VL15
  REQUIRE(smp.kind == RouteKind::Forward);
  REQUIRE(smp.out_vl == 15);
}

TEST_CASE("bad tables and port counts are rejected with the accepted range") {
  REQUIRE_THROWS_AS(ForwardingTable(std::vector<unsigned>{}), std::invalid_argument);
  REQUIRE_THROWS_AS(ForwardingTable(std::vector<unsigned>(255, 8)), std::invalid_argument);
  REQUIRE_NOTHROW(ForwardingTable(std::vector<unsigned>(254, 1)));
  auto t = four_ports();
  Sl2VlTable bad{};
  bad[0] = 16;
  REQUIRE_THROWS_AS(t.set_sl2vl(1, 2, bad), std::invalid_argument);
  REQUIRE_THROWS_AS(t.set_sl2vl(5, 2, Sl2VlTable{}), std::invalid_argument);
  REQUIRE_THROWS_AS(t.set_sl2vl(1, 5, Sl2VlTable{}), std::invalid_argument);
}
