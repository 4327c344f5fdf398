// Delay and duplicate rules carried out by the receiving port, on two ports
// back to back with the link checker watching: a delayed packet reaches the
// upper layer exactly the delay after its wire arrival, a duplicated one twice
// at its arrival, and on a flow-controlled VL neither breaks a credit (the
// checker stays quiet and the sender gets its whole buffer's credit back).
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/link/port.hpp"
#include "models/link/timeline.hpp"
#include "testbench/checkers/link_checker.hpp"

using namespace hcasim;

namespace {

constexpr uint64_t kUs = 1'000'000;  // ps

// Records the wire arrival of each data packet at the port it watches, and
// how many packets that crossed the link sit in its buffer at most.
struct Arrivals : link::PortObserver {
  std::map<uint64_t, uint64_t> at;  // id -> time
  uint64_t buffered = 0;            // data packets put in a buffer
  uint64_t released = 0;            // of those, freed by the upper layer (the test counts them)
  uint64_t max_held = 0;
  void on_arrival(const link::Port&, const ib::Packet& p, uint64_t now_ps) override {
    if (p.kind == ib::PacketKind::Data) at[p.id] = now_ps;
  }
  void on_buffered(const link::Port&, const ib::Packet&, unsigned, uint32_t) override {
    max_held = std::max(max_held, ++buffered - released);
  }
};

struct Delivery {
  uint64_t id;
  uint64_t at_ps;
  std::vector<uint8_t> payload;
};

struct Pair {
  ib::PacketPool pool;
  link::PortConfig config;
  std::unique_ptr<link::Port> a, b;
  checkers::LinkChecker checker;
  Arrivals arrivals;
  std::vector<Delivery> got;
  // Slow consumer: b takes a data packet at once but frees its buffer space
  // release_after_ps later (0 = at once, rx_pop); a copy it frees at once.
  uint64_t release_after_ps = 0;
  struct Release {
    uint64_t at_ps;
    uint32_t wire_bytes;
    bool copy;  // the second delivery of an id
  };
  std::deque<Release> to_release;  // on VL0
  link::Alarm releaser{[this] { release_due(); }};

  explicit Pair(const link::FaultConfig& faults, uint64_t vl_buffer = 65536) {
    config.vl_buffer_bytes = vl_buffer;
    a = std::make_unique<link::Port>("a", config, pool);
    b = std::make_unique<link::Port>("b", config, pool);
    b->set_id(1);
    link::Port::connect(*a, *b, link::LinkConfig{});
    b->set_faults(faults);  // a -> b only
    checker.watch(*a);
    checker.watch(*b);
    b->add_observer(&arrivals);
    b->on_rx_ready([this] { take(); });
  }

  void take() {
    for (unsigned vl : {15u, 0u})
      while (!b->rx_empty(vl)) {
        const uint32_t bytes = b->rx_front(vl)->wire_len;
        ib::Packet* p = vl == 0 && release_after_ps != 0 ? b->rx_take(vl) : b->rx_pop(vl);
        const uint64_t now = sc_core::sc_time_stamp().value();
        bool copy = false;
        for (const Delivery& d : got) copy |= d.id == p->id;
        got.push_back({p->id, now, p->payload});
        if (vl == 0 && release_after_ps != 0 && copy) {
          b->rx_release(0, bytes);  // a copy is dealt with at once
        } else if (vl == 0 && release_after_ps != 0) {
          to_release.push_back({now + release_after_ps, bytes, copy});
          releaser.notify_at(to_release.front().at_ps);
        } else {
          arrivals.released += !copy;
        }
        pool.release(p);
      }
  }

  void release_due() {
    const uint64_t now = sc_core::sc_time_stamp().value();
    while (!to_release.empty() && to_release.front().at_ps <= now) {
      b->rx_release(0, to_release.front().wire_bytes);
      arrivals.released += !to_release.front().copy;
      to_release.pop_front();
    }
    if (!to_release.empty()) releaser.notify_at(to_release.front().at_ps);
  }

