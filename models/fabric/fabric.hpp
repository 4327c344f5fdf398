#pragma once
// Builds the modules of a fabric (HCAs, switches, links) from a resolved
// description, installs the forwarding state at time zero (the pre-configured
// mode of DESIGN.md), and owns the modules.
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
// - Management in band (ManagementSpec::in_band): every HCA and switch gets
//   its SMA (models/mgmt/mad_node.hpp); ports start with no LID (HCA LIDs are
//   cleared at time zero, after workloads have connected), no LFT, every
//   SL on VL0 and empty arbitration tables (the model's power-on state), all
//   Down; at link_up_ps linked ports go to Init; the SM on the chosen HCA port sweeps
//   and programs the subnet from the tables the pre-configured mode would
//   install (qos_policy), and the same routing library computes its routes.
// - The SA in band (mgmt/sa_node.hpp): every HCA gets an SaAgent (on the SM's
//   port, the standby's port, else port 1). When the sweep is done: the SM's
//   agent runs the master SaServer over a database filled from the SM's view
//   (fill_sa_database), MasterSMLID = the SM's LID; every agent starts its
//   client to the SA at its port's PortInfo.MasterSMLID / MasterSMSL, with the
//   port's SubnetTimeout and the SA's RespTimeValue (model: as if learned from
//   ClassPortInfo); a standby's agent runs an SaServer (MasterSMLID from its
//   PortInfo) over an empty database with the same tables, and the master's
//   peer client sends it one SubnAdmConfig Add per non-empty table.
// - Node GUIDs: the topology's, or (0 = none given) kGuidBase + node index + 1,
//   so GUID order is node order.

#include <array>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "models/fabric/topology.hpp"
#include "models/hca/hca.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/partition.hpp"
#include "models/link/port_config.hpp"
#include "models/mgmt/mad_node.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/mgmt/subnet_manager.hpp"
#include "models/switch/switch.hpp"

