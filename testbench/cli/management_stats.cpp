#include "testbench/cli/management_stats.hpp"

#include <utility>

namespace hcasim {

namespace {

nlohmann::json totals_json(const mgmt::SaTotals& t) {
  return {{"transactions", t.transactions},       {"completed", t.completed},
          {"failures", t.failures},               {"error_status", t.error_status},
          {"refused_configs", t.refused_configs}, {"segments_sent", t.segments_sent},
          {"segments_resent", t.segments_resent}, {"segments_received", t.segments_received},
          {"acks_sent", t.acks_sent},             {"acks_received", t.acks_received},
          {"resends_sent", t.resends_sent},       {"resends_received", t.resends_received},
          {"resends_rejected", t.resends_rejected}, {"keepalives_sent", t.keepalives_sent},
          {"keepalives_received", t.keepalives_received}, {"timeouts", t.timeouts},
          {"retries", t.retries},                 {"bulk_tail_replaced", t.bulk_tail_replaced},
          {"bulk_restarts", t.bulk_restarts}};
}

// One SA transfer, as seen by the server that answered it.
nlohmann::json transfer_json(const mgmt::SaTransferStats& s) {
  return {{"tid", s.tid},
          {"peer_lid", s.peer_lid},
          {"method", s.method},
          {"attribute", s.attr_id},
          {"status", s.status},
          {"failed", s.failed},
          {"start_us", static_cast<double>(s.start_ps) / 1e6},
          {"end_us", static_cast<double>(s.end_ps) / 1e6},
          {"bytes", s.bytes},
          {"records", s.records},
          {"segments", s.segments},
          {"acks", s.mp.acks_sent + s.mp.acks_received},
          {"resends", s.mp.resends_sent + s.mp.resends_received},
          {"keepalives", s.keepalives},
          {"retries", s.request_retries + s.mp.retries}};
}

// An SA server: its records and totals, and its transfers (a list with
// `listed`, else their count).
nlohmann::json server_json(const fabric::Fabric& f, unsigned node, bool listed) {
  mgmt::SaAgent* a = f.sa_agent(node);
  if (a == nullptr || a->server() == nullptr) return nullptr;
  nlohmann::json transfers = nlohmann::json::array();
  if (listed)
    for (const mgmt::SaTransferStats& s : a->server()->transfers()) transfers.push_back(transfer_json(s));
  return {{"node", f.spec().nodes[node].name},
          {"records", a->database().total_records()},
          {"totals", totals_json(a->server()->totals())},
          {"transfers", listed ? transfers : nlohmann::json(a->server()->transfers().size())}};
}

double us(uint64_t ps) { return static_cast<double>(ps) / 1e6; }

nlohmann::json resweeps_json(const mgmt::SubnetManager& sm) {
  nlohmann::json out = nlohmann::json::array();
  for (const mgmt::ResweepRecord& r : sm.resweeps())
    out.push_back({{"trigger", mgmt::to_string(r.trigger)},
                   {"requested_us", us(r.requested_ps)},
                   {"start_us", us(r.start_ps)},
                   {"tables_us", us(r.tables_ps)},
                   {"done_us", us(r.done_ps)},
                   {"smps", r.smps},
                   {"lft_blocks", r.lft_blocks},
                   {"ports_raised", r.ports_raised}});
  return out;
}

// Both SMs of a run with management.standby (docs/sm-roles.md).
nlohmann::json sm_roles_json(const fabric::Fabric& f) {
  const config::ManagementSpec& m = f.spec().management;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [node, port] : {std::pair{m.sm_node, m.sm_port}, std::pair{m.standby_node, m.standby_port}}) {
    const mgmt::SubnetManager* sm = f.mad_node(node)->sm();
    if (sm == nullptr) continue;
    nlohmann::json changes = nlohmann::json::array();
    for (const mgmt::RoleChange& c : sm->role_changes())
      changes.push_back({{"time_us", us(c.time_ps)}, {"state", ib::to_string(c.state)}});
    const mgmt::SmRoleStats& r = sm->role_stats();
    out.push_back({{"port", f.spec().nodes[node].name + ".p" + std::to_string(port)},
                   {"priority", sm->sm_info().priority},
                   {"state", ib::to_string(sm->role())},
                   {"changes", changes},
                   {"polls", r.polls},
                   {"poll_answers", r.poll_answers},
                   {"sms_found", r.sms_found},
                   {"handovers_sent", r.handovers_sent},
                   {"handovers_received", r.handovers_received},
                   {"sweeps", resweeps_json(*sm)}});
  }
  return out;
}

}  // namespace

