#include "testbench/cli/simulation.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "models/config/units.hpp"
#include "models/fabric/partitioning.hpp"
#include "models/ib/sa_record_types.hpp"
#include "models/trace/port_stats_json.hpp"
#include "testbench/cli/deadlock_finder.hpp"
#include "testbench/cli/host_stats.hpp"
#include "testbench/cli/huge_page_heap.hpp"
#include "testbench/cli/progress_line.hpp"
#include "testbench/cli/transport_stats.hpp"
#include "testbench/cli/windowed_run.hpp"
#include "testbench/workloads/load_shortfall.hpp"

namespace hcasim {

namespace {
using Clock = std::chrono::steady_clock;

struct PatternTotals {
  uint64_t flows = 0;
  uint64_t start_ps = UINT64_MAX, last_ps = 0;  // over its flows' rate spans
  double link_bps = 0;                          // its sources' links, summed
  workloads::FlowResult sum;
};
double ratio(double part, double whole) { return whole > 0 ? part / whole : 0.0; }
// The keys flows and patterns share: what the sources made and the fabric
// delivered, offered against accepted load over `span` ps, and the latency of
// the measured packets with its parts.
void add_load_and_latency(nlohmann::json& out, const workloads::FlowResult& r, uint64_t span, double link_bps) {
  const double offered = trace::bits_per_second(r.offered_bytes, span);
  const double accepted = trace::bits_per_second(r.accepted_bytes, span);
  out["packets_created"] = r.created;
  out["packets_sent"] = r.sent;
  out["packets_dropped_at_source"] = r.dropped_at_source;
  out["packets_dropped_source_queue"] = r.dropped_source_queue;
  out["source_queue_high_water"] = r.source_queue_high_water;
  out["packets_delivered"] = r.delivered;
  out["bytes_delivered"] = r.delivered_bytes;
  out["payload_bytes_delivered"] = r.delivered_payload;
  out["packets_out_of_order"] = r.out_of_order;
  out["measured_packets"] = {{"offered", r.offered}, {"delivered", r.measured_delivered}, {"lost_at_source", r.offered_lost}};
  out["offered_bps"] = offered;
  out["offered_load"] = ratio(offered, link_bps);
  out["accepted_bps"] = accepted;
  out["accepted_load"] = ratio(accepted, link_bps);
  out["carried"] = ratio(accepted, offered);
  out["throughput_bps"] = accepted;
  out["data_throughput_bps"] = trace::bits_per_second(r.accepted_payload, span);
  out["latency"] = trace::latency_json(r.latency_ps);
  out["latency_parts"] = {{"source_queue", trace::latency_json(r.source_wait_ps)},
                          {"port_queue", trace::latency_json(r.port_wait_ps)},
                          {"network", trace::latency_json(r.network_ps)}};
}
std::vector<std::unique_ptr<link::Partition>> make_partitions(unsigned count) {
  std::vector<std::unique_ptr<link::Partition>> parts;
  if (count > 1)
    for (unsigned i = 0; i < count; ++i) parts.push_back(std::make_unique<link::Partition>(count));
  return parts;
}
fabric::FabricPartitions partitioning_for(const config::FabricSpec& spec,
                                          const std::vector<std::unique_ptr<link::Partition>>& parts) {
  fabric::FabricPartitions out;
  if (parts.empty()) return out;
  for (const auto& p : parts) out.parts.push_back(p.get());
  out.of_node = fabric::partition_nodes(spec, static_cast<unsigned>(parts.size()));
  return out;
}
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The watchdog of a run without a duration: a workload stuck in a loop that
// never ends (an RNR NAK retried forever) keeps events coming, kStallEvents
// or more of them, over kStallPs of simulated time in which no work was done
// (Simulation::work_done()).
class StallWatch {
 public:
  static constexpr uint64_t kStallPs = 1'000'000'000'000;  // 1 s
  static constexpr uint64_t kStallEvents = 1000;

  StallWatch(uint64_t work, uint64_t events) : work_(work), events_(events) {}
  // After the kernel ran up to `at_ps`: true when the run has stalled.
  bool stalled(uint64_t at_ps, uint64_t work, uint64_t events) {
    if (work == work_) return at_ps - since_ps_ >= kStallPs && events - events_ >= kStallEvents;
    work_ = work;
    since_ps_ = at_ps;
    events_ = events;
    return false;
  }
  uint64_t since_ps() const { return since_ps_; }     // the last work
  uint64_t events_at_since() const { return events_; }  // events run by then

 private:
  uint64_t work_, events_, since_ps_ = 0;
};
uint64_t process_peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;  // Linux reports KiB
}
}  // namespace

