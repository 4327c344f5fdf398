// The model's memory is linear in the fabric (docs/performance.md, "Memory at
// scale"): O(ports + flows + QPs), no state per (source, destination) pair.
// Smaller 3-level fat trees give the bytes per port and per flow; the k=16
// fabric with uniform traffic must stay within what those predict. A cost that
// grows faster than the fabric (a destination list per flow: ~19 bytes per
// pair of hosts, 320 MB at k=16) fails it. Every run's stats.json must stay
// under 1 MB, with a row per port in results.db.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;

namespace {

struct Fabric {
  uint64_t hosts, ports;
};

// A 3-level fat tree of k-port switches: k^3 hosts, 3k^2 switches of 2k ports.
Fabric fat_tree3(uint64_t k) { return {k * k * k, k * k * k + 3 * k * k * 2 * k}; }

// Peak resident memory of a run (stats.json wall.peak_rss_bytes, measured when
// the run ends, before the results are written), bytes.
double peak_bytes(unsigned k, bool uniform, const std::filesystem::path& dir) {
  const std::string name = "ft" + std::to_string(k) + (uniform ? "_uniform" : "_idle");
  // Raw traffic, 2 packets of 4 KiB from every host to hosts drawn uniformly.
  const std::string workload =
      uniform ? R"(, "workload": {"patterns": [{"name": "uni", "kind": "uniform", "payload": "4KiB", "count": 2}]})" : "";
  const std::string scenario = R"({"name": ")" + name + R"(", "topology": {"pattern": "fat_tree", "k": )" +
                               std::to_string(k) + R"(, "levels": 3})" + workload +
                               R"(, "outputs": {"vcd": false, "pcap": false}})";
  const test::CommandResult r = test::run_scenario_json(dir, name, scenario);
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json stats = nlohmann::json::parse(test::slurp(dir / name / "stats.json"));
  // stats.json is the summary a person reads, under 1 MB for any fabric
  // (docs/results.md); the detail is in results.db, a row per port.
  const auto stats_bytes = std::filesystem::file_size(dir / name / "stats.json");
  INFO(name << ": stats.json " << stats_bytes << " bytes");
  CHECK(stats_bytes < 1'000'000);
  CHECK(stats["details"]["tables"]["ports"]["rows"].get<uint64_t>() == fat_tree3(k).ports);
  std::filesystem::remove_all(dir / name);  // its results.db is large
  return static_cast<double>(stats["wall"]["peak_rss_bytes"].get<uint64_t>());
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST_CASE("memory: k=16 with uniform traffic needs no more than k=8 and k=12 measure per port and per flow", "[slow]") {
  const auto dir = test::scratch("memory_scale");
  const Fabric f8 = fat_tree3(8), f12 = fat_tree3(12), f16 = fat_tree3(16);
  const double idle8 = peak_bytes(8, false, dir), idle12 = peak_bytes(12, false, dir);
  const double uniform12 = peak_bytes(12, true, dir);
  // peak = fixed + ports x per_port (+ flows x per_flow with traffic): a raw
  // pattern has one flow per host, so k^3 flows.
  const double per_port = (idle12 - idle8) / static_cast<double>(f12.ports - f8.ports);
  const double fixed = idle8 - per_port * static_cast<double>(f8.ports);
  const double per_flow = (uniform12 - idle12) / static_cast<double>(f12.hosts);
  INFO("per port " << per_port << " B, per flow " << per_flow << " B, fixed " << fixed / kMiB << " MiB");
  REQUIRE(per_port > 0);

  const double idle16 = peak_bytes(16, false, dir), uniform16 = peak_bytes(16, true, dir);
  const double idle_bound = fixed + per_port * static_cast<double>(f16.ports);
  // The flows' part at k=16 against theirs at k=12; they are few megabytes,
  // so besides the factor the bound allows 16 MiB of page granularity (the heap
  // is on 2 MiB huge pages: testbench/cli/huge_page_heap.hpp).
  const double flow_bound = std::max(per_flow, 0.0) * static_cast<double>(f16.hosts);
  INFO("k=16: idle " << idle16 / kMiB << " MiB (bound " << idle_bound / kMiB << "), uniform " << uniform16 / kMiB
                     << " MiB (flows " << (uniform16 - idle16) / kMiB << " MiB, bound " << flow_bound / kMiB << ")");
  // Margins: 10% on the fabric (allocators round differently at other sizes),
  // 50% + 16 MiB on the flows (measured as the difference of two peaks).
  CHECK(idle16 <= 1.10 * idle_bound);
  CHECK(uniform16 - idle16 <= 1.5 * flow_bound + 16 * kMiB);
}
