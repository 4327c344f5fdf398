#include "testbench/cli/transport_stats.hpp"

#include <cstdio>
#include <sstream>

#include "models/config/service_level.hpp"
#include "models/trace/port_stats_json.hpp"
#include "testbench/cli/perftest_bound_json.hpp"

namespace hcasim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;  // perftest's MiB (its format_factor 0x100000)

nlohmann::json latency_section(const trace::LatencyRecord& h, bool halved) {
  const double k = halved ? 2000.0 : 1000.0;  // ps -> ns, halved for one way
  return {{"reported", halved ? "half_round_trip" : "round_trip"},
          {"samples", h.count()},
          {"t_min_ns", static_cast<double>(h.min()) / k},
          {"t_max_ns", static_cast<double>(h.max()) / k},
          {"t_typical_ns", static_cast<double>(h.quantile(0.5)) / k},
          {"t_avg_ns", h.mean() / k},
          {"t_avg_ci95_ns", trace::number_or_null(h.batch_means().ci95_half_width() / k)},
          {"batches", h.batch_means().batches()},
          {"p90_ns", static_cast<double>(h.quantile(0.90)) / k},
          {"p99_ns", static_cast<double>(h.quantile(0.99)) / k},
          {"p99_9_ns", static_cast<double>(h.quantile(0.999)) / k},
          {"p99_99_ns", static_cast<double>(h.quantile(0.9999)) / k}};
}

// Mean of each part of a latency (latency_parts.hpp), in the order of the trip.
nlohmann::json latency_parts_json(const workloads::LatencyParts& p) {
  const double n = p.samples == 0 ? 1.0 : static_cast<double>(p.samples);
  nlohmann::json parts = nlohmann::json::array();
  for (std::size_t i = 0; i < workloads::kLatencyParts; ++i)
    parts.push_back({{"part", workloads::latency_part_names()[i]},
                     {"mean_ns", static_cast<double>(p.sum_ps[i]) / n / 1000.0},
                     {"sum_ps", p.sum_ps[i]}});
  return {{"samples", p.samples},
          {"mean_ns", static_cast<double>(p.total_ps()) / n / 1000.0},
          {"sum_ps", p.total_ps()},
          {"parts", parts}};
}

// "   parts [ns]: cpu_post 240.0, doorbell 262.1, ..." (parts of 0 left out).
std::string latency_parts_text(const nlohmann::json& l) {
  std::string text = "     latency parts, mean [ns]:";
  char part[64];
  const char* sep = " ";
  for (const auto& p : l["parts"]) {
    if (p["sum_ps"].get<uint64_t>() == 0) continue;
    std::snprintf(part, sizeof part, "%s%s %.1f", sep, p["part"].get<std::string>().c_str(), p["mean_ns"].get<double>());
    text += part;
    sep = ", ";
  }
  return text + "\n";
}

nlohmann::json naks(const uint64_t (&n)[4]) {
  return {{"psn_seq_err", n[0]}, {"inv_req", n[1]}, {"rem_access", n[2]}, {"rem_op", n[3]}};
}

nlohmann::json counters_json(const workloads::TransportCounters& c) {
  return {{"request_packets", c.request_packets},
          {"resent_packets", c.resent_packets},
          {"retries", c.retries},
          {"timeouts", c.timeouts},
          {"naks_received",
           {{"psn_seq_err", c.psn_seq_err_naks},
            {"rnr", c.rnr_naks},
            {"inv_req", c.inv_req_naks},
            {"rem_access", c.rem_access_naks},
            {"rem_op", c.rem_op_naks}}}};
}

std::string port_text(const fabric::Fabric& f, const workloads::Endpoint& e) {
  return f.hca(e.node).port(e.port).name();
}

// The transport counters' columns of the perftest tables.
constexpr const char* kCountersHeader = "#retries  #timeouts  #resent    NAKs seq/rnr/inv/acc/op";

std::string counters_text(const nlohmann::json& c) {
  const auto n = [&c](const char* key) { return static_cast<unsigned long long>(c[key].get<uint64_t>()); };
  const auto& k = c["naks_received"];
  const auto nak = [&k](const char* key) { return static_cast<unsigned long long>(k[key].get<uint64_t>()); };
  char text[160];
  std::snprintf(text, sizeof text, "%-9llu %-10llu %-10llu %llu/%llu/%llu/%llu/%llu", n("retries"), n("timeouts"),
                n("resent_packets"), nak("psn_seq_err"), nak("rnr"), nak("inv_req"), nak("rem_access"),
                nak("rem_op"));
  return text;
}

}  // namespace

