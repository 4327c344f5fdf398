#include "models/switch/adaptive_router.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace hcasim::sw {

namespace {
constexpr uint64_t kArSalt = 0x6164617074ull;  // "adapt": keeps these streams apart from others seeded alike
}  // namespace

AdaptiveRouter::AdaptiveRouter(const AdaptiveRoutingConfig& config, ArGroupTable groups, uint64_t salt)
    : config_(config), groups_(std::move(groups)),
      rng_{link::splitmix64_mix(link::splitmix64_mix(config.seed ^ kArSalt) + salt)} {
  if (config_.mode == ArMode::Off) throw std::invalid_argument("adaptive router with mode off");
  if (config_.k == 0) throw std::invalid_argument("least_queued_of_k with k 0; accepted: 1 or more");
  if (groups_.ports.empty()) groups_.ports.emplace_back();  // group 0: none
  next_start_.assign(groups_.ports.size(), 0);
  for (std::size_t g = 1; g < groups_.ports.size(); ++g)
    if (groups_.ports[g].empty()) throw std::invalid_argument("AR group " + std::to_string(g) + " has no port");
  for (uint16_t g : groups_.of_lid)
    if (g >= groups_.ports.size())
      throw std::invalid_argument("AR group " + std::to_string(g) + " of a LID does not exist");
}

}  // namespace hcasim::sw
