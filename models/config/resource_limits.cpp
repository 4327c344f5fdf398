#include "models/config/resource_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/config/config_error.hpp"
#include "models/config/units.hpp"
#include "models/host/driver.hpp"

namespace hcasim::config {
namespace {

// Products of parameters saturate: a count past 2^64 is as refused as one at it.
uint64_t times(uint64_t a, uint64_t b) { return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b; }
uint64_t plus(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
uint64_t power(uint64_t base, unsigned n) {
  uint64_t r = 1;
  for (unsigned i = 0; i < n; ++i) r = times(r, base);
  return r;
}

struct FabricSize {
  uint64_t hcas = 0, switches = 0, ports = 0;
  std::string shape;       // "fat_tree k=127 levels=3"; "" for a graph
  uint64_t hca_ports = 0;  // a pattern's HCAs have one port each
};

FabricSize pattern_size(const TopologyConfig& c) {
  FabricSize z;
  switch (c.pattern) {
    case Pattern::BackToBack: z = {2, 0, 2, "back_to_back"}; break;
    case Pattern::SingleSwitch:
      z = {c.hosts, 1, uint64_t{c.hosts} + std::max(c.hosts, c.switch_ports),
           "single_switch hosts=" + std::to_string(c.hosts)};
      break;
    case Pattern::FatTree:
      z.hcas = power(c.k, c.levels);
      z.switches = times(c.levels, power(c.k, c.levels - 1));
      z.ports = plus(z.hcas, times(z.switches, 2 * uint64_t{c.k}));
      z.shape = "fat_tree k=" + std::to_string(c.k) + " levels=" + std::to_string(c.levels);
      break;
    case Pattern::Mesh:
    case Pattern::Torus:
      z.switches = uint64_t{c.x} * c.y;
      z.hcas = z.switches * c.hosts_per_switch;
      z.ports = z.hcas + z.switches * (4 + uint64_t{c.hosts_per_switch});
      z.shape = std::string(c.pattern == Pattern::Mesh ? "mesh" : "torus") + " x=" + std::to_string(c.x) +
                " y=" + std::to_string(c.y) + " hosts_per_switch=" + std::to_string(c.hosts_per_switch);
      break;
    case Pattern::Dragonfly: {
      const uint64_t groups = uint64_t{c.a} * c.h + 1;
      z.switches = groups * c.a;
      z.hcas = z.switches * c.p;
      z.ports = z.hcas + z.switches * (uint64_t{c.p} + c.a - 1 + c.h);
      z.shape = "dragonfly a=" + std::to_string(c.a) + " p=" + std::to_string(c.p) + " h=" + std::to_string(c.h);
      break;
    }
    case Pattern::Explicit:
    case Pattern::Ibnetdiscover: break;  // sized from the graph
  }
  z.hca_ports = z.hcas;
  return z;
}

FabricSize graph_size(const topology::Topology& g) {
  FabricSize z;
  for (const topology::TopoNode& n : g.nodes) {
    (n.kind == topology::NodeKind::Switch ? z.switches : z.hcas) += 1;
    z.ports += n.ports;
    if (n.kind != topology::NodeKind::Switch) z.hca_ports += n.ports;
  }
  return z;
}

// A switch's forwarding table holds a byte per LID up to the top one: the
// fabric's LIDs (routing.lmc's paths per HCA port, one per switch).
uint64_t fabric_bytes(const FabricSize& z, unsigned lmc) {
  const uint64_t lids = plus(times(z.hcas, uint64_t{1} << lmc), z.switches);
  const uint64_t per_switch = plus(kSwitchBytes, lids);
  return plus(plus(times(z.hcas, kHostBytes), times(z.switches, per_switch)), times(z.ports, kPortBytes));
}

std::string gib(uint64_t bytes) {
  char text[40];
  if (bytes >= uint64_t{1} << 30)
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / double(uint64_t{1} << 30));
  else
    std::snprintf(text, sizeof text, "%.0f MiB", static_cast<double>(bytes) / double(uint64_t{1} << 20));
  return text;
}

std::string limit_text(const Scenario& s) {
  return s.run.memory_limit == 0 ? "this machine's memory, " + gib(machine_memory_bytes())
                                 : "run.memory_limit, " + gib(s.run.memory_limit);
}

void check_lids(const FabricSize& z, const Scenario& s, const std::string& at) {
  const uint64_t lids = plus(times(z.hcas, uint64_t{1} << s.routing.lmc), z.switches);
  if (lids > kMaxUnicastLids)
    throw ConfigError(at, z.shape + " has " + std::to_string(z.hcas) + " HCAs and " + std::to_string(z.switches) +
                              " switches, needing " + std::to_string(lids) + " LIDs (routing.lmc " +
                              std::to_string(s.routing.lmc) + "); accepted: at most " +
                              std::to_string(kMaxUnicastLids) + ", the unicast LIDs of one subnet (IBA 4.1.3)");
}

// One part of the estimate: its bytes, the parameter that sets it, in words.
struct Part {
  uint64_t bytes = 0;
  std::string path, what;
};

void check_parts(const Scenario& s, const std::vector<Part>& parts) {
  uint64_t total = kProgramBytes;
  const Part* largest = nullptr;
  for (const Part& p : parts) {
    total = plus(total, p.bytes);
    if (largest == nullptr || p.bytes > largest->bytes) largest = &p;
  }
  const uint64_t limit = memory_limit(s);
  if (largest == nullptr || total <= limit) return;
  throw ConfigError(largest->path, largest->what + " need about " + gib(largest->bytes) + ", the whole model about " +
                                       gib(total) + "; accepted: a model within " + limit_text(s));
}

// The entries the driver writes for a region (host::kMttWriteLimit at most).
uint64_t mtt_bytes(uint64_t region_bytes, uint64_t page_bytes) {
  const uint64_t pages = region_bytes / page_bytes + 2;
  return std::min(pages, host::kMttWriteLimit) * kMttEntryBytes;
}

Part fabric_part(const FabricSize& z, unsigned lmc) {
  const std::string prefix = z.shape.empty() ? "" : z.shape + ": ";
  return {fabric_bytes(z, lmc), "topology",
          prefix + std::to_string(z.hcas) + " HCAs with their hosts, " + std::to_string(z.switches) + " switches and " +
              std::to_string(z.ports) + " ports"};
}

// In band, the SA's PathRecords (the rules).
Part sa_part(const FabricSize& z, const Scenario& s) {
  if (s.management.mode != ManagementMode::InBand || z.hca_ports < 2) return {};
  const uint64_t lids = uint64_t{1} << s.routing.lmc;
  const uint64_t records = times(times(z.hca_ports, lids), times(z.hca_ports - 1, lids));
  const bool standby = !s.management.standby.empty();
  const uint64_t per_record = kSaPathRecordBytes + (standby ? kSaStandbyPathRecordBytes : 0);
  return {times(records, per_record), "management.mode",
          "the in-band SA's " + std::to_string(records) + " PathRecords (one per ordered pair of HCA port LIDs" +
              (standby ? ", in the master's and the standby's database)" : ")")};
}

// switch.architecture voq and shared: each switch keeps a queue (two pointers)
// per (input, output, VL), the VLs its ports operate and VL15 (voq_crossbar.hpp).
Part voq_part(const Scenario& s) {
  uint64_t vls = s.port.effective_vls();
  for (const PortOverride& o : s.port_overrides) vls = std::max<uint64_t>(vls, o.config.effective_vls());
  uint64_t bytes = 0;
  for (const topology::TopoNode& n : s.graph.nodes)
    if (n.kind == topology::NodeKind::Switch) bytes = plus(bytes, times(times(uint64_t{n.ports}, n.ports), 16 * (vls + 1)));
  return {bytes, "switch.architecture", "the voq or shared switches' queues (a queue per input, output and VL)"};
}

std::vector<Part> model_parts(const Scenario& s) {
  const FabricSize z = graph_size(s.graph);
  std::vector<Part> parts;
  parts.push_back(fabric_part(z, s.routing.lmc));
  parts.push_back(sa_part(z, s));
  if (s.switches.core.architecture == sw::Architecture::Voq || s.switches.core.architecture == sw::Architecture::Shared)
    parts.push_back(voq_part(s));
  constexpr uint64_t kVerbsRegion = 2 * kVerbsAreaBytes;  // each side's region
  uint64_t page = s.hca.hca.page_bytes;  // the smallest any HCA has: the most entries
  for (const HcaOverride& o : s.hca_overrides) page = std::min(page, o.config.hca.page_bytes);
  for (std::size_t i = 0; i < s.workload.perftest.size(); ++i) {
    const PerftestConfig& t = s.workload.perftest[i];
    const uint64_t qps = times(2, t.qps);
    const uint64_t largest = t.sizes.empty() ? 65536 : *std::max_element(t.sizes.begin(), t.sizes.end());
    const uint64_t data = times(2, std::max(kPerftestSlotBudget, times(t.qps, largest)));
    parts.push_back({plus(plus(times(qps, kPerftestQpBytes), data), 2 * mtt_bytes(kVerbsRegion, page)),
                     "workload.perftest." + std::to_string(i) + ".qps",
                     std::to_string(qps) + " QPs and their buffers"});
  }
  for (std::size_t i = 0; i < s.workload.swarm.size(); ++i) {
    const SwarmConfig& w = s.workload.swarm[i];
    const uint64_t machines = w.machines.size();
    const uint64_t threads = times(machines, w.threads);
    const uint64_t qps = times(times(threads, machines), w.vms);
    const uint64_t regions = times(threads, w.regions);
    const uint64_t mtt = times(regions, mtt_bytes(w.buffer / w.regions, page));
    const std::string at = "workload.swarm." + std::to_string(i);
    parts.push_back({times(qps, kSwarmQpBytes), at + ".vms",
                     std::to_string(qps) + " QPs (" + std::to_string(machines) + " machines x " +
                         std::to_string(machines) + " x " + std::to_string(w.threads) + " threads x " +
                         std::to_string(w.vms) + " vms)"});
    parts.push_back({plus(mtt, times(regions, kRegionBytes)), at + ".regions",
                     std::to_string(regions) + " memory regions and their translation entries"});
  }
  const uint64_t verbs = s.workload.verbs.size();
  parts.push_back({times(verbs, plus(times(2, kPerftestQpBytes), 2 * mtt_bytes(kVerbsRegion, page))), "workload.verbs",
                   std::to_string(2 * verbs) + " QPs and their regions"});
  return parts;
}

}  // namespace

uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : UINT64_MAX;
}

uint64_t memory_limit(const Scenario& s) { return s.run.memory_limit != 0 ? s.run.memory_limit : machine_memory_bytes(); }

void check_topology_size(const Scenario& s) {
  if (s.topology.pattern == Pattern::Explicit || s.topology.pattern == Pattern::Ibnetdiscover) return;
  const FabricSize z = pattern_size(s.topology);
  check_lids(z, s, "topology");
  check_parts(s, {fabric_part(z, s.routing.lmc), sa_part(z, s)});
}

uint64_t model_bytes_estimate(const Scenario& s) {
  uint64_t total = kProgramBytes;
  for (const Part& p : model_parts(s)) total = plus(total, p.bytes);
  return total;
}

std::string memory_summary(const Scenario& s) {
  return "about " + gib(model_bytes_estimate(s)) + " estimated; the limit is " + limit_text(s);
}

void check_model_size(const Scenario& s) {
  check_lids(graph_size(s.graph), s, "topology");
  check_parts(s, model_parts(s));
}

}  // namespace hcasim::config
