// Issue 51, the WQE path (docs/context-caches.md "The WQE cache"): 64 B
// write_bw with no CPU costs, so the HCA alone bounds the rate, from 1 QP to
// 4,096. A BlueFlame WQE is never read over PCIe; the message rate never
// falls while the WQEs posted fit the WQE cache's lines (computed here from
// its size), and falls by no more than 25% from one QP count to the next
// anywhere, past the WQE cache's 640 lines and the QP context cache's 512
// (docs/context-caches.md, "When the QPs outgrow the caches").
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr unsigned kWqeLines = 640;  // hca.caches.wqe.entries' default (docs/scenario-reference.md)

nlohmann::json write_bw(unsigned qps, unsigned depth, unsigned iterations) {
  return {{"name", "wqe_path"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"port", {{"data_vls", 8}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"transport", {{"tx_units", 4}, {"packet_build", "20ns"}, {"wqe_parse", "50ns"}, {"ack_req", "last_packet"}}},
          {"hca", {{"cpu", {{"post", "0ns"}, {"doorbell", "0ns"}, {"blueflame", "0ns"}}}}},
          {"workload",
           {{"perftest", nlohmann::json::array({{{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                                 {"sizes", {"64B"}}, {"iterations", iterations}, {"qps", qps},
                                                 {"tx_depth", depth}}})}}}};
}

struct Point {
  unsigned qps = 0;
  double mpps = 0;
  uint64_t wqes = 0, blueflame_wqes = 0, blueflame_wqe_reads = 0, refetch_reads = 0;
  double qpc_hit_rate = 0;  // the client's
};

Point measure(const ScratchDir& dir, unsigned qps, unsigned depth, unsigned iterations) {
  const std::string name = "q" + std::to_string(qps) + "_d" + std::to_string(depth);
  const CommandResult r = run_scenario_json(dir, name, write_bw(qps, depth, iterations).dump());
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto s = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  const auto& host = s["hosts"]["first"][0];
  Point p;
  p.qps = qps;
  p.mpps = s["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>();
  p.wqes = host["front_end"]["send_wqes"].get<uint64_t>();
  p.blueflame_wqes = host["front_end"]["blueflame_wqes"].get<uint64_t>();
  p.blueflame_wqe_reads = host["front_end"]["blueflame_wqe_reads"].get<uint64_t>();
  p.qpc_hit_rate = host["caches"]["qpc"]["hit_rate"].get<double>();
  const auto& dma = host["dma"];
  p.refetch_reads = dma.contains("wqe_refetch") ? dma["wqe_refetch"]["reads"].get<uint64_t>() : 0;
  return p;
}

void check_curve(const std::vector<Point>& points, unsigned depth) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    INFO("tx_depth " << depth << ", " << p.qps << " QPs: " << p.mpps << " Mpps");
    CHECK(p.blueflame_wqe_reads == 0);
    // A 64 B write's WQE (control, remote address, one data segment) is one 64-byte line.
    if (uint64_t{p.qps} * depth <= kWqeLines) {
      CHECK(p.blueflame_wqes == p.wqes);  // every WQE held from its BlueFlame write: none read over PCIe
      CHECK(p.refetch_reads == 0);
    }
    if (i == 0) continue;
    const Point& before = points[i - 1];
    CHECK(p.mpps >= 0.75 * before.mpps);                      // no step down of more than 25%
    if (uint64_t{p.qps} * depth <= kWqeLines) CHECK(p.mpps >= 0.99 * before.mpps);  // non-decreasing (1%: a run's last completions)
  }
}

}  // namespace

TEST_CASE("64 B write_bw with tx_depth 128 never slows as QPs are added while its WQEs fit the cache, and falls gradually past it", "[slow]") {
  ScratchDir dir("wqe_path_deep");
  std::vector<Point> points;
  // Each QP posts its 128 WQEs at least twice over (a steady state after the first ring).
  for (unsigned q = 1; q <= 4096; q *= 2) points.push_back(measure(dir, q, 128, std::max(256u, 20000u / q)));
  check_curve(points, 128);
  // The 4-QP point, whose 512 WQEs fit the 640 lines, is the four transmit
  // units' bound: each builds a first packet in packet_build + wqe_parse (70 ns).
  CHECK(points[2].mpps == Approx(4 / 70e-3).epsilon(0.01));
}

TEST_CASE("64 B write_bw with tx_depth 1 never slows from 1 to 512 QPs, and falls gradually past the QP context cache", "[slow]") {
  ScratchDir dir("wqe_path_shallow");
  std::vector<Point> points;
  for (unsigned q = 1; q <= 4096; q *= 2) points.push_back(measure(dir, q, 1, std::max(40u, 20000u / q)));
  check_curve(points, 1);
  // Past the QPC cache's 512 lines, QPs served in turn keep the share random replacement
  // gives, h = exp(-(QPs / lines)(1 - h)) (docs/context-caches.md): 0.203 at 1,024, 0.020 at 2,048.
  auto random_share = [](double ratio) {
    double h = 0.5;
    for (int i = 0; i < 200; ++i) h = std::exp(-ratio * (1 - h));
    return h;
  };
  for (const Point& p : points)
    if (p.qps >= 1024) {
      INFO(p.qps << " QPs: QPC hit rate " << p.qpc_hit_rate);
      CHECK(std::abs(p.qpc_hit_rate - random_share(p.qps / 512.0)) < 0.05);
    }
}
