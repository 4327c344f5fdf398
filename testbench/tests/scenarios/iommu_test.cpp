// The IOMMU in a scenario (hca.iommu) under pcie-bench-like DMA tests, run as
// a user runs hcasim: the IOTLB's hit rate and the read rate for windows below
// and above its reach against analytic values, and its counters in stats.json
// and the time series.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

nlohmann::json run_stats(const ScratchDir& dir, const std::string& name, const std::string& sets) {
  const CommandResult r = run_command("run " + config_path("iotlb_footprint.json") + " --quiet --out " +
                                          (dir / name).string() + " " + sets, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

double rate(const nlohmann::json& stats) { return stats["dma"][0]["transfers_per_s"].get<double>(); }

}  // namespace

TEST_CASE("IOTLB of 16 entries, one walk of 1 us at a time: 8 pages read as fast as no IOMMU, 64 pages at "
          "1 / (0.75 x 1 us), hit rate 16 / 64") {
  // Random 64-byte reads, 32 outstanding. A window of W pages and an IOTLB of E = 16 entries: each read
  // finds its page in the IOTLB (on chip, or its walk under way) with probability min(1, E / W). A walk
  // takes 1 us and one runs at a time, so above E pages the walker bounds the rate at
  // 1 / ((1 - E / W) x 1 us): 1.333 M reads/s for W = 64; at W = 8 only the first 8 reads walk.
  const ScratchDir dir("iommu-windows");
  const std::string iommu = "--set hca.iommu.iotlb.entries=16 --set hca.iommu.iotlb.walks=1 "
                            "--set hca.iommu.miss_penalty=1us --set workload.dma.0.count=";
  const nlohmann::json off = run_stats(dir, "off", "--set hca.iommu.enabled=false --set workload.dma.0.window=32KiB");
  const nlohmann::json small = run_stats(dir, "small", iommu + "200000 --set workload.dma.0.window=32KiB");
  const nlohmann::json large = run_stats(dir, "large", iommu + "20000 --set workload.dma.0.window=256KiB");
  CHECK_FALSE(off["hosts"]["first"][0].contains("iommu"));
  const nlohmann::json& s = small["hosts"]["first"][0]["iommu"]["iotlb"];
  CHECK(s["misses"] == 8);
  CHECK(s["lookups"] == 200000);
  CHECK(rate(small) == Approx(rate(off)).epsilon(0.01));  // 8 walks of 1 us against ~3.7 ms of reads
  const nlohmann::json& l = large["hosts"]["first"][0]["iommu"];
  CHECK(l["translations"] == 20000);
  const double found = (l["iotlb"]["hits"].get<double>() + l["iotlb"]["merged"].get<double>()) / 20000;
  CHECK(found == Approx(0.25).margin(0.01));
  CHECK(rate(large) == Approx(1.0 / (0.75 * 1e-6)).epsilon(0.02));
  CHECK(l["iotlb"]["miss_latency"]["min_ns"].get<double>() >= 1000.0);
  CHECK(l["walk_reads"] == 0);
}

TEST_CASE("IOMMU page walks: 2 levels of host-memory reads per miss, counted in stats.json and the time series") {
  const ScratchDir dir("iommu-walks");
  const nlohmann::json s = run_stats(dir, "walk",
                                     "--set hca.iommu.walk_levels=2 --set hca.iommu.miss_penalty=0ns "
                                     "--set workload.dma.0.count=5000 --set workload.dma.0.window=64MiB "
                                     "--set outputs.sample_interval=10us");
  const nlohmann::json& m = s["hosts"]["first"][0]["iommu"];
  CHECK(m["walk_reads"].get<uint64_t>() == 2 * m["iotlb"]["misses"].get<uint64_t>());
  // Host memory saw the reads and the walk reads.
  CHECK(s["hosts"]["first"][0]["host_memory"]["reads"].get<uint64_t>() == 5000 + m["walk_reads"].get<uint64_t>());
  // The time series' iommu rows add up to the totals.
  std::istringstream csv(slurp(dir / "walk" / "timeseries.csv"));
  std::string line;
  std::map<std::string, uint64_t> sums;
  while (std::getline(csv, line)) {
    if (line.find(",iommu,") == std::string::npos) continue;
    const auto metric_end = line.rfind(',');
    const auto metric_begin = line.rfind(',', metric_end - 1);
    sums[line.substr(metric_begin + 1, metric_end - metric_begin - 1)] += std::stoull(line.substr(metric_end + 1));
  }
  CHECK(sums["iotlb_lookups"] == m["iotlb"]["lookups"].get<uint64_t>());
  CHECK(sums["iotlb_misses"] == m["iotlb"]["misses"].get<uint64_t>());
  CHECK(sums["walk_reads"] == m["walk_reads"].get<uint64_t>());
}

TEST_CASE("IOMMU with 2 MiB pages: the 64 IOTLB entries reach 128 MiB, so a 64 MiB window reads as fast as 256 KiB") {
  const ScratchDir dir("iommu-2mib");
  const nlohmann::json near = run_stats(dir, "near", "--set workload.dma.0.window=256KiB");
  const nlohmann::json huge = run_stats(dir, "huge", "--set hca.iommu.page_size=2MiB --set workload.dma.0.window=64MiB");
  CHECK(huge["hosts"]["first"][0]["iommu"]["iotlb"]["misses"] == 32);
  CHECK(rate(huge) == Approx(rate(near)).epsilon(0.02));
}
