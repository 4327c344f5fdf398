// The voq crossbar's rules (voq_crossbar.hpp), driven directly with
// hand-worked sequences.
#include <catch2/catch.hpp>

#include <deque>
#include <stdexcept>
#include <vector>

#include "models/link/port_config.hpp"
#include "models/switch/voq_crossbar.hpp"

using namespace hcasim;
using namespace hcasim::sw;

namespace {

const auto any_room = [](unsigned, unsigned, uint32_t) { return true; };

std::vector<link::VlArbConfig> voq_outputs(unsigned n, const link::VlArbConfig& c = link::resolved_vlarb(link::PortConfig{})) {
  return std::vector<link::VlArbConfig>(n, c);
}

// Packets that stay put (a deque never moves its elements on push_back).
struct VoqPackets {
  std::deque<ib::Packet> all;
  ib::Packet* make(uint16_t wire_len = 4130) {
    all.emplace_back();
    all.back().wire_len = wire_len;
    return &all.back();
  }
};

}  // namespace

TEST_CASE("voq: a packet for a busy output does not hold up the one behind it for a free output") {
  // In an input FIFO the second packet would wait for the first (head-of-line blocking).
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(3), 1, 1);
  const auto g1 = x.enqueue(1, 0, 0, pk.make(), any_room);  // input 1 takes output 0
  REQUIRE(g1);
  REQUIRE(g1->input == 1);
  REQUIRE(g1->output == 0);
  ib::Packet* blocked = pk.make();
  ib::Packet* free_way = pk.make();
  REQUIRE_FALSE(x.enqueue(0, 0, 0, blocked, any_room));  // output 0 busy
  const auto g2 = x.enqueue(0, 2, 0, free_way, any_room);
  REQUIRE(g2);
  REQUIRE(g2->output == 2);
  REQUIRE(g2->packet == free_way);
  REQUIRE(x.queued_packets(0) == 1);
  // When input 1's transfer ends, output 0 takes input 0's waiting packet... but
  // input 0 is moving one (one read): output 0 stays free until input 0 ends.
  auto gs = x.after_release(1, 0, any_room);
  REQUIRE(gs.count == 0);
  REQUIRE_FALSE(x.output_busy(0));
  gs = x.after_release(0, 2, any_room);
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].packet == blocked);
  REQUIRE(gs.list[0].output == 0);
}

TEST_CASE("voq: an output serves its inputs round robin, the pointer just past the one granted") {
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(4), 1, 1);
  for (unsigned i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) x.enqueue(i, 0, 0, pk.make(), any_room);
  std::vector<unsigned> order{0};  // input 0 went first, at its first packet
  unsigned last = 0;
  for (int k = 0; k < 11; ++k) {
    const auto gs = x.after_release(last, 0, any_room);
    REQUIRE(gs.count == 1);
    last = gs.list[0].input;
    order.push_back(last);
  }
  REQUIRE(order == std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
  REQUIRE(x.after_release(last, 0, any_room).count == 0);
  REQUIRE(x.queued_packets(0) + x.queued_packets(1) + x.queued_packets(2) + x.queued_packets(3) == 0);
}

TEST_CASE("voq: 4x4 with every queue backlogged keeps a perfect matching, round after round") {
  // Queued in input order, each input's first packet finds its own output
  // free: (0,0), (1,1), (2,2), (3,3). Each transfer end finds only its own
  // input free, so every output takes the same input again while it has
  // packets for it: all four outputs busy at every step.
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(4), 1, 1);
  std::vector<int> granted;
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned o = 0; o < 4; ++o)
      for (int k = 0; k < 5; ++k)
        if (const auto g = x.enqueue(i, o, 0, pk.make(), any_room)) granted.push_back(static_cast<int>(g->output * 4 + g->input));
  REQUIRE(granted == std::vector<int>{0, 5, 10, 15});
  for (int round = 0; round < 4; ++round)
    for (unsigned i = 0; i < 4; ++i) {
      const auto gs = x.after_release(i, i, any_room);
      REQUIRE(gs.count == 1);
      REQUIRE(gs.list[0].input == i);
      REQUIRE(gs.list[0].output == i);
    }
  // Each diagonal queue is empty now (5 packets): the next transfer end frees
  // input 0 and output 0 with nothing between them; output 0 goes to input 0's
  // neighbour when that one is free, and input 0 to another free output.
  REQUIRE(x.after_release(0, 0, any_room).count == 0);
  const auto gs = x.after_release(1, 1, any_room);  // output 1 takes input 0 (pointer past 1 wraps), input 1 output 0
  REQUIRE(gs.count == 2);
  REQUIRE(gs.list[0].output == 1);
  REQUIRE(gs.list[0].input == 0);
  REQUIRE(gs.list[1].input == 1);
  REQUIRE(gs.list[1].output == 0);
}