Simulation::Simulation(config::FabricSpec fabric, std::vector<workloads::FlowSpec> flows, RunOptions options,
                       const TransportWorkloads& transport)
    : flows_(std::move(flows)),
      results_(flows_.size()),
      options_(std::move(options)),
      parts_(make_partitions(options_.partitions)),
      partitioning_(partitioning_for(fabric, parts_)),
      fabric_(std::make_unique<fabric::Fabric>(std::move(fabric), pool_, parts_.empty() ? nullptr : &partitioning_)) {
  check_partitioning(transport);
  if (parts_.empty()) {
    recorders_.push_back(std::make_unique<workloads::FlowRecorder>(results_, pool_));
  } else {
    for (std::size_t q = 0; q < parts_.size(); ++q)
      recorders_.push_back(std::make_unique<workloads::FlowRecorder>(flows_.size(), parts_[q]->pool));
    for (std::size_t q = 1; q < parts_.size(); ++q) part_checkers_.push_back(std::make_unique<checkers::LinkChecker>());
    cut_links_ = fabric::cut_links(fabric_->spec(), partitioning_.of_node);
  }
  std::vector<uint8_t> one_destination;
  for (const workloads::FlowSpec& f : flows_) one_destination.push_back(f.choice == workloads::DestChoice::Fixed);
  for (auto& r : recorders_) r->track_order(one_destination);
  for (unsigned i = 0; i < fabric_->hca_count(); ++i) {
    const hca::Hca& h = fabric_->hca(i);
    const unsigned q = h.port_count() != 0 ? fabric_->partition_of(h.port(0)) : 0;
    fabric_->hca(i).set_sink(recorders_[q].get());
  }
  std::map<std::pair<unsigned, unsigned>, std::vector<unsigned>> by_port;
  for (unsigned f = 0; f < flows_.size(); ++f) {
    workloads::FlowSpec& s = flows_[f];
    if (s.src_node >= fabric_->hca_count() || s.src_port >= fabric_->hca(s.src_node).port_count())
      throw std::invalid_argument("flow " + s.name + ": no such source HCA port");
    if (s.dest_qp == 0 && !s.vl15) s.dest_qp = 0x100 + f;
    by_port[{s.src_node, s.src_port}].push_back(f);
  }
  resolve_flow_lids();
  for (auto& [where, list] : by_port) {
    const link::Port& port = fabric_->hca(where.first).port(where.second);
    const std::string name = std::string("gen_") + port.name();
    std::string safe = name;
    std::replace(safe.begin(), safe.end(), '.', '_');
    link::Partition* part = parts_.empty() ? nullptr : parts_[fabric_->partition_of(port)].get();
    std::optional<link::Timeline::Building> on_part;
    if (part != nullptr) on_part.emplace(part->timeline);
    generators_.push_back(std::make_unique<workloads::RawGenerator>(
        safe.c_str(), fabric_->hca(where.first), where.second, flows_, list, results_, part ? part->pool : pool_));
  }
  const auto hca_of = [this](const workloads::Endpoint& e) -> host::Driver& {
    if (e.node >= fabric_->hca_count() || e.port >= fabric_->hca(e.node).port_count())
      throw std::invalid_argument("transport workload: no such HCA port");
    return fabric_->driver(e.node);
  };
  for (workloads::PerftestSpec t : transport.perftest) {
    const std::string name = "perftest" + std::to_string(t.index);
    t.connect_at_begin = fabric_->spec().management.external;
    perftests_.push_back(
        std::make_unique<workloads::Perftest>(name.c_str(), t, hca_of(t.client), hca_of(t.server)));
    perftest_ends_.emplace_back(t.client, t.server);
  }
  chain_perftests();
  for (const workloads::VerbsScriptSpec& v : transport.verbs) {
    const std::string name = "verbs" + std::to_string(v.index);
    scripts_.push_back(std::make_unique<workloads::VerbsScript>(name.c_str(), v, hca_of(v.a), hca_of(v.b)));
    verbs_ends_.emplace_back(v.a, v.b);
  }
  for (const workloads::SwarmSpec& w : transport.swarm) {
    std::vector<host::Driver*> drivers;
    for (const workloads::Endpoint& e : w.machines) drivers.push_back(&hca_of(e));
    swarms_.push_back(std::make_unique<workloads::Swarm>(w.config.name.c_str(), w, drivers));
  }
  for (const workloads::DmaTestSpec& d : transport.dma) {
    if (d.hca >= fabric_->hca_count()) throw std::invalid_argument("DMA test: no such HCA");
    dma_tests_.push_back(std::make_unique<workloads::DmaTest>(d.config.name.c_str(), d, fabric_->hca(d.hca)));
  }
  if (options_.measure.windowed()) {
    std::vector<workloads::FlowRecorder*> recorders;
    for (const auto& r : recorders_) recorders.push_back(r.get());
    std::vector<workloads::RawGenerator*> generators;
    for (const auto& g : generators_) generators.push_back(g.get());
    measurement_ = std::make_unique<Measurement>(options_.measure, results_, recorders, generators);
    measurement_->on_done([] { sc_core::sc_stop(); });
    measurement_->on_window([this](uint64_t now) { window_open_ = port_counters(now); },
                            [this](uint64_t now) { window_close_ = port_counters(now); });
  }
  if (fabric_->spec().management.external) hold_workloads_for_subnet_up();
  else if (fabric_->spec().management.in_band) hold_workloads_for_sweep();
  for (unsigned c = 0; c < std::max<std::size_t>(parts_.size(), 1); ++c) checker_of(c).reserve(fabric_->ports().size());
  for (link::Port* p : fabric_->ports()) {
    const unsigned q = fabric_->partition_of(*p);
    for (unsigned c = 0; c < std::max<std::size_t>(parts_.size(), 1); ++c) {
      if (c == q) checker_of(c).watch(*p);
      else checker_of(c).know(*p, q);
    }
  }
  if (options_.pcap) {
    std::vector<link::Port*> chosen;
    for (link::Port* p : fabric_->ports())
      if (options_.pcap_ports.empty() ||
          std::find(options_.pcap_ports.begin(), options_.pcap_ports.end(), p->name()) != options_.pcap_ports.end())
        chosen.push_back(p);
    capture_ = std::make_unique<trace::PacketCapture>(options_.out_dir + "/packets.pcap", chosen);
  }
  if (options_.vcd) {
    waves_ = std::make_unique<trace::WaveTrace>(options_.out_dir + "/waves", fabric_->ports());
    for (unsigned i = 0; fabric_->has_hosts() && i < fabric_->hca_count(); ++i) fabric_->host(i).link.trace(waves_->file());
    for (unsigned i = 0; i < fabric_->switch_count(); ++i) fabric_->switch_at(i).trace(waves_->file());
  }
  if (options_.sample_interval_ps != 0 && !options_.out_dir.empty()) make_time_series();
  if (options_.hop_latency) {
    std::vector<link::Port*> switch_ports;
    for (unsigned i = 0; i < fabric_->switch_count(); ++i)
      for (unsigned n = 1; n <= fabric_->switch_at(i).port_count(); ++n) switch_ports.push_back(&fabric_->switch_at(i).port(n));
    hops_ = std::make_unique<trace::HopLatency>(switch_ports);
  }
  if (rtl::wants_rtl(fabric_->ports()))
    cosim_ = std::make_unique<rtl::Cosim>(fabric_->ports(), options_.rtl_blocks,
                                          options_.rtl_vcd ? options_.out_dir + "/rtl.vcd" : "");
}

