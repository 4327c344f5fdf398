#pragma once
// Builds the modules of a fabric (HCAs, switches, links) from a resolved
// description, installs the forwarding state at time zero (the pre-configured
// mode of DESIGN.md), and owns the modules.
//
// Rules:
// - The spec's rules (port indices, LIDs, SL-to-VL tables, GUIDs) are those of
//   config/fabric_spec.hpp: the builder installs what the spec says.
// - Every HCA gets a host (host/host.hpp: memory, PCIe link, driver) named
//   "<hca>_host", wired to it as the node's HcaSettings say; its PCIe
//   requester id is (node index + 1) << 8 (bus, device 0, function 0).
//   With FabricSpec::hosts false no HCA does (has_hosts() says so; host()
//   and driver() must not be called then).
// - Management in band (ManagementSpec::in_band): every HCA and switch gets
//   its SMA (models/mgmt/mad_node.hpp); ports start with no LID (HCA LIDs are
//   cleared at time zero, after workloads have connected), no LFT, every
//   SL on VL0 and empty arbitration tables (the model's power-on state), all
//   Down; at link_up_ps linked ports go to Init; the SM on the chosen HCA port sweeps
//   and programs the subnet from the tables the pre-configured mode would
//   install (qos_policy), and the same routing library computes its routes.
// - Management external (ManagementSpec::external, hcasim serve): the nodes'
//   SMAs and power-on state as in band, except that ports keep the scenario's
//   VLArb tables (port.vlarb) as the device's power-on tables (OpenSM programs
//   VLArb only with QoS on, and an empty table sends nothing), but no SM, no SA
//   and no CC manager:
//   software outside the model programs the subnet through the nodes'
//   MadNodes (MadNode::on_external / send_external).
// - The SA in band (mgmt/sa_node.hpp): every HCA gets an SaAgent (on the SM's
//   port, the standby's port, else port 1). When the sweep is done: the SM's
//   agent runs the master SaServer over a database filled from the SM's view
//   (fill_sa_database), MasterSMLID = the SM's LID; every agent starts its
//   client to the SA at its port's PortInfo.MasterSMLID / MasterSMSL, with the
//   port's SubnetTimeout and the SA's RespTimeValue (model: as if learned from
//   ClassPortInfo); a standby's agent runs an SaServer (MasterSMLID from its
//   PortInfo) over an empty database with the same tables, and the master's
//   peer client sends it one SubnAdmConfig Add per non-empty table.
// - Performance management in band (mgmt/pma_node.hpp): every node gets its
//   PMA, answering from its ports' statistics with the SMA's latency.
// - Congestion control in band (mgmt/cc_node.hpp): every node gets its CC
//   agent; with congestion_control.enabled, each time a master SM's sweep
//   finishes its node's CC manager (made at the first) sets every switch and
//   CA port the sweep found (mgmt::cc_targets) to the attributes the
//   pre-configured mode installs (cc_manager_config), MADs on the SM's SL with
//   the SM's timeout and retries.
// - Link events (FabricSpec::link_events; link/link_events.hpp): one
//   LinkEvents schedule over the named ports, made when the list is not empty.
//   In band, each change is told to both ends' nodes (MadNode::
//   port_state_changed: a switch sends Trap 128); a link down at link_up_ps
//   stays down.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/config/fabric_spec.hpp"
#include "models/hca/hca.hpp"
#include "models/host/host.hpp"
#include "models/link/link_events.hpp"
#include "models/link/partition.hpp"
#include "models/mgmt/cc_node.hpp"
#include "models/mgmt/mad_node.hpp"
#include "models/mgmt/pma_node.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/mgmt/subnet_manager.hpp"
#include "models/switch/switch.hpp"

