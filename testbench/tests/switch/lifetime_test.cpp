// HOQ lifetime, switch lifetime and VL stall at a switch output (iba-facts 4
// "Lifetimes"), made to happen by a destination host that drains its port far
// slower than the link: the output runs out of credits and its heads wait.
#include <catch2/catch.hpp>

#include <algorithm>

#include "testbench/tests/switch/star_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using link::DropReason;

namespace {

constexpr uint64_t kUs = 1'000'000;
constexpr uint64_t kHoq = 10 * kUs;
constexpr double kHdr4x = 4 * 53.125e9 * (256.0 / 257.0) * (514.0 / 544.0);
const double kPacketPs = (ud_bytes(4096) + 2) * 8.0 * 1e12 / kHdr4x;

// What the output port toward the slow host did, in order.
struct OutputLog : link::PortObserver {
  struct Drop {
    uint64_t at;
    DropReason why;
    uint64_t received;  // when the packet arrived at the switch
  };
  std::vector<uint64_t> sends;  // data packets started on the wire
  std::vector<Drop> drops;
  void on_transmit(const link::Port&, const ib::Packet& p, uint64_t now, uint64_t) override {
    if (p.kind == ib::PacketKind::Data) sends.push_back(now);
  }
  void on_drop(const link::Port&, const ib::Packet& p, DropReason why, uint64_t now) override {
    drops.push_back({now, why, p.received_ps});
  }
  // The last time the head of the queue left (sent or dropped) before t.
  uint64_t last_departure_before(uint64_t t) const {
    uint64_t last = 0;
    for (uint64_t s : sends)
      if (s < t) last = std::max(last, s);
    for (const Drop& d : drops)
      if (d.at < t) last = std::max(last, d.at);
    return last;
  }
};

// Hosts 0 and 1 send to host 2, whose host drains at drain_bps; switch port 3
// is the output that gets stuck. Two senders (and a crossbar speedup, where a
// test needs the output queue never to run dry) keep packets waiting.
StarOptions slow_sink(const sw::SwitchConfig& config, uint64_t drain_bps) {
  StarOptions o;
  o.hosts = 3;
  o.sw = config;
  link::PortConfig slow;
  slow.drain_rate_bps = drain_bps;
  o.hca_ports = {link::PortConfig{}, link::PortConfig{}, slow};
  return o;
}

void add_senders(Star& star) {
  star.add_flow(flow(0, 2, 0, 4096, 0));
  star.add_flow(flow(1, 2, 0, 4096, 0));
}

uint64_t delivered(const Star& star) { return star.result(0).delivered + star.result(1).delivered; }

}  // namespace

TEST_CASE("HOQ lifetime: a stuck head is discarded HOQLife after it became the head - not before") {
  sw::SwitchConfig c;
  c.hoq_life_ps = kHoq;
  c.speedup = 2;  // the crossbar outruns the output link, so the output queue fills
  Star star(slow_sink(c, 1'000'000'000));  // 1 Gb/s: a 4 KiB packet every 33 us
  OutputLog log;
  star.sw().port(3).add_observer(&log);
  add_senders(star);
  star.run(1000 * kUs);
  REQUIRE(star.checker().ok());
  REQUIRE(!log.drops.empty());
  for (const auto& d : log.drops) REQUIRE(d.why == DropReason::HoqLifetime);
  // Every discard comes at least HOQLife after the previous head left (the
  // discarded one became the head then or later)...
  for (const auto& d : log.drops) REQUIRE(d.at >= log.last_departure_before(d.at) + kHoq);
  // ...and the first, from a queue that never ran dry, within one packet time of it.
  const auto& first = log.drops.front();
  const uint64_t head_since = log.last_departure_before(first.at);
  INFO("first discard at " << first.at << " ps, head since " << head_since << " ps");
  REQUIRE(static_cast<double>(first.at) <= static_cast<double>(head_since + kHoq) + kPacketPs);
  // The host still gets packets at its drain rate: about one per 33 us.
  CHECK(static_cast<double>(delivered(star)) == Approx(1000.0 / 33.05).margin(3));
  REQUIRE(drops(star.sw().port(3), 0, DropReason::HoqLifetime) == log.drops.size());
}

TEST_CASE("lifetimes off (the default): a stuck output discards nothing") {
  Star star(slow_sink(sw::SwitchConfig{}, 1'000'000'000));
  OutputLog log;
  star.sw().port(3).add_observer(&log);
  add_senders(star);
  star.run(500 * kUs);
  REQUIRE(log.drops.empty());
  REQUIRE(star.checker().ok());
}

TEST_CASE("VLStallCount consecutive HOQ discards stall the VL for 8 x HOQLife") {
  sw::SwitchConfig c;
  c.hoq_life_ps = kHoq;
  c.vl_stall_count = 3;
  Star star(slow_sink(c, 250'000'000));  // a packet every 132 us: many HOQ discards in a row
  OutputLog log;
  star.sw().port(3).add_observer(&log);
  add_senders(star);
  star.run(1000 * kUs);
  REQUIRE(star.checker().ok());
  // The third HOQ discard with no send in between starts the stall.
  unsigned run = 0;
  uint64_t stall_at = 0;
  std::size_t sends_seen = 0;
  for (const auto& d : log.drops) {
    while (sends_seen < log.sends.size() && log.sends[sends_seen] < d.at) {
      ++sends_seen;
      run = 0;
    }
    if (d.why == DropReason::HoqLifetime && ++run == 3) {
      stall_at = d.at;
      break;
    }
  }
  REQUIRE(stall_at != 0);
  const uint64_t stall_end = stall_at + 8 * kHoq;
  uint64_t stalled = 0;
  for (const auto& d : log.drops) {
    if (d.at > stall_at && d.at < stall_end) {
      // Inside the stall every drop is a stall drop.
      REQUIRE(d.why == DropReason::VlStalled);
      ++stalled;
    }
    if (d.why == DropReason::VlStalled) REQUIRE(d.at >= stall_at);  // none before the first stall
  }
  REQUIRE(stalled > 0);
  // Nothing is sent on the stalled VL while it is stalled.
  for (uint64_t s : log.sends) REQUIRE((s <= stall_at || s >= stall_end));
  REQUIRE(drops(star.sw().port(3), 0, DropReason::VlStalled) > 0);
}

TEST_CASE("switch lifetime: a packet is discarded once it has been in the switch longer - never earlier") {
  sw::SwitchConfig c;
  c.switch_life_ps = 20 * kUs;
  Star star(slow_sink(c, 1'000'000'000));
  OutputLog log;
  star.sw().port(3).add_observer(&log);
  add_senders(star);
  star.run(1000 * kUs);
  REQUIRE(star.checker().ok());
  REQUIRE(!log.drops.empty());
  for (const auto& d : log.drops) {
    REQUIRE(d.why == DropReason::SwitchLifetime);
    REQUIRE(d.received != 0);
    REQUIRE(d.at >= d.received + 20 * kUs);
  }
  REQUIRE(delivered(star) > 0);
  REQUIRE(drops(star.sw().port(3), 0, DropReason::SwitchLifetime) == log.drops.size());
}
