#pragma once
// A scenario file: topology, routing, port / switch / link parameters
// (defaults plus overrides), the workload, run settings and outputs. Read
// strictly (every error names its JSON path and what is accepted), resolved
// (every default made explicit) and turned into the FabricSpec the builder takes.
//
// Rules:
// - Port and link overrides name ports; a name may hold '*' and '?' wildcards
//   ("sw1_*.p*") and must match at least one port. Later entries win.
// - A link's parameters: the link defaults, then what the topology itself says
//   about that link (explicit or imported fabrics), then link_overrides naming
//   either of its ports. An override's key replaces that key's whole value
//   ("faults" included: its object is read over the fault defaults).
// - Link faults: a faults.seed of 0 becomes run.seed in the FabricSpec; each
//   port then mixes in its own name, so every link direction has its own stream.
// - A topology key that does not apply to the chosen pattern is an error.
// - "transport" configures the transport engines of every HCA; "hca" and
//   "hca_overrides" their host sides (hca_settings.hpp).
// - "management": pre-configured (tables at time zero) or in band (the SM on
//   management.sm sweeps and programs the fabric; workloads start when it is
//   done, their start times counted from then).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "models/config/dma_workload_config.hpp"
#include "models/config/fabric_spec.hpp"
#include "models/config/link_config_io.hpp"
#include "models/config/congestion_control_config.hpp"
#include "models/config/management_config.hpp"
#include "models/config/raw_traffic_settings.hpp"
#include "models/config/verbs_workload_config.hpp"
#include "models/routing/routing.hpp"
#include "models/switch/adaptive_router.hpp"
#include "models/switch/switch_config.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::config {

enum class Pattern { BackToBack, SingleSwitch, FatTree, Mesh, Torus, Dragonfly, Explicit, Ibnetdiscover };

struct TopologyConfig {
  Pattern pattern = Pattern::BackToBack;
  uint32_t hosts = 8;              // single_switch: HCAs on the switch
  uint32_t switch_ports = 0;       // single_switch: switch ports; 0 = hosts
  uint32_t k = 4;                  // fat_tree: k-ary n-tree arity (switches have 2k ports)
  uint32_t levels = 2;             // fat_tree: n, 2 or 3
  uint32_t x = 4, y = 4;           // mesh, torus: switches per dimension
  uint32_t hosts_per_switch = 1;   // mesh, torus
  uint32_t a = 4, p = 2, h = 2;    // dragonfly: routers per group, hosts per router, global links per router
  topology::Topology graph;                  // explicit: nodes and links
  std::string file;                // ibnetdiscover file, or explicit JSON file of nodes and links
};

// routing.adaptive (docs/adaptive-routing.md): the switches' adaptive routing.
struct AdaptiveSettings {
  sw::ArMode mode = sw::ArMode::Off;
  std::vector<uint32_t> sls;       // SLs routed adaptively; [] = all 16
  sw::ArChoice choice = sw::ArChoice::LeastQueued;
  uint32_t k = 2;                  // least_queued_of_k: ports drawn
  uint64_t ageing_ps = 30'000'000; // bounded: a flow idle this long chooses again
};

struct RoutingSettings {
  routing::EngineChain algorithm;  // one engine, or OpenSM's chain
  std::vector<std::string> roots;  // updown: root switch names; [] = automatic
  routing::TieBreak tie_break = routing::TieBreak::LowestPort;  // among equally loaded min-hop ports
  uint32_t lmc = 0;                // LIDs per HCA port = 2^lmc
  uint32_t lash_start_vl = 0;      // lash: its first SL (OpenSM's lash_start_vl)
  uint32_t nue_max_num_vls = 1;    // nue: its virtual layers; 0 = every operational VL (OpenSM's nue_max_num_vls)
  bool nue_include_switches = false;  // nue: switches are destinations in its layers (OpenSM's nue_include_switches)
  bool check_credit_loops = true;  // run the credit-loop check before a run (validate always does)
  AdaptiveSettings adaptive;       // the switches' adaptive routing; off by default
  std::string root_guid_file;      // ftree: OpenSM's root_guid_file (switch NodeGUIDs); "" = none
  std::string cn_guid_file;        // ftree: OpenSM's cn_guid_file (compute-node port GUIDs); "" = none
  std::string io_guid_file;        // ftree: OpenSM's io_guid_file (I/O-node port GUIDs); "" = none
};