namespace hcasim::fabric {

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
  // The spec is kept (spec()), but its switches' LFTs move into the switches
  // (installed_tables() has them): at the LID limit they are a switch count
  // times 48 KB, and a second copy of them would be a large part of the model.
  Fabric(config::FabricSpec spec, ib::PacketPool& pool, const FabricPartitions* partitions = nullptr);
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
  bool has_hosts() const { return spec_.hosts; }
  // HCA i's host: its memory, PCIe link and driver (the spec's HcaSettings).
  host::Host& host(unsigned i) { return *hosts_[i]; }
  const host::Host& host(unsigned i) const { return *hosts_[i]; }
  host::Driver& driver(unsigned i) { return hosts_[i]->driver; }
  unsigned switch_count() const { return static_cast<unsigned>(switches_.size()); }
  sw::Switch& switch_at(unsigned i) { return *switches_[i]; }
  const sw::Switch& switch_at(unsigned i) const { return *switches_[i]; }
  const config::FabricSpec& spec() const { return spec_; }
  // The spec with the LIDs and LFTs the nodes hold now (in band: what the SM
  // programmed), for the routing dumps (config/routing_dump.hpp).
  config::FabricSpec installed_tables() const;
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
  // In band: the SM whose first sweep programmed the subnet (null when
  // pre-configured; the configured SM until a sweep finishes); on_sweep_done
  // runs when that first sweep has finished. With a second SM
  // (management.standby, docs/sm-roles.md) the SMs elect a master; an SM that
  // takes over later makes its SA the master's.
  const mgmt::SubnetManager* subnet_manager() const;
  // In band: the node whose SM is master now.
  unsigned master_node() const { return current_master_; }
  void on_sweep_done(std::function<void()> f) { sweep_done_ = std::move(f); }
  // Management external: on_subnet_up runs once, when an outside SM's
  // PortInfo Set has made every linked port Active (subnet_up_ps says when;
  // 0 until then). A link that is down (failed, or not trained) does not count.
  void on_subnet_up(std::function<void()> f) { subnet_up_cb_ = std::move(f); }
  uint64_t subnet_up_ps() const { return subnet_up_ps_; }
  bool every_linked_port_active() const;
  // The link events' schedule (null without events).
  link::LinkEvents* link_events() const { return link_events_.get(); }
  // In band: an HCA node's SA agent (null for switches and when pre-configured).
  mgmt::SaAgent* sa_agent(unsigned node) const { return node < sa_agents_.size() ? sa_agents_[node].get() : nullptr; }
  // In band: the master SA's Config transactions to the standby (completions so far).
  // on_sa_sync runs after each of them is recorded.
  const std::vector<mgmt::SaCompletion>& sa_sync_completions() const { return sa_sync_; }
  // In band: a node's CC agent and, on a master SM's node, its CC manager.
  mgmt::CcNode* cc_node(unsigned node) const { return node < cc_nodes_.size() ? cc_nodes_[node].get() : nullptr; }
  // In band: a node's performance management agent.
  mgmt::PmaNode* pma_node(unsigned node) const { return node < pma_nodes_.size() ? pma_nodes_[node].get() : nullptr; }
  // The CC manager of the current master (null when none has run).
  const mgmt::CcManager* cc_manager() const;
  void on_sa_sync(std::function<void(const mgmt::SaCompletion&)> f) { sa_sync_cb_ = std::move(f); }

 private:
  link::Port& node_port(unsigned node, unsigned index);

  config::FabricSpec spec_;
  std::vector<std::unique_ptr<hca::Hca>> hcas_;
  std::vector<std::unique_ptr<host::Host>> hosts_;  // by HCA index
  std::vector<std::unique_ptr<sw::Switch>> switches_;
  std::vector<std::pair<bool, unsigned>> where_;  // per node: (is switch, index in its list)
  std::vector<unsigned> hca_nodes_;               // by HCA index: node index
  std::vector<link::Port*> ports_;
  std::vector<unsigned> port_partition_;  // by port id, with partitions
  unsigned partition_count_ = 1;
  std::vector<std::unique_ptr<mgmt::MadNode>> mad_nodes_;  // by node, in band
  std::function<void()> sweep_done_;
  std::function<void()> subnet_up_cb_;
  uint64_t subnet_up_ps_ = 0;
  bool subnet_up_seen_ = false;
  std::unique_ptr<link::Alarm> power_on_;  // in band: clears the HCA LIDs at time zero
  std::unique_ptr<link::Alarm> link_up_;   // in band: linked ports Down -> Init
  std::vector<std::unique_ptr<mgmt::SaAgent>> sa_agents_;  // by node, in band (null for switches)
  std::vector<std::unique_ptr<mgmt::CcNode>> cc_nodes_;    // by node, in band
  std::vector<std::unique_ptr<mgmt::PmaNode>> pma_nodes_;  // by node, in band
  std::unique_ptr<link::LinkEvents> link_events_;          // with link events
  std::vector<mgmt::SaCompletion> sa_sync_;
  std::function<void(const mgmt::SaCompletion&)> sa_sync_cb_;
  void build_management(ib::PacketPool& pool);
  void install_congestion_control();
  mgmt::CcManagerConfig cc_manager_config() const;
  void run_cc_manager(unsigned node);  // after a master's sweep (see the rules)
  void run_sm(unsigned node, unsigned port, uint8_t priority, uint64_t start_ps);
  void sm_finished(unsigned node);  // an SM's sweep finished
  // The master SA's database after a re-sweep: every record of the tables
  // deleted (an SA transfer under way sees the change), then filled from the
  // sweep's view. A standby's copy is not synced again.
  static void refill_sa(mgmt::SaDatabase& db, const mgmt::SubnetView& view);
  void start_sa();
  unsigned master_node_ = 0;        // the SM whose first sweep programmed the subnet
  unsigned current_master_ = 0;
  bool first_sweep_reported_ = false;
  std::unique_ptr<link::Alarm> handover_;  // management.handover
};

}  // namespace hcasim::fabric
