#include "testbench/workloads/load_shortfall.hpp"

#include <cmath>

namespace hcasim::workloads {

bool carried_short(uint64_t offered_packets, uint64_t offered_bytes, uint64_t accepted_bytes, double share) {
  if (offered_packets == 0 || offered_bytes == 0) return false;
  const auto offered = static_cast<double>(offered_bytes);
  const auto accepted = static_cast<double>(accepted_bytes);
  if (accepted >= share * offered) return false;
  const double packet = offered / static_cast<double>(offered_packets);
  return offered - accepted > 3 * std::sqrt(static_cast<double>(offered_packets)) * packet;
}

}  // namespace hcasim::workloads
