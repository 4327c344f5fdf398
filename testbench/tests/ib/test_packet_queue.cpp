#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/ib/packet_queue.hpp"

using hcasim::ib::Packet;
using hcasim::ib::PacketQueue;
using hcasim::ib::PacketKind;
using hcasim::ib::PacketPool;
using hcasim::ib::kFlowControlBytes;

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
  a.wire_len = 100;
  a.reset();
  REQUIRE(a.next == nullptr);
  REQUIRE(a.due_ps == 0);
  REQUIRE(a.wire_len == 0);
}

TEST_CASE("A packet reset as flow control is a 6-byte flow-control packet out of any queue", "[ib][queue]") {
  Packet a;
  PacketQueue q;
  q.push_back(&a);
  a.due_ps = 5;
  a.fc.fccl = 77;
  a.reset_as_flow_control();
  REQUIRE(a.kind == PacketKind::FlowControl);
  REQUIRE(a.wire_len == kFlowControlBytes);
  REQUIRE(a.wire_bytes() == kFlowControlBytes);
  REQUIRE(a.next == nullptr);
  REQUIRE(a.due_ps == 0);
  REQUIRE(a.fc.fccl == 0);
}

TEST_CASE("The packet pool hands out reset packets each on its own cache line", "[ib][queue]") {
  PacketPool pool;
  std::vector<Packet*> taken;
  for (int i = 0; i < 200; ++i) {
    Packet* p = pool.acquire();
    REQUIRE(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
    REQUIRE(p->wire_len == 0);
    p->wire_len = 9;
    p->hdr.lrh.dlid = 7;
    taken.push_back(p);
  }
  REQUIRE(pool.in_use() == 200);
  for (Packet* p : taken) pool.release(p);
  REQUIRE(pool.in_use() == 0);
  Packet* again = pool.acquire();
  REQUIRE(again->wire_len == 0);
  REQUIRE(again->hdr.lrh.dlid == 0);
}
