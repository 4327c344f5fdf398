#include "models/config/hca_settings.hpp"

namespace hcasim::config {

HcaSettings preset_settings(HcaPreset preset) {
  HcaSettings s;
  s.preset = preset;
  if (preset == HcaPreset::Ideal) {
    s.host.pcie.ideal = true;
    s.host.memory.latency_ps = 0;
    s.host.memory.bandwidth_bps = 0;
    host::DriverConfig& d = s.host.driver;
    d.post_ps = d.doorbell_ps = d.blueflame_ps = d.poll_ps = d.interrupt_ps = 0;
    for (hca::ContextCacheConfig* c : {&s.hca.caches.qpc, &s.hca.caches.cqc, &s.hca.caches.mpt, &s.hca.caches.mtt,
                                     &s.hca.caches.wqe})
      c->perfect = true;
  }
  return s;
}

}  // namespace hcasim::config
