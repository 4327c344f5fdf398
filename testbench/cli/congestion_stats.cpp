#include "testbench/cli/congestion_stats.hpp"

namespace hcasim {

namespace {

nlohmann::json switch_json(const sw::Switch& s, const sw::CongestionMarker& m, uint64_t end_ps) {
  nlohmann::json ports = nlohmann::json::array();
  for (unsigned p = 1; p <= m.ports(); ++p) {
    nlohmann::json vls = nlohmann::json::array();
    for (unsigned vl = 0; vl < s.port(p).vl_count() && vl < sw::CongestionMarker::kVls; ++vl) {
      const sw::CcVlStats st = m.stats(p, vl, end_ps);
      if (st.marked == 0 && st.congested_ps == 0) continue;
      vls.push_back({{"vl", vl}, {"marked", st.marked}, {"congested_ps", st.congested_ps}});
    }
    if (!vls.empty()) ports.push_back({{"port", p}, {"vls", std::move(vls)}});
  }
  return {{"name", s.name()}, {"ports", std::move(ports)}};
}

nlohmann::json hca_port_json(const hca::Hca& h, unsigned i, const hca::CaCongestionControl& cc) {
  const hca::CaCcStats& st = cc.stats();
  nlohmann::json cctis = nlohmann::json::array();
  for (uint32_t key = 0; key < cc.keys(); ++key) {
    const hca::CctiState* s = cc.state(key);
    if (s == nullptr) continue;
    cctis.push_back({{cc.per_sl() ? "sl" : "qp_or_flow", key},
                     {"ccti", s->ccti},
                     {"ccti_max", s->ccti_max},
                     {"packets", s->delayed_packets},
                     {"mean_delay_ps", s->delayed_packets ? s->delay_sum_ps / s->delayed_packets : 0}});
  }
  return {{"name", h.name()},
          {"port", i + 1},
          {"fecn_received", st.fecn_received},
          {"becns_sent", st.becns_sent},
          {"cnps_sent", st.cnps_sent},
          {"cnps_refused", h.cnps_refused(i)},
          {"becns_received", st.becns_received},
          {"cnps_received", st.cnps_received},
          {"trigger_events", st.trigger_events},
          {"cctis", std::move(cctis)}};
}

nlohmann::json manager_json(const mgmt::CcManager& m) {
  const mgmt::CcManagerStats& st = m.stats();
  return {{"setups", st.setups},   {"mads_sent", st.sent}, {"answered", st.answered},
          {"timeouts", st.timeouts}, {"failed", st.failed}, {"errors", st.errors},
          {"skipped", st.skipped},  {"unavailable_ports", m.unavailable_ports()}};
}

}  // namespace

nlohmann::json congestion_json(const fabric::Fabric& f, uint64_t end_ps) {
  nlohmann::json switches = nlohmann::json::array();
  nlohmann::json hcas = nlohmann::json::array();
  for (unsigned i = 0; i < f.switch_count(); ++i)
    if (const sw::CongestionMarker* m = f.switch_at(i).congestion()) switches.push_back(switch_json(f.switch_at(i), *m, end_ps));
  for (unsigned i = 0; i < f.hca_count(); ++i)
    for (unsigned p = 0; p < f.hca(i).port_count(); ++p)
      if (const hca::CaCongestionControl* cc = f.hca(i).congestion(p)) hcas.push_back(hca_port_json(f.hca(i), p, *cc));
  const mgmt::CcManager* m = f.cc_manager();
  if (switches.empty() && hcas.empty() && m == nullptr) return nullptr;
  nlohmann::json out = {{"switches", std::move(switches)}, {"hcas", std::move(hcas)}};
  if (m != nullptr) out["manager"] = manager_json(*m);
  return out;
}

}  // namespace hcasim