nlohmann::json perftest_json(const workloads::Perftest& t, const fabric::Fabric& f) {
  const config::PerftestConfig& c = t.spec().config;
  const workloads::PerftestResult& r = t.result();
  const bool bw = config::is_bandwidth(c.test);
  nlohmann::json sizes = nlohmann::json::array();
  for (const workloads::PerftestSizeResult& s : r.sizes) {
    const uint64_t span = s.end_ps > s.start_ps ? s.end_ps - s.start_ps : 0;
    nlohmann::json j = {{"bytes", s.bytes},        {"iterations", s.iterations}, {"messages", s.messages},
                        {"done", s.done},          {"start_ps", s.start_ps},     {"duration_ps", span}};
    if (bw) {
      const double seconds = static_cast<double>(span) / 1e12;
      const double bytes = static_cast<double>(s.messages) * static_cast<double>(s.bytes);
      j["qps"] = c.qps;
      j["outstanding"] = s.outstanding;
      j["bw_MBps"] = seconds > 0 ? bytes / seconds / kMiB : 0.0;
      j["bw_Gbps"] = seconds > 0 ? bytes * 8 / seconds / 1e9 : 0.0;
      j["bw_average"] = c.report_gbits ? j["bw_Gbps"] : j["bw_MBps"];  // in bw_unit, as the table prints it
      j["msg_rate_Mpps"] = seconds > 0 ? static_cast<double>(s.messages) / seconds / 1e6 : 0.0;
      j.update(perftest_bound_json(t, s, f, seconds > 0 ? static_cast<double>(s.messages) / seconds : 0.0));
    } else {
      j["latency"] = latency_section(s.round_trip_ps, r.halved);
      if (s.parts.samples > 0) j["latency_parts"] = latency_parts_json(s.parts);
    }
    j["transport"] = counters_json(s.counters);
    sizes.push_back(std::move(j));
  }
  // The first kListedQpPairs (client, server) pairs; every QP is a row of the qps table, with its owner.
  constexpr std::size_t kListedQpPairs = 16;
  nlohmann::json qps = nlohmann::json::array();
  for (const auto& [client, server] : r.qpns)
    if (qps.size() < kListedQpPairs) qps.push_back({client, server});
  return {{"name", c.name},
          {"test", config::to_string(c.test)},
          {"client", port_text(f, t.spec().client)},
          {"server", port_text(f, t.spec().server)},
          {"qp_type", transport::to_string(c.qp_type)},
          {"qps", c.qps},
          {"tx_depth", c.tx_depth},
          {"mtu", c.mtu},
          {"sl", config::format_sl(c.sl)},
          {"timeout", c.timeout},
          {"retry_cnt", c.retry_cnt},
          {"rnr_retry", c.rnr_retry},
          {"min_rnr_timer", c.min_rnr_timer},
          {"bw_unit", bw ? (c.report_gbits ? "Gb/sec" : "MiB/sec") : ""},
          {"idle", c.idle},
          {"qp_numbers", qps},
          {"ok", r.failures.empty()},
          {"failures", r.failures},
          {"sizes", sizes}};
}

nlohmann::json verbs_script_json(const workloads::VerbsScript& v) {
  const config::VerbsConnectionConfig& c = v.spec().config;
  nlohmann::json ops = nlohmann::json::array();
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const config::VerbsOpConfig& o = c.ops[i];
    const workloads::VerbsOpResult& r = v.results()[i];
    ops.push_back({{"index", i},
                   {"side", o.side == config::Side::A ? "a" : "b"},
                   {"op", config::to_string(o.op)},
                   {"bytes", o.bytes},
                   {"expect", transport::to_string(o.expect)},
                   {"got", r.completed ? nlohmann::json(transport::to_string(r.status)) : nlohmann::json(nullptr)},
                   {"posted_ps", r.posted_ps},
                   {"completed_ps", r.completed_ps}});
    if (r.completed && o.op != config::VerbsOpKind::PostRecv) {
      workloads::LatencyParts parts;
      parts.add(r.posted_ps, r.times, r.completed_ps);
      ops.back()["latency_parts"] = latency_parts_json(parts);
    }
  }
  return {{"name", c.name},
          {"type", transport::to_string(c.type)},
          {"a", c.a},
          {"b", c.b},
          {"qpn_a", v.qpn(config::Side::A)},
          {"qpn_b", v.qpn(config::Side::B)},
          {"ok", v.failures().empty()},
          {"failures", v.failures()},
          {"ops", ops}};
}

