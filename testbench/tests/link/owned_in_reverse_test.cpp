// OwnedInReverse destroys what it owns last-made first, which is the order in
// which SystemC finds each port and export at the back of its registries.
#include <catch2/catch.hpp>

#include <vector>

#include "models/link/owned_in_reverse.hpp"

namespace {
struct Noted {
  Noted(std::vector<int>& log, int id) : log(log), id(id) {}
  ~Noted() { log.push_back(id); }
  std::vector<int>& log;
  int id;
};
}  // namespace

TEST_CASE("owned objects are destroyed last-made first") {
  std::vector<int> destroyed;
  {
    hcasim::link::OwnedInReverse<Noted> owned;
    for (int i = 0; i < 5; ++i) owned.push_back(std::make_unique<Noted>(destroyed, i));
    REQUIRE(owned.size() == 5);
    REQUIRE(owned[2]->id == 2);
  }
  REQUIRE(destroyed == std::vector<int>{4, 3, 2, 1, 0});
}
