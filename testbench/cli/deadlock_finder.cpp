#include "testbench/cli/deadlock_finder.hpp"

#include <unordered_map>

#include "models/link/credits.hpp"
#include "models/routing/credit_loops.hpp"

namespace hcasim {

std::vector<std::string> find_deadlock(const fabric::Fabric& f) {
  constexpr uint32_t kVls = 16;  // node = port index * 16 + VL
  std::unordered_map<const link::Port*, uint32_t> index;
  for (uint32_t i = 0; i < f.ports().size(); ++i) index.emplace(f.ports()[i], i);
  std::vector<uint64_t> edges;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    const sw::Switch& sw = f.switch_at(s);
    for (const sw::Switch::HeadRequest& r : sw.head_requests()) {
      const link::Port& out = sw.port(r.out_port);
      const link::Port* peer = out.peer();
      const uint32_t head = out.tx_head_blocks(r.out_vl);
      if (peer == nullptr || r.out_vl >= link::kVl15 || out.tx_has_room(r.out_vl, r.bytes) || head == 0) continue;
      if (peer->rx_capacity_blocks(r.out_vl) - peer->rx_used_blocks(r.out_vl) >= head) continue;  // credits coming
      const auto from = index.find(&sw.port(r.in_port)), to = index.find(peer);
      if (from == index.end() || to == index.end()) continue;
      edges.push_back(uint64_t{from->second * kVls + r.in_vl} << 32 | (to->second * kVls + r.out_vl));
    }
  }
  std::vector<std::string> cycle;
  for (uint32_t node : routing::find_cycle(static_cast<uint32_t>(f.ports().size()) * kVls, edges))
    cycle.push_back(std::string(f.ports()[node / kVls]->name()) + " VL " + std::to_string(node % kVls));
  return cycle;
}

}  // namespace hcasim
