#include "models/config/dma_workload_config.hpp"

#include "models/config/scenario.hpp"
#include "models/config/units.hpp"

namespace hcasim::config {

void check_dma_tests(Scenario& s) {
  for (std::size_t i = 0; i < s.workload.dma.size(); ++i) {
    DmaTestConfig& t = s.workload.dma[i];
    const std::string at = "workload.dma." + std::to_string(i);
    if (t.name.empty()) t.name = "dma" + std::to_string(i);
    bool found = false;
    for (const topology::TopoNode& n : s.graph.nodes) found = found || (n.kind == topology::NodeKind::Hca && n.name == t.hca);
    if (!found) throw ConfigError(at + ".hca", "no HCA named '" + t.hca + "'; accepted: an HCA of the topology");
    if (t.window < t.size)
      throw ConfigError(at + ".window", format_bytes(t.window) + " is smaller than size " + format_bytes(t.size) +
                                            "; accepted: at least one transfer's size");
    if (t.count == 0 && s.run.duration_ps == 0)
      throw ConfigError(at + ".count", "0 runs until run.duration, which is 0; accepted: a count above 0, or set "
                                       "run.duration");
  }
}

}  // namespace hcasim::config
