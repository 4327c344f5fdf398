#include "models/link/port_config.hpp"

namespace hcasim::link {

std::array<uint8_t, kSlCount> resolved_sl2vl(const PortConfig& c) {
  std::array<uint8_t, kSlCount> t{};
  for (unsigned sl = 0; sl < kSlCount; ++sl)
    t[sl] = static_cast<uint8_t>(c.sl2vl.empty() ? sl % c.effective_vls() : c.sl2vl[sl]);
  return t;
}

VlArbConfig resolved_vlarb(const PortConfig& c) {
  VlArbConfig v = c.vlarb;
  if (v.high.empty() && v.low.empty())
    for (unsigned vl = 0; vl < c.effective_vls(); ++vl)
      v.low.push_back({static_cast<uint8_t>(vl), 64});
  return v;
}

uint64_t rx_buffer_bytes(const PortConfig& c, unsigned vl) {
  if (vl == kVl15) return c.vl15_buffer_bytes;
  return vl < c.vl_buffers.size() ? c.vl_buffers[vl] : c.vl_buffer_bytes;
}

}  // namespace hcasim::link
