// The HCA's host side against the reference and analytic bounds: the DMA
// engine's bandwidth against pcie-bench's model (Neugebauer et al., SIGCOMM
// 2018), write_bw bound by PCIe Gen3 and by the InfiniBand link on Gen4, the
// parts of a send_lat one-way latency, and doorbell batching against a model of
// the two CPU costs. Each case runs hcasim as a user would (one process a run)
// and reads stats.json.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "models/pcie/pcie_config.hpp"
#include "models/pcie/tlp_math.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// Runs a scenario (JSON text) with --set arguments; its stats.json.
nlohmann::json run_stats(const ScratchDir& dir, const std::string& name, const nlohmann::json& scenario,
                         const std::string& sets = "") {
  const std::string file = write_file(dir / (name + ".json"), scenario.dump());
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / name).string() + " " + sets, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

nlohmann::json back_to_back(const nlohmann::json& hca, const nlohmann::json& workload) {
  return {{"name", "host"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"port", {{"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"hca", hca},
          {"workload", workload}};
}

}  // namespace

TEST_CASE("workload.dma on Gen3 x8, MPS 256, MRRS 512: DMA write and read bandwidth within 0.5% of pcie-bench's model") {
  // pcie-bench (model/pcie.py, model/mem_bw.py), Gen3 x8, 64-bit addresses, no ECRC:
  //   raw    = 8 GT/s x 8 lanes x 128/130
  //   TLP_bw = raw x (1 - 8/203 - 8/203 - 4/1538)   ACK and UpdateFC DLLPs of 8 bytes every 203
  //            symbols (PCIe Base Spec 5.0 Tables 3-7 and 2-46, Gen3 x8 MPS 256), SKIP 4 per 1538
  //   write  = S x TLP_bw / (ceil(S / 256) x 24 + S)   MWr: 8 (sequence, LCRC, framing) + 4 + 12
  //   read   = S x TLP_bw / (ceil(S / 256) x 20 + S)   CplD at MPS: 8 + 4 + 8; requests go the other way
  const double raw = 8e9 * 8 * 128.0 / 130.0;
  const double tlp_bw = raw * (1 - 8.0 / 203 - 8.0 / 203 - 4.0 / 1538);
  const std::vector<uint64_t> sizes = {64, 128, 256, 512, 1024, 1500, 2048, 4096};
  // The tests run one after another on hca0, 3 ms apart; enough transfers that the first one's
  // latency is under 0.1% of a test's time.
  nlohmann::json dma = nlohmann::json::array();
  for (const char* op : {"write", "read"})
    for (std::size_t i = 0; i < sizes.size(); ++i)
      dma.push_back({{"op", op},
                     {"size", sizes[i]},
                     {"count", std::max<uint64_t>(4000, (1u << 20) / sizes[i] * 4)},
                     {"outstanding", 64},
                     {"start", std::to_string(3 * (dma.size())) + "ms"}});
  const ScratchDir dir("dma-gen3");
  const nlohmann::json stats = run_stats(
      dir, "dma", back_to_back({{"pcie", {{"gen", 3}, {"lanes", 8}, {"mps", "256B"}, {"mrrs", "512B"}, {"rcb", "64B"}}}},
                               {{"dma", dma}}));
  REQUIRE(stats["dma"].size() == dma.size());
  for (const auto& t : stats["dma"]) {
    const double s = t["size"].get<double>();
    const bool write = t["op"] == "write";
    const double tlps = std::ceil(s / 256);
    const double expected = s * tlp_bw / (tlps * (write ? 24 : 20) + s);
    INFO(t["op"].get<std::string>() << " of " << s << " B: " << t["bandwidth_bps"].get<double>() / 1e9
                                    << " Gb/s, pcie-bench " << expected / 1e9);
    CHECK(std::abs(t["bandwidth_bps"].get<double>() / expected - 1) <= 0.005);
  }
}

TEST_CASE("workload.dma from Gen1 x1 to Gen5 x16 scales with the transfer rate, line code and width") {
  nlohmann::json dma = nlohmann::json::array();
  const std::vector<std::pair<unsigned, unsigned>> links = {{1, 1}, {2, 4}, {3, 16}, {4, 8}, {5, 16}};
  for (std::size_t i = 0; i < links.size(); ++i)
    dma.push_back({{"hca", i % 2 ? "hca1" : "hca0"}, {"op", "write"}, {"size", 4096}, {"count", 2000},
                   {"outstanding", 64}});
  // One link configuration per HCA: two HCAs, so the cases run in pairs, side by side.
  const ScratchDir dir("dma-scaling");
  for (std::size_t i = 0; i < links.size(); i += 2) {
    nlohmann::json scenario = back_to_back(nlohmann::json::object(), {{"dma", nlohmann::json::array()}});
    scenario["hca_overrides"] = nlohmann::json::array();
    for (std::size_t k = i; k < std::min(i + 2, links.size()); ++k) {
      scenario["hca_overrides"].push_back(
          {{"hca", k % 2 ? "hca1" : "hca0"}, {"pcie", {{"gen", links[k].first}, {"lanes", links[k].second}}}});
      scenario["workload"]["dma"].push_back(dma[k]);
    }
    const nlohmann::json stats = run_stats(dir, "dma" + std::to_string(i), scenario);
    for (std::size_t k = i; k < std::min(i + 2, links.size()); ++k) {
      pcie::PcieConfig c;
      c.gen = links[k].first;
      c.lanes = links[k].second;
      // rate per lane x lanes x line code x (1 - the DLLP share), then the MWr overhead.
      const double line = c.gen <= 2 ? 0.8 : 128.0 / 130.0;
      const double gts = std::vector<double>{2.5e9, 5e9, 8e9, 16e9, 32e9}[c.gen - 1];  // transfers a second, a lane
      const double tlp_bw = gts * c.lanes * line * (1 - pcie::spec_dllp_share(c.gen, c.lanes, c.mps));
      const double expected = 4096 * tlp_bw / (16 * 24 + 4096);
      const double measured = stats["dma"][k - i]["bandwidth_bps"].get<double>();
      INFO("Gen" << c.gen << " x" << c.lanes << ": " << measured / 1e9 << " Gb/s, expected " << expected / 1e9);
      CHECK(std::abs(measured / expected - 1) <= 0.005);
    }
  }
}

TEST_CASE("write_bw of 64 KiB over HDR 4x: PCIe-bound on Gen3 x16 within 1% of the bound") {
  // The bound: the server writes each 4 KiB packet's payload to host memory as
  // 16 MWr TLPs of 256 bytes (MPS), 24 bytes of overhead each (the smaller of
  // the client's read bound, 256 / 276 of TLP_bw, and the server's write bound).
  //   TLP_bw = 8 GT/s x 16 x 128/130 x (1 - 2 x 8/168 - 4/1538)   (ACK and UpdateFC every 168 symbols)
  //   bound  = TLP_bw x 4096 / (16 x 24 + 4096)
  const double tlp_bw = 8e9 * 16 * 128.0 / 130.0 * (1 - 2 * 8.0 / 168 - 4.0 / 1538);
  const double bound = tlp_bw * 4096 / (16 * 24 + 4096);
  const ScratchDir dir("write-bw-gen3");
  const nlohmann::json stats = run_stats(
      dir, "gen3", back_to_back({{"pcie", {{"gen", 3}, {"lanes", 16}}}},
                                {{"perftest", {{{"test", "write_bw"}, {"sizes", {"64KiB"}}, {"iterations", 2000}}}}}));
  const auto& size = stats["perftest"][0]["sizes"][0];
  REQUIRE(size["done"].get<bool>());
  const double measured = size["bw_Gbps"].get<double>() * 1e9;
  INFO("measured " << measured / 1e9 << " Gb/s, bound " << bound / 1e9);
  CHECK(std::abs(measured / bound - 1) <= 0.01);
  // The server's upstream direction is the busy one.
  CHECK(stats["hosts"]["first"][1]["pcie"]["upstream"]["utilization"].get<double>() > 0.97);
  // stats.json names that bound (docs/perftest.md "What bounds a test"): PCIe, at the server, per message.
  CHECK(size["bound"] == "pcie");
  CHECK(size["bound_side"] == "server");
  CHECK(size["bound_msgs_per_s"].get<double>() == Approx(bound / 8 / 65536).epsilon(1e-9));
}

TEST_CASE("write_bw of 64 KiB over HDR 4x on Gen4 x16 reaches the link-bound result of a host side of no cost") {
  const nlohmann::json workload = {{"perftest", {{{"test", "write_bw"}, {"sizes", {"64KiB"}}, {"iterations", 2000}}}}};
  const ScratchDir dir("write-bw-gen4");
  const nlohmann::json real = run_stats(dir, "gen4", back_to_back({{"pcie", {{"gen", 4}, {"lanes", 16}}}}, workload));
  const nlohmann::json ideal = run_stats(dir, "ideal", back_to_back({{"preset", "ideal"}}, workload));
  const double r = real["perftest"][0]["sizes"][0]["bw_Gbps"].get<double>();
  const double i = ideal["perftest"][0]["sizes"][0]["bw_Gbps"].get<double>();
  INFO("Gen4 x16 " << r << " Gb/s, ideal " << i << " Gb/s");
  CHECK(std::abs(r / i - 1) <= 0.005);
}

namespace {

// send_lat over RC, 8 bytes, on a link whose time is easy to add up: Gen2 x16
// (4 Gb/s a lane after 8b/10b: 125 ps a byte) with no DLLP share, 4-DW request
// headers, 8 bytes of overhead a TLP. Not inline (the tool's 236 B would carry
// the 8 bytes in the WQE and skip the gather read: the BlueFlame test below).
constexpr double kPsPerByte = 125;
nlohmann::json latency_scenario() {
  return back_to_back({{"pcie", {{"gen", 2}, {"lanes", 16}, {"dllp_share", 0}, {"latency", "200ns"}}},
                       {"host_memory", {{"latency", "100ns"}, {"bandwidth", "0b/s"}}},
                       {"doorbell", "mmio"},
                       {"cpu", {{"post", "30ns"}, {"doorbell", "100ns"}, {"blueflame", "100ns"}, {"poll", "40ns"}}}},
                      {{"perftest", {{{"test", "send_lat"}, {"sizes", {"8B"}}, {"iterations", 200}, {"inline_size", "0B"}}}}});
}

double half_rtt_ns(const ScratchDir& dir, const std::string& name, const std::string& sets, const char* stat) {
  const nlohmann::json s = run_stats(dir, name, latency_scenario(), sets);
  return s["perftest"][0]["sizes"][0]["latency"][stat].get<double>();
}

}  // namespace

TEST_CASE("send_lat: the one-way latency grows by each host-side part the model charges, as many times as it is charged") {
  // One way, from the code that polled one side's completion to the other side's:
  //   CPU: the post of the send (post), the doorbell (doorbell)
  //   PCIe latency L: the doorbell MMIO (1), the WQE fetch read (2), the gather read (2), the data
  //     and CQE writes (1): 6
  //   host memory latency M: WQE fetch, gather, CQE: 3
  //   poll: the receiving side's poll of its CQE: 1
  // As perftest, each side posts its 200 receives before the first message, so the responder has
  // fetched the receive WQE (and read the doorbell record) before most messages: not on the
  // fastest trip.
  const ScratchDir dir("send-lat-parts");
  const double base = half_rtt_ns(dir, "base", "", "t_min_ns");
  CHECK(half_rtt_ns(dir, "latency", "--set hca.pcie.latency=300ns", "t_min_ns") - base == Approx(6 * 100).margin(0.5));
  CHECK(half_rtt_ns(dir, "memory", "--set hca.host_memory.latency=200ns", "t_min_ns") - base ==
        Approx(3 * 100).margin(0.5));
  CHECK(half_rtt_ns(dir, "doorbell", "--set hca.cpu.doorbell=200ns", "t_min_ns") - base == Approx(100).margin(0.5));
  CHECK(half_rtt_ns(dir, "poll", "--set hca.cpu.poll=80ns", "t_min_ns") - base == Approx(40).margin(0.5));
  // One post a trip, and the 200 receives each side posts before the first message delay the
  // first round trip by 200 posts: the average half round trip moves by 30 ns x (1 + 200 / (2 x
  // 200 round trips)) (single samples may overlap a post with the other side's work).
  const double avg = half_rtt_ns(dir, "avg", "", "t_avg_ns");
  CHECK(half_rtt_ns(dir, "post", "--set hca.cpu.post=60ns", "t_avg_ns") - avg ==
        Approx(30 * (1 + 200.0 / (2 * 200))).epsilon(0.02));
}

TEST_CASE("send_lat: BlueFlame with inline data removes exactly the WQE fetch and the gather read") {
  // Without: the doorbell (8-byte MMIO: 16 + 8 + 8 bytes), a WQE fetch (a 24-byte request, then
  // the 320-byte WQE stride as completions of 256 and 64 bytes, 12 + 8 bytes each) and a gather
  // read of 8 bytes (a 24-byte request and a 28-byte completion) that the packet waits for
  // instead of the transmit unit's 70 ns (packet_build 20 + wqe_parse 50).
  // With: one BlueFlame MMIO write carrying the 32-byte WQE (control and inline segments: 16 +
  // 32 + 8 bytes), the same CPU cost (blueflame = doorbell = 100 ns).
  const double L = 200, M = 100;
  const double wqe_read = kPsPerByte * (24 + (12 + 256 + 8) + (12 + 64 + 8)) / 1000 + 2 * L + M;
  const double gather_read = kPsPerByte * (24 + (12 + 8 + 8)) / 1000 + 2 * L + M;
  const double mmio_extra = kPsPerByte * ((16 + 32 + 8) - (16 + 8 + 8)) / 1000;
  const double removed = wqe_read + (gather_read - 70) - mmio_extra;
  const ScratchDir dir("send-lat-blueflame");
  const double mmio = half_rtt_ns(dir, "mmio", "", "t_min_ns");
  const double bf =
      half_rtt_ns(dir, "bf", "--set hca.doorbell=blueflame --set workload.perftest.0.inline_size=8B", "t_min_ns");
  INFO("mmio " << mmio << " ns, BlueFlame and inline " << bf << " ns, expected saving " << removed << " ns");
  CHECK(mmio - bf == Approx(removed).margin(0.5));
  const nlohmann::json s = run_stats(dir, "bf-stats", latency_scenario(),
                                     "--set hca.doorbell=blueflame --set workload.perftest.0.inline_size=8B");
  CHECK(s["hosts"]["first"][0]["front_end"]["wqe_fetches"].get<uint64_t>() == 0);  // no send ring read
  CHECK_FALSE(s["hosts"]["first"][0]["dma"].contains("gather"));                     // no gather read
}

TEST_CASE("doorbell batching: the 32-byte WRITE rate follows min(HCA, 1 / (post + doorbell / post_list)) within 2%") {
  // The driver's thread pays post (40 ns) per WR and doorbell (150 ns) per list; polling is free
  // here and a completion comes every 64 WRs. The HCA serves one QP a packet at a time:
  // packet_build + wqe_parse = 70 ns a message, its own limit. Inline data: no
  // gather read.
  const double post = 40e-9, doorbell = 150e-9, hca_limit = 1 / 70e-9;
  const ScratchDir dir("doorbell-batching");
  std::vector<double> rates;
  for (unsigned n : {1u, 2u, 4u, 16u}) {
    const nlohmann::json s = run_stats(
        dir, "list" + std::to_string(n),
        back_to_back({{"doorbell", "mmio"}, {"cpu", {{"post", "40ns"}, {"doorbell", "150ns"}, {"poll", "0ns"}}}},
                     {{"perftest",
                       {{{"test", "write_bw"},
                         {"sizes", {"32B"}},
                         {"iterations", 40000},
                         {"inline_size", "32B"},
                         {"post_list", n},
                         {"cq_moderation", 64}}}}}));
    const double rate = s["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>() * 1e6;
    const double model = std::min(hca_limit, 1 / (post + doorbell / n));
    INFO("post_list " << n << ": " << rate / 1e6 << " Mpps, model " << model / 1e6);
    CHECK(std::abs(rate / model - 1) <= 0.02);
    rates.push_back(rate);
  }
  CHECK(rates[0] < rates[1]);
  CHECK(rates[1] < rates[2]);
}

TEST_CASE("the hca section refuses what it cannot take, naming the path and what is accepted") {
  const ScratchDir dir("bad-hca-configs");
  check_bad_configs(config_path("perftest_write_bw.json"),
                    {{"an unknown preset", "--set hca.preset=fast", "hca.preset"},
                     {"an unknown key", "--set hca.pcie.speed=8", "hca.pcie.speed"},
                     {"a generation beyond 6", "--set hca.pcie.gen=7", "hca.pcie.gen"},
                     {"an MPS that is no power of two", "--set hca.pcie.mps=384B", "hca.pcie.mps"},
                     {"an RCB of 256 B", "--set hca.pcie.rcb=256B", "hca.pcie.rcb"},
                     {"lanes of 3", "--set hca.pcie.lanes=3", "hca.pcie.lanes"},
                     {"a doorbell mode", "--set hca.doorbell=pio", "hca.doorbell"},
                     {"inline above max_inline", "--set hca.inline_threshold=300B", "hca.inline_threshold"},
                     {"a time without a unit", "--set hca.cpu.post=40", "hca.cpu.post"},
                     {"an override naming no HCA", "--set 'hca_overrides=[{\"hca\": \"sw9\"}]'", "hca_overrides.0.hca"},
                     {"a DMA test on no HCA", "--set 'workload.dma=[{\"hca\": \"hcaX\"}]'", "workload.dma.0.hca"},
                     {"a DMA window below the size", "--set 'workload.dma=[{\"size\": \"4KiB\", \"window\": \"1KiB\"}]'",
                      "workload.dma.0.window"},
                     {"an IOMMU page of 8 KiB", "--set hca.iommu.page_size=8KiB", "hca.iommu.page_size"},
                     {"IOTLB ways that do not divide entries", "--set hca.iommu.iotlb.entries=64 --set hca.iommu.iotlb.ways=5",
                      "hca.iommu.iotlb.ways"},
                     {"an IOTLB replacement policy", "--set hca.iommu.iotlb.replacement=fifo", "hca.iommu.iotlb.replacement"},
                     {"no page walks in flight", "--set hca.iommu.iotlb.walks=0", "hca.iommu.iotlb.walks"},
                     {"a compressed block of 0", "--set hca.cqe_compression.max_block=0", "hca.cqe_compression.max_block"},
                     {"post_list above tx_depth", "--set workload.perftest.0.post_list=4096", "workload.perftest.0.post_list"},
                     {"post_list on a latency test",
                      "--set workload.perftest.0.test=send_lat --set workload.perftest.0.post_list=2",
                      "workload.perftest.0.post_list"}},
                    dir);
}

TEST_CASE("the VCD (--vcd) traces each PCIe link's busy time per direction") {
  const ScratchDir dir("pcie-vcd");
  const CommandResult r = run_command("run " + config_path("perftest_write_bw.json") +
                                          " --quiet --vcd --set 'workload.perftest.0.sizes=[\"4KiB\"]'"
                                          " --set workload.perftest.0.iterations=50 --out " + (dir / "out").string(),
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string vcd = slurp(dir / "out" / "waves.vcd");
  for (const char* signal : {"upstream_busy_ps", "downstream_busy_ps", "dma_reads"}) {
    INFO(signal);
    CHECK(vcd.find(signal) != std::string::npos);
  }
}

TEST_CASE("a scenario that posts no work builds no host side: raw traffic runs as it did before the host side") {
  // fabric.hpp's rule: FabricSpec::hosts is false when the workload has no
  // perftest, verbs or DMA test; the VCD then has no PCIe link, stats.json no host.
  const ScratchDir dir("raw-no-host");
  const CommandResult r = run_command("run " + config_path("b2b_hdr.json") + " --quiet --vcd --out " +
                                          (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string vcd = slurp(dir / "out" / "waves.vcd");
  CHECK(vcd.find("upstream_busy_ps") == std::string::npos);
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  CHECK(s["hosts"]["count"] == 0);
  CHECK(read_table(dir / "out", "hosts").empty());
  CHECK(s["run"]["packets_delivered"].get<uint64_t>() > 0);
}
