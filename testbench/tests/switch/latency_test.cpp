// One packet through one switch, against the analytic sum of its parts:
// serialization (bytes + 2 framing bytes) x 8 / data rate, where the data rate
// is lanes x signalling x line code (iba-facts 2), cable propagation, the
// switch's latency, and either the LRH's 8 bytes (cut-through) or the whole
// packet (store-and-forward) before the switch may forward it.
#include <catch2/catch.hpp>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr uint64_t kStart = 1'000'000;  // 1 us: the link's first credits are in by then
constexpr double kHdr4x = 4 * 53.125e9 * (256.0 / 257.0) * (514.0 / 544.0);
constexpr double kQdr4x = 4 * 10e9 * 0.8;
constexpr double kProp = 2.0 * 5000;  // default cable: 2 m at 5 ns/m

double ser(uint32_t bytes, double rate) { return (bytes + 2) * 8.0 * 1e12 / rate; }
double head(double rate) { return 8 * 8.0 * 1e12 / rate; }

link::LinkConfig link_of(link::Speed s) {
  link::LinkConfig l;
  l.speed = s;
  return l;
}

// Latency of one packet of `payload` bytes from host 0 to host 1.
uint64_t one_packet(sw::Forwarding mode, uint32_t payload, link::Speed in = link::Speed::Hdr,
                    link::Speed out = link::Speed::Hdr, uint64_t latency_ps = 100000) {
  StarOptions o;
  o.sw.forwarding = mode;
  o.sw.latency_ps = latency_ps;
  o.links = {link_of(in), link_of(out)};
  Star star(o);
  const unsigned f = star.add_flow(flow(0, 1, 0, payload, 1, kStart));
  star.run();
  REQUIRE(star.checker().ok());
  REQUIRE(star.result(f).delivered == 1);
  REQUIRE(star.sw().stats().forwarded == 1);
  return star.result(f).latency_ps.min();
}

}  // namespace

TEST_CASE("cut-through: latency = LRH time + switch latency + output serialization + two propagations") {
  const uint32_t bytes = ud_bytes(256);
  const double expected = kProp + head(kHdr4x) + 100000 + ser(bytes, kHdr4x) + kProp;
  REQUIRE(static_cast<double>(one_packet(sw::Forwarding::CutThrough, 256)) == Approx(expected).margin(3));
}

TEST_CASE("store-and-forward: latency = both serializations + switch latency + two propagations") {
  const uint32_t bytes = ud_bytes(4096);
  const double expected = kProp + ser(bytes, kHdr4x) + 100000 + ser(bytes, kHdr4x) + kProp;
  REQUIRE(static_cast<double>(one_packet(sw::Forwarding::StoreAndForward, 4096)) == Approx(expected).margin(3));
}

TEST_CASE("cut-through with a switch latency of 0: only the LRH time separates the two links") {
  const uint32_t bytes = ud_bytes(4096);
  const double expected = kProp + head(kHdr4x) + ser(bytes, kHdr4x) + kProp;
  REQUIRE(static_cast<double>(one_packet(sw::Forwarding::CutThrough, 4096, link::Speed::Hdr, link::Speed::Hdr, 0)) ==
          Approx(expected).margin(3));
}

TEST_CASE("cut-through into a faster output: the output starts when it can no longer overtake the input") {
  // QDR 4x in, HDR 4x out: the output may start only at tail - its own
  // serialization, so the packet ends on the output when its tail is in.
  const uint32_t bytes = ud_bytes(4096);
  const double expected = kProp + ser(bytes, kQdr4x) + kProp;
  REQUIRE(head(kQdr4x) + 100000 < ser(bytes, kQdr4x) - ser(bytes, kHdr4x));  // the guard, not the latency, decides
  REQUIRE(static_cast<double>(one_packet(sw::Forwarding::CutThrough, 4096, link::Speed::Qdr, link::Speed::Hdr)) ==
          Approx(expected).margin(3));
}

TEST_CASE("cut-through into a slower output: it starts after the LRH time and the switch latency") {
  const uint32_t bytes = ud_bytes(4096);
  const double expected = kProp + head(kHdr4x) + 100000 + ser(bytes, kQdr4x) + kProp;
  REQUIRE(static_cast<double>(one_packet(sw::Forwarding::CutThrough, 4096, link::Speed::Hdr, link::Speed::Qdr)) ==
          Approx(expected).margin(3));
}

TEST_CASE("a VL15 packet is routed by the LFT and leaves on VL15") {
  StarOptions o;
  Star star(o);
  auto f = flow(0, 1, 0, 200, 5, kStart);
  f.vl15 = true;
  const unsigned id = star.add_flow(f);
  star.run();
  REQUIRE(star.result(id).delivered == 5);
  REQUIRE(star.sw().port(2).stats().vl[15].tx_packets == 5);
  REQUIRE(star.sw().port(1).stats().vl[15].rx_packets == 5);
  REQUIRE(star.checker().ok());
}

TEST_CASE("switch ports are SystemC children p1..pN - port numbers outside 1..N and bad configs throw") {
  ib::PacketPool pool;
  sw::Switch s("edge", sw::SwitchConfig{}, std::vector<link::PortConfig>(36), 7, pool);
  REQUIRE(s.port_count() == 36);
  REQUIRE(std::string(s.port(3).name()) == "edge.p3");
  REQUIRE(std::string(s.port(36).name()) == "edge.p36");
  REQUIRE_THROWS_AS(s.port(0), std::out_of_range);
  REQUIRE_THROWS_AS(s.port(37), std::out_of_range);
  REQUIRE(s.lid() == 7);
  REQUIRE_THROWS_AS(sw::Switch("none", sw::SwitchConfig{}, {}, 1, pool), std::invalid_argument);
  REQUIRE_THROWS_AS(sw::Switch("big", sw::SwitchConfig{}, std::vector<link::PortConfig>(255), 1, pool),
                    std::invalid_argument);
  sw::SwitchConfig slow;
  slow.speedup = 0.5;
  REQUIRE_THROWS_AS(sw::Switch("slow", slow, std::vector<link::PortConfig>(4), 1, pool), std::invalid_argument);
}
