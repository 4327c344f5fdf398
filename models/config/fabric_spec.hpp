#pragma once
// The resolved description of a fabric that the builder (fabric/fabric.hpp)
// turns into modules: nodes with their ports' parameters, links, LIDs, tables
// and how the fabric is managed. A scenario resolves to one
// (config/scenario.hpp: route_fabric); tests and tools write one by hand.
//
// Rules:
// - Nodes are HCAs or switches; links join two ports. Port indices in a
//   FabricSpec are 0-based (index i is IBA port number i + 1).
// - LIDs come with the spec (from the routing library); a spec without them
//   (hand-built, switchless) gets consecutive LIDs from 1 in node order.
// - Both ends of a link operate the same number of data VLs (what a subnet
//   manager sets OperationalVLs to); a port is on at most one link.
// - A switch's SL-to-VL table for (in, out) is the output port's own table
//   (PortConfig::sl2vl) for every input, then the spec's per-pair entries on top.
// - Node GUIDs: the topology's, or (0 = none given) topology::derived_guid(node index).

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/config/congestion_control_config.hpp"
#include "models/config/hca_settings.hpp"
#include "models/link/link_event_config.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/port_config.hpp"
#include "models/mgmt/sa_client.hpp"
#include "models/mgmt/partition_tables.hpp"
#include "models/mgmt/sa_server.hpp"
#include "models/mgmt/subnet_manager.hpp"
#include "models/switch/adaptive_router.hpp"
#include "models/switch/switch_config.hpp"
#include "models/topology/topology.hpp"
#include "models/transport/transport_config.hpp"

namespace hcasim::config {

struct NodeSpec {
  std::string name;
  std::vector<link::PortConfig> ports;  // ports[i] is port number i + 1
  topology::NodeKind kind = topology::NodeKind::Hca;
  sw::SwitchConfig switch_config;       // switches only
  transport::TransportConfig transport; // HCAs only: the transport engines
  HcaSettings hca;                      // HCAs only: the host side (PCIe link, host memory, driver, host interface)
  std::vector<uint16_t> lids;           // HCA: base LID per port; switch: {its LID}; empty = consecutive
  std::vector<uint8_t> lft;             // switches: output port by DLID
  sw::ArGroupTable ar_groups;           // switches: adaptive routing's groups; empty = none
  uint64_t guid = 0;                    // NodeGUID; 0 = derived (see the rules)
  uint64_t system_guid = 0;             // SystemImageGUID; 0 = the NodeGUID
  std::string description;              // NodeDescription; "" = the name
  mgmt::NodePartitions partitions;      // P_KeyTables and switch enforcement by port number; empty = all {0xFFFF}
};

struct ManagementSpec {
  bool in_band = false;                 // false: tables installed at time zero, no management traffic
  bool external = false;                // in band without a built-in SM or SA (hcasim serve: an outside SM)
  unsigned sm_node = 0;                 // node index of the SM's HCA
  unsigned sm_port = 1;                 // its port number
  uint64_t start_ps = 0;                // when the SM starts its sweep
  uint64_t link_up_ps = 0;              // when linked ports come up (Down -> Init)
  uint64_t sma_latency_ps = 1'000'000;  // an SMA's time to answer one SMP
  mgmt::SmConfig sm;                    // the SM's parameters (LMC and routing included)
  mgmt::SaServerConfig sa_server;       // the SA's (master's and standby's; master_sm_lid / subnet_timeout set at sweep end)
  mgmt::SaClientConfig sa_client;       // client defaults (sa, subnet_timeout, resp_time_value, tid_base set at sweep end)
  bool has_standby = false;             // a second SM (and SA) on another HCA port (docs/sm-roles.md)
  unsigned standby_node = 0;            // node index of its HCA
  unsigned standby_port = 1;            // its port number
  uint8_t standby_priority = 0;         // its SMInfo priority (the first SM's is sm.role.priority)
  bool standby_with_master = false;     // starts with the first SM; else when the first has programmed the subnet
  uint64_t handover_ps = 0;             // the master's re-sweep on request; 0 = none
};

struct LinkSpec {
  unsigned node_a = 0, port_a = 0;  // node index, 0-based port index
  unsigned node_b = 0, port_b = 0;
  link::LinkConfig config;
};

// Where a per-(input, output) SL-to-VL table of one switch applies (port numbers; in 0 = management port).
struct Sl2VlKey {
  unsigned node = 0, in_port = 0, out_port = 0;
  bool operator<(const Sl2VlKey& o) const {
    return std::tie(node, in_port, out_port) < std::tie(o.node, o.in_port, o.out_port);
  }
};

struct FabricSpec {
  std::vector<NodeSpec> nodes;
  std::vector<LinkSpec> links;
  std::map<Sl2VlKey, std::array<uint8_t, 16>> sl2vl;
  unsigned lmc = 0;
  ManagementSpec management;
  std::vector<link::LinkEventConfig> link_events;  // links taken down and up (link/link_events.hpp); none by default
  // Every HCA gets its host side (memory, PCIe link, driver); false: none
  // does, for a scenario that posts no work (raw traffic only), whose HCAs
  // never touch the host: a 1,331-host fabric then builds and starts as
  // before the host side existed (docs/performance.md).
  bool hosts = true;
  // Congestion control (docs/congestion-control.md): installed at time zero in
  // every switch and HCA port when enabled and management is pre-configured.
  CongestionControlConfig congestion_control;
  // Adaptive routing (docs/adaptive-routing.md): installed at time zero in
  // every switch with groups when its mode is not off.
  sw::AdaptiveRoutingConfig adaptive;
};

uint64_t node_guid(const FabricSpec& spec, unsigned node);
// The tables the pre-configured mode installs, by NodeGUID: the SM's QoS policy.
mgmt::QosPolicy qos_policy(const FabricSpec& spec);
// The P_KeyTables the pre-configured mode installs, by NodeGUID (nodes with
// partitions only): the SM's partition policy.
mgmt::PartitionPolicy partition_policy(const FabricSpec& spec);

// Two single-port HCAs, hca0 and hca1, joined by one link.
FabricSpec back_to_back(const link::PortConfig& a, const link::PortConfig& b, const link::LinkConfig& link);

// Why a FabricSpec cannot be built, or "" when it can. `where` names the link.
std::string check_fabric(const FabricSpec& spec);

// The SL-to-VL table a switch applies from in_port to out_port (port numbers),
// or an HCA's own table (in_port 0, out_port its port): what the builder installs.
std::array<uint8_t, 16> sl2vl_table(const FabricSpec& spec, unsigned node, unsigned in_port, unsigned out_port);

}  // namespace hcasim::config
