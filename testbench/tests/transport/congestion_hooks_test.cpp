// The time-ordered set of QPs held back for their injection time
// (congestion_hooks.hpp), without SystemC.
#include <catch2/catch.hpp>

#include <vector>

#include "models/transport/congestion_hooks.hpp"

using namespace hcasim;

TEST_CASE("PacedQueue gives QPs back earliest first - equal times in the order added", "[transport][cc]") {
  transport::PacedQueue q;
  q.add(300, 7);
  q.add(100, 9);
  q.add(300, 4);
  q.add(200, 5);
  REQUIRE(q.next_ps() == 100);
  uint32_t qpn = 0;
  CHECK_FALSE(q.pop_due(99, qpn));
  std::vector<uint32_t> out;
  while (q.pop_due(300, qpn)) out.push_back(qpn);
  CHECK(out == std::vector<uint32_t>{9, 5, 7, 4});
  CHECK(q.empty());
}