  // A MAD in a UD SEND-only to QP0 (VL15) or QP1 (VL0), queued at a.
  void send(uint64_t id, const std::vector<uint8_t>& mad, bool smp) {
    ib::Packet* p = pool.acquire();
    p->id = id;
    p->hdr.lrh.dlid = 2;
    p->hdr.lrh.slid = 1;
    p->hdr.bth.opcode = ib::op::kUdSendOnly;
    p->hdr.bth.dest_qp = smp ? ib::kQp0 : ib::kQp1;
    p->payload = mad;
    p->payload_len = ib::kMadBytes;
    p->finalize_lengths();
    REQUIRE(a->submit_on_vl(p, smp ? link::kVl15 : 0) == link::SubmitResult::Queued);
  }

  void run() {
    sc_core::sc_start();
    checker.finish(sc_core::sc_time_stamp().value());
    INFO((checker.messages().empty() ? std::string() : checker.messages()[0]));
    REQUIRE(checker.ok());
  }

  std::vector<uint64_t> ids() const {
    std::vector<uint64_t> out;
    for (const Delivery& d : got) out.push_back(d.id);
    return out;
  }
};

std::vector<uint8_t> smp_bytes(uint16_t attr) {
  ib::Smp m;
  m.hdr.mgmt_class = ib::kClassSubnLid;
  m.hdr.method = ib::kMethodGet;
  m.hdr.attr_id = attr;
  std::vector<uint8_t> out(ib::kMadBytes);
  ib::encode(m, out.data());
  return out;
}

std::vector<uint8_t> sa_bytes(uint32_t segment, uint8_t flags) {
  ib::SaMad m;
  m.hdr.mgmt_class = ib::kClassSubnAdm;
  m.hdr.method = ib::kMethodGetTableResp;
  m.hdr.attr_id = ib::kAttrPathRecord;
  m.segment = segment;
  m.fragment_flag = flags;
  std::vector<uint8_t> out(ib::kMadBytes);
  ib::encode(m, out.data());
  return out;
}

link::DropRule rule(link::RuleAction action, link::MadKind kind, uint64_t nth, uint64_t delay_ps = 0) {
  link::DropRule r;
  r.action = action;
  r.delay_ps = delay_ps;
  r.mad.kind = kind;
  r.nth = nth;
  return r;
}

}  // namespace

TEST_CASE("MAD faults at a port: a VL15 SMP delayed by 5us reaches the upper layer 5us after its arrival") {
  link::FaultConfig f;
  f.drops.push_back(rule(link::RuleAction::Delay, link::MadKind::Smp, 2, 5 * kUs));
  Pair t(f);
  for (uint64_t id = 1; id <= 3; ++id) t.send(id, smp_bytes(ib::kAttrNodeInfo), true);
  t.run();
  REQUIRE(t.ids() == std::vector<uint64_t>{1, 3, 2});  // the later SMP overtakes the delayed one
  for (const Delivery& d : t.got) {
    INFO("id " << d.id);
    CHECK(d.at_ps == t.arrivals.at.at(d.id) + (d.id == 2 ? 5 * kUs : 0));
  }
  REQUIRE(t.b->faults()->stats().delayed == 1);
  REQUIRE(t.b->faults()->hits(0) == 1);
  REQUIRE(t.b->stats().vl[link::kVl15].rx_packets == 3);
}

TEST_CASE("MAD faults at a port: a duplicated SMP is delivered twice at its arrival with the same bytes") {
  link::FaultConfig f;
  f.drops.push_back(rule(link::RuleAction::Duplicate, link::MadKind::Smp, 1));
  Pair t(f);
  t.send(1, smp_bytes(ib::kAttrNodeInfo), true);
  t.send(2, smp_bytes(ib::kAttrPortInfo), true);
  t.run();
  REQUIRE(t.ids() == std::vector<uint64_t>{1, 1, 2});
  CHECK(t.got[0].at_ps == t.arrivals.at.at(1));
  CHECK(t.got[1].at_ps == t.arrivals.at.at(1));
  CHECK(t.got[1].payload == smp_bytes(ib::kAttrNodeInfo));
  CHECK(t.got[2].payload == smp_bytes(ib::kAttrPortInfo));
  REQUIRE(t.b->faults()->stats().duplicated == 1);
  // The copy did not cross the link: the port counts two packets received.
  REQUIRE(t.b->stats().vl[link::kVl15].rx_packets == 2);
}

