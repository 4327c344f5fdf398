// Completion queue: FIFO order, fixed depth, overrun puts the CQ in error.
#include <catch2/catch.hpp>

#include <vector>

#include "models/hca/completion_queue.hpp"

using hcasim::hca::CompletionQueue;
using hcasim::transport::WorkCompletion;

namespace {
WorkCompletion wc(uint64_t id) {
  WorkCompletion w;
  w.wr_id = id;
  return w;
}
}  // namespace

TEST_CASE("poll hands out completions oldest first") {
  CompletionQueue cq(16);
  for (uint64_t i = 0; i < 10; ++i) REQUIRE(cq.push(wc(i)));
  REQUIRE(cq.size() == 10);
  std::vector<WorkCompletion> out;
  REQUIRE(cq.poll(4, out) == 4);
  REQUIRE(cq.poll(100, out) == 6);
  REQUIRE(cq.poll(1, out) == 0);
  REQUIRE(out.size() == 10);
  for (uint64_t i = 0; i < 10; ++i) REQUIRE(out[i].wr_id == i);
  REQUIRE(cq.empty());
}

TEST_CASE("FIFO order holds while the ring wraps") {
  CompletionQueue cq(5);
  std::vector<WorkCompletion> out;
  uint64_t next_in = 0;
  uint64_t next_out = 0;
  for (int round = 0; round < 50; ++round) {
    while (cq.size() < 5) REQUIRE(cq.push(wc(next_in++)));
    out.clear();
    cq.poll(static_cast<uint32_t>(round % 5 + 1), out);
    for (const auto& w : out) REQUIRE(w.wr_id == next_out++);
  }
  REQUIRE_FALSE(cq.overrun());
}

TEST_CASE("a push onto a full CQ is an overrun and the CQ stays in error") {
  CompletionQueue cq(3);
  for (uint64_t i = 0; i < 3; ++i) REQUIRE(cq.push(wc(i)));
  REQUIRE_FALSE(cq.overrun());
  REQUIRE_FALSE(cq.push(wc(3)));
  REQUIRE(cq.overrun());
  std::vector<WorkCompletion> out;
  REQUIRE(cq.poll(10, out) == 3);  // what it held is still handed out
  REQUIRE(out.back().wr_id == 2);
  REQUIRE_FALSE(cq.push(wc(4)));   // in error: no more completions
  REQUIRE(cq.size() == 0);
}

TEST_CASE("an idle CQ is small") {
  CompletionQueue cq(4096);
  REQUIRE(sizeof(cq) <= 48);
  REQUIRE(cq.depth() == 4096);
  REQUIRE_THROWS(CompletionQueue(0));
}