struct Sl2VlRule {
  std::string switch_name = "*";   // switch name, wildcards allowed
  std::vector<uint32_t> in;        // input port numbers (0 = management); [] = all
  std::vector<uint32_t> out;       // output port numbers; [] = all
  std::vector<uint32_t> sl2vl;     // 16 VLs indexed by SL (15 = drop)
};

struct SwitchSettings {
  sw::SwitchConfig core;
  std::vector<Sl2VlRule> sl2vl;    // per (input, output) tables on top of each output port's own sl2vl
};

struct PortOverride {
  std::string port;            // port name (wildcards allowed), e.g. "hca1.p1"
  link::PortConfig config;     // the scenario's port defaults with this entry's keys on top
};

struct HcaOverride {
  std::string hca;             // HCA name (wildcards allowed), e.g. "hca1"
  HcaSettings config;          // the scenario's hca settings (or the entry's preset) with this entry's keys on top
};

struct LinkOverride {
  std::string port;            // a port on the link (wildcards allowed)
  link::LinkConfig config;     // the link defaults with this entry's keys on top
  nlohmann::json keys;         // the keys this entry sets (applied over the topology's own link parameters)
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
  uint32_t sl = 0;             // service level 0-15, or kPathSl (service_level.hpp)
  bool vl15 = false;           // management packets on VL15 to QP0 (SL ignored)
  uint64_t payload = 4096;     // payload bytes per packet
  FlowRate rate;               // "saturate", a rate, or a percentage of the link
  SourceSettings source;       // rate-limited: arrivals and source queue
  uint64_t count = 0;          // packets; 0 = until run.duration
  uint64_t start_ps = 0;       // first packet time
};

enum class TrafficKind { Uniform, Permutation, Incast, AllToAll, HotSpot, Shift };

struct TrafficPatternConfig {
  std::string name;                  // "" = "pattern<index>"; flows are named "<name>.<source port>"
  TrafficKind kind = TrafficKind::Uniform;
  std::vector<std::string> hosts;    // HCA ports taking part (wildcards allowed); [] = every HCA port
  std::vector<std::string> targets;  // incast: the receivers; hotspot: the hot ports
  double hot_fraction = 0.5;         // hotspot: share of packets sent to the hot ports
  uint32_t shift = 1;                // shift: host i sends to host i + shift (mod the hosts)
  uint32_t sl = 0;                   // 0-15, or kPathSl (service_level.hpp)
  uint64_t payload = 4096;
  FlowRate rate;                     // per source
  SourceSettings source;             // rate-limited: arrivals and source queue of each source
  uint64_t count = 0;                // packets per source; 0 = until run.duration
  uint64_t start_ps = 0;
};

struct WorkloadConfig {
  std::vector<FlowConfig> flows;
  std::vector<TrafficPatternConfig> patterns;
  std::vector<PerftestConfig> perftest;        // perftest-like tests over the verbs API
  std::vector<SwarmConfig> swarm;              // rdma_bench's rc-swarm: all-to-all RDMA over many QPs
  std::vector<VerbsConnectionConfig> verbs;    // verbs scripts: connections with operations and expectations
  std::vector<DmaTestConfig> dma;              // DMA tests of an HCA's PCIe link and host memory (pcie-bench)
};

constexpr uint32_t kMaxPartitions = 64;  // run.partitions

