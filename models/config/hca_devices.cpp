#include "models/config/hca_devices.hpp"

#include "models/config/hca_settings.hpp"
#include "models/config/transport_config_io.hpp"

namespace hcasim::config {

const std::vector<DeviceModel>& device_models() {
  static const std::vector<DeviceModel> models{
      {HcaDevice::Generic, "generic", "no device: the defaults (a realistic HDR-era HCA on PCIe Gen4 x16) or the preset",
       "docs/host-interface.md"},
      {HcaDevice::ConnectIb, "connect-ib",
       "Mellanox Connect-IB (FDR 4x, PCIe Gen3 x16): rdma_bench's rc-swarm curves (Kalia et al. 2016)",
       "docs/devices/connect-ib.md"},
      {HcaDevice::ConnectX3, "connectx-3",
       "Mellanox ConnectX-3 (FDR 4x, PCIe Gen3 x8): rdma_bench's rc-swarm curves on the Apt cluster",
       "docs/devices/connectx-3.md"},
  };
  return models;
}

const Names<HcaDevice>& device_names() {
  static const Names<HcaDevice> names = [] {
    Names<HcaDevice> n;
    for (const DeviceModel& m : device_models()) n.emplace_back(m.name, m.device);
    return n;
  }();
  return names;
}

namespace {

// The devices were fitted with 16 misses in flight in the QPC and WQE caches and an LRU QPC
// cache, the generic HCA's until 64 and random replacement removed its cliffs past 512 QPs
// (hca_config.hpp); the devices keep them (docs/devices/README.md).
void keep_fitted_miss_handling(hca::ContextCachesConfig& caches) {
  caches.qpc.mshrs = 16;
  caches.qpc.replacement = hca::Replacement::Lru;
  caches.wqe.mshrs = 16;
}

}  // namespace

void apply_device(HcaDevice d, HcaSettings& s) {
  hca::ContextCachesConfig& caches = s.hca.caches;
  if (d != HcaDevice::Generic) keep_fitted_miss_handling(caches);
  switch (d) {
    case HcaDevice::Generic: return;
    case HcaDevice::ConnectIb:  // docs/devices/connect-ib.md gives each value's source
      s.host.pcie.gen = 3;
      s.host.pcie.lanes = 16;
      caches.qpc.entries = 4096;
      caches.cqc.entries = 4096;
      caches.qpc_l1.store.entries = 168;
      caches.qpc_l1.store.ways = 0;
      caches.qpc_l1.load_ps = 26'000;
      caches.wqe.entries = 4096;
      s.hca.wqe_reads_kept = 4;
      return;
    case HcaDevice::ConnectX3:  // docs/devices/connectx-3.md
      s.host.pcie.gen = 3;
      s.host.pcie.lanes = 8;
      caches.qpc_l1.store.entries = 96;
      caches.qpc_l1.store.ways = 12;
      caches.qpc_l1.store.replacement = hca::Replacement::Random;
      caches.qpc_l1.index = hca::SetIndex::Hashed;
      caches.qpc_l1.load_ps = 420'000;
      return;
  }
}

void apply_device(HcaDevice d, transport::TransportConfig& t) {
  switch (d) {
    case HcaDevice::Generic: return;
    case HcaDevice::ConnectIb: t.wqe_parse_ps = 40'000; return;
    case HcaDevice::ConnectX3: t.tx_units = 1; return;
  }
}

bool same_transport(HcaDevice a, HcaDevice b) {
  transport::TransportConfig ta, tb;
  apply_device(a, ta);
  apply_device(b, tb);
  return write_config(ta) == write_config(tb);
}

std::string devices_reference() {
  std::string out = "## HCA devices (`hca.device`)\n\n| device | what it is | values and sources |\n| --- | --- | --- |\n";
  for (const DeviceModel& m : device_models())
    out += std::string("| `") + m.name + "` | " + m.summary + " | " + m.page + " |\n";
  return out;
}

}  // namespace hcasim::config
