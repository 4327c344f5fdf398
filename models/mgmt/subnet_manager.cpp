#include "models/mgmt/subnet_manager.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "models/ib/ar_attributes.hpp"
#include "models/ib/pkey.hpp"
#include "models/mgmt/ar_programming.hpp"
#include "models/mgmt/port_codes.hpp"
#include "models/mgmt/vlarb_blocks.hpp"
#include "models/routing/adaptive_groups.hpp"

namespace hcasim::mgmt {

const char* to_string(SweepTrigger t) {
  switch (t) {
    case SweepTrigger::Trap: return "trap";
    case SweepTrigger::Periodic: return "periodic";
    case SweepTrigger::Request: return "request";
    case SweepTrigger::Takeover: return "takeover";
    case SweepTrigger::Handover: return "handover";
  }
  return "?";
}

SubnetManager::SubnetManager(const SmConfig& config, QosPolicy policy, unsigned sm_port)
    : config_(config), policy_(std::move(policy)), sm_port_(sm_port), role_(config.role, config.port_guid) {}

ib::Smp SubnetManager::make_smp(uint8_t method, uint16_t attr, uint32_t mod, const std::vector<uint8_t>& path) const {
  ib::Smp s;
  s.hdr.mgmt_class = ib::kClassSubnDr;
  s.hdr.class_version = ib::kSmpClassVersion;
  s.hdr.method = method;
  s.hdr.attr_id = attr;
  s.hdr.attr_mod = mod;
  s.m_key = config_.m_key;
  s.hop_cnt = static_cast<uint8_t>(path.size());
  std::copy(path.begin(), path.end(), s.initial_path.begin() + 1);
  return s;
}

void SubnetManager::request(ib::Smp smp, Purpose purpose, unsigned node, uint8_t port) {
  Pending p;
  p.smp = smp;
  p.purpose = purpose;
  p.node = node;
  p.port = port;
  queue_.push_back(p);
}

void SubnetManager::start(uint64_t now, std::vector<ib::Smp>& out) {
  phase_ = Phase::Discovering;
  stats_.start_ps = now;
  role_.start();
  note_role(now);
  request(make_smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, {}), Purpose::NodeInfo, UINT32_MAX, 0);
  pump(now, out);
}

void SubnetManager::pump(uint64_t now, std::vector<ib::Smp>& out) {
  while (outstanding_.size() < config_.max_in_flight && queue_head_ < queue_.size()) {
    Pending p = queue_[queue_head_++];
    p.smp.hdr.tid = next_tid_++;
    p.tries = 1;
    p.deadline = now + config_.smp_timeout_ps;
    ++stats_.smps_sent;
    if (phase_ == Phase::LightSweep) ++stats_.light_sweep_smps;
    else ++(phase_ == Phase::Discovering ? stats_.discovery_smps : stats_.programming_smps);
    if (resweep_) ++resweeps_.back().smps;
    out.push_back(p.smp);
    outstanding_.emplace(p.smp.hdr.tid, p);
  }
  if (queue_head_ == queue_.size()) {
    queue_.clear();
    queue_head_ = 0;
  }
  if (outstanding_.empty() && queue_.empty() && phase_ != Phase::Done && phase_ != Phase::Failed &&
      phase_ != Phase::Idle && phase_ != Phase::Standby) {
    phase_done(now);  // plans the next phase's SMPs
    if (phase_ == Phase::Done && resweep_wanted_) return start_resweep(now, out);
    pump(now, out);
  }
}

void SubnetManager::on_trap(const ib::Smp& trap, uint64_t now, std::vector<ib::Smp>& out) {
  ++traps_;
  ib::Notice n;
  n.decode_smp(trap.data.data());
  if (trap.hdr.attr_id != ib::kAttrNotice || !n.is_generic || n.trap_or_device != ib::kTrapLinkStateChange) return;
  want_resweep(SweepTrigger::Trap, now, out);
}

void SubnetManager::want_resweep(SweepTrigger trigger, uint64_t now, std::vector<ib::Smp>& out) {
  if (resweep_wanted_ || phase_ == Phase::Standby || phase_ == Phase::Idle) return;  // one re-sweep after the sweep under way covers it
  wanted_trigger_ = trigger;
  wanted_ps_ = now;
  if (phase_ == Phase::Done || phase_ == Phase::Failed) start_resweep(now, out);
  else resweep_wanted_ = true;
}

