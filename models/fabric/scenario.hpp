#pragma once
// A scenario file: topology, port and link parameters (defaults plus per-port
// overrides), the workload, run settings and outputs. Read strictly (every
// error names its JSON path and what is accepted), resolved (every default
// made explicit) and turned into the FabricSpec the builder takes.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "models/fabric/fabric.hpp"
#include "models/fabric/link_config_io.hpp"

namespace hcasim::fabric {

enum class Pattern { BackToBack };

struct TopologyConfig {
  Pattern pattern = Pattern::BackToBack;  // back_to_back: hca0.p1 <-> hca1.p1
};

struct PortOverride {
  std::string port;            // port name, e.g. "hca1.p1"
  link::PortConfig config;     // the scenario's port defaults with this entry's keys on top
};

struct FlowRate {
  double bps = 0;              // offered rate of packet bytes, b/s
  double load = 0;             // fraction of the source link's rate
  bool saturate() const { return bps == 0 && load == 0; }
};

struct FlowConfig {
  std::string name;            // "" = "flow<index>"
  std::string src = "hca0.p1"; // source port
  std::string dst = "hca1.p1"; // destination port
  uint32_t sl = 0;             // service level 0-15
  bool vl15 = false;           // management packets on VL15 to QP0 (SL ignored)
  uint64_t payload = 4096;     // payload bytes per packet
  FlowRate rate;               // "saturate", a rate, or a percentage of the link
  uint64_t count = 0;          // packets; 0 = until run.duration
  uint64_t start_ps = 0;       // first packet time
};

struct WorkloadConfig {
  std::vector<FlowConfig> flows;
};

struct RunConfig {
  uint64_t duration_ps = 0;    // 0 = until every flow is done and the fabric is idle
  uint64_t seed = 1;           // random seed (recorded; the raw workload is deterministic)
};

struct OutputConfig {
  bool pcap = false;                    // write packets.pcap
  std::vector<std::string> pcap_ports;  // ports whose transmissions are captured; [] = all
  bool vcd = false;                     // write waves.vcd
};

struct Scenario {
  std::string name = "scenario";
  TopologyConfig topology;
  link::PortConfig port;                // defaults for every port
  std::vector<PortOverride> port_overrides;
  link::LinkConfig link;                // defaults for every link
  WorkloadConfig workload;
  RunConfig run;
  OutputConfig outputs;
};

// Reads and checks a whole scenario. Throws ConfigError.
Scenario load_scenario(const nlohmann::json& root);
// The scenario with every default explicit; reads back to the same scenario.
nlohmann::json resolved_json(const Scenario& s);
// Port names of the topology, in node and port order.
std::vector<std::string> port_names(const Scenario& s);
// The config of a named port (its override, or the defaults).
link::PortConfig port_config(const Scenario& s, const std::string& port);
FabricSpec fabric_spec(const Scenario& s);
// Markdown table of every scenario parameter with its default.
std::string scenario_reference();

}  // namespace hcasim::fabric