TEST_CASE("voq: max_concurrent_reads 2 lets one input feed two outputs at once, not three") {
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(3), 1, 2);
  REQUIRE(x.enqueue(0, 0, 0, pk.make(), any_room));
  REQUIRE(x.enqueue(0, 1, 0, pk.make(), any_room));
  REQUIRE_FALSE(x.enqueue(0, 2, 0, pk.make(), any_room));
  REQUIRE(x.reads(0) == 2);
  const auto gs = x.after_release(0, 1, any_room);  // output 1 has nothing; the input takes output 2
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].output == 2);
}

TEST_CASE("voq: a queue whose output VL has no room waits without blocking another VL, and goes when room is freed") {
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(2), 2, 1);
  bool vl0_room = false;
  const auto room = [&](unsigned, unsigned vl, uint32_t) { return vl != 0 || vl0_room; };
  REQUIRE_FALSE(x.enqueue(0, 1, 0, pk.make(), room));
  const auto g = x.enqueue(1, 1, 1, pk.make(), room);  // VL1 of the same output goes
  REQUIRE(g);
  REQUIRE(g->out_vl == 1);
  REQUIRE(x.after_release(1, 1, room).count == 0);
  vl0_room = true;
  const auto later = x.after_room(1, room);
  REQUIRE(later);
  REQUIRE(later->input == 0);
  REQUIRE(later->out_vl == 0);
}

TEST_CASE("voq: VL15 goes first, then the output's VL arbitration weights decide between data VLs") {
  link::VlArbConfig c;
  c.low = {{0, 1}, {1, 3}};  // per turn, one 64-byte block of VL0 and three of VL1
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(2, c), 2, 1);
  // Input 0 holds output 1 while the others queue up.
  REQUIRE(x.enqueue(0, 1, 0, pk.make(64), any_room));
  for (int k = 0; k < 8; ++k) {
    x.enqueue(1, 1, 0, pk.make(64), any_room);
    x.enqueue(0, 1, 1, pk.make(64), any_room);
  }
  x.enqueue(1, 1, 15, pk.make(64), any_room);
  std::vector<unsigned> vls;
  unsigned in = 0;
  for (int k = 0; k < 9; ++k) {
    const auto gs = x.after_release(in, 1, any_room);
    REQUIRE(gs.count >= 1);
    in = gs.list[0].input;
    vls.push_back(gs.list[0].out_vl);
  }
  REQUIRE(vls.front() == 15);
  // After VL15, the tables' turns: 3 blocks of VL1 for each one of VL0.
  REQUIRE(vls == std::vector<unsigned>{15, 1, 1, 1, 0, 1, 1, 1, 0});
}

TEST_CASE("voq: queued bytes per input and per (output, VL) follow the packets in and out") {
  VoqPackets pk;
  VoqCrossbar x(voq_outputs(2), 1, 1);
  x.enqueue(0, 1, 0, pk.make(100), any_room);  // goes at once
  x.enqueue(0, 1, 0, pk.make(200), any_room);
  x.enqueue(0, 0, 0, pk.make(300), any_room);  // input 0 busy: waits
  REQUIRE(x.queued_bytes(0) == 500);
  REQUIRE(x.bytes_for(1, 0) == 200);
  REQUIRE(x.bytes_for(0, 0) == 300);
  const auto gs = x.after_release(0, 1, any_room);  // output 1 takes the 200 B one again
  REQUIRE(gs.count == 1);
  REQUIRE(gs.list[0].packet->wire_len == 200);
  REQUIRE(x.queued_bytes(0) == 300);
  REQUIRE(x.bytes_for(1, 0) == 0);
}

TEST_CASE("voq: a crossbar needs 1..254 ports, at least one read and 1..15 data VLs") {
  REQUIRE_THROWS_AS(VoqCrossbar(voq_outputs(0), 1, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(VoqCrossbar(voq_outputs(255), 1, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(VoqCrossbar(voq_outputs(2), 1, 0), std::invalid_argument);
  REQUIRE_THROWS_AS(VoqCrossbar(voq_outputs(2), 0, 1), std::invalid_argument);
  REQUIRE_THROWS_AS(VoqCrossbar(voq_outputs(2), 16, 1), std::invalid_argument);
  REQUIRE_NOTHROW(VoqCrossbar(voq_outputs(254), 15, 16));
}