void SubnetManager::request_sweep(uint64_t now, std::vector<ib::Smp>& out) {
  if (role_.state() == ib::SmState::Master) want_resweep(SweepTrigger::Request, now, out);
}

void SubnetManager::light_sweep(uint64_t now, std::vector<ib::Smp>& out) {
  if (!master_idle()) return;
  phase_ = Phase::LightSweep;
  light_change_ = false;
  light_start_ps_ = now;
  ++stats_.light_sweeps;
  for (unsigned n = 0; n < found_.size(); ++n)
    if (found_[n].info.node_type == ib::kNodeTypeSwitch)
      request(make_smp(ib::kMethodGet, ib::kAttrSwitchInfo, 0, found_[n].path), Purpose::LightSwitchInfo, n, 0);
  for (const auto& [guid, r] : remote_sms_)
    request(make_smp(ib::kMethodGet, ib::kAttrSmInfo, 0, r.path), Purpose::LightSmInfo, UINT32_MAX, 0);
  pump(now, out);
}

void SubnetManager::note_role(uint64_t now) {
  if (role_changes_.empty() || role_changes_.back().state != role_.state()) role_changes_.push_back({now, role_.state()});
}

void SubnetManager::poll(uint64_t now, std::vector<ib::Smp>& out) {
  if (phase_ != Phase::Standby) return;
  switch (role_.tick()) {
    case SmRole::Action::None: return;
    case SmRole::Action::Poll: {
      ib::Smp s = make_smp(ib::kMethodGet, ib::kAttrSmInfo, 0, master_path_);
      s.hdr.tid = poll_tid_ = next_tid_++;
      ++role_stats_.polls;
      ++stats_.smps_sent;
      out.push_back(s);
      return;
    }
    case SmRole::Action::TakeOver:
      note_role(now);
      takeover_ = true;
      wanted_trigger_ = SweepTrigger::Takeover;
      wanted_ps_ = now;
      start_resweep(now, out);
      return;
  }
}

bool SubnetManager::on_handover(uint64_t now, std::vector<ib::Smp>& out) {
  if (phase_ != Phase::Standby || !role_.handover_received()) return false;
  ++role_stats_.handovers_received;
  note_role(now);
  takeover_ = true;
  wanted_trigger_ = SweepTrigger::Handover;
  wanted_ps_ = now;
  start_resweep(now, out);
  return true;
}

bool SubnetManager::discovery_done(uint64_t now) {
  const bool was_master = role_.state() == ib::SmState::Master;
  if (role_.sweep_done() == ib::SmState::Standby) {  // found() made it Standby
    enter_standby(now);
    return false;
  }
  note_role(now);
  if (!was_master) return true;
  // A master's re-sweep: hand over to the standby that wins most, if one wins.
  const SmIdentity self{config_.port_guid, config_.role.priority};
  const RemoteSm* to = nullptr;
  for (const auto& [guid, r] : remote_sms_) {
    const SmIdentity them{guid, r.info.priority};
    if (r.info.state == ib::SmState::Standby && wins(them, self) &&
        (to == nullptr || wins(them, {to->info.guid, to->info.priority})))
      to = &r;
  }
  if (to == nullptr) return true;
  handover_to_ = {to->info.guid, to->info.priority};
  handed_over_ = false;
  request(make_smp(ib::kMethodSet, ib::kAttrSmInfo, static_cast<uint32_t>(ib::SmInfoControl::Handover), to->path),
          Purpose::Handover, UINT32_MAX, 0);
  phase_ = Phase::HandingOver;
  return false;
}

void SubnetManager::enter_standby(uint64_t now) {
  phase_ = Phase::Standby;
  master_path_ = remote_sms_.at(role_.master().guid).path;
  note_role(now);
}

void SubnetManager::start_resweep(uint64_t now, std::vector<ib::Smp>& out) {
  resweep_wanted_ = false;
  resweep_ = true;
  ResweepRecord r;
  r.trigger = wanted_trigger_;
  r.requested_ps = wanted_ps_;
  r.start_ps = now;
  resweeps_.push_back(r);
  remote_sms_.clear();
  found_.clear();
  by_guid_.clear();
  order_.clear();
  SubnetView fresh;
  fresh.path_sl = view_.path_sl;
  fresh.packet_life = view_.packet_life;
  view_ = std::move(fresh);
  failure_.clear();
  stats_.nodes = stats_.switches = stats_.links = 0;
  phase_ = Phase::Discovering;
  request(make_smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, {}), Purpose::NodeInfo, UINT32_MAX, 0);
  pump(now, out);
}