void each_qp_json(const fabric::Fabric& f, uint64_t sim_ps, const QpOwners& owners, const JsonSink& sink) {
  for (unsigned h = 0; h < f.hca_count(); ++h) {
    const hca::Hca& hca = f.hca(h);
    for (const transport::Qp* qp : hca.transport().qps()) {
      const transport::QpStats& s = qp->stats;
      const auto owner = owners.find({h, qp->qpn});
      sink({{"hca", hca.name()},
                     {"qpn", qp->qpn},
                     {"owner", owner == owners.end() ? "" : owner->second},
                     {"type", transport::to_string(qp->type)},
                     {"state", transport::to_string(qp->state)},
                     {"port", qp->port + 1},
                     {"messages_sent", s.messages_sent},
                     {"messages_received", s.messages_received},
                     {"bytes_sent", s.bytes_sent},
                     {"bytes_received", s.bytes_received},
                     {"tx_throughput_bps", trace::bits_per_second(s.bytes_sent, sim_ps)},
                     {"request_packets", s.request_packets},
                     {"resent_packets", s.resent_packets},
                     {"response_packets", s.response_packets},
                     {"retries", s.retries},
                     {"timeouts", s.timeouts},
                     {"rnr_naks_received", s.rnr_naks_received},
                     {"rnr_naks_sent", s.rnr_naks_sent},
                     {"naks_received", naks(s.naks_received)},
                     {"naks_sent", naks(s.naks_sent)},
                     {"duplicates", s.duplicates},
                     {"out_of_order", s.out_of_order},
                     {"dropped", s.dropped}});
    }
  }
}

void each_engine_json(const fabric::Fabric& f, uint64_t sim_ps, const JsonSink& sink) {
  for (unsigned h = 0; h < f.hca_count(); ++h) {
    const hca::Hca& hca = f.hca(h);
    const transport::TransportEngine& t = hca.transport();
    const std::size_t qps = t.qps().size();
    if (qps == 0) continue;
    const transport::EngineStats& s = t.stats();
    const double capacity = static_cast<double>(sim_ps) * t.config().tx_units;
    sink({{"hca", hca.name()},
                   {"engines", t.config().tx_units},  // transmit units
                   {"qps", qps},
                   {"packets_built", s.packets_built},
                   {"packets_received", s.packets_received},
                   {"unknown_qp_drops", s.unknown_qp_drops},
                   {"port_full_waits", s.port_full_waits},
                   {"context_waits", s.context_waits},
                   {"wqe_waits", s.wqe_waits},
                   {"response_wqe_waits", s.response_wqe_waits},
                   {"data_waits", s.data_waits},
                   {"data_wait_ps", s.data_wait_ps},
                   {"busy_ps", s.busy_ps},
                   {"utilization", capacity > 0 ? static_cast<double>(s.busy_ps) / capacity : 0.0}});
  }
}

nlohmann::json swarms_json(const std::vector<std::unique_ptr<workloads::Swarm>>& swarms, const fabric::Fabric& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : swarms) {
    const config::SwarmConfig& c = w->spec().config;
    const workloads::SwarmResult& r = w->result();
    const double seconds = static_cast<double>(r.count_to_ps - r.count_from_ps) * 1e-12;
    nlohmann::json machines = nlohmann::json::array();
    double sum = 0;
    for (std::size_t n = 0; n < r.machines.size(); ++n) {
      const workloads::Endpoint& e = w->spec().machines[n];
      const workloads::SwarmMachineResult& m = r.machines[n];
      const double rate = seconds > 0 ? static_cast<double>(m.completed) / seconds : 0.0;
      sum += rate;
      machines.push_back({{"port", std::string(f.hca(e.node).name()) + ".p" + std::to_string(e.port + 1)},
                          {"qps", m.qps},
                          {"posted", m.posted},
                          {"completed", m.completed},
                          {"ops_per_s", rate}});
    }
    out.push_back({{"name", c.name},
                   {"op", c.op == config::SwarmOp::Read ? "read" : "write"},
                   {"size", c.size},
                   {"threads", c.threads},
                   {"vms", c.vms},
                   {"window", c.window},
                   {"qps_per_machine", r.machines.empty() ? 0u : r.machines.front().qps},
                   {"counted_from_ps", r.count_from_ps},
                   {"counted_to_ps", r.count_to_ps},
                   {"ops_per_s_per_machine", r.machines.empty() ? 0.0 : sum / static_cast<double>(r.machines.size())},
                   {"machines", std::move(machines)},
                   {"latency", trace::latency_json(r.latency_ps)},
                   {"latency_parts", latency_parts_json(r.parts)},
                   {"failures", r.failures}});
  }
  return out;
}

