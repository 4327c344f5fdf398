// QP and CQ numbers handed out in turn (cyclic_numbers.hpp): a destroyed number comes back only
// after the whole range has been offered again, and numbers stay inside the range.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <set>

#include "models/transport/cyclic_numbers.hpp"

using hcasim::transport::take_cyclic;

TEST_CASE("cyclic numbers: in turn, a freed one only after the range wraps, in-use ones skipped, nullopt when full") {
  std::set<uint32_t> used;
  const auto in_use = [&](uint32_t n) { return used.count(n) > 0; };
  uint32_t next = 2;
  const auto take = [&] {
    const std::optional<uint32_t> n = take_cyclic(next, 2, 6, in_use);
    if (n) used.insert(*n);
    return n;
  };
  CHECK(take() == 2u);
  CHECK(take() == 3u);
  CHECK(take() == 4u);
  used.erase(2);        // destroyed
  CHECK(take() == 5u);  // not 2: the range has not wrapped yet
  CHECK(take() == 6u);
  CHECK(take() == 2u);  // wrapped: 2 is free again
  CHECK_FALSE(take().has_value());  // 2 to 6 all in use
  used.erase(4);
  CHECK(take() == 4u);  // the only free one, found from wherever the turn is
  used.clear();
  next = 6;
  CHECK(take() == 6u);
  CHECK(take() == 2u);  // after the last comes the first
}

TEST_CASE("cyclic numbers: a QP number's 24 bits: after 0xFFFFFF comes the first again, never 0x1000000") {
  uint32_t next = 0xFFFFFE;
  const auto none = [](uint32_t) { return false; };
  CHECK(take_cyclic(next, 2, 0xFFFFFF, none) == 0xFFFFFEu);
  CHECK(take_cyclic(next, 2, 0xFFFFFF, none) == 0xFFFFFFu);
  CHECK(take_cyclic(next, 2, 0xFFFFFF, none) == 2u);
  next = 0x1000000;  // out of the range (as after a range change): starts again at the first
  CHECK(take_cyclic(next, 2, 0xFFFFFF, none) == 2u);
}