void Simulation::resolve_flow_lids() {
  const unsigned paths = 1u << fabric_->spec().lmc;  // LIDs per port: flows spread over them
  const unsigned hcas = fabric_->hca_count();
  auto lid_of = [&](const workloads::Endpoint& e, unsigned f) {
    if (e.node >= hcas || e.port >= fabric_->hca(e.node).port_count())
      throw std::invalid_argument("flow " + flows_[f].name + ": no such destination HCA port");
    return static_cast<uint16_t>(fabric_->hca(e.node).lid(e.port) + f % paths);
  };
  // A destination list's base LIDs, resolved once for all the flows that share it.
  std::map<const std::vector<workloads::Endpoint>*, std::shared_ptr<const std::vector<uint16_t>>> base_lids;
  auto resolve = [&](workloads::Destinations& d, unsigned f) {
    if (d.list() == nullptr) return;
    auto& lids = base_lids[d.list().get()];
    if (lids == nullptr) {
      std::vector<uint16_t> v;
      v.reserve(d.list()->size());
      for (const workloads::Endpoint& e : *d.list()) v.push_back(lid_of(e, 0));
      lids = std::make_shared<const std::vector<uint16_t>>(std::move(v));
    }
    d.set_lids(lids, static_cast<uint16_t>(f % paths));
  };
  for (unsigned f = 0; f < flows_.size(); ++f) {
    workloads::FlowSpec& s = flows_[f];
    s.slid = fabric_->hca(s.src_node).lid(s.src_port);
    s.dlid = lid_of({s.dst_node, s.dst_port}, f);
    resolve(s.dsts, f);
    resolve(s.hot, f);
    if (s.choice != workloads::DestChoice::Fixed && s.dsts.empty() && s.hot.empty())
      throw std::invalid_argument("flow " + s.name + ": no destinations");
  }
}

void Simulation::make_time_series() {
  series_ = std::make_unique<trace::TimeSeries>(options_.out_dir + "/timeseries.csv", options_.sample_interval_ps,
                                                fabric_->ports());
  series_->add_counters("flow", "bytes_delivered", [this](const trace::TimeSeries::CounterVisit& visit) {
    for (std::size_t f = 0; f < flows_.size(); ++f) visit(flows_[f].name, results_[f].delivered_bytes);
  });
  series_->add_counters("qp", "bytes_delivered", [this](const trace::TimeSeries::CounterVisit& visit) {
    for (unsigned h = 0; h < fabric_->hca_count(); ++h) {
      const hca::Hca& hca = fabric_->hca(h);
      for (const transport::Qp* qp : hca.transport().qps())
        visit(std::string(hca.name()) + ".qp" + std::to_string(qp->qpn), qp->stats.bytes_sent);
    }
  });
  // Congestion control (docs/congestion-control.md): each CCTI at the sample
  // time, and the injection delay applied in the interval; a raw flow's by its
  // name, a transport QP's as <hca>.p<port>.qp<n> (raw flows and QPs share
  // the keys of a port: a key that is a QP of the HCA goes by the QP), an SL's
  // as <hca>.p<port>.sl<n>. Reading a CCTI applies the timer's expiries due by
  // then, which changes nothing the run does.
  const auto cctis = [this](bool delay) {
    return [this, delay](const trace::TimeSeries::CounterVisit& visit) {
      for (unsigned h = 0; h < fabric_->hca_count(); ++h)
        for (unsigned p = 0; p < fabric_->hca(h).port_count(); ++p) {
          hca::CaCongestionControl* cc = fabric_->hca(h).congestion(p);
          if (cc == nullptr) continue;
          for (uint32_t key = 0; key < cc->keys(); ++key) {
            const hca::CctiState* s = cc->state(key);
            if (s == nullptr) continue;
            const std::string port = std::string(fabric_->hca(h).name()) + ".p" + std::to_string(p + 1);
            std::string name;
            if (cc->per_sl()) name = port + ".sl" + std::to_string(key);
            else if (fabric_->hca(h).transport().owns(key)) name = port + ".qp" + std::to_string(key);
            else if (key < flows_.size()) name = flows_[key].name;
            else continue;
            visit(name, delay ? s->delay_sum_ps : cc->ccti(key, s->sl, link::now_ps()));
          }
        }
    };
  };
  // The switches (docs/switch-architectures.md): the inputs' waits for the
  // crossbar, and a shared switch's draw on its pool at the sample time.
  series_->add_counters("switch", "crossbar_wait_ps", [this](const trace::TimeSeries::CounterVisit& visit) {
    for (unsigned i = 0; i < fabric_->switch_count(); ++i)
      visit(fabric_->switch_at(i).name(), fabric_->switch_at(i).stats().crossbar_wait_ps);
  });
  series_->add_gauges("switch", "pool_drawn_bytes", [this](const trace::TimeSeries::CounterVisit& visit) {
    for (unsigned i = 0; i < fabric_->switch_count(); ++i)
      if (const sw::SharedBufferPool* p = fabric_->switch_at(i).shared_pool())
        visit(fabric_->switch_at(i).name(), p->drawn_blocks() * link::kCreditBlockBytes);
  });
  series_->add_counters("switch", "ar_reroutes", [this](const trace::TimeSeries::CounterVisit& visit) {
    for (unsigned i = 0; i < fabric_->switch_count(); ++i)
      if (const sw::AdaptiveRouter* ar = fabric_->switch_at(i).adaptive())
        visit(fabric_->switch_at(i).name(), ar->stats().reroutes);
  });
  series_->add_gauges("cc", "ccti", cctis(false));
  series_->add_counters("cc", "delay_ps", cctis(true));
  // The IOMMUs' IOTLBs, by their HCA's name (only hosts that have one).
  const auto iommus = [this](auto count) {
    return [this, count](const trace::TimeSeries::CounterVisit& visit) {
      for (unsigned h = 0; fabric_->has_hosts() && h < fabric_->hca_count(); ++h)
        if (const host::Iommu* m = fabric_->host(h).iommu.get()) visit(fabric_->hca(h).name(), count(*m));
    };
  };
  series_->add_counters("iommu", "iotlb_lookups", iommus([](const host::Iommu& m) { return m.iotlb_stats().lookups; }));
  series_->add_counters("iommu", "iotlb_misses", iommus([](const host::Iommu& m) { return m.iotlb_stats().misses; }));
  series_->add_counters("iommu", "walk_reads", iommus([](const host::Iommu& m) { return m.stats().walk_reads; }));
  // The context caches of HCAs with a host (docs/context-caches.md): lookups, hits, misses per interval.
  for (const char* metric : {"lookups", "hits", "misses"}) {
    const std::string m = metric;
    series_->add_counters("cache", m, [this, m](const trace::TimeSeries::CounterVisit& visit) {
      for (unsigned h = 0; fabric_->has_hosts() && h < fabric_->hca_count(); ++h) {
        const hca::HcaContexts& c = fabric_->hca(h).contexts();
        if (!c.has_icm()) continue;
        for (std::size_t k = 0; k < static_cast<std::size_t>(hca::ContextKind::kCount); ++k) {
          const auto kind = static_cast<hca::ContextKind>(k);
          if (!c.present(kind)) continue;
          const hca::ContextCacheStats& s = c.cache(kind).stats();
          visit(std::string(fabric_->hca(h).name()) + "." + hca::to_string(kind),
                m == "lookups" ? s.lookups : m == "hits" ? s.hits : s.misses);
        }
      }
    });
  }
}