uint64_t SubnetManager::deadline_ps() const {
  uint64_t d = UINT64_MAX;
  for (const auto& [tid, p] : outstanding_) d = std::min(d, p.deadline);
  return d;
}

void SubnetManager::on_response(const ib::Smp& resp, uint64_t now, std::vector<ib::Smp>& out) {
  if (resp.hdr.tid == poll_tid_ && poll_tid_ != 0) {  // a standby's poll, answered
    poll_tid_ = 0;
    ++role_stats_.poll_answers;
    ib::SmInfo info;
    info.decode(resp.data.data());
    if (resp.hdr.status == ib::kStatusOk) role_.poll_answer(info);
    return;
  }
  const auto it = outstanding_.find(resp.hdr.tid);
  if (it == outstanding_.end()) return;  // late answer to an SMP given up on, or a duplicate
  const Pending p = it->second;
  outstanding_.erase(it);
  ++stats_.responses;
  if (resp.hdr.status != ib::kStatusOk) {
    ++stats_.errors;
    if (p.purpose == Purpose::LightSwitchInfo) light_change_ = true;  // OpenSM: an error answer is a change
  } else {
    handle(p, resp);
  }
  pump(now, out);
}

void SubnetManager::on_timer(uint64_t now, std::vector<ib::Smp>& out) {
  for (auto it = outstanding_.begin(); it != outstanding_.end();) {
    Pending& p = it->second;
    if (p.deadline > now) {
      ++it;
      continue;
    }
    ++stats_.timeouts;
    if (p.tries > config_.smp_retries) {
      ++stats_.failed;
      if (p.purpose == Purpose::LightSwitchInfo) light_change_ = true;  // the switch is gone
      it = outstanding_.erase(it);
      continue;
    }
    ++p.tries;
    ++stats_.retries;
    ++stats_.smps_sent;
    if (resweep_) ++resweeps_.back().smps;
    p.deadline = now + config_.smp_timeout_ps;
    out.push_back(p.smp);
    ++it;
  }
  pump(now, out);
}

void SubnetManager::handle(const Pending& p, const ib::Smp& resp) {
  switch (p.purpose) {
    case Purpose::NodeInfo: on_node_info(p, resp); break;
    case Purpose::NodeDesc: {
      ib::NodeDescription d;
      d.decode(resp.data.data());
      found_[p.node].description = d.text;
      break;
    }
    case Purpose::PortInfo: on_port_info(p, resp); break;
    case Purpose::SmInfo: {
      RemoteSm r;
      r.info.decode(resp.data.data());
      r.path.assign(resp.initial_path.begin() + 1, resp.initial_path.begin() + 1 + resp.hop_cnt);
      ++role_stats_.sms_found;
      role_.found(r.info);
      remote_sms_[r.info.guid] = r;
      break;
    }
    case Purpose::Handover:
      handed_over_ = true;
      ++role_stats_.handovers_sent;
      break;
    case Purpose::SwitchInfo:
      found_[p.node].switch_info.decode(resp.data.data());
      found_[p.node].port_state_change = found_[p.node].switch_info.port_state_change;
      break;
    case Purpose::LightSwitchInfo: {
      ib::SwitchInfo si;
      si.decode(resp.data.data());
      if (si.port_state_change) light_change_ = true;
      break;
    }
    case Purpose::LightSmInfo: {
      ib::SmInfo info;
      info.decode(resp.data.data());
      const bool higher_standby = info.state == ib::SmState::Standby &&
                                  wins({info.guid, info.priority}, {config_.port_guid, config_.role.priority});
      if (info.state == ib::SmState::Master || higher_standby) light_change_ = true;  // osm_sminfo_rcv.c
      break;
    }
    case Purpose::Program: break;
  }
}

