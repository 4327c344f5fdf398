#include "testbench/cli/host_stats.hpp"

#include <algorithm>
#include <cstdio>

#include "models/pcie/pcie_stats.hpp"
#include "models/trace/port_stats_json.hpp"

namespace hcasim {

namespace {

double share(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The driver's CPU time: the sum over its threads, each thread's share of the
// simulated time, their mean and the busiest's.
nlohmann::json cpu_json(const host::Driver& d, uint64_t sim_ps) {
  const std::size_t threads = d.stats().thread_busy_ps.size();
  nlohmann::json each = nlohmann::json::array();
  uint64_t sum = 0, most = 0;
  for (unsigned t = 0; t < threads; ++t) {
    const uint64_t busy = d.thread_busy_ps_until(t, sim_ps);
    each.push_back(share(busy, sim_ps));
    sum += busy;
    most = std::max(most, busy);
  }
  return {{"cpu_busy_ps", sum},
          {"cpu_threads", threads},
          {"cpu_utilization", share(sum, sim_ps * threads)},
          {"cpu_utilization_max", share(most, sim_ps)},
          {"cpu_thread_utilization", each}};
}

nlohmann::json pcie_json(const pcie::PcieLink& link, uint64_t sim_ps) {
  const pcie::PcieStats& s = link.stats();
  nlohmann::json out = nlohmann::json::object();
  for (pcie::Direction d : {pcie::Direction::Upstream, pcie::Direction::Downstream}) {
    nlohmann::json dir = nlohmann::json::object();
    uint64_t tlps = 0, payload = 0, wire = 0;
    for (std::size_t k = 0; k < pcie::kTlpKinds; ++k) {
      const pcie::TlpCounts& c = s.at(d, static_cast<pcie::TlpKind>(k));
      if (c.tlps == 0) continue;
      dir[pcie::to_string(static_cast<pcie::TlpKind>(k))] = {
          {"tlps", c.tlps}, {"payload_bytes", c.payload_bytes}, {"wire_bytes", c.wire_bytes}};
      tlps += c.tlps;
      payload += c.payload_bytes;
      wire += c.wire_bytes;
    }
    const uint64_t busy = s.busy_ps[static_cast<std::size_t>(d)];
    dir["tlps"] = tlps;
    dir["payload_bytes"] = payload;
    dir["wire_bytes"] = wire;
    dir["busy_ps"] = busy;
    dir["utilization"] = share(busy, sim_ps);
    out[pcie::to_string(d)] = dir;
  }
  out["dma_reads"] = s.dma_reads;
  out["dma_read_latency"] = trace::latency_json(s.dma_read_latency_ps);
  out["max_outstanding_reads"] = s.max_outstanding_reads;
  out["tag_waits"] = s.tag_waits;
  return out;
}

nlohmann::json dma_json(const hca::DmaStats& s) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t p = 0; p < static_cast<std::size_t>(hca::DmaPurpose::kCount); ++p) {
    const hca::DmaCounts& c = s.by_purpose[p];
    if (c.reads == 0 && c.writes == 0) continue;
    out[hca::to_string(static_cast<hca::DmaPurpose>(p))] = {{"reads", c.reads},
                                                           {"read_bytes", c.read_bytes},
                                                           {"writes", c.writes},
                                                           {"write_bytes", c.write_bytes}};
  }
  out["errors"] = s.errors;
  return out;
}

// What every cache reports: its lookups and what became of them, and the misses' latency.
nlohmann::json cache_counts_json(const hca::ContextCacheStats& s) {
  return {{"lookups", s.lookups},     {"hits", s.hits},          {"misses", s.misses},
          {"merged", s.merged},       {"evictions", s.evictions}, {"hit_rate", s.hit_rate()},
          {"miss_latency", trace::latency_json(s.miss_latency)}};
}

nlohmann::json iommu_json(const host::Iommu& m) {
  nlohmann::json iotlb = cache_counts_json(m.iotlb_stats());
  iotlb["entries"] = m.iotlb().config().entries;
  iotlb["walk_waits"] = m.iotlb_stats().mshr_full_waits;
  return {{"page_size", m.config().page_bytes},
          {"translations", m.stats().translations},
          {"iotlb", std::move(iotlb)},
          {"walk_reads", m.stats().walk_reads}};
}

// CQE compression's counts, where a CQ compresses (keys absent otherwise).
void add_compression(nlohmann::json& front_end, const hca::Hca& h) {
  const hca::CompletionStats& c = h.completion_stats();
  if (!h.config().cqe_compression && c.blocks == 0) return;
  front_end["completions"] = c.completions;
  front_end["cqe_blocks"] = c.blocks;
  front_end["mini_cqes"] = c.mini_cqes;
}

// The context caches (docs/context-caches.md), once the driver gave the ICM.
nlohmann::json caches_json(const hca::HcaContexts& contexts) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t k = 0; k < static_cast<std::size_t>(hca::ContextKind::kCount); ++k) {
    if (!contexts.present(static_cast<hca::ContextKind>(k))) continue;
    const hca::ContextCache& c = contexts.cache(static_cast<hca::ContextKind>(k));
    nlohmann::json one = cache_counts_json(c.stats());
    one["write_backs"] = c.stats().write_backs;
    one["conflict_evictions"] = c.stats().conflict_evictions;
    one["mshr_full_waits"] = c.stats().mshr_full_waits;
    one["inserts"] = c.stats().inserts;
    one["bypasses"] = c.stats().bypasses;
    one["prefetches"] = c.stats().prefetches;
    one["occupancy"] = c.occupancy();
    out[hca::to_string(static_cast<hca::ContextKind>(k))] = std::move(one);
  }
  return out;
}