bool Simulation::chained_perftest(std::size_t i) const {
  return i > 0 && perftests_[i]->spec().config.start_ps == config::kAfterPrevious;
}

void Simulation::chain_perftests() {
  for (std::size_t i = 1; i < perftests_.size(); ++i) {
    if (!chained_perftest(i)) continue;
    perftests_[i]->defer_start();
    perftests_[i - 1]->then([this, i] {
      const auto begin = [this, i] { perftests_[i]->begin(link::now_ps()); };
      if (workloads_held_) look_up_path(perftest_ends_[i].first, perftest_ends_[i].second, begin);
      else begin();
    });
  }
}

std::vector<std::string> Simulation::perftest_overlaps() const {
  // Each test's span: its first size's start to its last size's end (or the
  // run's end, for a size left unfinished).
  const auto span = [this](const workloads::Perftest& t) -> std::pair<uint64_t, uint64_t> {
    const auto& sizes = t.result().sizes;
    if (sizes.empty()) return {0, 0};
    return {sizes.front().start_ps, sizes.back().done ? sizes.back().end_ps : end_ps_};
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < perftests_.size(); ++i)
    for (std::size_t j = i + 1; j < perftests_.size(); ++j) {
      const auto [a0, a1] = span(*perftests_[i]);
      const auto [b0, b1] = span(*perftests_[j]);
      const uint64_t from = std::max(a0, b0), until = std::min(a1, b1);
      if (from >= until) continue;
      for (const workloads::Endpoint& e : {perftest_ends_[i].first, perftest_ends_[i].second}) {
        const auto same = [&e](const workloads::Endpoint& o) { return o.node == e.node && o.port == e.port; };
        if (!same(perftest_ends_[j].first) && !same(perftest_ends_[j].second)) continue;
        out.push_back("perftest " + perftests_[i]->spec().config.name + " and " + perftests_[j]->spec().config.name +
                      " ran at the same time on " + fabric_->hca(e.node).port(e.port).name() + " from " +
                      config::format_time_ps(from) + " to " + config::format_time_ps(until) +
                      ": each one's figures include the other's traffic");
        break;
      }
    }
  return out;
}

void Simulation::defer_workloads() {
  for (auto& g : generators_) g->defer_start();
  for (auto& t : perftests_) t->defer_start();
  for (auto& v : scripts_) v->defer_start();
  for (auto& d : dma_tests_) d->defer_start();
}

void Simulation::hold_workloads_for_sweep() {
  workloads_held_ = true;
  defer_workloads();
  fabric_->on_sweep_done([this] {
    const uint64_t now = sc_core::sc_time_stamp().value();
    const mgmt::SubnetManager& sm = *fabric_->subnet_manager();
    if (!sm.done()) {
      sweep_failure_ = "subnet manager: the sweep did not finish: " + sm.failure();
      return;
    }
    for (workloads::FlowSpec& s : flows_) s.start_ps += now;
    if (measurement_) measurement_->start(now);
    for (auto& g : generators_) g->begin();
    for (std::size_t i = 0; i < perftests_.size(); ++i)
      if (!chained_perftest(i))
        look_up_path(perftest_ends_[i].first, perftest_ends_[i].second, [this, i, now] { perftests_[i]->begin(now); });
    for (std::size_t i = 0; i < scripts_.size(); ++i)
      look_up_path(verbs_ends_[i].first, verbs_ends_[i].second, [this, i, now] { scripts_[i]->begin(now); });
    for (auto& d : dma_tests_) d->begin(now);
  });
}