void SubnetManager::on_node_info(const Pending& p, const ib::Smp& resp) {
  ib::NodeInfo ni;
  ni.decode(resp.data.data());
  const uint8_t q = ni.local_port_num;
  if (ni.num_ports == 0 || q > ni.num_ports) return;
  const std::vector<uint8_t> path(resp.initial_path.begin() + 1, resp.initial_path.begin() + 1 + resp.hop_cnt);
  const bool is_switch = ni.node_type == ib::kNodeTypeSwitch;
  auto [it, fresh] = by_guid_.emplace(ni.node_guid, static_cast<unsigned>(found_.size()));
  const unsigned n = it->second;
  if (fresh) {
    Found f;
    f.info = ni;
    f.path = path;
    f.ports.resize(ni.num_ports + 1u);
    f.peers.resize(ni.num_ports + 1u);
    f.port_paths.resize(ni.num_ports + 1u);
    f.reached.resize(ni.num_ports + 1u, false);
    found_.push_back(std::move(f));
    request(make_smp(ib::kMethodGet, ib::kAttrNodeDescription, 0, path), Purpose::NodeDesc, n, 0);
    if (is_switch)
      for (unsigned port = 1; port <= ni.num_ports; ++port)
        request(make_smp(ib::kMethodGet, ib::kAttrPortInfo, port, path), Purpose::PortInfo, n, static_cast<uint8_t>(port));
    if (is_switch && resweep_) request(make_smp(ib::kMethodGet, ib::kAttrSwitchInfo, 0, path), Purpose::SwitchInfo, n, 0);
  }
  Found& f = found_[n];
  if (!is_switch && !f.reached[q]) {
    f.port_paths[q] = path;
    f.reached[q] = true;
    request(make_smp(ib::kMethodGet, ib::kAttrPortInfo, q, path), Purpose::PortInfo, n, q);
  }
  if (p.node != UINT32_MAX) link(p.node, p.port, n, q);
}

void SubnetManager::on_port_info(const Pending& p, const ib::Smp& resp) {
  Found& f = found_[p.node];
  f.ports[p.port].decode(resp.data.data());
  const bool linked = f.ports[p.port].port_phys_state == ib::kPhysStateLinkUp;
  const bool is_switch = f.info.node_type == ib::kNodeTypeSwitch;
  const bool sm_node = f.path.empty();
  if (linked && f.peers[p.port].node == UINT32_MAX && (is_switch || (sm_node && p.port == sm_port_)))
    explore(p.node, p.port);
  if (!is_switch && !sm_node && (f.ports[p.port].capability_mask & ib::kPortCapIsSm) != 0)
    request(make_smp(ib::kMethodGet, ib::kAttrSmInfo, 0, f.port_paths[p.port]), Purpose::SmInfo, p.node, p.port);
}

void SubnetManager::explore(unsigned node, uint8_t port) {
  std::vector<uint8_t> path = found_[node].path;
  path.push_back(port);
  if (path.size() > kMaxDrHops) return;
  request(make_smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, path), Purpose::NodeInfo, node, port);
}

void SubnetManager::link(unsigned a, uint8_t pa, unsigned b, uint8_t pb) {
  if (found_[a].peers[pa].node != UINT32_MAX || found_[b].peers[pb].node != UINT32_MAX) return;
  found_[a].peers[pa] = {b, pb};
  found_[b].peers[pb] = {a, pa};
  ++stats_.links;
}

void SubnetManager::phase_done(uint64_t now) {
  switch (phase_) {
    case Phase::Discovering:
      if (!resweep_) stats_.discovered_ps = now;
      if (!discovery_done(now)) return;
      build_view();
      if (phase_ == Phase::Failed) return;
      phase_ = Phase::Configuring;
      plan_configuration();
      break;
    case Phase::Configuring:
      if (resweep_) resweeps_.back().tables_ps = now;
      phase_ = Phase::Arming;
      plan_states(ib::kPortStateArmed);
      break;
    case Phase::Arming:
      phase_ = Phase::Activating;
      plan_states(ib::kPortStateActive);
      break;
    case Phase::Activating:
      phase_ = Phase::Done;
      (resweep_ ? resweeps_.back().done_ps : stats_.done_ps) = now;
      takeover_ = false;
      break;
    case Phase::LightSweep:
      phase_ = Phase::Done;
      if (light_change_ && !resweep_wanted_) {
        ++stats_.light_changes;
        resweep_wanted_ = true;
        wanted_trigger_ = SweepTrigger::Periodic;
        wanted_ps_ = light_start_ps_;
      }
      break;
    case Phase::HandingOver:
      resweeps_.back().done_ps = now;
      if (handed_over_ && role_.handover(handover_to_)) {
        enter_standby(now);
      } else {
        phase_ = Phase::Done;  // no answer: this SM stays master
      }
      break;
    default: break;
  }
}

