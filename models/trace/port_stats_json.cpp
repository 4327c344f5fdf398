#include "models/trace/port_stats_json.hpp"

#include <cctype>
#include <cmath>
#include <string>

namespace hcasim::trace {

namespace {
// "bad VCRC" -> "bad_vcrc"
std::string json_key(std::string text) {
  for (char& c : text) c = c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}
}  // namespace

double bits_per_second(uint64_t bytes, uint64_t ps) {
  return ps == 0 ? 0.0 : 8.0 * static_cast<double>(bytes) * 1e12 / static_cast<double>(ps);
}

nlohmann::json port_stats_json(const link::Port& port, uint64_t sim_ps) {
  const link::PortStats& s = port.stats();
  nlohmann::json j;
  j["name"] = port.name();
  j["peer"] = port.peer() ? port.peer()->name() : "";
  j["data_rate_bps"] = port.peer() ? port.timing().data_rate_bps() : 0.0;
  j["mtu"] = port.config().mtu;
  j["operational_vls"] = port.vl_count();
  j["fc_packets_sent"] = s.fc_tx();
  j["fc_packets_received"] = s.fc_rx();
  const uint64_t busy = port.busy_ps_until(sim_ps);
  j["busy_ps"] = busy;
  j["utilization"] = sim_ps ? static_cast<double>(busy) / static_cast<double>(sim_ps) : 0.0;
  j["xmit_wait_ps"] = port.xmit_wait_ps_until(sim_ps);
  nlohmann::json vls = nlohmann::json::array();
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (vl >= port.vl_count() && vl != link::kVl15) continue;
    const link::VlStats& v = s.vl[vl];
    nlohmann::json d = nlohmann::json::object();
    for (std::size_t r = 0; r < link::kDropReasonCount; ++r)
      d[link::to_string(static_cast<link::DropReason>(r))] = v.drops[r];
    nlohmann::json o = {{"vl", vl},
                        {"tx_packets", v.tx_packets},
                        {"tx_bytes", v.tx_bytes},
                        {"tx_payload_bytes", v.tx_payload_bytes},
                        {"tx_throughput_bps", bits_per_second(v.tx_bytes, sim_ps)},
                        {"tx_data_throughput_bps", bits_per_second(v.tx_payload_bytes, sim_ps)},
                        {"rx_packets", v.rx_packets},
                        {"rx_bytes", v.rx_bytes},
                        {"rx_payload_bytes", v.rx_payload_bytes},
                        {"rx_throughput_bps", bits_per_second(v.rx_bytes, sim_ps)},
                        {"credit_stall_ps", v.credit_stall_ps},
                        {"rx_buffer_high_water_bytes", v.rx_high_water_bytes},
                        {"tx_buffer_high_water_bytes", v.tx_high_water_bytes}};
    o["drops"] = std::move(d);
    vls.push_back(std::move(o));
  }
  j["vls"] = std::move(vls);
  // Partitions: only on a port that has them (a table other than {0xFFFF},
  // enforcement, or a violation), so that runs without partitions read as before.
  if (port.pkey_violations() != 0 || port.pkeys() != ib::default_pkey_table() || port.enforces_inbound() ||
      port.enforces_outbound()) {
    j["pkeys"] = port.pkeys();
    j["pkey_violations"] = port.pkey_violations();
  }
  if (const link::FaultInjector* f = port.faults()) j["faults"] = fault_stats_json(*f);
  return j;
}

nlohmann::json fault_stats_json(const link::FaultInjector& f) {
  const link::FaultStats& s = f.stats();
  nlohmann::json by_error = nlohmann::json::object();
  for (std::size_t e = 1; e < link::kDecodeErrorCount; ++e)
    if (s.by_error[e] != 0) by_error[json_key(ib::to_string(static_cast<ib::DecodeError>(e)))] = s.by_error[e];
  nlohmann::json matches = nlohmann::json::array();
  nlohmann::json rules = nlohmann::json::array();
  for (std::size_t r = 0; r < f.config().drops.size(); ++r) {
    const link::RuleAction a = f.config().drops[r].action;
    matches.push_back(f.matches(r));
    rules.push_back({{"action", link::to_string(a)},
                     {"matches", f.matches(r)},
                     {"dropped", a == link::RuleAction::Drop ? f.hits(r) : 0},
                     {"delayed", a == link::RuleAction::Delay ? f.hits(r) : 0},
                     {"duplicated", a == link::RuleAction::Duplicate ? f.hits(r) : 0}});
  }
  return {{"judged", s.judged},
          {"dropped_targeted", s.targeted},
          {"delayed", s.delayed},
          {"duplicated", s.duplicated},
          {"dropped_random", s.random},
          {"corrupted", s.corrupted},
          {"corrupted_by_error", by_error},
          {"undetected", s.undetected},
          {"bits_flipped", s.bits_flipped},
          {"rule_matches", matches},
          {"rules", rules}};
}

nlohmann::json number_or_null(double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); }

nlohmann::json latency_json(const LatencyRecord& r) {
  auto ns = [](uint64_t ps) { return static_cast<double>(ps) / 1000.0; };
  const BatchMeans& b = r.batch_means();
  return {{"count", r.count()},
          {"min_ns", ns(r.min())},
          {"mean_ns", r.mean() / 1000.0},
          {"mean_ci95_ns", number_or_null(b.ci95_half_width() / 1000.0)},
          {"batches", b.batches()},
          {"batch_lag1_autocorrelation", number_or_null(b.lag1_autocorrelation())},
          {"p50_ns", ns(r.quantile(0.50))},
          {"p90_ns", ns(r.quantile(0.90))},
          {"p99_ns", ns(r.quantile(0.99))},
          {"p999_ns", ns(r.quantile(0.999))},
          {"p9999_ns", ns(r.quantile(0.9999))},
          {"max_ns", ns(r.max())}};
}

}  // namespace hcasim::trace