void Simulation::hold_workloads_for_subnet_up() {
  defer_workloads();  // no verbs scripts in this mode (config refuses them)
  fabric_->on_subnet_up([this] {
    const uint64_t now = link::now_ps();
    resolve_flow_lids();  // the LIDs the outside SM assigned
    for (workloads::FlowSpec& s : flows_) s.start_ps += now;
    if (measurement_) measurement_->start(now);
    for (auto& g : generators_) g->begin();
    for (std::size_t i = 0; i < perftests_.size(); ++i)
      if (!chained_perftest(i)) perftests_[i]->begin(now);
    for (auto& d : dma_tests_) d->begin(now);
  });
}

void Simulation::run_served(const std::function<void()>& serve) {
  started_ = Clock::now();
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  if (series_) series_->start();
  serve();
  end_kernel_run(false);
}

bool Simulation::workloads_finished() const {
  for (std::size_t f = 0; f < flows_.size(); ++f)
    if (flows_[f].count == 0 || results_[f].sent + results_[f].dropped_at_source < flows_[f].count) return false;
  for (const auto& t : perftests_)
    if (!t->ended()) return false;
  for (const auto& d : dma_tests_)
    if (!d->done()) return false;
  return true;
}

void Simulation::look_up_path(const workloads::Endpoint& from, const workloads::Endpoint& to,
                              std::function<void()> begin) {
  mgmt::SaAgent* agent = fabric_->sa_agent(fabric_->node_of_hca(from.node));
  const uint16_t slid = fabric_->hca(from.node).lid(from.port), dlid = fabric_->hca(to.node).lid(to.port);
  ib::PathRecord want;
  want.slid = slid;
  want.dlid = dlid;
  std::vector<uint8_t> tmpl(ib::PathRecord::kBytes);
  want.encode(tmpl.data());
  constexpr uint64_t kMask = (1u << 4) | (1u << 5);  // PathRecord ComponentMask: DLID, SLID (iba-facts 6)
  const uint64_t tid = agent->get(ib::kAttrPathRecord, kMask, tmpl);
  ++path_lookups_;
  lookups_[{agent, tid}] = [this, slid, dlid, begin = std::move(begin)](const mgmt::SaCompletion& c) {
    ib::PathRecord got;
    if (c.result == mgmt::SaResult::Ok && c.data.size() >= ib::kRidBytes + ib::PathRecord::kBytes)
      got.decode(c.data.data() + ib::kRidBytes);
    if (c.result != mgmt::SaResult::Ok || got.slid != slid || got.dlid != dlid) {
      lookup_failures_.push_back("PathRecord lookup from LID " + std::to_string(slid) + " to LID " +
                                 std::to_string(dlid) + " failed (status " + std::to_string(c.status) + ")");
      return;
    }
    begin();
  };
  agent->set_callback([this, agent](const mgmt::SaCompletion& c) {
    const auto it = lookups_.find({agent, c.tid});
    if (it == lookups_.end()) return;
    const auto f = std::move(it->second);
    lookups_.erase(it);
    f(c);
  });
}

uint64_t Simulation::expected_packets() const {
  uint64_t n = 0;
  for (const workloads::FlowSpec& s : flows_) n += s.count;
  return n;
}

std::string Simulation::destination_text(const workloads::FlowSpec& s) const {
  const auto name = [this](const workloads::Endpoint& e) { return std::string(fabric_->hca(e.node).port(e.port).name()); };
  switch (s.choice) {
    case workloads::DestChoice::Fixed: return name({s.dst_node, s.dst_port});
    case workloads::DestChoice::Uniform: return "uniform over " + std::to_string(s.dsts.size()) + " ports";
    case workloads::DestChoice::Cycle: return "in turn over " + std::to_string(s.dsts.size()) + " ports";
    case workloads::DestChoice::HotSpot:
      return "uniform over " + std::to_string(s.dsts.size()) + " ports, " + std::to_string(s.hot_fraction) +
             " to " + std::to_string(s.hot.size()) + " hot";
  }
  return "";
}

void Simulation::check_partitioning(const TransportWorkloads& transport) const {
  if (parts_.empty()) return;
  const auto refuse = [&](const std::string& what) {
    throw std::invalid_argument("run.partitions: " + std::to_string(parts_.size()) + " partitions with " + what +
                                "; accepted: 1 partition for " + what);
  };
  if (!transport.perftest.empty() || !transport.verbs.empty()) refuse("transport workloads (perftest, verbs)");
  if (!transport.dma.empty()) refuse("DMA tests");
  if (options_.pcap) refuse("a pcap capture");
  if (options_.vcd) refuse("a VCD trace");
  if (options_.sample_interval_ps != 0) refuse("a time series (outputs.sample_interval)");
  if (rtl::wants_rtl(fabric_->ports())) refuse("RTL blocks");
}

void Simulation::report_progress(bool final_line, uint64_t now_ps) {
  if (options_.quiet) return;
  ProgressSample p;
  p.sim_ps = now_ps;
  p.wall_s = seconds_since(started_);
  p.packet_hops = packet_hops();
  if (options_.duration_ps) p.fraction_done = static_cast<double>(now_ps) / static_cast<double>(options_.duration_ps);
  else if (expected_packets())
    p.fraction_done = static_cast<double>(packets_delivered()) / static_cast<double>(expected_packets());
  std::fputs(progress_text(p, progress_terminal_, final_line).c_str(), stderr);
  std::fflush(stderr);
}

void Simulation::run() {
  started_ = Clock::now();
  progress_terminal_ = isatty(STDERR_FILENO) != 0;
  // Undocumented, for the tests of the progress report only: wall seconds
  // between reports (default 1), so that a short run reports several times.
  if (const char* every = std::getenv("HCASIM_PROGRESS_SECONDS"); every != nullptr)
    progress_every_s_ = std::strtod(every, nullptr);
  if (parts_.empty()) run_kernel();
  else run_partitioned();
}