void SubnetManager::build_view() {
  order_.resize(found_.size());
  for (unsigned i = 0; i < order_.size(); ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(),
            [this](unsigned a, unsigned b) { return found_[a].info.node_guid < found_[b].info.node_guid; });
  std::vector<unsigned> view_of(found_.size());
  for (unsigned v = 0; v < order_.size(); ++v) view_of[order_[v]] = v;
  topology::Topology& t = view_.topology;
  std::set<std::string> names;
  for (unsigned v = 0; v < order_.size(); ++v) {
    const Found& f = found_of(v);
    topology::TopoNode node;
    node.name = f.description;
    if (node.name.empty() || !names.insert(node.name).second) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "node-%016llx", static_cast<unsigned long long>(f.info.node_guid));
      node.name = buf;
      names.insert(node.name);
    }
    node.kind = f.info.node_type == ib::kNodeTypeSwitch ? topology::NodeKind::Switch : topology::NodeKind::Hca;
    node.ports = f.info.num_ports;
    node.guid = f.info.node_guid;
    node.system_guid = f.info.sys_image_guid;
    node.description = f.description;
    t.nodes.push_back(node);
    stats_.nodes++;
    if (node.kind == topology::NodeKind::Switch) stats_.switches++;
    SubnetNode sn;
    sn.node_info = f.info;
    sn.port_info = f.ports;
    sn.vlarb.resize(f.ports.size());
    view_.nodes.push_back(sn);
  }
  for (unsigned v = 0; v < order_.size(); ++v) {
    const Found& f = found_of(v);
    for (unsigned port = 1; port < f.peers.size(); ++port) {
      const Peer& peer = f.peers[port];
      if (peer.node == UINT32_MAX) continue;
      const unsigned w = view_of[peer.node];
      if (std::make_pair(w, unsigned{peer.port}) < std::make_pair(v, port)) continue;  // once per link
      topology::TopoLink l;
      l.a = {v, port};
      l.b = {w, peer.port};
      const ib::PortInfo& pi = f.ports[port];
      l.params.width = width_of(pi.link_width_active);
      l.params.speed = speed_of(pi.link_speed_active, pi.link_speed_ext_active);
      t.links.push_back(l);
    }
  }
  const unsigned sm_view = view_of[by_guid_.at(found_[0].info.node_guid)];
  if (takeover_) keep_port_lids();
  try {
    view_.lids = resweep_ ? kept_lids(t) : routing::assign_lids(t, config_.lmc, {sm_view, sm_port_});
    view_.routes = routing::compute_routes(t, view_.lids, config_.routing);
  } catch (const std::exception& e) {
    failure_ = e.what();
    phase_ = Phase::Failed;
    return;
  }
  if (config_.adaptive.mode != sw::ArMode::Off) compute_ar_groups();
  for (unsigned v = 0; v < order_.size(); ++v) {
    Found& f = found_[order_[v]];
    f.is_new = lids_by_guid_.emplace(f.info.node_guid, view_.lids.base[v]).second;
  }
  sm_lid_ = view_.lids.base[sm_view][sm_port_ - 1];
}

void SubnetManager::keep_port_lids() {
  lids_by_guid_.clear();
  lft_by_guid_.clear();  // a new master knows no LFT block
  ar_by_guid_.clear();   // ... nor AR block
  const uint16_t mask = static_cast<uint16_t>(~((1u << config_.lmc) - 1));
  for (const Found& f : found_) {
    std::vector<uint16_t> lids;
    if (f.info.node_type == ib::kNodeTypeSwitch) {
      if (f.ports.size() > 1 && f.ports[1].lid != 0) lids.push_back(f.ports[1].lid);
    } else {
      for (unsigned port = 1; port < f.ports.size(); ++port) {
        if (!f.reached[port] || f.ports[port].lid == 0) break;
        lids.push_back(f.ports[port].lid & mask);
      }
      if (lids.size() != f.ports.size() - 1) lids.clear();
    }
    if (!lids.empty()) lids_by_guid_.emplace(f.info.node_guid, lids);
  }
}

void SubnetManager::set_port_info(unsigned v, uint8_t port, const ib::PortInfo& pi) {
  const Found& f = found_of(v);
  const bool is_switch = f.info.node_type == ib::kNodeTypeSwitch;
  const std::vector<uint8_t>& path = is_switch ? f.path : f.port_paths[port];
  ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrPortInfo, port, path);
  pi.encode(s.data.data());
  request(s, Purpose::Program, UINT32_MAX, 0);
  ib::PortInfo kept = pi;
  if (pi.port_state == ib::kPortStateNoChange) kept.port_state = view_.nodes[v].port_info[port].port_state;
  view_.nodes[v].port_info[port] = kept;
}

