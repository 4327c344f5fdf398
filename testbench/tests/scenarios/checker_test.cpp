// The link checker catches each invariant it guards when fed the events of a
// broken link directly (the model itself never breaks them: every other
// scenario test requires checker().ok()).
#include <catch2/catch.hpp>

#include "models/link/port.hpp"
#include "testbench/checkers/link_checker.hpp"

using namespace hcasim;

namespace {

struct Pair {
  explicit Pair(uint32_t data_vls = 8) : config(with_vls(data_vls)) {
    b.set_id(1);
    link::Port::connect(a, b, link::LinkConfig{});
    checker.watch(a);
    checker.watch(b);
  }
  static link::PortConfig with_vls(uint32_t data_vls) {
    link::PortConfig c;
    c.data_vls = data_vls;
    return c;
  }
  ib::PacketPool pool;
  link::PortConfig config;
  link::Port a{"a", config, pool};
  link::Port b{"b", config, pool};
  checkers::LinkChecker checker;
  ib::Packet data(uint64_t id, uint32_t payload, uint8_t vl = 0) {
    ib::Packet p;
    p.hdr.bth.opcode = 0x64;
    p.hdr.lrh.vl = vl;
    p.payload_len = payload;
    p.id = id;
    p.wire_len = static_cast<uint16_t>(p.wire_bytes());  // as the transmitting port records it
    return p;
  }
  ib::Packet credit(uint16_t fccl, uint8_t vl = 0) {
    ib::Packet p;
    p.reset_as_flow_control();
    p.fc.vl = vl;
    p.fc.fccl = fccl;
    return p;
  }
  // b tells a its credit limit on VL 0 (sent at 0, arrives at 10).
  void grant_a(uint16_t fccl) {
    const ib::Packet f = credit(fccl);
    checker.on_transmit(b, f, 0, 10);
    checker.on_arrival(a, f, 10);
  }
};

}  // namespace

TEST_CASE("checker: a data packet sent before any credit is a violation") {
  Pair t;
  t.checker.on_transmit(t.a, t.data(1, 100), 0, 1000);
  REQUIRE_FALSE(t.checker.ok());
  REQUIRE(t.checker.messages()[0].find("without credit") != std::string::npos);
}

TEST_CASE("checker: sending past the advertised limit is a violation, up to it is not") {
  Pair t;
  const auto fcp = t.credit(10);  // 10 blocks
  t.checker.on_transmit(t.b, fcp, 0, 100);
  t.checker.on_arrival(t.a, fcp, 100);
  const auto p1 = t.data(1, 4 * 64 - 34);  // 4 blocks on the wire
  t.checker.on_transmit(t.a, p1, 200, 300);
  t.checker.on_transmit(t.a, t.data(2, 4 * 64 - 34), 300, 400);
  REQUIRE(t.checker.ok());
  t.checker.on_transmit(t.a, t.data(3, 4 * 64 - 34), 400, 500);  // 12 > 10
  REQUIRE(t.checker.violations() == 1);
}

// The checker keeps VLs 8..14 apart from the view of VLs 0..7 (to save memory
// on fabrics of 8 VLs): on a link of 15 data VLs, each VL's credit and buffer
// are still its own.
TEST_CASE("checker: on a link of 15 data VLs, VLs 8 to 14 are checked each on its own") {
  Pair t(15);
  for (const uint8_t vl : {uint8_t{3}, uint8_t{12}}) {  // 10 blocks on VL 12, 5 on VL 3
    const auto f = t.credit(vl == 12 ? 10 : 5, vl);
    t.checker.on_transmit(t.b, f, 0, 100);
    t.checker.on_arrival(t.a, f, 100);
  }
  const uint32_t payload = 222;  // 258 bytes on the wire: 5 blocks
  t.checker.on_transmit(t.a, t.data(1, payload, 12), 200, 300);
  t.checker.on_transmit(t.a, t.data(2, payload, 12), 300, 400);  // 10 of 10 on VL 12
  t.checker.on_transmit(t.a, t.data(3, payload, 3), 400, 500);   // 5 of 5 on VL 3
  INFO((t.checker.messages().empty() ? "" : t.checker.messages()[0]));
  REQUIRE(t.checker.ok());
  t.checker.on_transmit(t.a, t.data(4, payload, 13), 500, 600);  // VL 13: no credit yet
  REQUIRE(t.checker.violations() == 1);
  t.checker.on_transmit(t.a, t.data(5, payload, 12), 600, 700);  // 15 > 10 on VL 12
  REQUIRE(t.checker.violations() == 2);
  // VL 14's receive buffer, filled past its capacity at b.
  const auto p = t.data(6, 4096, 14);
  const uint32_t capacity = t.b.rx_capacity_blocks(14);
  REQUIRE(capacity > 0);
  for (uint32_t used = 0; used + 65 <= capacity; used += 65) t.checker.on_buffered(t.b, p, 14, 65);
  t.checker.on_buffered(t.b, p, 13, 65);  // another VL's buffer is not VL 14's
  REQUIRE(t.checker.violations() == 2);
  t.checker.on_buffered(t.b, p, 14, 65);
  REQUIRE(t.checker.violations() == 3);
  REQUIRE(t.checker.messages()[2].find("VL14 receive buffer overflows") != std::string::npos);
}

