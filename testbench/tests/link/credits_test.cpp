// Credit arithmetic: IBA 7.9.4 / iba-facts 2 and the model's transmit test.
#include <catch2/catch.hpp>

#include <random>

#include "models/link/credits.hpp"

using namespace hcasim::link;

TEST_CASE("a packet costs ceil(bytes / 64) blocks") {
  REQUIRE(blocks_for(1) == 1);
  REQUIRE(blocks_for(64) == 1);
  REQUIRE(blocks_for(65) == 2);
  REQUIRE(blocks_for(4130) == 65);
}

TEST_CASE("nothing may be sent before the first flow-control packet") {
  CreditSender s;
  REQUIRE_FALSE(s.may_send(1));
  s.on_flow_control(10);
  REQUIRE(s.may_send(10));
  REQUIRE_FALSE(s.may_send(11));
}

TEST_CASE("FCCL = ABR + min(free - 2048) modulo 4096") {
  CreditReceiver small(1000);
  REQUIRE(small.fccl() == 1000);
  REQUIRE(small.on_packet(100));
  REQUIRE(small.fccl() == 1000);  // ABR 100 + free 900
  small.on_released(100);
  REQUIRE(small.fccl() == 1100);
  CreditReceiver big(5000);
  REQUIRE(big.fccl() == 2048);    // capped at 2048 blocks
  big.on_flow_control(4000);      // ABR := FCTBS
  REQUIRE(big.fccl() == (4000 + 2048) % 4096);
}

TEST_CASE("a full buffer refuses a packet and counts nothing") {
  CreditReceiver r(100);
  REQUIRE(r.on_packet(60));
  REQUIRE_FALSE(r.on_packet(41));
  REQUIRE(r.abr() == 60);
  REQUIRE(r.used_blocks() == 60);
}

TEST_CASE("the transmit test holds across many wraps of the 12-bit counters") {
  // A sender and receiver exchange credits with random packet sizes and
  // random drain; an independent unwrapped count proves no packet ever went
  // without credit and every packet that could go did.
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> size(1, 67);
  for (uint32_t capacity : {67u, 500u, 2048u, 3000u}) {
    CreditSender tx;
    CreditReceiver rx(capacity);
    tx.on_flow_control(rx.fccl());
    uint64_t sent = 0, limit = rx.fccl(), last = rx.fccl();
    std::vector<uint32_t> held;
    for (int step = 0; step < 200000; ++step) {
      const uint32_t b = size(rng);
      const bool may = tx.may_send(b);
      REQUIRE(may == (sent + b <= limit));
      if (may) {
        tx.on_sent(b);
        REQUIRE(rx.on_packet(b));
        sent += b;
        held.push_back(b);
      }
      if (!held.empty() && (rng() % 2 == 0 || !may)) {
        rx.on_released(held.front());
        held.erase(held.begin());
      }
      const uint16_t f = rx.fccl();
      limit += (f - last) & kCreditMask;
      last = f;
      tx.on_flow_control(f);
    }
    REQUIRE(sent > 20 * kCreditModulus);
  }
}