void each_sa_server_json(const fabric::Fabric& f, const JsonSink& sink) {
  if (f.subnet_manager() == nullptr) return;
  const config::ManagementSpec& m = f.spec().management;
  for (const auto& [node, has] : {std::pair{m.sm_node, true}, std::pair{m.standby_node, m.has_standby}})
    if (has)
      if (nlohmann::json s = server_json(f, node, true); !s.is_null()) sink(std::move(s));
}

nlohmann::json management_json(const fabric::Fabric& f) {
  const mgmt::SubnetManager* sm = f.subnet_manager();
  if (sm == nullptr) return {{"mode", "preconfigured"}};
  const mgmt::SmStats& s = sm->stats();
  nlohmann::json sweep = {{"done", sm->done()},
                          {"failure", sm->failure()},
                          {"start_us", us(s.start_ps)},
                          {"discovered_us", us(s.discovered_ps)},
                          {"done_us", us(s.done_ps)},
                          {"duration_us", sm->done() ? us(s.done_ps - s.start_ps) : 0.0},
                          {"smps", s.smps_sent},
                          {"discovery_smps", s.discovery_smps},
                          {"programming_smps", s.programming_smps},
                          {"responses", s.responses},
                          {"timeouts", s.timeouts},
                          {"retries", s.retries},
                          {"failed", s.failed},
                          {"errors", s.errors},
                          {"nodes", s.nodes},
                          {"switches", s.switches},
                          {"links", s.links},
                          {"sm_lid", sm->sm_lid()}};
  uint64_t gets = 0, sets = 0, errors = 0, m_key = 0, forwarded = 0, dropped = 0, queued = 0;
  uint64_t traps_sent = 0, trap_repeats = 0, represses = 0, traps_held = 0;
  for (unsigned n = 0; n < f.spec().nodes.size(); ++n) {
    const mgmt::MadNode* m = f.mad_node(n);
    if (m == nullptr) continue;
    traps_sent += m->stats().traps_sent;
    trap_repeats += m->stats().trap_repeats;
    represses += m->stats().represses_in;
    gets += m->sma().stats().gets;
    sets += m->sma().stats().sets;
    errors += m->sma().stats().errors;
    m_key += m->sma().stats().m_key_violations;
    forwarded += m->stats().smps_forwarded;
    dropped += m->stats().smps_dropped;
    queued += m->stats().queued;
    traps_held += m->stats().traps_held;
  }
  mgmt::SaTotals clients;
  for (unsigned n = 0; n < f.spec().nodes.size(); ++n) {
    mgmt::SaAgent* a = f.sa_agent(n);
    if (a == nullptr) continue;
    for (const mgmt::SaClient* c : {a->client(), a->peer_client()}) {
      if (c == nullptr) continue;
      clients.add(c->totals());
    }
  }
  const config::ManagementSpec& m = f.spec().management;
  // Traps (docs/fabric-events.md, docs/partitions.md): absent from a run without traps or partitions.
  nlohmann::json events = nullptr;
  if (sm->traps() != 0 || traps_sent != 0 || !sm->resweeps().empty() ||
      !config::partition_policy(f.spec()).empty()) {
    const nlohmann::json resweeps = resweeps_json(*sm);
    events = {{"traps_sent", traps_sent},
              {"trap_repeats", trap_repeats},
              {"traps_at_sm", sm->traps()},
              {"represses", represses},
              {"held_back", traps_held},
              {"resweeps", resweeps}};
  }
  nlohmann::json out = {{"mode", "in_band"},
          {"sweep", sweep},
          {"sa", {{"master", server_json(f, m.sm_node, false)},
                  {"standby", m.has_standby ? server_json(f, m.standby_node, false) : nullptr},
                  {"clients", totals_json(clients)}}},
          {"smas", {{"gets", gets},
                    {"sets", sets},
                    {"errors", errors},
                    {"m_key_violations", m_key},
                    {"dr_forwarded", forwarded},
                    {"dropped", dropped},
                    {"queued_for_room", queued}}}};
  if (!events.is_null()) out["traps"] = events;
  if (m.sm.sweep_interval_ps != 0)
    out["light_sweeps"] = {{"count", s.light_sweeps}, {"smps", s.light_sweep_smps}, {"changes", s.light_changes}};
  if (f.spec().adaptive.mode != sw::ArMode::Off)  // in band: what the SM wrote (docs/adaptive-routing.md)
    out["adaptive_routing"] = {{"blocks", s.ar_blocks}, {"refusals", s.ar_refusals}};
  if (m.has_standby) {
    out["sm_roles"] = sm_roles_json(f);
    out["master"] = f.spec().nodes[f.master_node()].name;
  }
  return out;
}

}  // namespace hcasim