void Simulation::run_kernel() {
  using sc_core::sc_time;
  constexpr uint64_t kMaxChunkPs = 1'000'000'000'000;  // 1 s of simulated time
  uint64_t chunk = 10'000'000;  // 10 us of simulated time, adapted to about 0.1-0.5 s of wall time
  double last_report = 0;
  bool reported = false;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  if (series_) series_->start();
  if (measurement_ && !fabric_->spec().management.in_band) measurement_->start(0);
  // Without a duration the run goes until idle, or until the watchdog stops it.
  StallWatch watch(work_done(), wakeups());
  // An RTL divergence stops the kernel (sc_stop); the run ends there.
  while (sc_core::sc_pending_activity() && sc_core::sc_get_status() != sc_core::SC_STOPPED) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    // At least up to the next pending event: with SC_EXIT_ON_STARVATION a
    // window holding no event would not advance time.
    uint64_t step = std::max<uint64_t>(chunk, sc_core::sc_time_to_pending_activity().value());
    if (options_.duration_ps) {
      if (now >= options_.duration_ps) break;
      step = std::min(step, options_.duration_ps - now);
    }
    const auto t0 = Clock::now();
    // With a duration, run to exact window ends (the last one is the duration);
    // without, stop at the last event rather than at a window's end.
    sc_core::sc_start(sc_time::from_value(step),
                      options_.duration_ps ? sc_core::SC_RUN_TO_TIME : sc_core::SC_EXIT_ON_STARVATION);
    const double took = seconds_since(t0);
    const uint64_t at = sc_core::sc_time_stamp().value();
    if (!options_.duration_ps && watch.stalled(at, work_done(), wakeups())) {
      stall_ = "the run was stopped at " + config::format_time_ps(at) + ": since " +
               config::format_time_ps(watch.since_ps()) + ", " + std::to_string(wakeups() - watch.events_at_since()) +
               " events ran but no work request completed, no packet reached a flow's destination and no DMA "
               "transfer finished (run.duration 0ns runs until idle; a stuck workload never is)";
      break;
    }
    if (took < 0.1 && chunk < kMaxChunkPs) chunk *= 2;
    else if (took > 0.5 && chunk > 1000) chunk /= 2;
    if (seconds_since(started_) - last_report >= progress_every_s_) {
      report_progress(false, sc_core::sc_time_stamp().value());
      last_report = seconds_since(started_);
      reported = true;
    }
  }
  note_deadlock(sc_core::sc_time_stamp().value());
  end_kernel_run(reported);
}

void Simulation::note_deadlock(uint64_t at_ps) {
  const std::vector<std::string> cycle = find_deadlock(*fabric_);
  if (cycle.empty()) return;
  std::string ring;
  for (const std::string& b : cycle) ring += b + " -> ";
  deadlock_ = "the fabric deadlocked by " + config::format_time_ps(at_ps) + ": " + std::to_string(cycle.size()) +
              " full receive buffers wait on each other, each head packet bound for the next: " + ring + cycle[0] +
              " (a credit loop of the routes; hcasim validate checks for them)";
}

void Simulation::end_kernel_run(bool reported) {
  end_ps_ = sc_core::sc_time_stamp().value();
  if (series_) series_->finish(end_ps_);
  for (link::Port* p : fabric_->ports()) p->finish();
  finish_run(reported);
}

void Simulation::run_partitioned() {
  // Elaboration's end: ports advertise their credits, generators set their
  // first wakeups, all on the partitions' timelines at time 0.
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  std::vector<link::Partition*> parts;
  for (const auto& p : parts_) parts.push_back(p.get());
  WindowedRunConfig config;
  config.end_ps = options_.duration_ps;
  config.window_ps = UINT64_MAX;  // no cut link: one window
  for (const link::Port* p : fabric_->ports())
    if (p->peer() != nullptr && fabric_->partition_of(*p) != fabric_->partition_of(*p->peer()))
      config.window_ps = std::min(config.window_ps, p->min_flight_ps());
  window_ps_ = config.window_ps;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  config.threads = options_.threads != 0 ? options_.threads : std::min<unsigned>(static_cast<unsigned>(parts.size()), cores);
  threads_ = std::min<unsigned>(config.threads, static_cast<unsigned>(parts.size()));
  double last_report = 0;
  bool reported = false;
  for (unsigned q = 0; q < parts.size(); ++q) checker_of(q).mail_slots(mail_slots(config));
  WindowHooks hooks;
  hooks.seal = [&](unsigned from, unsigned slot) { checker_of(from).seal(slot); };
  hooks.take = [&](unsigned q, unsigned from, unsigned slot) { checker_of(q).take_handed(checker_of(from), q, slot); };
  hooks.between = [&](uint64_t now) {
    if (options_.quiet || seconds_since(started_) - last_report < progress_every_s_) return;
    report_progress(false, now);
    last_report = seconds_since(started_);
    reported = true;
  };
  end_ps_ = run_windows(parts, config, hooks);
  for (const auto& p : parts_) p->timeline.advance_to(end_ps_);
  for (link::Port* p : fabric_->ports()) {
    const link::Timeline::OnClock on(parts_[fabric_->partition_of(*p)]->timeline);
    p->finish();
  }
  for (const auto& r : recorders_)
    for (std::size_t f = 0; f < flows_.size(); ++f)
      if (const workloads::FlowResult* got = r->received(f)) results_[f].add_deliveries(*got);
  for (const auto& k : part_checkers_) k->finish(end_ps_);
  finish_run(reported);
  for (const auto& k : part_checkers_) checker_.absorb(*k);
}

