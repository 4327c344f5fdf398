#include "testbench/management_stats.hpp"

namespace hcasim {

nlohmann::json management_json(const fabric::Fabric& f) {
  const mgmt::SubnetManager* sm = f.subnet_manager();
  if (sm == nullptr) return {{"mode", "preconfigured"}};
  const mgmt::SmStats& s = sm->stats();
  const auto us = [](uint64_t ps) { return static_cast<double>(ps) / 1e6; };
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
  for (unsigned n = 0; n < f.spec().nodes.size(); ++n) {
    const mgmt::MadNode* m = f.mad_node(n);
    if (m == nullptr) continue;
    gets += m->sma().stats().gets;
    sets += m->sma().stats().sets;
    errors += m->sma().stats().errors;
    m_key += m->sma().stats().m_key_violations;
    forwarded += m->stats().smps_forwarded;
    dropped += m->stats().smps_dropped;
    queued += m->stats().queued;
  }
  return {{"mode", "in_band"},
          {"sweep", sweep},
          {"smas", {{"gets", gets},
                    {"sets", sets},
                    {"errors", errors},
                    {"m_key_violations", m_key},
                    {"dr_forwarded", forwarded},
                    {"dropped", dropped},
                    {"queued_for_room", queued}}}};
}

}  // namespace hcasim
