#pragma once
// Device models (`hca.device`): the parameter set of a real HCA, applied on
// top of the preset and under the scenario's own keys (which still override
// any value). A device sets what belongs to the HCA: its PCIe interface
// (generation, lanes), its caches and context store, and its transport
// engines' timings. What belongs to the host the measurements were taken on
// (PCIe and memory latency, CPU costs, threads) and to the fabric (link speed,
// switch) stays with the scenario. Each device's values and their sources are
// on its page under docs/devices/.
//
// Rules:
// - "generic": nothing applied (the defaults, or the preset).
// - apply_device(d, settings) changes the host side's device values;
//   apply_device(d, transport) the transport engines' (transport is one object
//   for every HCA, so the scenario-wide hca.device sets it; an hca_overrides
//   entry may name a device only if its transport values are the scenario's).

#include <string>
#include <vector>

#include "models/config/config_io.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::config {

struct HcaSettings;

enum class HcaDevice : uint8_t { Generic, ConnectIb, ConnectX3 };

struct DeviceModel {
  HcaDevice device;
  const char* name;     // the value of hca.device
  const char* summary;  // one line: what it is
  const char* page;     // its documentation
};

const std::vector<DeviceModel>& device_models();
const Names<HcaDevice>& device_names();
void apply_device(HcaDevice d, HcaSettings& s);
void apply_device(HcaDevice d, transport::TransportConfig& t);
// True when two devices set the same transport values.
bool same_transport(HcaDevice a, HcaDevice b);
// The devices as a markdown table (name, summary, page), for hcasim params.
std::string devices_reference();

}  // namespace hcasim::config
