#include "testbench/cli/perftest_bound_json.hpp"

#include <algorithm>
#include <cstdio>

#include "models/link/link_timing.hpp"
#include "testbench/workloads/perftest_bound.hpp"

namespace hcasim {

namespace {

workloads::BoundSide side(const fabric::Fabric& f, const workloads::Endpoint& e) {
  workloads::BoundSide b;
  const hca::Hca& h = f.hca(e.node);
  b.units = h.transport().config();
  if (!f.has_hosts()) return b;
  const host::Host& host = f.host(e.node);
  const host::DriverConfig& d = host.driver.config();
  b.cpu.post_ps = d.post_ps;
  b.cpu.doorbell_ps = d.doorbell_ps;
  b.cpu.blueflame_ps = d.blueflame_ps;
  b.cpu.poll_ps = d.poll_ps;
  b.cpu.blueflame = d.doorbell == host::DoorbellMode::BlueFlame;
  b.cpu.cqes_per_poll = h.config().cqe_compression ? h.config().cqe_compression_max : 1;
  b.pcie = host.link.config();
  return b;
}

}  // namespace

nlohmann::json perftest_bound_json(const workloads::Perftest& t, const workloads::PerftestSizeResult& s,
                                   const fabric::Fabric& f, double msgs_per_s) {
  const config::PerftestConfig& c = t.spec().config;
  const workloads::Endpoint& client = t.spec().client;
  const workloads::Endpoint& server = t.spec().server;
  workloads::PerftestBoundInput in;
  in.test = c.test;
  in.qp_type = c.qp_type;
  in.bytes = s.bytes;
  in.mtu = c.mtu;
  in.qps = c.qps;
  in.threads = c.threads;
  in.outstanding = s.outstanding;
  in.post_list = c.post_list;
  in.cq_moderation = c.cq_moderation;
  in.inline_size = c.inline_size;
  in.client = side(f, client);
  in.server = side(f, server);
  const link::LinkConfig& a = f.hca(client.node).port(client.port).link_config();
  const link::LinkConfig& b = f.hca(server.node).port(server.port).link_config();
  in.link_bps = std::min(link::data_rate_bps(a.speed, a.width), link::data_rate_bps(b.speed, b.width));
  in.framing_bytes = std::max(a.framing_bytes, b.framing_bytes);

  const std::vector<workloads::Bound> all = workloads::perftest_bounds(in);
  nlohmann::json bounds = nlohmann::json::object();
  for (const workloads::Bound& x : all) bounds[std::string(workloads::bound_key(x.kind)) + "_msgs_per_s"] = x.msgs_per_s;
  nlohmann::json j = {{"bounds", bounds}};
  const workloads::Bound* least = workloads::least_bound(all);
  if (least == nullptr) return j;
  j["bound"] = workloads::bound_key(least->kind);
  j["bound_side"] = least->kind == workloads::BoundKind::Link ? "both" : least->client ? "client" : "server";
  j["bound_detail"] = least->detail;
  j["bound_msgs_per_s"] = least->msgs_per_s;
  j["bound_reached"] = msgs_per_s / least->msgs_per_s;
  return j;
}

std::string perftest_bound_text(const nlohmann::json& size, bool name_size) {
  if (!size.contains("bound")) return "";
  static const workloads::BoundKind kinds[] = {workloads::BoundKind::Cpu, workloads::BoundKind::TxUnits,
                                               workloads::BoundKind::RxUnits, workloads::BoundKind::Link,
                                               workloads::BoundKind::Pcie};
  const std::string key = size["bound"].get<std::string>();
  const char* title = key.c_str();
  for (workloads::BoundKind k : kinds)
    if (key == workloads::bound_key(k)) title = workloads::bound_title(k);
  const std::string side = size["bound_side"].get<std::string>();
  const std::string at = name_size ? " at " + std::to_string(size["bytes"].get<uint64_t>()) + " B" : "";
  char line[400];
  std::snprintf(line, sizeof line, "   bound%s: %s%s, %.4g M msg/s (%s); reached %.1f%%\n", at.c_str(), title,
                side == "both" ? "" : (" (" + side + ")").c_str(), size["bound_msgs_per_s"].get<double>() / 1e6,
                size["bound_detail"].get<std::string>().c_str(), size["bound_reached"].get<double>() * 100);
  return line;
}

}  // namespace hcasim