std::vector<Simulation::PortCounters> Simulation::port_counters(uint64_t now_ps) const {
  std::vector<PortCounters> out;
  for (const link::Port* p : fabric_->ports()) {
    PortCounters c;
    c.at_ps = now_ps;
    c.busy_ps = p->busy_ps_until(now_ps);
    for (unsigned vl = 0; vl < p->vl_count(); ++vl) {
      const link::VlStats& v = p->stats().vl[vl];
      c.tx_packets += v.tx_packets;
      c.tx_bytes += v.tx_bytes;
      c.tx_payload += v.tx_payload_bytes;
      c.credit_stall_ps += p->credit_stall_ps_until(vl, now_ps);
    }
    out.push_back(c);
  }
  return out;
}

void Simulation::finish_run(bool reported) {
  for (auto& g : generators_) g->finish(end_ps_);
  if (!window_open_.empty() && window_close_.empty()) window_close_ = port_counters(end_ps_);
  cut_ = (options_.duration_ps != 0 && end_ps_ >= options_.duration_ps) || !stall_.empty();
  for (auto& t : perftests_) t->finish(cut_);
  for (auto& w : swarms_) w->finish(end_ps_);
  for (auto& v : scripts_) v->finish();
  checker_.finish(end_ps_);
  wall_s_ = seconds_since(started_);
  peak_rss_ = process_peak_rss_bytes();
  huge_page_bytes_ = anon_huge_page_bytes();
  if (reported) report_progress(true, end_ps_);
}

uint64_t Simulation::packets_delivered() const {
  uint64_t n = 0;
  for (const auto& r : recorders_) n += r->delivered();
  return n;
}

uint64_t Simulation::wakeups() const {
  if (parts_.empty()) return link::Timeline::current().dispatched();
  uint64_t n = 0;
  for (const auto& p : parts_) n += p->timeline.dispatched();
  return n;
}

std::vector<uint64_t> Simulation::partition_wakeups() const {
  if (parts_.empty()) return {wakeups()};
  std::vector<uint64_t> out;
  for (const auto& p : parts_) out.push_back(p->timeline.dispatched());
  return out;
}

uint64_t Simulation::model_delta_cycles() const {
  if (parts_.empty()) return sc_core::sc_delta_count() - link::Timeline::current().held_delta_cycles();
  return sc_core::sc_delta_count();
}

std::vector<std::string> Simulation::management_failures() const {
  std::vector<std::string> out;
  if (!sweep_failure_.empty()) out.push_back(sweep_failure_);
  out.insert(out.end(), lookup_failures_.begin(), lookup_failures_.end());
  if (fabric_->spec().management.external) {
    if (fabric_->subnet_up_ps() == 0 && !(flows_.empty() && perftests_.empty() && dma_tests_.empty()))
      out.push_back("the subnet never came up (no outside SM made every linked port Active), so the workloads "
                    "did not start");
  } else if (fabric_->spec().management.in_band && !fabric_->subnet_manager()->done() && sweep_failure_.empty()) {
    out.push_back("subnet manager: the sweep did not finish by the end of the run");
  }
  return out;
}

uint64_t Simulation::work_done() const {
  uint64_t n = packets_delivered();
  for (unsigned i = 0; i < fabric_->hca_count(); ++i) n += fabric_->hca(i).completion_stats().completions;
  for (const auto& d : dma_tests_) n += d->result().completed;
  return n;
}

std::vector<std::string> Simulation::workload_failures() const {
  std::vector<std::string> out = management_failures();
  if (!stall_.empty()) out.push_back(stall_);
  if (!deadlock_.empty()) out.push_back(deadlock_);
  for (const auto& t : perftests_) out.insert(out.end(), t->result().failures.begin(), t->result().failures.end());
  for (const auto& v : scripts_) out.insert(out.end(), v->failures().begin(), v->failures().end());
  for (const auto& w : swarms_) out.insert(out.end(), w->result().failures.begin(), w->result().failures.end());
  return out;
}

const std::vector<std::string>& Simulation::rtl_failures() const {
  static const std::vector<std::string> none;
  return cosim_ ? cosim_->verdict().messages() : none;
}

uint64_t Simulation::packet_hops() const {
  uint64_t n = 0;
  for (const link::Port* p : fabric_->ports()) {
    n += p->stats().fc_tx();
    for (const link::VlStats& v : p->stats().vl) n += v.tx_packets;
  }
  return n;
}

uint64_t Simulation::measured_until(const workloads::FlowSpec& s, const workloads::FlowResult& r) const {
  const bool still_on = cut_ && (s.count == 0 || r.created < s.count ||
                                 r.delivered + r.dropped_at_source + r.dropped_source_queue < r.created);
  if (still_on) return end_ps_;
  return r.delivered > 0 ? r.last_delivery_ps : s.start_ps;
}

std::pair<uint64_t, uint64_t> Simulation::rate_span(const workloads::FlowSpec& s, const workloads::FlowResult& r) const {
  if (measurement_) {
    const uint64_t from = std::max(measurement_->window().start_ps == UINT64_MAX ? end_ps_ : measurement_->window().start_ps,
                                   s.start_ps);
    const uint64_t until = std::max(from, measurement_->window_end(end_ps_));
    return {from, until};
  }
  const uint64_t until = measured_until(s, r);
  return {s.start_ps, std::max(s.start_ps, until)};
}