void SubnetManager::plan_configuration() {
  raise_.assign(order_.size(), {});
  for (unsigned v = 0; v < order_.size(); ++v) {
    const Found& f = found_of(v);
    raise_[v].assign(f.ports.size(), false);
    const bool is_switch = f.info.node_type == ib::kNodeTypeSwitch;
    const auto qos = policy_.find(f.info.node_guid);
    const NodeQos* q = qos == policy_.end() ? nullptr : &qos->second;
    auto common = [&](ib::PortInfo pi) {
      pi.client_reregister = takeover_ && !is_switch;  // a new master: clients register again (OpenSM)
      pi.master_sm_lid = sm_lid_;
      pi.master_sm_sl = config_.sm_sl;
      pi.subnet_timeout = config_.subnet_timeout;
      pi.m_key = config_.m_key;
      pi.port_state = ib::kPortStateNoChange;
      return pi;
    };
    const bool fresh = !resweep_ || f.is_new;
    const bool all = fresh || takeover_;  // a re-sweep: only what came up or is new
    const unsigned first = is_switch ? 0 : 1;
    const auto parts = config_.partitions.find(f.info.node_guid);
    const NodePartitions* pk = parts == config_.partitions.end() ? nullptr : &parts->second;
    for (unsigned port = first; port < f.ports.size(); ++port) {
      if (!is_switch && !f.reached[port]) continue;  // an HCA port the sweep never reached
      raise_[v][port] = f.peers[port].node != UINT32_MAX && (fresh || f.ports[port].port_state == ib::kPortStateInit);
      if (!all && !raise_[v][port]) continue;
      ib::PortInfo pi = common(f.ports[port]);
      pi.lid = is_switch ? view_.lids.base[v][0] : view_.lids.base[v][port - 1];
      pi.lmc = static_cast<uint8_t>(is_switch ? 0 : config_.lmc);
      if (port == 0) pi.operational_vls = pi.neighbor_mtu = 0;
      if (q != nullptr && port < q->vlarb.size() && port != 0)
        pi.vl_high_limit = static_cast<uint8_t>(std::min<uint32_t>(q->vlarb[port].high_limit, 255));
      if (pk != nullptr && port < pk->pkeys.size() && is_switch) {
        pi.partition_enforcement_inbound = pk->enforce_in[port];
        pi.partition_enforcement_outbound = pk->enforce_out[port];
      }
      set_port_info(v, static_cast<uint8_t>(port), pi);
      // A switch external port without enforcement keeps its power-on {0xFFFF} (OpenSM programs them only to enforce).
      const bool pkeys = pk != nullptr && port < pk->pkeys.size() &&
                         (!is_switch || port == 0 || pk->enforce_in[port] || pk->enforce_out[port] ||
                          pk->pkeys[port] != ib::default_pkey_table());
      if (pkeys) plan_pkeys(v, static_cast<uint8_t>(port), pk->pkeys[port]);
    }
    if (q != nullptr && all) {
      // VLArb: all four blocks of every port the policy names.
      for (unsigned port = 1; port < f.ports.size() && port < q->vlarb.size(); ++port) {
        if (!is_switch && !f.reached[port]) continue;
        const std::vector<uint8_t>& path = is_switch ? f.path : f.port_paths[port];
        for (unsigned b = 1; b <= kVlArbBlocks; ++b) {
          ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrVlArbTable, ib::vlarb_attr_mod(static_cast<uint16_t>(b), static_cast<uint16_t>(port)), path);
          vlarb_table_block(q->vlarb[port], b).encode(s.data.data());
          request(s, Purpose::Program, UINT32_MAX, 0);
        }
        view_.nodes[v].vlarb[port] = q->vlarb[port];
      }
      // SL2VL: per output, the most common table for all inputs, then the exceptions.
      std::map<uint8_t, std::map<Sl2VlTable, std::vector<uint8_t>>> by_out;
      for (const auto& [key, table] : q->sl2vl) by_out[key.second][table].push_back(key.first);
      for (const auto& [out, tables] : by_out) {
        if (out >= f.ports.size() || (!is_switch && !f.reached[out])) continue;
        const std::vector<uint8_t>& path = is_switch ? f.path : f.port_paths[out];
        auto send = [&](uint32_t mod, const Sl2VlTable& table) {
          ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrSlToVlTable, mod, path);
          ib::SlToVlTable t;
          std::copy(table.begin(), table.end(), t.vl.begin());
          t.encode(s.data.data());
          request(s, Purpose::Program, UINT32_MAX, 0);
        };
        if (!is_switch) {
          send(0, tables.begin()->first);
        } else {
          auto most = tables.begin();
          for (auto it = tables.begin(); it != tables.end(); ++it)
            if (it->second.size() > most->second.size()) most = it;
          send(kSl2VlAllInputs | out, most->first);
          for (const auto& [table, ins] : tables)
            if (&table != &most->first)
              for (uint8_t in : ins) send(ib::sl2vl_attr_mod(in, out), table);
        }
        for (const auto& [table, ins] : tables)
          for (uint8_t in : ins) view_.nodes[v].sl2vl[{in, out}] = table;
      }
    }
    if (is_switch && f.port_state_change) {  // clear PortStateChange (written back with the bit set)
      ib::SwitchInfo si = f.switch_info;
      ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrSwitchInfo, 0, f.path);
      si.encode(s.data.data());
      request(s, Purpose::Program, UINT32_MAX, 0);
    }
    if (is_switch) plan_lft(v);
    if (is_switch && config_.adaptive.mode != sw::ArMode::Off) plan_adaptive(v);
  }
  ar_groups_ = {};  // written: what a re-sweep compares with is in ar_by_guid_
}

