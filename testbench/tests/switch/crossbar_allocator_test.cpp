// The crossbar allocator's rules (crossbar_allocator.hpp), driven directly.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "models/switch/crossbar_allocator.hpp"

using namespace hcasim::sw;
using Grant = CrossbarAllocator::Grant;

namespace {
const auto always = [](unsigned, unsigned, unsigned) { return true; };
}  // namespace

TEST_CASE("8 always-requesting inputs to one output: each gets exactly 1/8 of 8k grants") {
  CrossbarAllocator a(8, 1);
  std::map<unsigned, unsigned> got;
  std::optional<Grant> current;
  for (unsigned i = 0; i < 8; ++i) {
    a.request(i, 0, 0);
    if (auto g = a.after_request(i, 0, always)) current = g;
  }
  REQUIRE(current);
  for (int n = 0; n < 8000; ++n) {
    ++got[current->input];
    a.request(current->input, 0, 0);  // its next packet is there at once
    const auto gs = a.after_release(current->input, 0, always);
    REQUIRE(gs.count == 1);
    current = gs.list[0];
  }
  for (unsigned i = 0; i < 8; ++i) REQUIRE(got[i] == 1000);
}

TEST_CASE("grants rotate in input order - the pointer moves past the granted requester") {
  CrossbarAllocator a(4, 1);
  for (unsigned i = 0; i < 4; ++i) a.request(i, 2, 0);
  std::vector<unsigned> order;
  for (int n = 0; n < 8; ++n) {
    auto g = a.pick_for_output(0, always);
    REQUIRE(g);
    a.grant(*g);
    order.push_back(g->input);
    a.release(g->input, 0);
    a.request(g->input, 2, 0);
  }
  REQUIRE(order == std::vector<unsigned>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("an ineligible requester is skipped and served within one round once eligible again") {
  CrossbarAllocator a(8, 1);
  for (unsigned i = 0; i < 8; ++i) a.request(i, 0, 0);
  bool three_ok = false;
  const auto ok = [&](unsigned in, unsigned, unsigned) { return in != 3 || three_ok; };
  auto serve = [&]() {
    auto g = a.pick_for_output(0, ok);
    REQUIRE(g);
    a.grant(*g);
    a.release(g->input, 0);
    a.request(g->input, 0, 0);
    return g->input;
  };
  for (int n = 0; n < 20; ++n) REQUIRE(serve() != 3);
  three_ok = true;
  // Input 3 is at most 7 grants away, whatever the pointer.
  int waited = 0;
  while (serve() != 3) ++waited;
  REQUIRE(waited <= 7);
  // And from then on it keeps its 1/8.
  std::map<unsigned, int> got;
  for (int n = 0; n < 800; ++n) ++got[serve()];
  REQUIRE(got[3] == 100);
}

TEST_CASE("a full output VL does not block the input's other VLs (VL isolation)") {
  CrossbarAllocator a(1, 2);
  a.request(0, 0, 0);  // VL0 -> output 0, which has no room
  a.request(0, 1, 1);  // VL1 -> output 1
  const auto room = [](unsigned, unsigned, unsigned out) { return out != 0; };
  REQUIRE_FALSE(a.after_request(0, 0, room));
  auto g = a.after_request(0, 1, room);
  REQUIRE(g);
  REQUIRE(g->vl == 1);
  REQUIRE(g->output == 1);
  REQUIRE(a.input_busy(0));
  REQUIRE(a.output_busy(1));
  REQUIRE_FALSE(a.output_busy(0));
  REQUIRE(a.requesting(0, 0));
  REQUIRE_FALSE(a.requesting(0, 1));
}

TEST_CASE("an input's VLs take turns even when one output always wants it back") {
  // Input 0: VL0 -> output 0 (its only requester) and VL1 -> output 1.
  CrossbarAllocator a(1, 2);
  a.request(0, 0, 0);
  a.request(0, 1, 1);
  auto g = a.after_request(0, 0, always);
  REQUIRE(g);
  std::map<unsigned, int> by_vl;
  for (int n = 0; n < 100; ++n) {
    ++by_vl[g->vl];
    a.request(0, g->vl, g->output);
    const auto gs = a.after_release(0, g->output, always);
    REQUIRE(gs.count == 1);
    g = gs.list[0];
  }
  REQUIRE(by_vl[0] == 50);
  REQUIRE(by_vl[1] == 50);
}

TEST_CASE("a transfer end frees both sides: the output takes another input and the input another output") {
  CrossbarAllocator a(2, 2);
  a.request(0, 0, 0);
  auto first = a.after_request(0, 0, always);
  REQUIRE(first);
  a.request(1, 0, 0);  // waits for output 0
  a.request(0, 1, 1);  // waits for input 0
  REQUIRE_FALSE(a.after_request(1, 0, always));
  REQUIRE_FALSE(a.after_request(0, 1, always));
  const auto gs = a.after_release(0, 0, always);
  REQUIRE(gs.count == 2);
  REQUIRE(gs.list[0].input == 1);
  REQUIRE(gs.list[0].output == 0);
  REQUIRE(gs.list[1].input == 0);
  REQUIRE(gs.list[1].output == 1);
}

TEST_CASE("room freed at an output grants its next eligible requester") {
  CrossbarAllocator a(3, 1);
  bool room = false;
  const auto ok = [&](unsigned, unsigned, unsigned) { return room; };
  for (unsigned i = 0; i < 3; ++i) {
    a.request(i, 4, 0);
    REQUIRE_FALSE(a.after_request(i, 4, ok));
  }
  REQUIRE(a.requests_for(0) == 3);
  room = true;
  auto g = a.after_room(0, ok);
  REQUIRE(g);
  REQUIRE(g->input == 0);
  REQUIRE(g->vl == 4);
  REQUIRE(a.requests_for(0) == 2);
  REQUIRE_FALSE(a.after_room(0, ok));  // busy until the transfer ends
}

TEST_CASE("64 inputs x 16 VLs: requester ids across many mask words rotate fairly") {
  CrossbarAllocator a(64, 1);
  for (unsigned i = 0; i < 64; ++i) a.request(i, i % 16, 0);
  std::map<unsigned, int> got;
  for (int n = 0; n < 64 * 10; ++n) {
    auto g = a.pick_for_output(0, always);
    REQUIRE(g);
    a.grant(*g);
    ++got[g->input];
    a.release(g->input, 0);
    a.request(g->input, g->vl, 0);
  }
  REQUIRE(got.size() == 64);
  for (const auto& [in, n] : got) REQUIRE(n == 10);
}