TEST_CASE("checker: the credit limit is followed across the 12-bit wrap") {
  Pair t;
  uint64_t now = 0;
  uint64_t sent = 0;
  uint16_t fccl = 0;
  for (int i = 0; i < 5000; ++i) {  // 5000 x 2 blocks: past 4096 twice over
    fccl = static_cast<uint16_t>((fccl + 2) & 0xFFF);
    const auto f = t.credit(fccl);
    t.checker.on_transmit(t.b, f, now, now + 1);
    t.checker.on_arrival(t.a, f, now + 1);
    const auto p = t.data(++sent, 64);  // 64 + 34 = 98 bytes: 2 blocks
    t.checker.on_transmit(t.a, p, now + 2, now + 3);
    t.checker.on_arrival(t.b, p, now + 3);
    now += 10;
  }
  REQUIRE(t.checker.ok());
}

TEST_CASE("checker: a receive buffer overflow is a violation") {
  Pair t;
  const auto p = t.data(1, 4096);
  const uint32_t capacity = t.b.rx_capacity_blocks(0);
  for (uint32_t used = 0; used + 65 <= capacity; used += 65) t.checker.on_buffered(t.b, p, 0, 65);
  REQUIRE(t.checker.ok());
  t.checker.on_buffered(t.b, p, 0, 65);
  REQUIRE_FALSE(t.checker.ok());
  Pair u;
  u.checker.on_drop(u.b, p, link::DropReason::BufferOverflow, 5);
  REQUIRE_FALSE(u.checker.ok());
}

TEST_CASE("checker: a packet that never arrives is lost - one still on the wire is not") {
  Pair t;
  t.grant_a(100);
  t.checker.on_transmit(t.a, t.data(1, 100), 20, 30);
  t.checker.on_transmit(t.a, t.data(2, 100), 30, 40);
  t.checker.finish(35);  // packet 1 was due at 30, packet 2 is still in flight
  REQUIRE(t.checker.violations() == 1);
  REQUIRE(t.checker.messages()[0].find("lost") != std::string::npos);
}

TEST_CASE("checker: packets arriving out of order or late are violations") {
  Pair t;
  t.grant_a(100);
  const auto p1 = t.data(1, 100), p2 = t.data(2, 100);
  t.checker.on_transmit(t.a, p1, 20, 30);
  t.checker.on_transmit(t.a, p2, 30, 40);
  t.checker.on_arrival(t.b, p2, 40);
  REQUIRE_FALSE(t.checker.ok());
}

TEST_CASE("checker: a fault drop of the packet just arrived is an announced loss - a lost one still is not") {
  Pair t;
  t.grant_a(100);
  const auto p1 = t.data(1, 100), p2 = t.data(2, 100), p3 = t.data(3, 100);
  t.checker.on_transmit(t.a, p1, 20, 30);
  t.checker.on_transmit(t.a, p2, 30, 40);
  t.checker.on_transmit(t.a, p3, 40, 50);
  t.checker.on_arrival(t.b, p1, 30);
  t.checker.on_drop(t.b, p1, link::DropReason::FaultDrop, 30);  // lost to a fault on arrival: accounted
  t.checker.on_arrival(t.b, p2, 40);
  t.checker.on_drop(t.b, p2, link::DropReason::CrcError, 40);
  REQUIRE(t.checker.ok());
  REQUIRE(t.checker.announced_losses() == 2);
  t.checker.finish(60);  // packet 3 never arrived: lost on a link, faults or not
  REQUIRE(t.checker.violations() == 1);
  REQUIRE(t.checker.messages()[0].find("packet 3") != std::string::npos);
}

TEST_CASE("checker: a fault drop of a packet that did not just arrive there is a violation") {
  Pair t;
  t.grant_a(100);
  const auto p1 = t.data(1, 100), p2 = t.data(2, 100);
  t.checker.on_transmit(t.a, p1, 20, 30);
  t.checker.on_transmit(t.a, p2, 30, 40);
  t.checker.on_arrival(t.b, p1, 30);
  t.checker.on_drop(t.b, p2, link::DropReason::FaultDrop, 30);  // not the packet that arrived
  REQUIRE(t.checker.violations() == 1);
  t.checker.on_drop(t.a, p1, link::DropReason::FaultDrop, 30);  // at another port
  t.checker.on_drop(t.b, p1, link::DropReason::FaultDrop, 31);  // later
  REQUIRE(t.checker.violations() == 3);
  REQUIRE(t.checker.messages()[0].find("link fault") != std::string::npos);
  REQUIRE(t.checker.announced_losses() == 0);
}