void SubnetManager::compute_ar_groups() {
  const topology::Topology& t = view_.topology;
  const topology::TopologyIndex index(t);
  routing::AdaptivePlan plan = routing::adaptive_plan(t, index, view_.lids, view_.routes);
  ar_loop_ = std::move(plan.loop);
  if (ar_loop_.empty()) {
    ar_groups_ = std::move(plan.groups);
  } else {
    ar_groups_.assign(t.nodes.size(), {});
    ++stats_.ar_refusals;
  }
}

void SubnetManager::plan_adaptive(unsigned v) {
  using Data = std::array<uint8_t, ib::kSmpDataBytes>;
  const Found& f = found_of(v);
  const auto write = [&](uint16_t attr, uint32_t block, const auto& value) {
    Data data{};
    value.encode(data.data());
    std::vector<Data>& written = ar_by_guid_[{f.info.node_guid, attr}];
    if (resweep_ && block < written.size() && written[block] == data) return;  // unchanged
    ib::Smp s = make_smp(ib::kMethodSet, attr, block, f.path);
    s.data = data;
    request(s, Purpose::Program, UINT32_MAX, 0);
    if (written.size() <= block) written.resize(block + 1);
    written[block] = data;
    ++stats_.ar_blocks;
  };
  const sw::ArGroupTable& t = ar_groups_[v];
  for (std::size_t block = 0; block * ib::kArGroupsPerBlock < t.ports.size(); ++block) {
    ib::ArGroupBlock b;
    for (unsigned i = 0; i < ib::kArGroupsPerBlock; ++i)
      if (const std::size_t g = block * ib::kArGroupsPerBlock + i; g < t.ports.size()) b.ports[i] = t.ports[g];
    write(ib::kAttrHcasimArGroupTable, static_cast<uint32_t>(block), b);
  }
  const std::size_t lids = view_.routes.lft[v].size();
  for (std::size_t block = 0; block * ib::kArLidsPerBlock < lids; ++block) {
    ib::ArLidBlock b;
    for (unsigned i = 0; i < ib::kArLidsPerBlock; ++i)
      b.group[i] = t.group(static_cast<uint16_t>(block * ib::kArLidsPerBlock + i));
    write(ib::kAttrHcasimArLidTable, static_cast<uint32_t>(block), b);
  }
  sw::AdaptiveRoutingConfig settings = config_.adaptive;
  if (!ar_loop_.empty()) settings.mode = sw::ArMode::Off;
  write(ib::kAttrHcasimArInfo, 0, ar_info_of(settings));
}

void SubnetManager::plan_lft(unsigned v) {
  const Found& f = found_of(v);
  const std::vector<uint8_t>& lft = view_.routes.lft[v];
  std::vector<ib::LftBlock>& written = lft_by_guid_[f.info.node_guid];
  for (size_t block = 0; block * ib::kLftBlockEntries < lft.size(); ++block) {
    ib::LftBlock b;
    b.port.fill(routing::kNoPath);
    for (unsigned i = 0; i < ib::kLftBlockEntries && block * ib::kLftBlockEntries + i < lft.size(); ++i)
      b.port[i] = lft[block * ib::kLftBlockEntries + i];
    if (resweep_ && block < written.size() && written[block].port == b.port) continue;  // unchanged
    ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrLft, static_cast<uint32_t>(block), f.path);
    b.encode(s.data.data());
    request(s, Purpose::Program, UINT32_MAX, 0);
    if (written.size() <= block) written.resize(block + 1);
    written[block] = b;
    if (resweep_) ++resweeps_.back().lft_blocks;
  }
}

