#include "testbench/rtl/cosim.hpp"

#include <algorithm>

namespace hcasim::rtl {

bool wants_rtl(const std::vector<link::Port*>& ports) {
  return std::any_of(ports.begin(), ports.end(), [](const link::Port* p) {
    return p->config().vl_arbiter != link::Implementation::Model ||
           p->config().credit_manager != link::Implementation::Model;
  });
}

Cosim::Cosim(const std::vector<link::Port*>& ports, const CosimBlocks& blocks, const std::string& vcd_path) {
  if (!vcd_path.empty()) waves_ = std::make_unique<RtlWaves>("rtl_waves", vcd_path);
  for (link::Port* p : ports) {
    const link::PortConfig& c = p->config();
    if (c.vl_arbiter == link::Implementation::Model && c.credit_manager == link::Implementation::Model) continue;
    std::string name = "rtl_" + std::string(p->name());
    std::replace(name.begin(), name.end(), '.', '_');
    ports_.push_back(std::make_unique<PortCosim>(name.c_str(), *p, blocks, waves_.get(), verdict_));
  }
}

}  // namespace hcasim::rtl