struct RunConfig {
  uint64_t duration_ps = 0;    // 0 = until every flow is done and the fabric is idle
  uint64_t seed = 1;           // random seed: traffic patterns' destinations, link faults (faults.seed 0)
  uint32_t partitions = 1;     // parallel simulation: parts of the fabric on their own timelines (1 = none)
  uint64_t memory_limit = 0;   // bytes a scenario's model may need (resource_limits.hpp); 0 = the machine's memory
  MeasureSettings measure;     // warm-up, measured window, drain
};

// Where a run's detail goes (testbench/cli/details_output.hpp, docs/results.md).
enum class DetailsOutput { Db, Json, Both, None };
// details.json holds every object in full: for fabrics of at most this many ports and flows together.
constexpr uint64_t kDetailsJsonLimit = 20000;

struct OutputConfig {
  DetailsOutput details = DetailsOutput::Db;  // results.db, details.json, both or neither
  bool pcap = false;                    // write packets.pcap
  std::vector<std::string> pcap_ports;  // ports whose transmissions are captured; [] = all
  bool vcd = false;                     // write waves.vcd
  bool rtl_vcd = false;                 // write rtl.vcd (ports with RTL blocks)
  uint64_t sample_interval_ps = 0;      // write timeseries.csv, a row set per this interval, ps; 0 = none
  bool hop_latency = false;             // per switch port: latency from arrival at the switch to departure
  bool routing_dump = false;            // write opensm-lfts.dump, opensm-subnet.lst, opensm-sl2vl.dump
};

struct Scenario {
  std::string name = "scenario";
  TopologyConfig topology;
  RoutingSettings routing;
  link::PortConfig port;                // defaults for every port
  std::vector<PortOverride> port_overrides;
  SwitchSettings switches;
  link::LinkConfig link;                // defaults for every link
  std::vector<LinkOverride> link_overrides;
  transport::TransportConfig transport; // every HCA's transport engines
  HcaSettings hca;                      // every HCA's host side
  std::vector<HcaOverride> hca_overrides;
  WorkloadConfig workload;
  ManagementConfig management;
  CongestionControlConfig congestion_control;  // off by default
  std::vector<link::LinkEventConfig> link_events;  // links taken down and up at times (link/link_events.hpp)
  RunConfig run;
  OutputConfig outputs;

  // Derived by load_scenario, not read from the file.
  topology::Topology graph;                       // the topology as a graph
  mgmt::PartitionsSpec partitions;                // management.partitions, its rules parsed
  routing::FtreeGuids ftree_guids;                // routing.*_guid_file, read
};

// Reads and checks a whole scenario. A relative topology.file is taken from
// base_dir (the scenario file's folder). Throws ConfigError.
Scenario load_scenario(const nlohmann::json& root, const std::string& base_dir = "");
// The scenario with every default explicit; reads back to the same scenario.
nlohmann::json resolved_json(const Scenario& s);
// Port names of the topology, in node and port order.
std::vector<std::string> port_names(const Scenario& s);
// The HCA port names, in node and port order.
std::vector<std::string> hca_port_names(const Scenario& s);
// The config of a named port (defaults, then matching overrides).
link::PortConfig port_config(const Scenario& s, const std::string& port);
// The host side of a named HCA (the hca defaults, then matching hca_overrides).
HcaSettings hca_settings(const Scenario& s, const std::string& hca);

// The scenario's fabric: graph, LIDs, routes and the spec the builder takes.
struct RoutedFabric {
  routing::Lids lids;
  routing::Routes routes;
  FabricSpec spec;
};
// Throws ConfigError (path "routing" or "topology") when the fabric cannot be routed or built.
RoutedFabric route_fabric(const Scenario& s);
FabricSpec fabric_spec(const Scenario& s);
// Markdown table of every scenario parameter with its default.
std::string scenario_reference();
// The JSON Schema (draft 2020-12) of a scenario file: the parameter descriptions of
// scenario_reference, plus what load_scenario checks beyond them where a schema can say it.
nlohmann::json scenario_schema();
// The top-level key naming a scenario's JSON Schema, for editors; load_scenario ignores it.
inline constexpr const char* kSchemaKey = "$schema";

}  // namespace hcasim::config
