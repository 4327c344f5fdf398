#include "testbench/cli/stats_document.hpp"

#include "testbench/cli/host_stats.hpp"
#include "testbench/cli/congestion_stats.hpp"
#include "testbench/cli/management_stats.hpp"

#include "models/link/splitmix.hpp"
#include "models/link/timeline.hpp"
#include "testbench/cli/transport_stats.hpp"

#include <cstdio>
#include <sstream>

#include <systemc>

namespace hcasim {

std::string fnv1a_hex(const std::string& s) {
  const uint64_t h = link::fnv1a(s);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string config_hash(const nlohmann::json& resolved) {
  // Which implementation runs a port's blocks (model or RTL) is not part of
  // the system modelled: a co-simulated run hashes as the model's own.
  nlohmann::json modelled = resolved;
  const auto strip = [](nlohmann::json& port) {
    if (!port.is_object()) return;
    port.erase("vl_arbiter");
    port.erase("credit_manager");
  };
  if (modelled.contains("port")) strip(modelled["port"]);
  if (modelled.contains("port_overrides") && modelled["port_overrides"].is_array()) {
    nlohmann::json kept = nlohmann::json::array();
    for (nlohmann::json& o : modelled["port_overrides"]) {
      strip(o);
      nlohmann::json rest = o;
      if (rest.is_object()) rest.erase("port");
      if (rest != modelled["port"]) kept.push_back(o);  // else the override chose RTL blocks only
    }
    modelled["port_overrides"] = kept;
  }
  return fnv1a_hex(modelled.dump());
}

nlohmann::json stats_document(const Simulation& sim, const RunMetadata& meta) {
  nlohmann::json doc = sim.results_json();
  const uint64_t hops = sim.packet_hops();
  doc["schema"] = "hcasim-stats";
  doc["version"] = kStatsSchemaVersion;
  doc["run"] = {{"scenario", meta.scenario},
                {"seed", meta.seed},
                {"config_hash", meta.config_hash},
                {"sim_time_ps", sim.sim_time_ps()},
                // The model's own: RTL co-simulation's are left out (timeline.hpp).
                {"delta_cycles", sim.model_delta_cycles()},
                {"wakeups", sim.wakeups()},
                {"packet_hops", hops},
                {"packets_delivered", sim.packets_delivered()},
                {"partitions", sim.partitions()},
                {"cut_links", sim.cut_links()},
                {"window_ps", sim.window_ps()},
                {"partition_wakeups", sim.partition_wakeups()},
                {"workload_failures", sim.workload_failures()},
                {"load_warnings", nlohmann::json::array()},
                {"flows_under_offered", 0},
                {"perftest_overlaps", sim.perftest_overlaps()}};
  // The first kListedWarnings lines; every flow that carried less is a row of the flows table.
  const std::vector<std::string> warnings = sim.load_warnings();
  for (std::size_t i = 0; i < warnings.size() && i < kListedWarnings; ++i) doc["run"]["load_warnings"].push_back(warnings[i]);
  doc["run"]["flows_under_offered"] = warnings.size();
  if (const nlohmann::json m = sim.measurement_json(); !m.is_null()) doc["run"]["measurement"] = m;
  doc["management"] = management_json(sim.fabric());
  if (nlohmann::json cc = congestion_json(sim.fabric(), sim.sim_time_ps()); !cc.is_null())
    doc["congestion_control"] = std::move(cc);
  if (sim.fabric().subnet_manager() != nullptr) doc["management"]["path_record_lookups"] = sim.path_lookups();
  const double wall = sim.wall_seconds();
  doc["wall"] = {{"seconds", wall},
                 {"packet_hops_per_s", wall > 0 ? static_cast<double>(hops) / wall : 0.0},
                 {"ns_per_packet_hop", hops ? wall * 1e9 / static_cast<double>(hops) : 0.0},
                 {"peak_rss_bytes", sim.peak_rss_bytes()},
                 {"threads", sim.threads()},
                 {"huge_page_bytes", sim.huge_page_bytes()}};
  return doc;
}

std::string human_summary(const nlohmann::json& s) {
  std::ostringstream o;
  char line[256];
  const double sim_us = s["run"]["sim_time_ps"].get<double>() / 1e6;
  std::snprintf(line, sizeof line, "%s: %.3f us simulated in %.3f s, %llu packet-hops\n",
                s["run"]["scenario"].get<std::string>().c_str(), sim_us, s["wall"]["seconds"].get<double>(),
                static_cast<unsigned long long>(s["run"]["packet_hops"].get<uint64_t>()));
  o << line;
  if (s["run"]["partitions"].get<unsigned>() > 1) {
    std::snprintf(line, sizeof line, "  parallel: %u partitions, %u cut links, windows of %.3f ns, on %u threads\n",
                  s["run"]["partitions"].get<unsigned>(), s["run"]["cut_links"].get<unsigned>(),
                  s["run"]["window_ps"].get<double>() / 1e3, s["wall"]["threads"].get<unsigned>());
    o << line;
  }
  if (s.contains("management") && s["management"]["mode"] == "in_band") {
    const auto& w = s["management"]["sweep"];
    std::snprintf(line, sizeof line,
                  "  subnet manager: %s, sweep %.3f us, %llu SMPs (%llu timeouts), %llu nodes, %llu links\n",
                  w["done"].get<bool>() ? "done" : "not done", w["duration_us"].get<double>(),
                  static_cast<unsigned long long>(w["smps"].get<uint64_t>()),
                  static_cast<unsigned long long>(w["timeouts"].get<uint64_t>()),
                  static_cast<unsigned long long>(w["nodes"].get<uint64_t>()),
                  static_cast<unsigned long long>(w["links"].get<uint64_t>()));
    o << line;
  }
  const nlohmann::json& ports = s["ports"];
  for (const auto& p : ports["hottest"]) {
    std::snprintf(line, sizeof line,
                  "  port %-10s sent %llu packets, data %.3f Gb/s, link busy %.1f%%, FC packets %llu, credit stall %.3f us, drops %llu\n",
                  p["name"].get<std::string>().c_str(), static_cast<unsigned long long>(p["tx_packets"].get<uint64_t>()),
                  p["tx_data_throughput_bps"].get<double>() / 1e9, 100.0 * p["utilization"].get<double>(),
                  static_cast<unsigned long long>(p["fc_packets_sent"].get<uint64_t>()),
                  static_cast<double>(p["credit_stall_ps"].get<uint64_t>()) / 1e6,
                  static_cast<unsigned long long>(p["drops"].get<uint64_t>()));
    o << line;
  }
  if (ports["connected"].get<uint64_t>() > ports["hottest"].size()) {
    uint64_t drops = 0;
    for (const auto& [reason, n] : ports["drops"].items()) drops += n.get<uint64_t>();
    const nlohmann::json& u = ports["utilization"]["all"];
    std::snprintf(line, sizeof line,
                  "  ... the %zu busiest of %llu connected ports; link busy p50 %.1f%% p99 %.1f%% max %.1f%%; %llu drops in all\n",
                  ports["hottest"].size(), static_cast<unsigned long long>(ports["connected"].get<uint64_t>()),
                  100.0 * u["p50"].get<double>(), 100.0 * u["p99"].get<double>(), 100.0 * u["max"].get<double>(),
                  static_cast<unsigned long long>(drops));
    o << line;
  }
  if (s["run"].contains("measurement")) {
    const auto& m = s["run"]["measurement"];
    std::snprintf(line, sizeof line, "  measured %.3f us to %.3f us (warm-up %s%s)%s\n",
                  m["window_start_ps"].get<double>() / 1e6, m["window_end_ps"].get<double>() / 1e6,
                  m["warmup"].get<std::string>().c_str(),
                  m.contains("steady_state") ? (m["steady_state"].get<bool>() ? ", steady state reached" : ", steady state NOT reached") : "",
                  m.contains("drained") ? (m["drained"].get<bool>() ? ", drained" : ", NOT drained") : "");
    o << line;
  }
  for (const auto& f : s["flows"]["first"]) {
    const auto& l = f["latency"];
    std::snprintf(line, sizeof line,
                  "  flow %-10s %llu/%llu delivered, offered %.3f Gb/s, accepted %.3f Gb/s, latency p50 %.1f ns p99 %.1f ns max %.1f ns (source queue mean %.1f ns)\n",
                  f["name"].get<std::string>().c_str(), static_cast<unsigned long long>(f["packets_delivered"].get<uint64_t>()),
                  static_cast<unsigned long long>(f["packets_created"].get<uint64_t>()),
                  f["offered_bps"].get<double>() / 1e9, f["accepted_bps"].get<double>() / 1e9, l["p50_ns"].get<double>(),
                  l["p99_ns"].get<double>(), l["max_ns"].get<double>(),
                  f["latency_parts"]["source_queue"]["mean_ns"].get<double>());
    o << line;
  }
  if (s["flows"]["count"].get<uint64_t>() > s["flows"]["first"].size())
    o << "  ... " << s["flows"]["count"].get<uint64_t>() << " flows in all\n";
  for (const auto& p : s["patterns"]) {
    const auto& l = p["latency"];
    std::snprintf(line, sizeof line,
                  "  pattern %-8s %llu flows, %llu/%llu delivered, offered %.1f%%, accepted %.1f%% of the sources' links, data %.3f Gb/s, latency p50 %.1f ns p99 %.1f ns p99.9 %.1f ns max %.1f ns\n",
                  p["name"].get<std::string>().c_str(), static_cast<unsigned long long>(p["flows"].get<uint64_t>()),
                  static_cast<unsigned long long>(p["packets_delivered"].get<uint64_t>()),
                  static_cast<unsigned long long>(p["packets_created"].get<uint64_t>()),
                  100.0 * p["offered_load"].get<double>(), 100.0 * p["accepted_load"].get<double>(),
                  p["data_throughput_bps"].get<double>() / 1e9, l["p50_ns"].get<double>(), l["p99_ns"].get<double>(),
                  l["p999_ns"].get<double>(), l["max_ns"].get<double>());
    o << line;
  }
  for (const auto& w : s["run"]["load_warnings"]) o << "  warning: " << w.get<std::string>() << "\n";
  const uint64_t warned = s["run"]["flows_under_offered"].get<uint64_t>();
  if (warned > s["run"]["load_warnings"].size())
    o << "  warning: ... " << warned << " flows in all carried less than they were offered\n";
  for (const auto& w : s["run"]["perftest_overlaps"]) o << "  warning: " << w.get<std::string>() << "\n";
  o << transport_summary(s);
  o << dma_summary(s);
  const auto& c = s["checker"];
  o << "  checker: " << (c["ok"].get<bool>() ? "ok" : "FAILED") << ", " << c["violations"].get<uint64_t>()
    << " violations in " << c["packets_checked"].get<uint64_t>() << " packets";
  if (c.contains("announced_losses") && c["announced_losses"].get<uint64_t>() != 0)
    o << ", " << c["announced_losses"].get<uint64_t>() << " lost to link faults";
  o << "\n";
  return o.str();
}

}  // namespace hcasim