routing::Lids SubnetManager::kept_lids(const topology::Topology& t) const {
  const uint32_t span = 1u << config_.lmc;
  uint32_t next = 1;  // above every LID handed out so far
  for (const auto& [guid, bases] : lids_by_guid_)
    for (uint16_t b : bases) next = std::max(next, uint32_t{b} + span);
  routing::Lids l;
  l.lmc = config_.lmc;
  l.base.resize(t.nodes.size());
  for (unsigned v = 0; v < t.nodes.size(); ++v) {
    const bool is_switch = t.nodes[v].kind == topology::NodeKind::Switch;
    const std::size_t count = is_switch ? 1 : t.nodes[v].ports;
    const auto it = lids_by_guid_.find(t.nodes[v].guid);
    if (it != lids_by_guid_.end() && it->second.size() == count) {
      l.base[v] = it->second;
      continue;
    }
    for (std::size_t i = 0; i < count; ++i) {
      next = (next + span - 1) / span * span;
      if (next + span - 1 > routing::kMaxUnicastLid)
        throw std::invalid_argument("re-sweep: no unicast LIDs left for a new node; accepted: at most 0xBFFF LIDs");
      l.base[v].push_back(static_cast<uint16_t>(next));
      next += is_switch ? 1 : span;
    }
  }
  uint32_t top = 0;
  for (unsigned v = 0; v < t.nodes.size(); ++v)
    for (uint16_t b : l.base[v]) top = std::max(top, b + (t.nodes[v].kind == topology::NodeKind::Switch ? 0 : span - 1));
  l.top = static_cast<uint16_t>(top);
  l.owner.assign(top + 1, topology::LinkEnd{UINT32_MAX, 0});
  for (unsigned v = 0; v < t.nodes.size(); ++v) {
    const bool is_switch = t.nodes[v].kind == topology::NodeKind::Switch;
    for (std::size_t i = 0; i < l.base[v].size(); ++i)
      for (uint32_t k = 0; k < (is_switch ? 1 : span); ++k)
        l.owner[l.base[v][i] + k] = topology::LinkEnd{v, is_switch ? 0u : static_cast<unsigned>(i + 1)};
  }
  return l;
}

void SubnetManager::plan_pkeys(unsigned v, uint8_t port, const std::vector<uint16_t>& table) {
  const Found& f = found_of(v);
  const bool is_switch = f.info.node_type == ib::kNodeTypeSwitch;
  const std::vector<uint8_t>& path = is_switch ? f.path : f.port_paths[port];
  for (size_t block = 0; block == 0 || block * ib::kPkeyBlockEntries < table.size(); ++block) {
    ib::Smp s = make_smp(ib::kMethodSet, ib::kAttrPkeyTable,
                         ib::pkey_attr_mod(static_cast<uint16_t>(block), is_switch ? port : 0), path);
    ib::PkeyTableBlock b;
    for (unsigned i = 0; i < ib::kPkeyBlockEntries && block * ib::kPkeyBlockEntries + i < table.size(); ++i)
      b.pkey[i] = table[block * ib::kPkeyBlockEntries + i];
    b.encode(s.data.data());
    request(s, Purpose::Program, UINT32_MAX, 0);
  }
  std::vector<std::vector<uint16_t>>& kept = view_.nodes[v].pkeys;
  kept.resize(std::max<size_t>(kept.size(), f.ports.size()), ib::default_pkey_table());
  kept[port] = table;
}

void SubnetManager::plan_states(uint8_t state) {
  for (unsigned v = 0; v < order_.size(); ++v) {
    const Found& f = found_of(v);
    for (unsigned port = 1; port < f.peers.size(); ++port) {
      if (!raise_[v][port]) continue;
      if (resweep_ && state == ib::kPortStateArmed) ++resweeps_.back().ports_raised;
      ib::PortInfo pi = view_.nodes[v].port_info[port];
      pi.port_state = state;
      set_port_info(v, static_cast<uint8_t>(port), pi);
    }
  }
}

}  // namespace hcasim::mgmt
