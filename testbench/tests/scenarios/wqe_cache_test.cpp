// Issue 33, the WQE cache (docs/context-caches.md "The WQE cache"): READs of
// one QP whose window fits the cache pay no refetch; a window larger than the
// cache (LRU) pays one refetch DMA per READ response; receive WQEs fetched in
// batches larger than the cache are read again by the count the rules give;
// and a perfect WQE cache (the ideal preset's) gives the results of a cache
// that never refetches.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// Back to back, a host link of 1 us each way (a refetch takes over 2 us), no
// CPU costs; every cache but the WQE cache perfect.
nlohmann::json scenario(const nlohmann::json& wqe, const nlohmann::json& ops, uint32_t fetch_batch = 4) {
  const nlohmann::json perfect = {{"perfect", true}};
  return {{"name", "wqe"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"hca",
           {{"pcie", {{"latency", "1us"}}},
            {"host_memory", {{"latency", "100ns"}, {"bandwidth", "0b/s"}}},
            {"cpu", {{"post", "0ns"}, {"doorbell", "0ns"}, {"blueflame", "0ns"}, {"poll", "0ns"}}},
            {"wqe_fetch_batch", fetch_batch},
            {"caches", {{"qpc", perfect}, {"cqc", perfect}, {"mpt", perfect}, {"mtt", perfect}, {"wqe", wqe}}}}},
          {"workload",
           {{"verbs", nlohmann::json::array({{{"name", "c"}, {"type", "rc"}, {"a", "hca0.p1"}, {"b", "hca1.p1"},
                                              {"ops", ops}}})}}}};
}

nlohmann::json run(const ScratchDir& dir, const std::string& name, const nlohmann::json& s) {
  const CommandResult r = run_scenario_json(dir, name, s.dump());
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

// `reads` READs of 32 B, posted 100 ns apart: each is fetched and sent before
// the next arrives (a unit builds a first packet in 70 ns), and all are sent
// before the first response is back (over 2 us: the responder's read of host
// memory), and the responses arrive within 1.2 us, before the first refetch
// is done (over 2 us): no WQE completes while the window's responses are
// looked up.
nlohmann::json reads(unsigned n) {
  nlohmann::json ops = nlohmann::json::array();
  for (unsigned i = 0; i < n; ++i)
    ops.push_back({{"side", "a"}, {"op", "read"}, {"bytes", 32}, {"at", std::to_string(i * 100) + "ns"}});
  return ops;
}

const nlohmann::json& wqe_cache(const nlohmann::json& stats, unsigned hca) { return stats["hosts"]["first"][hca]["caches"]["wqe"]; }
// DMA reads for wqe_refetch (stats.json lists only purposes with traffic).
uint64_t refetches(const nlohmann::json& stats, unsigned hca, const char* field = "reads") {
  const nlohmann::json& dma = stats["hosts"]["first"][hca]["dma"];
  return dma.contains("wqe_refetch") ? dma["wqe_refetch"][field].get<uint64_t>() : 0;
}

}  // namespace

TEST_CASE("READs of one QP: a window that fits the WQE cache pays no refetch, a larger one one per response") {
  const ScratchDir dir("wqe-reads");
  constexpr unsigned kLines = 8;  // fully associative, LRU; a READ's send WQE is 64 B: one line
  const nlohmann::json wqe = {{"entries", kLines}, {"ways", 0}, {"replacement", "lru"}};
  for (unsigned window : {4u, 8u, 9u, 12u}) {  // at most max_rd_atomic (16)
    INFO("window " << window);
    const nlohmann::json s = run(dir, "w" + std::to_string(window), scenario(wqe, reads(window)));
    const nlohmann::json& c = wqe_cache(s, 0);
    // Every WQE is inserted by its fetch and looked up twice: at its first
    // packet (just fetched: a hit) and at its READ response.
    CHECK(c["inserts"].get<uint64_t>() == window);
    CHECK(c["lookups"].get<uint64_t>() == 2 * window);
    // Analytic: the responses look the WQEs up in posting order, as they were
    // used; LRU with W > C lines holds WQEs W - C .. W - 1 when response 0
    // comes, and each refetch evicts the next one due: all W responses miss.
    const uint64_t expected = window <= kLines ? 0 : window;
    CHECK(c["misses"].get<uint64_t>() == expected);
    CHECK(refetches(s, 0) == expected);
    CHECK(refetches(s, 0, "read_bytes") == 64 * expected);
    CHECK(c["occupancy"].get<uint64_t>() == 0);  // completed WQEs are dropped
    CHECK(wqe_cache(s, 1)["lookups"].get<uint64_t>() == 0);  // a READ's responder uses no WQE
  }
}