namespace hcasim::fabric {

struct NodeSpec {
  std::string name;
  std::vector<link::PortConfig> ports;  // ports[i] is port number i + 1
  NodeKind kind = NodeKind::Hca;
  sw::SwitchConfig switch_config;       // switches only
  transport::TransportConfig transport; // HCAs only: the transport engines
  std::vector<uint16_t> lids;           // HCA: base LID per port; switch: {its LID}; empty = consecutive
  std::vector<uint8_t> lft;             // switches: output port by DLID
  uint64_t guid = 0;                    // NodeGUID; 0 = derived (see the rules)
};

constexpr uint64_t kGuidBase = 0x0002C90300000000ull;  // model: derived GUIDs under one vendor OUI

struct ManagementSpec {
  bool in_band = false;                 // false: tables installed at time zero, no management traffic
  unsigned sm_node = 0;                 // node index of the SM's HCA
  unsigned sm_port = 1;                 // its port number
  uint64_t start_ps = 0;                // when the SM starts its sweep
  uint64_t link_up_ps = 0;              // when linked ports come up (Down -> Init)
  uint64_t sma_latency_ps = 1'000'000;  // an SMA's time to answer one SMP
  mgmt::SmConfig sm;                    // the SM's parameters (LMC and routing included)
  mgmt::SaServerConfig sa_server;       // the SA's (master's and standby's; master_sm_lid / subnet_timeout set at sweep end)
  mgmt::SaClientConfig sa_client;       // client defaults (sa, subnet_timeout, resp_time_value, tid_base set at sweep end)
  bool has_standby = false;             // a standby SM's HCA port runs an SA too (no sweep of its own)
  unsigned standby_node = 0;            // node index of the standby's HCA
  unsigned standby_port = 1;            // its port number
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
};

uint64_t node_guid(const FabricSpec& spec, unsigned node);
// The tables the pre-configured mode installs, by NodeGUID: the SM's QoS policy.
mgmt::QosPolicy qos_policy(const FabricSpec& spec);

// Two single-port HCAs, hca0 and hca1, joined by one link.
FabricSpec back_to_back(const link::PortConfig& a, const link::PortConfig& b, const link::LinkConfig& link);

// Why a FabricSpec cannot be built, or "" when it can. `where` names the link.
std::string check_fabric(const FabricSpec& spec);

// The SL-to-VL table a switch applies from in_port to out_port (port numbers),
// or an HCA's own table (in_port 0, out_port its port): what the builder installs.
std::array<uint8_t, 16> sl2vl_table(const FabricSpec& spec, unsigned node, unsigned in_port, unsigned out_port);

// Parallel simulation (link/partition.hpp): the partitions (not owned) and
// each node's, by node index (fabric/partitioning.hpp).
struct FabricPartitions {
  std::vector<link::Partition*> parts;
  std::vector<unsigned> of_node;
};

class Fabric {
 public:
  // Throws std::invalid_argument with check_fabric's message when the spec is
  // inconsistent. With partitions, each node is built on its partition's
  // timeline and pool (`pool` is not used) and the links between partitions
  // are cut; management in band is refused (its SM and SA span the fabric).
  Fabric(const FabricSpec& spec, ib::PacketPool& pool, const FabricPartitions* partitions = nullptr);
  // Tears the nodes down last-made first (link/owned_in_place.hpp says why),
  // after the management objects that point at them.
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  unsigned hca_count() const { return static_cast<unsigned>(hcas_.size()); }
  hca::Hca& hca(unsigned i) { return *hcas_[i]; }
  // The node index (into spec().nodes) of HCA i.
  unsigned node_of_hca(unsigned i) const { return hca_nodes_.at(i); }
  const hca::Hca& hca(unsigned i) const { return *hcas_[i]; }
  unsigned switch_count() const { return static_cast<unsigned>(switches_.size()); }
  sw::Switch& switch_at(unsigned i) { return *switches_[i]; }
  const sw::Switch& switch_at(unsigned i) const { return *switches_[i]; }
  const FabricSpec& spec() const { return spec_; }
  // Every port in node order, then port order.
  const std::vector<link::Port*>& ports() const { return ports_; }
  // The partition a port's node is in (0 without partitions).
  unsigned partition_of(const link::Port& p) const { return port_partition_.empty() ? 0 : port_partition_[p.id()]; }
  // Partitions the fabric was built with (1 without).
  unsigned partition_count() const { return partition_count_; }
  // "hca0.p1" style name of a port (the SystemC hierarchical name).
  link::Port* find_port(const std::string& name) const;
  // In band: each node's management side (null when pre-configured).
  mgmt::MadNode* mad_node(unsigned node) const { return node < mad_nodes_.size() ? mad_nodes_[node].get() : nullptr; }
  // In band: the SM (null when pre-configured); on_sweep_done runs when it has finished.
  const mgmt::SubnetManager* subnet_manager() const;
  void on_sweep_done(std::function<void()> f) { sweep_done_ = std::move(f); }
  // In band: an HCA node's SA agent (null for switches and when pre-configured).
  mgmt::SaAgent* sa_agent(unsigned node) const { return node < sa_agents_.size() ? sa_agents_[node].get() : nullptr; }
  // In band: the master SA's Config transactions to the standby (completions so far).
  // on_sa_sync runs after each of them is recorded.
  const std::vector<mgmt::SaCompletion>& sa_sync_completions() const { return sa_sync_; }
  void on_sa_sync(std::function<void(const mgmt::SaCompletion&)> f) { sa_sync_cb_ = std::move(f); }

 private:
  link::Port& node_port(unsigned node, unsigned index);

  FabricSpec spec_;
  std::vector<std::unique_ptr<hca::Hca>> hcas_;
  std::vector<std::unique_ptr<sw::Switch>> switches_;
  std::vector<std::pair<bool, unsigned>> where_;  // per node: (is switch, index in its list)
  std::vector<unsigned> hca_nodes_;               // by HCA index: node index
  std::vector<link::Port*> ports_;
  std::vector<unsigned> port_partition_;  // by port id, with partitions
  unsigned partition_count_ = 1;
  std::vector<std::unique_ptr<mgmt::MadNode>> mad_nodes_;  // by node, in band
  std::function<void()> sweep_done_;
  std::unique_ptr<link::Alarm> power_on_;  // in band: clears the HCA LIDs at time zero
  std::unique_ptr<link::Alarm> link_up_;   // in band: linked ports Down -> Init
  std::vector<std::unique_ptr<mgmt::SaAgent>> sa_agents_;  // by node, in band (null for switches)
  std::vector<mgmt::SaCompletion> sa_sync_;
  std::function<void(const mgmt::SaCompletion&)> sa_sync_cb_;
  void build_management(ib::PacketPool& pool);
  void start_sa();
};

}  // namespace hcasim::fabric
