// OwnedInPlace makes objects side by side and destroys them last-made first,
// which is the order in which SystemC finds each port and export at the back
// of its registries.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "models/link/owned_in_place.hpp"

namespace {
struct Noted {
  Noted(std::vector<int>& log, int id) : log(log), id(id) {}
  ~Noted() { log.push_back(id); }
  std::vector<int>& log;
  int id;
};
}  // namespace

TEST_CASE("objects owned in place sit side by side and are destroyed last-made first") {
  std::vector<int> destroyed;
  {
    hcasim::link::OwnedInPlace<Noted> owned(4);
    for (int i = 0; i < 4; ++i) REQUIRE(owned.emplace_back(destroyed, i).id == i);
    REQUIRE(owned.size() == 4);
    REQUIRE(&owned[3] == &owned[0] + 3);
    REQUIRE_THROWS_AS(owned.emplace_back(destroyed, 4), std::length_error);
    REQUIRE(owned.size() == 4);
  }
  REQUIRE(destroyed == std::vector<int>{3, 2, 1, 0});
}

TEST_CASE("objects owned in place keep the alignment their type asks for") {
  struct alignas(64) Line {
    char byte = 0;
  };
  hcasim::link::OwnedInPlace<Line> owned(3);
  for (int i = 0; i < 3; ++i) owned.emplace_back();
  for (int i = 0; i < 3; ++i) REQUIRE(reinterpret_cast<std::uintptr_t>(&owned[i]) % 64 == 0);
}