TEST_CASE("hca.wqe_reads_kept: READs sent past the limit leave the WQE cache and their responses read them again") {
  const ScratchDir dir("wqe-reads-kept");
  const nlohmann::json wqe = {{"entries", 64}, {"ways", 0}};  // room for every WQE: no other miss
  constexpr unsigned kReads = 12;
  for (unsigned kept : {0u, 4u, 11u, 12u}) {
    INFO("kept " << kept);
    nlohmann::json sc = scenario(wqe, reads(kReads));
    sc["hca"]["wqe_reads_kept"] = kept;
    const nlohmann::json s = run(dir, "k" + std::to_string(kept), sc);
    // Analytic: READ i goes before READ i + 1 is posted and all go before the
    // first response, so READ i is sent with i + 1 READs outstanding: past
    // the limit for i >= kept. Each of those responses misses its WQE, reads
    // its one 64-byte line again and waits aside for it.
    const uint64_t released = kept == 0 ? 0 : kReads - std::min(kReads, kept);
    CHECK(s["hosts"]["first"][0]["front_end"]["read_wqes_released"].get<uint64_t>() == released);
    const nlohmann::json& c = wqe_cache(s, 0);
    CHECK(c["lookups"].get<uint64_t>() == 2 * kReads);
    CHECK(c["misses"].get<uint64_t>() == released);
    CHECK(refetches(s, 0) == released);
    CHECK(refetches(s, 0, "read_bytes") == 64 * released);
    CHECK(s["engines"]["first"][0]["response_wqe_waits"].get<uint64_t>() == released);
    CHECK(s["verbs"][0]["ok"].get<bool>());  // every READ completed as expected
    CHECK(c["occupancy"].get<uint64_t>() == 0);
  }
}

TEST_CASE("receive WQEs fetched in batches larger than the WQE cache are read again as the rules count") {
  const ScratchDir dir("wqe-recv");
  // 8 receives, then 8 SENDs of 64 B; the receiver fetches 4 receive WQEs (16 B
  // each: one line) when a SEND finds none. With 2 lines the batch's last two
  // evict the first two. The SEND that asked for the batch takes WQE 0 from
  // the fetch; WQE 1 misses (evicting 2, the least recently used), WQE 2 misses
  // into the line WQE 1's completion freed, WQE 3 hits: 2 refetches per batch.
  nlohmann::json ops = nlohmann::json::array();
  for (int i = 0; i < 8; ++i) ops.push_back({{"side", "b"}, {"op", "post_recv"}, {"bytes", 64}});
  for (int i = 0; i < 8; ++i) ops.push_back({{"side", "a"}, {"op", "send"}, {"bytes", 64}});
  for (unsigned lines : {2u, 4u}) {
    INFO(lines << " lines");
    const nlohmann::json s =
        run(dir, "l" + std::to_string(lines), scenario({{"entries", lines}, {"ways", 0}}, ops));
    const nlohmann::json& c = wqe_cache(s, 1);
    CHECK(c["inserts"].get<uint64_t>() == 8);
    CHECK(c["misses"].get<uint64_t>() == (lines == 2 ? 4u : 0u));
    CHECK(refetches(s, 1) == (lines == 2 ? 4u : 0u));
  }
}

TEST_CASE("a perfect WQE cache gives the results of one that never refetches and the ideal preset makes it perfect") {
  const ScratchDir dir("wqe-perfect");
  const nlohmann::json big = run(dir, "big", scenario({{"entries", 64}, {"ways", 0}}, reads(12)));
  const nlohmann::json perfect = run(dir, "perfect", scenario({{"perfect", true}}, reads(12)));
  REQUIRE(refetches(big, 0) == 0);
  CHECK(refetches(perfect, 0) == 0);
  CHECK(wqe_cache(perfect, 0)["hits"].get<uint64_t>() == 24);
  // Same operations, same latency to the picosecond, same simulated end.
  CHECK(perfect["verbs"] == big["verbs"]);
  CHECK(perfect["run"]["sim_time_ps"] == big["run"]["sim_time_ps"]);

  nlohmann::json ideal = scenario({{"entries", 1}, {"ways", 0}}, reads(12));
  ideal["hca"] = {{"preset", "ideal"}};
  REQUIRE(run_scenario_json(dir, "ideal", ideal.dump()).exit_code == 0);
  const nlohmann::json resolved = nlohmann::json::parse(slurp(dir / "ideal" / "scenario.resolved.json"));
  CHECK(resolved["hca"]["caches"]["wqe"]["perfect"] == true);
  const nlohmann::json s = nlohmann::json::parse(slurp(dir / "ideal" / "stats.json"));
  CHECK(wqe_cache(s, 0)["misses"].get<uint64_t>() == 0);
}
