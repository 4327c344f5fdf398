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

bool operator==(const PortConfig& a, const PortConfig& b) {
  static_assert(sizeof(PortConfig) == 160, "a field was added: compare it here");
  return a.data_vls == b.data_vls && a.operational_vls == b.operational_vls && a.mtu == b.mtu &&
         a.vl_buffer_bytes == b.vl_buffer_bytes && a.vl_buffers == b.vl_buffers &&
         a.vl15_buffer_bytes == b.vl15_buffer_bytes && a.tx_buffer_bytes == b.tx_buffer_bytes && a.sl2vl == b.sl2vl &&
         a.vlarb == b.vlarb && a.drain_rate_bps == b.drain_rate_bps && a.vl_arbiter == b.vl_arbiter &&
         a.credit_manager == b.credit_manager;
}

std::vector<std::shared_ptr<const SharedPortConfig>> share_port_configs(const std::vector<PortConfig>& configs) {
  std::vector<std::shared_ptr<const SharedPortConfig>> shared;
  shared.reserve(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i)
    shared.push_back(i > 0 && configs[i] == configs[i - 1] ? shared.back()
                                                           : std::make_shared<const SharedPortConfig>(configs[i]));
  return shared;
}

}  // namespace hcasim::link
