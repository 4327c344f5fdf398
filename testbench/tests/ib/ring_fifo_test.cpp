#include <catch2/catch.hpp>

#include <vector>

#include "models/ib/ring_fifo.hpp"

using hcasim::ib::RingFifo;

TEMPLATE_TEST_CASE("RingFifo keeps FIFO order across wrap-around and growth", "[ib][fifo]",
                   (RingFifo<int, 1>), (RingFifo<int, 3>), (RingFifo<int, 4>)) {
  TestType q;
  REQUIRE(q.empty());
  int next_in = 0, next_out = 0;
  // Uneven push/pop runs wrap the ring and grow it while it holds elements.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) q.push_back(next_in++);
    for (int i = 0; i < round % 5 + 1 && !q.empty(); ++i) {
      REQUIRE(q.front() == next_out++);
      q.pop_front();
    }
    REQUIRE(q.size() == static_cast<std::size_t>(next_in - next_out));
  }
  std::vector<int> rest;
  q.for_each([&](int v) { rest.push_back(v); });
  REQUIRE(rest.size() == q.size());
  for (std::size_t i = 0; i < rest.size(); ++i) REQUIRE(rest[i] == next_out + static_cast<int>(i));
}

TEST_CASE("RingFifo wraps around its inline slots in FIFO order", "[ib][fifo]") {
  RingFifo<int, 3> q;
  for (int round = 0; round < 10; ++round) {
    for (int i = 0; i < 3; ++i) q.push_back(round * 3 + i);
    for (int i = 0; i < 3; ++i) {
      REQUIRE(q.front() == round * 3 + i);
      q.pop_front();
    }
  }
  REQUIRE(q.empty());
}

TEST_CASE("RingFifo indexes from the oldest element across growth", "[ib][fifo]") {
  RingFifo<int, 2> q;
  for (int i = 0; i < 3; ++i) q.push_back(i);
  q.pop_front();
  for (int i = 3; i < 9; ++i) q.push_back(i);  // wraps, then grows
  REQUIRE(q.size() == 8);
  for (std::size_t i = 0; i < q.size(); ++i) CHECK(q[i] == static_cast<int>(i) + 1);
  CHECK(q.back() == 8);
  q[0] = 42;
  CHECK(q.front() == 42);
  q.clear();
  CHECK(q.empty());
}
