#include "models/trace/port_stats_json.hpp"

namespace hcasim::trace {

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
  j["fc_packets_sent"] = s.fc_tx;
  j["fc_packets_received"] = s.fc_rx;
  j["busy_ps"] = s.busy_ps;
  j["utilization"] = sim_ps ? static_cast<double>(s.busy_ps) / static_cast<double>(sim_ps) : 0.0;
  nlohmann::json vls = nlohmann::json::array();
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (vl >= port.vl_count() && vl != link::kVl15) continue;
    const link::VlStats& v = s.vl[vl];
    nlohmann::json d = nlohmann::json::object();
    for (std::size_t r = 0; r < link::kDropReasonCount; ++r)
      d[link::to_string(static_cast<link::DropReason>(r))] = v.drops[r];
    vls.push_back({{"vl", vl},
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
                   {"tx_buffer_high_water_bytes", v.tx_high_water_bytes},
                   {"drops", d}});
  }
  j["vls"] = vls;
  return j;
}

nlohmann::json latency_json(const Histogram& h) {
  auto ns = [](uint64_t ps) { return static_cast<double>(ps) / 1000.0; };
  return {{"count", h.count()},
          {"p50_ns", ns(h.quantile(0.50))},
          {"p99_ns", ns(h.quantile(0.99))},
          {"p999_ns", ns(h.quantile(0.999))},
          {"max_ns", ns(h.max())},
          {"min_ns", ns(h.min())},
          {"mean_ns", h.mean() / 1000.0}};
}

}  // namespace hcasim::trace
