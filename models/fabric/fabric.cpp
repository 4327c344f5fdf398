#include "models/fabric/fabric.hpp"

#include <optional>
#include <utility>

#include "models/link/port_config.hpp"
#include "models/mgmt/sa_population.hpp"

namespace hcasim::fabric {

using config::NodeSpec;
using topology::NodeKind;

Fabric::Fabric(config::FabricSpec spec_in, ib::PacketPool& pool, const FabricPartitions* partitions)
    : spec_(std::move(spec_in)) {
  const config::FabricSpec& spec = spec_;
  if (const std::string why = config::check_fabric(spec); !why.empty()) throw std::invalid_argument(why);
  if (partitions != nullptr) {
    if (partitions->of_node.size() != spec.nodes.size())
      throw std::invalid_argument("fabric: a partition for each of the " + std::to_string(spec.nodes.size()) + " nodes is needed");
    for (unsigned p : partitions->of_node)
      if (p >= partitions->parts.size()) throw std::invalid_argument("fabric: node in partition " + std::to_string(p) + ", which does not exist");
    if (spec.management.in_band)
      throw std::invalid_argument("fabric: management in band runs on one partition only");
    partition_count_ = static_cast<unsigned>(partitions->parts.size());
  }
  uint16_t next_lid = 1;  // for specs without LIDs
  auto lids_of = [&next_lid](const NodeSpec& n, std::size_t count) {
    if (!n.lids.empty()) return n.lids;
    std::vector<uint16_t> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(next_lid++);
    return out;
  };
  for (unsigned i = 0; i < spec_.nodes.size(); ++i) {
    NodeSpec& n = spec_.nodes[i];
    link::Partition* part = partitions != nullptr ? partitions->parts[partitions->of_node[i]] : nullptr;
    ib::PacketPool& node_pool = part != nullptr ? part->pool : pool;
    std::optional<link::Timeline::Building> on_part;
    if (part != nullptr) on_part.emplace(part->timeline);
    if (n.kind == NodeKind::Hca) {
      where_.emplace_back(false, static_cast<unsigned>(hcas_.size()));
      hca_nodes_.push_back(i);
      hcas_.push_back(std::make_unique<hca::Hca>(n.name.c_str(), n.ports, lids_of(n, n.ports.size()), node_pool,
                                                 n.transport, n.hca.hca, uint64_t{i + 1} << 8));
      hosts_.push_back(spec_.hosts ? std::make_unique<host::Host>((n.name + "_host").c_str(), n.hca.host, *hcas_.back())
                                   : nullptr);
    } else {
      where_.emplace_back(true, static_cast<unsigned>(switches_.size()));
      switches_.push_back(
          std::make_unique<sw::Switch>(n.name.c_str(), n.switch_config, n.ports, lids_of(n, 1).front(), node_pool));
      sw::Switch& s = *switches_.back();
      s.set_lft(std::move(n.lft));
      n.lft = {};
      if (spec_.adaptive.mode != sw::ArMode::Off && spec_.management.in_band) {  // the SM programs it
        sw::AdaptiveRoutingConfig unprogrammed = spec_.adaptive;
        unprogrammed.mode = sw::ArMode::Off;
        s.set_adaptive(unprogrammed, {}, i);
      } else if (spec_.adaptive.mode != sw::ArMode::Off && !n.ar_groups.ports.empty()) {
        s.set_adaptive(spec_.adaptive, std::move(n.ar_groups), i);
      }
      n.ar_groups = {};
      for (unsigned out = 1; out <= n.ports.size(); ++out)
        for (unsigned in = 0; in <= n.ports.size(); ++in) s.set_sl2vl(in, out, config::sl2vl_table(spec_, i, in, out));
    }
    for (unsigned p = 0; p < n.ports.size(); ++p) {
      link::Port& port = node_port(i, p);
      if (!n.partitions.pkeys.empty()) {  // partitions: the tables of mgmt/partition_tables.hpp at time zero
        port.set_pkeys(n.partitions.pkeys.at(p + 1));
        port.set_partition_enforcement(n.partitions.enforce_in.at(p + 1), n.partitions.enforce_out.at(p + 1));
      }
      port.set_id(static_cast<unsigned>(ports_.size()));
      ports_.push_back(&port);
      if (partitions != nullptr) port_partition_.push_back(partitions->of_node[i]);
    }
  }
  for (const config::LinkSpec& l : spec_.links) {
    link::Port& a = node_port(l.node_a, l.port_a);
    link::Port& b = node_port(l.node_b, l.port_b);
    link::Port::connect(a, b, l.config);
    if (partitions == nullptr) continue;
    const unsigned pa = partitions->of_node[l.node_a], pb = partitions->of_node[l.node_b];
    if (pa == pb) continue;
    a.cut(partitions->parts[pa]->outbox[pb]);
    b.cut(partitions->parts[pb]->outbox[pa]);
  }
  if (spec_.management.in_band) build_management(pool);
  else if (spec_.congestion_control.enabled) install_congestion_control();
  if (!spec_.link_events.empty()) {
    std::vector<link::LinkEvents::Event> events;
    for (const link::LinkEventConfig& e : spec_.link_events) {
      link::Port* p = find_port(e.link);
      if (p == nullptr || p->peer() == nullptr)
        throw std::invalid_argument("link event: no linked port named '" + e.link + "'");
      events.push_back({p, e.down_ps, e.up_ps, e.training_ps});
    }
    link_events_ = std::make_unique<link::LinkEvents>(std::move(events));
    if (spec_.management.in_band)
      link_events_->on_change([this](link::Port& a, link::Port& b, bool) {
        for (const link::Port* end : {&a, &b})
          for (unsigned i = 0; i < spec_.nodes.size(); ++i)
            for (unsigned p = 0; p < spec_.nodes[i].ports.size(); ++p)
              if (&node_port(i, p) == end) mad_nodes_[i]->port_state_changed(p + 1);
      });
  }
}

Fabric::~Fabric() {
  // What the members' own order would destroy first, in that order.
  link_events_.reset();
  sa_agents_.clear();
  cc_nodes_.clear();
  pma_nodes_.clear();
  link_up_.reset();
  power_on_.reset();
  mad_nodes_.clear();
  for (auto it = where_.rbegin(); it != where_.rend(); ++it) {
    if (it->first) {
      switches_[it->second].reset();
    } else {
      hosts_[it->second].reset();  // its driver calls the HCA
      hcas_[it->second].reset();
    }
  }
}

config::FabricSpec Fabric::installed_tables() const {
  config::FabricSpec t = spec_;
  for (unsigned i = 0; i < t.nodes.size(); ++i) {
    const auto [is_switch, at] = where_[i];
    config::NodeSpec& n = t.nodes[i];
    if (is_switch) {
      n.lids = {switches_[at]->lid()};
      n.lft = switches_[at]->lft();
    } else {
      n.lids.resize(n.ports.size());
      for (unsigned p = 0; p < n.ports.size(); ++p) n.lids[p] = hcas_[at]->lid(p);
    }
  }
  return t;
}

// The pre-configured mode's congestion control (config/congestion_control_config.hpp):
// the same attributes in every switch and HCA port.
void Fabric::install_congestion_control() {
  const config::CongestionControlConfig& c = spec_.congestion_control;
  const ib::SwitchCongestionSetting sw_setting = config::switch_setting(c.switches);
  for (auto& s : switches_) s->congestion_marker().set_switch(sw_setting);
  const ib::CaCongestionSetting ca_setting = config::ca_setting(c.ca);
  const std::vector<ib::CctEntry> table = config::cct_entries(c.ca);
  for (auto& h : hcas_)
    for (unsigned p = 0; p < h->port_count(); ++p) {
      hca::CaCongestionControl& cc = h->congestion_control(p);
      cc.set_setting(ca_setting);
      cc.set_table(table, static_cast<uint16_t>(c.ca.ccti_limit));
    }
}

mgmt::CcManagerConfig Fabric::cc_manager_config() const {
  const config::CongestionControlConfig& c = spec_.congestion_control;
  mgmt::CcManagerConfig mc;
  mc.cc_key = c.cc_key;
  mc.timeout_ps = spec_.management.sm.smp_timeout_ps;
  mc.retries = spec_.management.sm.smp_retries;
  mc.switch_setting = config::switch_setting(c.switches);
  mc.ca_setting = config::ca_setting(c.ca);
  mc.cct = mgmt::cc_table_blocks(config::cct_entries(c.ca), static_cast<uint16_t>(c.ca.ccti_limit));
  return mc;
}

void Fabric::run_cc_manager(unsigned node) {
  if (!spec_.congestion_control.enabled) return;
  const config::ManagementSpec& m = spec_.management;
  mgmt::CcNode& cc = *cc_nodes_[node];
  if (cc.manager() == nullptr)
    cc.run_manager(cc_manager_config(), node == m.sm_node ? m.sm_port : m.standby_port, m.sm.sm_sl);
  cc.setup(mgmt::cc_targets(mad_nodes_[node]->sm()->view()));
}

const mgmt::CcManager* Fabric::cc_manager() const {
  if (!spec_.management.in_band) return nullptr;
  return cc_nodes_[current_master_]->manager();
}

void Fabric::build_management(ib::PacketPool& pool) {
  const config::ManagementSpec& m = spec_.management;
  if (m.sm_node >= spec_.nodes.size() || spec_.nodes[m.sm_node].kind != NodeKind::Hca ||
      m.sm_port < 1 || m.sm_port > spec_.nodes[m.sm_node].ports.size())
    throw std::invalid_argument("management: the SM must be on a port of an HCA");
  const std::array<uint8_t, 16> power_on{};  // every SL on VL0
  for (unsigned i = 0; i < spec_.nodes.size(); ++i) {
    NodeSpec& n = spec_.nodes[i];
    mgmt::NodeIdentity id{config::node_guid(spec_, i), n.description.empty() ? n.name : n.description};
    id.system_guid = n.system_guid;
    const auto [is_switch, at] = where_[i];
    if (is_switch) {
      sw::Switch& s = *switches_[at];
      s.set_lid(0);
      s.set_lft({});
      for (unsigned out = 1; out <= n.ports.size(); ++out) {
        for (unsigned in = 0; in <= n.ports.size(); ++in) s.set_sl2vl(in, out, power_on);
        if (!m.external) s.set_vlarb(out, link::VlArbConfig{});
      }
      mad_nodes_.push_back(std::make_unique<mgmt::MadNode>(s, id, pool, m.sma_latency_ps));
      cc_nodes_.push_back(std::make_unique<mgmt::CcNode>(*mad_nodes_.back(), mgmt::CcAgent(s), pool, m.sma_latency_ps));
      std::vector<const link::Port*> by_number{nullptr};
      for (unsigned q = 1; q <= s.port_count(); ++q) by_number.push_back(&s.port(q));
      pma_nodes_.push_back(std::make_unique<mgmt::PmaNode>(*mad_nodes_.back(), mgmt::Pma(std::move(by_number), true),
                                                           pool, m.sma_latency_ps));
    } else {
      hca::Hca& h = *hcas_[at];
      for (unsigned p = 0; p < h.port_count(); ++p) {
        h.port(p).set_sl2vl(power_on);
        if (!m.external) h.port(p).set_vlarb(link::VlArbConfig{});
      }
      mad_nodes_.push_back(std::make_unique<mgmt::MadNode>(h, id, pool, m.sma_latency_ps));
      cc_nodes_.push_back(std::make_unique<mgmt::CcNode>(*mad_nodes_.back(), mgmt::CcAgent(h), pool, m.sma_latency_ps));
      std::vector<const link::Port*> by_number{nullptr};
      for (unsigned q = 0; q < h.port_count(); ++q) by_number.push_back(&h.port(q));
      pma_nodes_.push_back(std::make_unique<mgmt::PmaNode>(*mad_nodes_.back(), mgmt::Pma(std::move(by_number), false),
                                                           pool, m.sma_latency_ps));
    }
    for (unsigned p = 0; p < n.ports.size(); ++p) {
      link::Port& port = node_port(i, p);
      port.set_state(link::PortState::Down);
      port.set_pkeys(ib::default_pkey_table());  // power-on: the SM programs the partitions
      port.set_partition_enforcement(false, false);
    }
  }
  // Link training is not modelled: at link_up_ps every linked port goes from
  // Down to Init (PhysState LinkUp); unlinked ports stay Down.
  link_up_ = std::make_unique<link::Alarm>([this] {
    for (link::Port* p : ports_)
      if (p->peer() != nullptr && p->link_trained()) p->set_state(link::PortState::Init);
  });
  link_up_->notify_at(m.link_up_ps);
  // HCA LIDs go to 0 at time zero, before the SM starts: workloads built
  // with the fabric have connected their QPs with the LIDs the SM assigns
  // (the pre-configured ones; in_band_test checks they are equal).
  power_on_ = std::make_unique<link::Alarm>([this] {
    for (auto& h : hcas_)
      for (unsigned p = 0; p < h->port_count(); ++p) h->set_lid(p, 0);
  });
  power_on_->notify_at(0);
  if (m.external) {  // an outside SM (hcasim serve) programs the subnet
    for (auto& node : mad_nodes_)
      node->sma().on_port_state_set([this] {
        if (subnet_up_seen_ || !every_linked_port_active()) return;
        subnet_up_seen_ = true;
        subnet_up_ps_ = link::now_ps();
        if (subnet_up_cb_) subnet_up_cb_();
      });
    return;
  }
  if (m.has_standby && (m.standby_node >= spec_.nodes.size() || m.standby_node == m.sm_node ||
                        spec_.nodes[m.standby_node].kind != NodeKind::Hca || m.standby_port < 1 ||
                        m.standby_port > spec_.nodes[m.standby_node].ports.size()))
    throw std::invalid_argument("management: the standby SM must be on a port of another HCA");
  sa_agents_.resize(spec_.nodes.size());
  for (unsigned i = 0; i < spec_.nodes.size(); ++i) {
    if (spec_.nodes[i].kind != NodeKind::Hca) continue;
    const unsigned port = i == m.sm_node ? m.sm_port : (m.has_standby && i == m.standby_node) ? m.standby_port : 1;
    sa_agents_[i] = std::make_unique<mgmt::SaAgent>(*mad_nodes_[i], port, pool);
  }
  if (m.has_standby) {  // either SM may be elected master; the other's SA gets the master's records
    mgmt::declare_sa_tables(sa_agents_[m.sm_node]->database());
    mgmt::declare_sa_tables(sa_agents_[m.standby_node]->database());
  }
  // A client told to register again (a new master) sends to the SA at its port's new MasterSMLID.
  for (unsigned i = 0; i < spec_.nodes.size(); ++i) {
    if (sa_agents_[i] == nullptr) continue;
    mad_nodes_[i]->sma().on_client_reregister([this, i](unsigned port) {
      mgmt::SaAgent& a = *sa_agents_[i];
      if (a.client() == nullptr || port != a.port()) return;
      mgmt::MadAddress sa = a.client()->config().sa;
      sa.lid = a.node().sma().master_sm_lid(port);
      a.client()->set_sa(sa);
    });
  }
  master_node_ = current_master_ = m.sm_node;
  const uint64_t start = std::max(m.start_ps, m.link_up_ps);
  run_sm(m.sm_node, m.sm_port, m.sm.role.priority, start);
  if (m.has_standby && m.standby_with_master) run_sm(m.standby_node, m.standby_port, m.standby_priority, start);
  if (m.handover_ps != 0) {
    handover_ = std::make_unique<link::Alarm>([this] { mad_nodes_[current_master_]->request_sweep(); });
    handover_->notify_at(m.handover_ps);
  }
}

void Fabric::run_sm(unsigned node, unsigned port, uint8_t priority, uint64_t start_ps) {
  const config::ManagementSpec& m = spec_.management;
  mgmt::SmConfig sm = m.sm;
  sm.lmc = spec_.lmc;
  sm.partitions = config::partition_policy(spec_);
  sm.role.priority = priority;
  sm.port_guid = config::node_guid(spec_, node) + port;  // an HCA port's GUID (sma.hpp)
  sm.adaptive = spec_.adaptive;
  mad_nodes_[node]->run_sm(std::make_unique<mgmt::SubnetManager>(sm, config::qos_policy(spec_), port), port, start_ps,
                           [this, node] { sm_finished(node); });
}

void Fabric::sm_finished(unsigned node) {
  const config::ManagementSpec& m = spec_.management;
  const mgmt::SubnetManager& sm = *mad_nodes_[node]->sm();
  if (!first_sweep_reported_) {
    first_sweep_reported_ = true;
    master_node_ = current_master_ = node;
    if (sm.done()) {
      start_sa();
      run_cc_manager(node);
      if (m.has_standby && !m.standby_with_master) run_sm(m.standby_node, m.standby_port, m.standby_priority, link::now_ps());
    }
    if (sweep_done_) sweep_done_();
    return;
  }
  if (!sm.done() || sm.role() != ib::SmState::Master) return;
  mgmt::SaAgent& a = *sa_agents_[node];
  // A re-sweep of the master, or the sweep of an SM that took over (or was
  // handed) the subnet: its SA answers from what this sweep found.
  refill_sa(a.database(), sm.view());
  run_cc_manager(node);
  if (node == current_master_) return;
  current_master_ = node;
  if (a.server() != nullptr) a.server()->set_master_sm_lid(a.lid());
}

void Fabric::refill_sa(mgmt::SaDatabase& db, const mgmt::SubnetView& view) {
  for (uint16_t attr : {ib::kAttrNodeRecord, ib::kAttrPortInfoRecord, ib::kAttrSl2VlRecord, ib::kAttrLinkRecord,
                        ib::kAttrPathRecord, ib::kAttrVlArbRecord})
    if (db.has_table(attr)) db.del(attr, 0, nullptr, 0);
  mgmt::fill_sa_database(db, view);
}

void Fabric::start_sa() {
  const config::ManagementSpec& m = spec_.management;
  const mgmt::SubnetManager& sm = *subnet_manager();
  const unsigned master_node = master_node_;
  const unsigned standby_node = master_node == m.sm_node ? m.standby_node : m.sm_node;
  mgmt::SaAgent& master = *sa_agents_[master_node];
  mgmt::fill_sa_database(master.database(), sm.view());
  auto server_config = [&](mgmt::SaAgent& a) {
    const ib::PortInfo pi = a.node().sma().port_info(a.port());
    mgmt::SaServerConfig c = m.sa_server;
    c.subnet_timeout = pi.subnet_timeout;
    c.master_sm_lid = pi.master_sm_lid;
    return c;
  };
  mgmt::SaServerConfig mc = server_config(master);
  mc.master_sm_lid = sm.sm_lid();
  master.start_server(mc);
  for (unsigned i = 0; i < sa_agents_.size(); ++i) {
    mgmt::SaAgent* a = sa_agents_[i].get();
    if (a == nullptr) continue;
    const ib::PortInfo pi = a->node().sma().port_info(a->port());
    mgmt::SaClientConfig c = m.sa_client;
    c.sa.lid = pi.master_sm_lid;
    c.sa.sl = pi.master_sm_sl;
    c.subnet_timeout = pi.subnet_timeout;
    c.resp_time_value = m.sa_server.resp_time_value;
    c.tid_base = static_cast<uint64_t>(i + 1) << 32;
    a->start_client(c);
  }
  if (!m.has_standby) return;
  mgmt::SaAgent& standby = *sa_agents_[standby_node];
  standby.start_server(server_config(standby));
  const ib::PortInfo spi = standby.node().sma().port_info(standby.port());
  mgmt::SaClientConfig pc = m.sa_client;
  pc.sa.lid = standby.lid();
  pc.sa.sl = spi.master_sm_sl;
  pc.subnet_timeout = master.node().sma().port_info(master.port()).subnet_timeout;
  pc.resp_time_value = m.sa_server.resp_time_value;
  pc.tid_base = (static_cast<uint64_t>(master_node + 1) << 32) | mgmt::kPeerTidBit;
  master.start_peer_client(pc);
  master.set_peer_callback([this](const mgmt::SaCompletion& c) {
    sa_sync_.push_back(c);
    if (sa_sync_cb_) sa_sync_cb_(c);
  });
  const mgmt::SaDatabase& db = master.database();
  for (uint16_t attr : {ib::kAttrNodeRecord, ib::kAttrPortInfoRecord, ib::kAttrSl2VlRecord, ib::kAttrLinkRecord,
                        ib::kAttrPathRecord, ib::kAttrVlArbRecord}) {
    const std::vector<uint8_t>* bodies = db.bodies(attr);
    if (bodies != nullptr && !bodies->empty()) master.config(ib::EditModifier::Add, attr, *bodies, 0, 0, 0);
  }
}

bool Fabric::every_linked_port_active() const {
  bool any = false;
  for (const link::Port* p : ports_) {
    if (p->peer() == nullptr || !p->link_trained()) continue;
    if (p->state() != link::PortState::Active) return false;
    any = true;
  }
  return any;
}

const mgmt::SubnetManager* Fabric::subnet_manager() const {
  if (!spec_.management.in_band) return nullptr;
  return mad_nodes_[master_node_]->sm();
}

link::Port& Fabric::node_port(unsigned node, unsigned index) {
  const auto [is_switch, at] = where_[node];
  return is_switch ? switches_[at]->port(index + 1) : hcas_[at]->port(index);
}

link::Port* Fabric::find_port(const std::string& name) const {
  for (link::Port* p : ports_)
    if (name == p->name()) return p;
  return nullptr;
}

}  // namespace hcasim::fabric
