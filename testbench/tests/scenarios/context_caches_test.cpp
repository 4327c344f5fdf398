// Issue 33, "What must be shown" items 2, 3 and 5 (docs/context-caches.md):
// the QPC cache's message-rate cliff against the analytic cost of a miss (a
// DMA read of one QPC entry over the PCIe model), the MTT cache's miss count
// against the pages a sequential and a strided pattern touch, and caches that
// never miss reproducing the bandwidth of caches that are merely large.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <string>

#include "models/link/splitmix.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/pcie_analytic.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr double kPcieLatencyNs = 1000;   // one way, set below
constexpr double kMemoryLatencyNs = 100;  // set below
constexpr uint32_t kQpcBytes = 256;       // the QPC entry size (hca_config.hpp default)

// Back to back, a host link whose latency dominates a context miss, no CPU
// costs (every QP always has work: the engines serve them round robin).
nlohmann::json scenario(const nlohmann::json& caches, const nlohmann::json& perftest) {
  return {{"name", "caches"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"port", {{"data_vls", 1}, {"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"hca",
           {{"pcie", {{"latency", "1us"}}},
            {"host_memory", {{"latency", "100ns"}, {"bandwidth", "0b/s"}}},
            {"cpu", {{"post", "0ns"}, {"doorbell", "0ns"}, {"blueflame", "0ns"}, {"poll", "0ns"}}},
            {"page_size", "4KiB"},
            {"caches", caches}}},
          {"workload", {{"perftest", nlohmann::json::array({perftest})}}}};
}

nlohmann::json run(const ScratchDir& dir, const std::string& name, const nlohmann::json& s) {
  const CommandResult r = run_scenario_json(dir, name, s.dump());
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

const nlohmann::json& cache(const nlohmann::json& stats, unsigned hca, const char* which) {
  return stats["hosts"]["first"][hca]["caches"][which];
}

double entry_read_ns(uint32_t bytes) {
  return hcasim::test::entry_read_ns(pcie::PcieConfig{}, bytes, kPcieLatencyNs, kMemoryLatencyNs);  // Gen4 x16
}

}  // namespace

TEST_CASE("QPC cache of 16 entries: the message rate is flat up to 16 QPs and one QPC read per message beyond") {
  const ScratchDir dir("qpc-sweep");
  constexpr unsigned kEntries = 16;
  const nlohmann::json others = {{"perfect", true}};
  const auto caches = [&](bool perfect) {
    return nlohmann::json{{"qpc", {{"entries", kEntries}, {"ways", 0}, {"replacement", "lru"}, {"mshrs", 1}, {"perfect", perfect}}},
                          {"cqc", others}, {"mpt", others}, {"mtt", others}};
  };
  // Analytic: beyond 16 QPs served round robin, LRU keeps none of the next
  // QP's context, so every request misses; with one MSHR the misses follow
  // each other, one per entry_read_ns. Up to 16, only the first touch misses:
  // the QPs' first fills follow each other through the one MSHR, and the run
  // takes that much longer than with a perfect cache. A QP waiting for its
  // fill holds no transmit unit. Each received ACK looks its QP's context up
  // too: the first ACK of a QP comes before its next request's lookup and
  // misses once; later ones merge onto the fill the QP's next request started.
  // Every WR signaled (cq_moderation 1, not the tool's 16 here): the host
  // re-posts each WR as it completes, so the QPs' requests interleave one by
  // one rather than in bursts of a QP's WRs. CQs of 4096 entries (cq_depth): perftest's hold
  // tx_depth x qps, which every WR signaled fills, and the HCA would read the consumer counter
  // (2 us at this PCIe latency) every time it finds the CQ full.
  const double miss_rate_mpps = 1e3 / entry_read_ns(kQpcBytes);
  for (unsigned qps : {4u, 16u, 17u, 32u, 64u}) {
    INFO(qps << " QPs");
    const nlohmann::json perftest = {{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                     {"sizes", {"64B"}}, {"qps", qps}, {"tx_depth", 16},
                                     {"iterations", 32768 / qps}, {"cq_moderation", 1}, {"cq_depth", 4096}};
    const std::string name = "q" + std::to_string(qps);
    const nlohmann::json real = run(dir, name, scenario(caches(false), perftest));
    const nlohmann::json size = real["perftest"][0]["sizes"][0];
    const double rate = size["msg_rate_Mpps"].get<double>();
    const uint64_t messages = size["messages"].get<uint64_t>();
    const nlohmann::json& qpc = cache(real, 0, "qpc");
    if (qps <= kEntries) {
      const nlohmann::json ideal = run(dir, name + "-perfect", scenario(caches(true), perftest));
      CHECK(qpc["misses"].get<uint64_t>() == qps);  // the first touch of each
      const double ideal_us = static_cast<double>(messages) / ideal["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>();
      CHECK(rate == Approx(static_cast<double>(messages) / (ideal_us + qps * entry_read_ns(kQpcBytes) / 1e3)).epsilon(0.01));
      CHECK(rate > 10 * miss_rate_mpps);
    } else {
      CHECK(qpc["misses"].get<uint64_t>() >= messages);  // every request's context read ...
      CHECK(qpc["misses"].get<uint64_t>() <= messages + qps);  // ... and at most each QP's first ACK's
      CHECK(rate == Approx(miss_rate_mpps).epsilon(0.05));
      // A miss's latency counts its wait for the MSHR too: never less than the read itself.
      CHECK(qpc["miss_latency"]["min_ns"].get<double>() >= entry_read_ns(kQpcBytes) * 0.99);
    }
    CHECK(real["hosts"]["first"][0]["dma"]["qpc"]["reads"].get<uint64_t>() == qpc["misses"].get<uint64_t>());
  }
}

TEST_CASE("QPC first level of 16 contexts: no load up to 16 QPs, one per request beyond, at the units' rate") {
  const ScratchDir dir("qpc-l1");
  constexpr unsigned kStore = 16;
  constexpr double kLoadNs = 100, kParseNs = 50, kBuildNs = 20;  // load set below; the transport defaults
  constexpr unsigned kUnits = 4;                                 // transport.tx_units default
  const nlohmann::json perfect = {{"perfect", true}};
  const nlohmann::json caches = {{"qpc_l1", {{"entries", kStore}, {"ways", 0}, {"load", "100ns"}}},
                                 {"qpc", perfect}, {"cqc", perfect}, {"mpt", perfect}, {"mtt", perfect},
                                 {"wqe", perfect}};
  // Analytic: every WR is one 64-byte packet whose unit takes wqe_parse +
  // packet_build; the QPs are served round robin, so beyond 16 QPs LRU holds
  // none of the next QP's context and every request also pays the load; up to
  // 16 only each QP's first request does. ACKs are built at the server (its
  // store counts those) and only read the QPC cache at the client. With no
  // CPU costs and perfect caches the four units bound the rate.
  for (unsigned qps : {8u, 16u, 17u, 32u}) {
    INFO(qps << " QPs");
    const nlohmann::json perftest = {{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                     {"sizes", {"64B"}}, {"qps", qps}, {"tx_depth", 128},
                                     {"iterations", 16384 / qps}, {"cq_moderation", 1}};
    const nlohmann::json stats = run(dir, "q" + std::to_string(qps), scenario(caches, perftest));
    const nlohmann::json size = stats["perftest"][0]["sizes"][0];
    const uint64_t messages = size["messages"].get<uint64_t>();
    const nlohmann::json& l1 = cache(stats, 0, "qpc_l1");
    CHECK(l1["lookups"].get<uint64_t>() == messages);
    const bool fits = qps <= kStore;
    if (fits) {
      CHECK(l1["misses"].get<uint64_t>() == qps);
    } else {  // a turn a QP misses (its next WQE not fetched yet) lets the next QP in twice: a hit
      CHECK(l1["misses"].get<uint64_t>() <= messages);
      CHECK(static_cast<double>(l1["misses"].get<uint64_t>()) >= 0.95 * static_cast<double>(messages));
    }
    CHECK(l1["write_backs"].get<uint64_t>() == 0);
    const double unit_ns = kParseNs + kBuildNs + (fits ? 0 : kLoadNs);
    CHECK(size["msg_rate_Mpps"].get<double>() == Approx(kUnits * 1e3 / unit_ns).epsilon(0.03));
  }
  // Without a first level nothing is reported for it.
  const nlohmann::json off = run(dir, "off", scenario({{"qpc", perfect}},
                                                      {{"test", "write_bw"}, {"client", "hca0.p1"},
                                                       {"server", "hca1.p1"}, {"sizes", {"64B"}}, {"iterations", 100}}));
  CHECK_FALSE(off["hosts"]["first"][0]["caches"].contains("qpc_l1"));
}

TEST_CASE("QPC first level hashed: 16 QPs in a store of 16 in sets of 4 conflict where the modulo index keeps "
          "them all") {
  const ScratchDir dir("qpc-l1-hashed");
  constexpr unsigned kQps = 16, kIterations = 1024;  // per QP
  constexpr double kLoadNs = 100, kParseNs = 50, kBuildNs = 20;
  const nlohmann::json perfect = {{"perfect", true}};
  // The client's QPs are its first: QPNs 2..17 (transport_engine.hpp, kFirstQpn). Hashed, QPN q's set is
  // splitmix64_mix(splitmix64_mix(fnv1a("hca0")) ^ q) % 4: by hand, sets 0 and 2 get five QPs each,
  // set 3 four and set 1 two. A set's QPs are served in turn, so LRU keeps the four or two of a set
  // that fits (one load each, the first) and none of a set of five (a load every request).
  std::array<unsigned, 4> per_set{};
  const uint64_t key = link::splitmix64_mix(link::fnv1a("hca0"));
  for (uint32_t q = 2; q < 2 + kQps; ++q) ++per_set[link::splitmix64_mix(key ^ q) % 4];
  REQUIRE(per_set == std::array<unsigned, 4>{5, 2, 5, 4});
  const uint64_t fitting = 2 + 4, thrashing = 10;
  const nlohmann::json perftest = {{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                   {"sizes", {"64B"}}, {"qps", kQps}, {"tx_depth", 128},
                                   {"iterations", kIterations}, {"cq_moderation", 1}};
  for (const char* index : {"modulo", "hashed"}) {
    INFO(index);
    const nlohmann::json caches = {
        {"qpc_l1", {{"entries", 16}, {"ways", 4}, {"load", "100ns"}, {"index", index}}},
        {"qpc", perfect}, {"cqc", perfect}, {"mpt", perfect}, {"mtt", perfect}, {"wqe", perfect}};
    const nlohmann::json stats = run(dir, index, scenario(caches, perftest));
    const nlohmann::json& l1 = cache(stats, 0, "qpc_l1");
    const uint64_t misses = l1["misses"].get<uint64_t>();
    const double rate = stats["perftest"][0]["sizes"][0]["msg_rate_Mpps"].get<double>();
    CHECK(l1["lookups"].get<uint64_t>() == kQps * kIterations);
    if (std::string(index) == "modulo") {  // QPNs 2..17 mod 4: four per set, the store holds all 16
      CHECK(misses == kQps);
      CHECK(l1["evictions"].get<uint64_t>() == 0);
      CHECK(rate == Approx(4 * 1e3 / (kParseNs + kBuildNs)).epsilon(0.03));
    } else {  // a turn a QP misses (its next WQE not fetched yet) may let a set's next QP in twice: a hit
      CHECK(misses <= fitting + thrashing * kIterations);
      CHECK(static_cast<double>(misses) >= fitting + 0.95 * thrashing * kIterations);
      const double unit_ns = kParseNs + kBuildNs + kLoadNs * thrashing / kQps;  // ten QPs of 16 pay the load
      CHECK(rate == Approx(4 * 1e3 / unit_ns).epsilon(0.03));
      // The sets of five thrash while sets 1 and 3 keep two free lines (4 + 2 + 4 + 4 = 14 of 16
      // valid): every miss after the first 14 evicts, and every eviction is a set conflict.
      CHECK(l1["evictions"].get<uint64_t>() == misses - 14);
      CHECK(l1["conflict_evictions"].get<uint64_t>() == misses - 14);
    }
  }
}

TEST_CASE("MTT cache of 16 entries: one translation read per page missed, sequential and strided") {
  const ScratchDir dir("mtt-count");
  const nlohmann::json others = {{"perfect", true}};
  // The client reads its source slots in order, round and round: slot k of
  // the only QP at k x slot size from a page-aligned base. A message of
  // `size` bytes in one 4 KiB page needs one MTT entry; LRU with fewer
  // entries than the pages cycled keeps none of them until their next turn.
  struct Case {
    const char* name;
    uint64_t size;       // bytes per message = the stride between slots
    unsigned slots;      // tx_depth: slots cycled
    unsigned entries;    // MTT cache
    uint64_t iterations;
    uint64_t expected;   // analytic MTT misses at the client
  };
  const Case cases[] = {
      // 32 pages in turn, 16 entries: every message misses.
      {"sequential 4 KiB, 32 pages", 4096, 32, 16, 2048, 2048},
      // 32 pages in turn, 32 entries: each page misses once.
      {"sequential 4 KiB, 32 pages, cache of 32", 4096, 32, 32, 2048, 32},
      // 1 KiB stride: 4 messages per page, 32 pages in turn: the first of every page misses.
      {"strided 1 KiB, 32 pages", 1024, 128, 16, 4096, 4096 / 4},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const nlohmann::json caches = {{"qpc", others}, {"cqc", others}, {"mpt", others},
                                   {"mtt", {{"entries", c.entries}, {"ways", 0}, {"entry_size", "8B"}}}};  // a line per page
    const nlohmann::json perftest = {{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                     {"sizes", {std::to_string(c.size) + "B"}}, {"qps", 1},
                                     {"tx_depth", c.slots}, {"iterations", c.iterations}};
    const nlohmann::json s = run(dir, std::to_string(c.size) + "-" + std::to_string(c.entries), scenario(caches, perftest));
    const nlohmann::json& mtt = cache(s, 0, "mtt");
    CHECK(mtt["lookups"].get<uint64_t>() == c.iterations);  // one page per gather read
    CHECK(mtt["misses"].get<uint64_t>() == c.expected);
    CHECK(s["hosts"]["first"][0]["dma"]["mtt"]["reads"].get<uint64_t>() == c.expected);
  }
}

// Large caches still miss once per context and page first touched (here 2
// QPs x 8 slots x 16 pages of 4 KiB = 256 MTT entries, 32 lines), each miss queued
// behind the data already on the host link: the run is long enough that those
// first touches are under 0.5 % of it.
TEST_CASE("caches that never miss give the bandwidth of large caches within 0.5 percent", "[slow]") {
  const ScratchDir dir("ideal-vs-large");
  const nlohmann::json large = {{"entries", 65536}, {"ways", 0}};
  const nlohmann::json perfect = {{"perfect", true}};
  for (const char* test : {"write_bw", "read_bw"}) {
    INFO(test);
    const nlohmann::json perftest = {{"test", test}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                     {"sizes", {"64KiB"}}, {"qps", 2}, {"tx_depth", 8}, {"iterations", 8000}};
    const auto with = [&](const nlohmann::json& c) {
      nlohmann::json s = {{"name", "caches"},
                          {"topology", {{"pattern", "back_to_back"}}},
                          {"port", {{"mtu", 4096}, {"vl_buffer", "64KiB"}}},
                          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
                          {"hca", {{"page_size", "4KiB"}, {"caches", {{"qpc", c}, {"cqc", c}, {"mpt", c}, {"mtt", c}}}}},
                          {"workload", {{"perftest", nlohmann::json::array({perftest})}}}};
      return s;
    };
    const nlohmann::json a = run(dir, std::string(test) + "-large", with(large));
    const nlohmann::json b = run(dir, std::string(test) + "-perfect", with(perfect));
    const double bw_large = a["perftest"][0]["sizes"][0]["bw_Gbps"].get<double>();
    const double bw_perfect = b["perftest"][0]["sizes"][0]["bw_Gbps"].get<double>();
    CHECK(bw_large == Approx(bw_perfect).epsilon(0.005));
    CHECK(cache(a, 0, "qpc")["misses"].get<uint64_t>() == 2);  // first touches only
    CHECK(cache(a, 0, "mtt")["misses"].get<uint64_t>() == 2 * 8 * 16 / 8);  // lines of 8 translations
    CHECK(cache(b, 0, "qpc")["misses"].get<uint64_t>() == 0);
  }
}
