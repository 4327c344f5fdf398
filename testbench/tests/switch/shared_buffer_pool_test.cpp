// The shared buffer pool's rules (shared_buffer_pool.hpp), hand-worked.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "models/switch/shared_buffer_pool.hpp"

using hcasim::sw::SharedBufferPool;

TEST_CASE("shared pool: a VL draws alpha / (1 + alpha) of what the others leave, above its reserved share") {
  SharedBufferPool pool(4, 100, 10, 1.0);  // 4 x 10 reserved, 60 shared
  REQUIRE(pool.shared_blocks() == 60);
  REQUIRE(pool.capacity(0) == 10);
  REQUIRE(pool.resize(0, 0) == 10 + 30);  // alone: 60 / 2
  REQUIRE(pool.resize(1, 0) == 10 + 15);  // 30 left: 15
  REQUIRE(pool.resize(0, 0) == 10 + 22);  // 45 left by VL1: floor(22.5)
  REQUIRE(pool.drawn_blocks() == 37);
  REQUIRE(pool.peak_drawn_blocks() == 45);
}

TEST_CASE("shared pool: a VL never drops below what it has committed, whatever the threshold says") {
  SharedBufferPool pool(4, 100, 10, 1.0);
  REQUIRE(pool.resize(0, 0) == 40);
  REQUIRE(pool.resize(1, 0) == 25);  // 30 left: 15
  // VL0's sender used all 40 blocks it was given: the threshold (45 left: 22)
  // would cut it to 32, but 40 are committed.
  REQUIRE(pool.resize(0, 40) == 40);
  REQUIRE(pool.resize(2, 0) == 10 + 7);  // 60 - 30 - 15 = 15 left: floor(7.5)
  REQUIRE(pool.drawn_blocks() <= pool.shared_blocks());
}

TEST_CASE("shared pool: n busy VLs settle at alpha / (1 + n alpha) of the shared space each") {
  for (const double alpha : {0.5, 1.0, 2.0}) {
    INFO("alpha " << alpha);
    SharedBufferPool pool(4, 4 * 10 + 1200, 10, alpha);
    for (int round = 0; round < 60; ++round)
      for (uint32_t vl = 0; vl < 4; ++vl) pool.resize(vl, 0);
    const double each = 1200 * alpha / (1 + 4 * alpha);
    for (uint32_t vl = 0; vl < 4; ++vl) REQUIRE(pool.capacity(vl) - 10 == Approx(each).margin(2));
    REQUIRE(pool.drawn_blocks() <= pool.shared_blocks());
  }
}

TEST_CASE("shared pool: needs an input VL, alpha above 0 and room for every reserved share") {
  REQUIRE_THROWS_AS(SharedBufferPool(0, 100, 10, 1.0), std::invalid_argument);
  REQUIRE_THROWS_AS(SharedBufferPool(4, 100, 10, 0.0), std::invalid_argument);
  REQUIRE_THROWS_AS(SharedBufferPool(4, 39, 10, 1.0), std::invalid_argument);
  REQUIRE_NOTHROW(SharedBufferPool(4, 40, 10, 1.0));
}