bool active(const hca::Hca& h) {
  const hca::DmaStats& d = h.dma_stats();
  bool dma = d.errors > 0;
  for (const hca::DmaCounts& c : d.by_purpose) dma = dma || c.reads > 0 || c.writes > 0;
  return dma || !h.transport().qps().empty() || h.mmio_stats().writes > 0 || h.mmio_stats().reads > 0;
}

}  // namespace

void each_host_json(const fabric::Fabric& f, uint64_t sim_ps, const JsonSink& sink) {
  for (unsigned i = 0; f.has_hosts() && i < f.hca_count(); ++i) {
    const hca::Hca& h = f.hca(i);
    if (!active(h)) continue;
    const host::Host& host = f.host(i);
    const host::DriverStats& d = host.driver.stats();
    const hca::FetchStats& fe = h.fetch_stats();
    const hca::CompletionStats& c = h.completion_stats();
    const host::HostMemory& m = host.memory;
    nlohmann::json out(
        {{"hca", h.name()},
         {"pcie", pcie_json(host.link, sim_ps)},
         {"host_memory",
          {{"reads", m.reads()},
           {"read_bytes", m.bytes_read()},
           {"writes", m.writes()},
           {"write_bytes", m.bytes_written()},
           {"busy_ps", m.busy_ps()},
           {"utilization", share(m.busy_ps(), sim_ps)}}},
         {"driver",
          {{"posts", d.posts},
           {"recv_posts", d.recv_posts},
           {"doorbells", d.doorbells},
           {"blueflame_writes", d.blueflame_writes},
           {"inline_wqes", d.inline_wqes},
           {"cq_polls", d.cq_polls},
           {"cqes", d.cqes},
           {"arms", d.arms},
           {"interrupts", d.interrupts},
           {"mmio_errors", d.mmio_errors}}},
         {"front_end",
          {{"doorbells", fe.doorbells},
           {"blueflame_writes", fe.blueflame_writes},
           {"blueflame_wqes", fe.blueflame_wqes},
           {"blueflame_refused", fe.blueflame_refused},
           {"blueflame_wqe_reads", h.contexts().blueflame_wqe_reads()},
           {"read_wqes_released", h.contexts().read_wqes_released()},
           {"wqe_fetches", fe.sq_fetches},
           {"send_wqes", fe.send_wqes},
           {"record_reads", fe.record_reads + c.record_reads},
           {"recv_wqe_fetches", fe.rq_fetches},
           {"recv_wqes", fe.recv_wqes},
           {"cqes", c.cqes},
           {"cqes_lost", c.lost},
           {"arms", c.arms},
           {"interrupts", c.interrupts},
           {"interrupts_masked", c.masked},
           {"bad_doorbells", fe.bad_doorbells},
           {"bad_wqes", fe.bad_wqes},
           {"mmio_errors", h.mmio_stats().errors}}},
         {"dma", dma_json(h.dma_stats())},
         {"caches", caches_json(h.contexts())}});
    out["driver"].update(cpu_json(host.driver, sim_ps));
    add_compression(out["front_end"], h);
    if (host.iommu) out["iommu"] = iommu_json(*host.iommu);
    sink(std::move(out));
  }
}

nlohmann::json dma_tests_json(const std::vector<std::unique_ptr<workloads::DmaTest>>& tests, const fabric::Fabric& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : tests) {
    const config::DmaTestConfig& c = t->spec().config;
    const workloads::DmaTestResult& r = t->result();
    const uint64_t span = r.last_done_ps > r.first_issue_ps ? r.last_done_ps - r.first_issue_ps : 0;
    const double seconds = static_cast<double>(span) * 1e-12;
    out.push_back({{"name", c.name},
                   {"hca", f.hca(t->spec().hca).name()},
                   {"op", c.op == config::DmaOp::Read ? "read" : "write"},
                   {"size", c.size},
                   {"pattern", c.pattern == config::DmaPattern::Random ? "random" : "sequential"},
                   {"window", c.window},
                   {"outstanding", c.outstanding},
                   {"transfers", r.completed},
                   {"bytes", r.bytes},
                   {"time_ps", span},
                   {"bandwidth_bps", seconds > 0 ? static_cast<double>(r.bytes) * 8 / seconds : 0.0},
                   {"transfers_per_s", seconds > 0 ? static_cast<double>(r.completed) / seconds : 0.0},
                   {"latency", trace::latency_json(r.latency_ps)}});
  }
  return out;
}

std::string dma_summary(const nlohmann::json& stats) {
  std::string o;
  char line[256];
  for (const auto& t : stats["dma"]) {
    std::snprintf(line, sizeof line,
                  "  dma %s: %s %s of %llu B, %s, %u outstanding: %llu transfers, %.3f Gb/s, %.3f Mtransfers/s, "
                  "latency p50 %.1f ns p99 %.1f ns\n",
                  t["name"].get<std::string>().c_str(), t["hca"].get<std::string>().c_str(),
                  t["op"].get<std::string>().c_str(), static_cast<unsigned long long>(t["size"].get<uint64_t>()),
                  t["pattern"].get<std::string>().c_str(), t["outstanding"].get<unsigned>(),
                  static_cast<unsigned long long>(t["transfers"].get<uint64_t>()),
                  t["bandwidth_bps"].get<double>() / 1e9, t["transfers_per_s"].get<double>() / 1e6,
                  t["latency"]["p50_ns"].get<double>(), t["latency"]["p99_ns"].get<double>());
    o += line;
  }
  return o;
}

}  // namespace hcasim
