#include <catch2/catch.hpp>

#include "models/ib/packet_queue.hpp"

using hcasim::ib::Packet;
using hcasim::ib::PacketQueue;

TEST_CASE("PacketQueue keeps packets in FIFO order through Packet::next", "[ib][queue]") {
  Packet a, b, c;
  PacketQueue q;
  REQUIRE(q.empty());
  q.push_back(&a);
  q.push_back(&b);
  REQUIRE(q.front() == &a);
  REQUIRE(q.pop_front() == &a);
  REQUIRE(a.next == nullptr);  // out of the queue: free to join another
  q.push_back(&c);
  REQUIRE(q.pop_front() == &b);
  REQUIRE(q.pop_front() == &c);
  REQUIRE(q.empty());
  // Refilled after running empty: the tail was reset.
  q.push_back(&a);
  REQUIRE(q.front() == &a);
  REQUIRE(q.pop_front() == &a);
  REQUIRE(q.empty());
}

TEST_CASE("Packet::reset clears the queue bookkeeping", "[ib][queue]") {
  Packet a, b;
  PacketQueue q;
  q.push_back(&a);
  q.push_back(&b);
  a.due_ps = 5;
  a.queued_bytes = 100;
  a.reset();
  REQUIRE(a.next == nullptr);
  REQUIRE(a.due_ps == 0);
  REQUIRE(a.queued_bytes == 0);
}