TEST_CASE("MAD faults at a port: delayed SA segments on a flow-controlled VL keep the credits whole") {
  // 1 KiB of VL0 buffer holds three 290-byte MAD packets (5 blocks each): the
  // delay holds their space, so the sender runs on its credits all along.
  link::FaultConfig f;
  link::DropRule dup = rule(link::RuleAction::Duplicate, link::MadKind::SaData, 1);
  dup.mad.sa_segment = 7;
  link::DropRule delay = rule(link::RuleAction::Delay, link::MadKind::Sa, 1, 2 * kUs);
  delay.every = true;
  f.drops = {dup, delay};
  Pair t(f, 1024);
  constexpr uint32_t kSegments = 60;
  for (uint32_t s = 1; s <= kSegments; ++s)
    t.send(s, sa_bytes(s, s == 1 ? ib::kFragFirst : s == kSegments ? ib::kFragLast : 0), false);
  t.run();
  REQUIRE(t.got.size() == kSegments + 1);
  std::map<uint64_t, int> seen;
  for (const Delivery& d : t.got) {
    INFO("segment " << d.id);
    ++seen[d.id];
    CHECK(d.at_ps == t.arrivals.at.at(d.id) + (d.id == 7 ? 0 : 2 * kUs));
  }
  for (uint32_t s = 1; s <= kSegments; ++s) CHECK(seen[s] == (s == 7 ? 2 : 1));
  const link::VlStats& vl0 = t.b->stats().vl[0];
  uint64_t drops = 0;
  for (uint64_t n : vl0.drops) drops += n;
  CHECK(drops == 0);
  CHECK(vl0.rx_packets == kSegments);
  CHECK(t.b->faults()->stats().delayed == kSegments - 1);
  CHECK(t.b->faults()->stats().duplicated == 1);
  // With everything released, the sender holds credit for the whole buffer again.
  CHECK(t.a->credits_available(0) == 1024 / link::kCreditBlockBytes);
}

TEST_CASE("MAD faults at a port: duplicates taken by a slow consumer free no credit of their own") {
  // b takes each VL0 packet at once but frees its space 3us later (as a
  // switch does with rx_take and rx_release), a copy at once; every SA
  // segment is duplicated. The copies' releases free nothing: were they to
  // free the blocks of their original, the sender would get credit for a
  // fourth packet while three still fill the buffer.
  link::FaultConfig f;
  link::DropRule dup = rule(link::RuleAction::Duplicate, link::MadKind::SaData, 1);
  dup.every = true;
  f.drops = {dup};
  Pair t(f, 1024);
  t.release_after_ps = 3 * kUs;
  constexpr uint32_t kSegments = 40;
  for (uint32_t s = 1; s <= kSegments; ++s) t.send(s, sa_bytes(s, 0), false);
  t.run();
  REQUIRE(t.got.size() == 2 * kSegments);
  for (uint32_t s = 0; s < kSegments; ++s) {
    CHECK(t.got[2 * s].id == s + 1);
    CHECK(t.got[2 * s + 1].id == s + 1);
  }
  CHECK(t.b->stats().vl[0].rx_packets == kSegments);
  // The sender never got credit for more than the buffer holds: three packets
  // of 5 blocks in 16 (a copy's release freeing credit would let a fourth in).
  CHECK(t.arrivals.max_held == 3);
  CHECK(t.a->credits_available(0) == 1024 / link::kCreditBlockBytes);
}