std::vector<std::string> Simulation::load_warnings() const {
  std::vector<std::string> out;
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    const workloads::FlowSpec& s = flows_[f];
    const workloads::FlowResult& r = results_[f];
    if (s.load == 0 && s.rate_bps == 0) continue;  // a saturating flow is offered what it carries
    const auto [from, until] = rate_span(s, r);
    const double offered = trace::bits_per_second(r.offered_bytes, until - from);
    const double accepted = trace::bits_per_second(r.accepted_bytes, until - from);
    if (workloads::carried_short(r.offered, r.offered_bytes, r.accepted_bytes, kCarriedWarning)) {
      char line[256];
      std::snprintf(line, sizeof line, "flow %s carried %.1f%% of its offered load (accepted %.3f of %.3f Gb/s)",
                    s.name.c_str(), 100.0 * accepted / offered, accepted / 1e9, offered / 1e9);
      out.push_back(line);
    }
  }
  return out;
}

void Simulation::close_outputs() {
  capture_.reset();
  waves_.reset();
}

nlohmann::json Simulation::port_json(const link::Port& p) const {
  nlohmann::json out = trace::port_stats_json(p, end_ps_);
  if (!window_open_.empty() && window_open_.size() == window_close_.size()) {
    const PortCounters &a = window_open_.at(p.id()), &b = window_close_.at(p.id());  // id: place in ports()
    const uint64_t span = b.at_ps - a.at_ps;
    out["measured"] = {{"tx_packets", b.tx_packets - a.tx_packets},
                       {"tx_bytes", b.tx_bytes - a.tx_bytes},
                       {"tx_throughput_bps", trace::bits_per_second(b.tx_bytes - a.tx_bytes, span)},
                       {"tx_data_throughput_bps", trace::bits_per_second(b.tx_payload - a.tx_payload, span)},
                       {"utilization", span ? static_cast<double>(b.busy_ps - a.busy_ps) / static_cast<double>(span) : 0.0},
                       {"credit_stall_ps", b.credit_stall_ps - a.credit_stall_ps}};
  }
  if (hops_ != nullptr)
    if (const trace::LatencyRecord* h = hops_->of(p)) out["hop_latency"] = trace::latency_json(*h);
  return out;
}

nlohmann::json Simulation::flow_json(std::size_t f) const {
  const workloads::FlowSpec& s = flows_[f];
  const workloads::FlowResult& r = results_[f];
  const auto [from, until] = rate_span(s, r);
  const double link_bps = fabric_->hca(s.src_node).port(s.src_port).timing().data_rate_bps();
  nlohmann::json flow = {{"name", s.name},
                         {"src", fabric_->hca(s.src_node).port(s.src_port).name()},
                         {"dst", destination_text(s)},
                         {"sl", s.path_sls != nullptr ? nlohmann::json("path") : nlohmann::json(s.sl)},
                         {"vl15", s.vl15},
                         {"payload_bytes", s.payload},
                         {"saturating", s.load == 0 && s.rate_bps == 0}};
  add_load_and_latency(flow, r, until - from, link_bps);
  return flow;
}

QpOwners Simulation::qp_owners() const {
  QpOwners owners;
  for (const auto& t : perftests_)
    for (const auto& [client, server] : t->result().qpns) {
      owners[{t->spec().client.node, client}] = t->spec().config.name;
      owners[{t->spec().server.node, server}] = t->spec().config.name;
    }
  for (const auto& v : scripts_) {
    owners[{v->spec().a.node, v->qpn(config::Side::A)}] = v->spec().config.name;
    owners[{v->spec().b.node, v->qpn(config::Side::B)}] = v->spec().config.name;
  }
  return owners;
}

nlohmann::json Simulation::results_json() const {
  std::map<std::string, PatternTotals> patterns;
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    const workloads::FlowSpec& s = flows_[f];
    if (s.pattern.empty()) continue;
    const workloads::FlowResult& r = results_[f];
    const auto [from, until] = rate_span(s, r);
    PatternTotals& t = patterns[s.pattern];
    ++t.flows;
    t.start_ps = std::min(t.start_ps, from);
    t.last_ps = std::max(t.last_ps, until);
    t.link_bps += fabric_->hca(s.src_node).port(s.src_port).timing().data_rate_bps();
    t.sum.add_sources(r);
    t.sum.add_deliveries(r);
  }
  nlohmann::json pattern_list = nlohmann::json::array();
  for (const auto& [name, t] : patterns) {
    const uint64_t span = t.last_ps > t.start_ps ? t.last_ps - t.start_ps : 0;
    nlohmann::json pattern = {{"name", name}, {"flows", t.flows}};
    // Offered and accepted load as shares of the sources' links together.
    add_load_and_latency(pattern, t.sum, span, t.link_bps);
    pattern_list.push_back(std::move(pattern));
  }
  nlohmann::json perftest = nlohmann::json::array();
  for (const auto& t : perftests_) perftest.push_back(perftest_json(*t, *fabric_));
  nlohmann::json verbs = nlohmann::json::array();
  for (const auto& v : scripts_) verbs.push_back(verbs_script_json(*v));
  // A swarm's machines are rows of the detail table swarm_machines; here their count.
  nlohmann::json swarm = swarms_json(swarms_, *fabric_);
  for (nlohmann::json& w : swarm) w["machines"] = w["machines"].size();
  // RTL divergences count as the run's check failures.
  nlohmann::json violations = checker_.messages();
  const std::vector<std::string>& rtl = rtl_failures();
  for (const std::string& m : rtl) violations.push_back(m);
  nlohmann::json out = nlohmann::json::object();
  out["patterns"] = std::move(pattern_list);
  out["perftest"] = std::move(perftest);
  out["dma"] = dma_tests_json(dma_tests_, *fabric_);
  out["swarm"] = std::move(swarm);
  out["verbs"] = std::move(verbs);
  out["checker"] = {{"ok", checker_.ok() && rtl.empty()},
                    {"violations", checker_.violations() + rtl.size()},
                    {"packets_checked", checker_.packets_checked()},
                    {"announced_losses", checker_.announced_losses()},
                    {"first_violations", violations}};
  return out;
}

}  // namespace hcasim