std::string transport_summary(const nlohmann::json& stats) {
  std::ostringstream o;
  char line[256];
  for (const auto& w : stats["swarm"]) {
    std::snprintf(line, sizeof line,
                  "  swarm %s: %zu machines x %u threads, %s of %llu B, window %u, %u QPs per machine: %.2f M ops/s "
                  "per machine, latency p50 %.0f ns p99 %.0f ns\n",
                  w["name"].get<std::string>().c_str(), w["machines"].get<std::size_t>(), w["threads"].get<unsigned>(),
                  w["op"].get<std::string>().c_str(), static_cast<unsigned long long>(w["size"].get<uint64_t>()),
                  w["window"].get<unsigned>(), w["qps_per_machine"].get<unsigned>(),
                  w["ops_per_s_per_machine"].get<double>() / 1e6, w["latency"]["p50_ns"].get<double>(),
                  w["latency"]["p99_ns"].get<double>());
    o << line;
    if (w.contains("latency_parts") && w["latency_parts"]["samples"].get<uint64_t>() > 0)
      o << latency_parts_text(w["latency_parts"]);
  }
  for (const auto& t : stats["perftest"]) {
    std::snprintf(line, sizeof line, "  perftest %s: %s %s, %s -> %s, %llu QP%s%s\n",
                  t["name"].get<std::string>().c_str(), t["test"].get<std::string>().c_str(),
                  t["qp_type"].get<std::string>().c_str(),
                  t["client"].get<std::string>().c_str(), t["server"].get<std::string>().c_str(),
                  static_cast<unsigned long long>(t["qps"].get<uint64_t>()), t["qps"].get<uint64_t>() == 1 ? "" : "s",
                  t["idle"].get<bool>() ? " (idle)" : t["ok"].get<bool>() ? "" : " FAILED");
    o << line;
    const bool bw = t["test"].get<std::string>().find("_bw") != std::string::npos;
    if (t["sizes"].empty()) continue;
    if (bw)
      std::snprintf(line, sizeof line, "   #bytes     #iterations    %-22s %-15s ",
                    ("BW average[" + t["bw_unit"].get<std::string>() + "]").c_str(), "MsgRate[Mpps]");
    else
      std::snprintf(line, sizeof line, "   #bytes     #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                                       "t_avg[usec]    99%% percentile[usec]   99.9%% percentile[usec] ");
    o << line << kCountersHeader << "\n";
    for (const auto& s : t["sizes"]) {
      if (bw) {
        std::snprintf(line, sizeof line, "   %-10llu %-14llu %-22.2f %-15.6f ",
                      static_cast<unsigned long long>(s["bytes"].get<uint64_t>()),
                      static_cast<unsigned long long>(s["iterations"].get<uint64_t>()), s["bw_average"].get<double>(),
                      s["msg_rate_Mpps"].get<double>());
      } else {
        const auto& l = s["latency"];
        std::snprintf(line, sizeof line, "   %-10llu %-14llu %-14.3f %-12.3f %-16.3f %-14.3f %-22.3f %-24.3f ",
                      static_cast<unsigned long long>(s["bytes"].get<uint64_t>()),
                      static_cast<unsigned long long>(s["iterations"].get<uint64_t>()),
                      l["t_min_ns"].get<double>() / 1e3, l["t_max_ns"].get<double>() / 1e3,
                      l["t_typical_ns"].get<double>() / 1e3, l["t_avg_ns"].get<double>() / 1e3,
                      l["p99_ns"].get<double>() / 1e3, l["p99_9_ns"].get<double>() / 1e3);
      }
      o << line << counters_text(s["transport"]) << "\n";
      if (s.contains("latency_parts")) o << latency_parts_text(s["latency_parts"]);
    }
    for (const auto& s : t["sizes"]) o << perftest_bound_text(s, t["sizes"].size() > 1);
  }
  for (const auto& v : stats["verbs"]) {
    std::size_t as_expected = 0;
    for (const auto& op : v["ops"]) as_expected += op["got"] == op["expect"];
    std::snprintf(line, sizeof line, "  verbs %s (%s %s - %s): %zu of %zu operations completed as expected%s\n",
                  v["name"].get<std::string>().c_str(), v["type"].get<std::string>().c_str(),
                  v["a"].get<std::string>().c_str(), v["b"].get<std::string>().c_str(), as_expected, v["ops"].size(),
                  v["ok"].get<bool>() ? "" : ", FAILED");
    o << line;
  }
  return o.str();
}

}  // namespace hcasim
