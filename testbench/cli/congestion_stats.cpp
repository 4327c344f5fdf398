#include "testbench/cli/congestion_stats.hpp"

#include <algorithm>

namespace hcasim {

namespace {

// A switch's ports and VLs that marked packets or were congested.
nlohmann::json switch_json(const sw::Switch& s, const sw::CongestionMarker& m, uint64_t end_ps) {
  nlohmann::json vls = nlohmann::json::array();
  for (unsigned p = 1; p <= m.ports(); ++p)
    for (unsigned vl = 0; vl < s.port(p).vl_count() && vl < sw::CongestionMarker::kVls; ++vl) {
      const sw::CcVlStats st = m.stats(p, vl, end_ps);
      if (st.marked == 0 && st.congested_ps == 0) continue;
      vls.push_back({{"port", p}, {"vl", vl}, {"marked", st.marked}, {"congested_ps", st.congested_ps}});
    }
  return {{"name", s.name()}, {"vls", std::move(vls)}};
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

void each_cc_switch_json(const fabric::Fabric& f, uint64_t end_ps, const JsonSink& sink) {
  for (unsigned i = 0; i < f.switch_count(); ++i)
    if (const sw::CongestionMarker* m = f.switch_at(i).congestion()) sink(switch_json(f.switch_at(i), *m, end_ps));
}

void each_cc_hca_port_json(const fabric::Fabric& f, const JsonSink& sink) {
  for (unsigned i = 0; i < f.hca_count(); ++i)
    for (unsigned p = 0; p < f.hca(i).port_count(); ++p)
      if (const hca::CaCongestionControl* cc = f.hca(i).congestion(p)) sink(hca_port_json(f.hca(i), p, *cc));
}

nlohmann::json congestion_json(const fabric::Fabric& f, uint64_t end_ps) {
  uint64_t switches = 0, port_vls = 0, marked = 0, congested_ps = 0;
  each_cc_switch_json(f, end_ps, [&](nlohmann::json&& s) {
    ++switches;
    for (const nlohmann::json& v : s["vls"]) {
      ++port_vls;
      marked += v["marked"].get<uint64_t>();
      congested_ps += v["congested_ps"].get<uint64_t>();
    }
  });
  nlohmann::json hcas = {{"ports", 0}, {"cctis", 0}, {"ccti_max", 0}};
  each_cc_hca_port_json(f, [&](nlohmann::json&& h) {
    hcas["ports"] = hcas["ports"].get<uint64_t>() + 1;
    for (auto& [key, value] : h.items())
      if (value.is_number_unsigned() && key != "port")
        hcas[key] = (hcas.contains(key) ? hcas[key].get<uint64_t>() : 0) + value.get<uint64_t>();
    for (const nlohmann::json& c : h["cctis"]) {
      hcas["cctis"] = hcas["cctis"].get<uint64_t>() + 1;
      hcas["ccti_max"] = std::max(hcas["ccti_max"].get<uint64_t>(), c["ccti_max"].get<uint64_t>());
    }
  });
  const mgmt::CcManager* m = f.cc_manager();
  if (switches == 0 && hcas["ports"] == 0 && m == nullptr) return nullptr;
  nlohmann::json out = {{"switches",
                         {{"count", switches}, {"port_vls_marking", port_vls}, {"marked", marked}, {"congested_ps", congested_ps}}},
                        {"hcas", std::move(hcas)}};
  if (m != nullptr) out["manager"] = manager_json(*m);
  return out;
}

}  // namespace hcasim
