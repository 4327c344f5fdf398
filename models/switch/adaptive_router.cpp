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
  set_settings(config);
  if (groups_.ports.empty()) groups_.ports.emplace_back();  // group 0: none
  if (groups_.ports.size() > kArGroupCap)
    throw std::invalid_argument(std::to_string(groups_.ports.size()) + " AR groups; accepted: at most " +
                                std::to_string(kArGroupCap));
  next_start_.assign(groups_.ports.size(), 0);
  for (std::size_t g = 1; g < groups_.ports.size(); ++g)
    if (groups_.ports[g].empty()) throw std::invalid_argument("AR group " + std::to_string(g) + " has no port");
  for (uint16_t g : groups_.of_lid)
    if (g >= groups_.ports.size())
      throw std::invalid_argument("AR group " + std::to_string(g) + " of a LID does not exist");
}

void AdaptiveRouter::set_settings(const AdaptiveRoutingConfig& settings) {
  if (settings.k == 0) throw std::invalid_argument("least_queued_of_k with k 0; accepted: 1 or more");
  const uint64_t seed = config_.seed;
  config_ = settings;
  config_.seed = seed;  // the stream was seeded when the switch was built
  sl_mask_ = config_.mode == ArMode::Off ? 0 : config_.sl_mask;
  flows_.clear();
}

namespace {
void check_group(uint32_t g) {
  if (g >= kArGroupCap)
    throw std::invalid_argument("AR group " + std::to_string(g) + "; accepted: below " + std::to_string(kArGroupCap));
}
}  // namespace

void AdaptiveRouter::reach_group(uint16_t g) {
  if (groups_.ports.size() > g) return;
  groups_.ports.resize(g + 1u);
  next_start_.resize(g + 1u, 0);
}

void AdaptiveRouter::set_group(uint16_t g, std::vector<uint8_t> ports) {
  check_group(g);
  if (g == 0) return;  // "none" has no port
  reach_group(g);
  groups_.ports[g] = std::move(ports);
  next_start_[g] = 0;
}

void AdaptiveRouter::set_lid_groups(uint16_t first_lid, const uint16_t* groups, unsigned count) {
  for (unsigned i = 0; i < count; ++i) check_group(groups[i]);
  if (groups_.of_lid.size() < std::size_t{first_lid} + count) groups_.of_lid.resize(std::size_t{first_lid} + count, 0);
  for (unsigned i = 0; i < count; ++i) {
    groups_.of_lid[first_lid + i] = groups[i];
    reach_group(groups[i]);  // named before its ports: empty, so the LFT routes it
  }
}

}  // namespace hcasim::sw
