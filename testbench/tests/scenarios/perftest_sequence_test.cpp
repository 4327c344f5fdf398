// Several perftests in one scenario run one after another, as the tools do
// (perftest.hpp); a test given a start time runs then, and two tests that
// share a port while both run are named in run.perftest_overlaps.
#include <catch2/catch.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

config::Scenario sequence_scenario(const nlohmann::json& tests) {
  const nlohmann::json root = {{"name", "perftest_sequence"},
                               {"topology", {{"pattern", "back_to_back"}}},
                               {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
                               {"workload", {{"perftest", tests}}}};
  return config::load_scenario(root);
}

const nlohmann::json kSequenceReadBw = {{"test", "read_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                {"sizes", {"4KiB"}}, {"iterations", 2000}};
const nlohmann::json kSequenceReadLat = {{"test", "read_lat"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                 {"sizes", {"8B"}}, {"iterations", 500}};

const workloads::PerftestSizeResult& only_size_of(const ScenarioRun& r, std::size_t test) {
  const auto& sizes = r.sim->perftests().at(test)->result().sizes;
  REQUIRE(sizes.size() == 1);
  REQUIRE(sizes[0].done);
  return sizes[0];
}

}  // namespace

TEST_CASE("perftest: the second test of a scenario starts when the first ends, with the latency it has alone") {
  // Two runs (a process runs one simulation): read_bw then read_lat, and read_lat alone.
  const ScratchDir dir("perftest_sequence");
  const auto scenario = [](const nlohmann::json& tests) {
    return nlohmann::json({{"name", "perftest_sequence"},
                           {"topology", {{"pattern", "back_to_back"}}},
                           {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
                           {"workload", {{"perftest", tests}}}})
        .dump();
  };
  REQUIRE(run_scenario_json(dir, "both", scenario(nlohmann::json::array({kSequenceReadBw, kSequenceReadLat}))).exit_code == 0);
  REQUIRE(run_scenario_json(dir, "alone", scenario(nlohmann::json::array({kSequenceReadLat}))).exit_code == 0);
  const nlohmann::json both = nlohmann::json::parse(slurp(dir / "both" / "stats.json"));
  const nlohmann::json alone = nlohmann::json::parse(slurp(dir / "alone" / "stats.json"));
  const nlohmann::json& bw = both["perftest"][0]["sizes"][0];
  const nlohmann::json& lat = both["perftest"][1]["sizes"][0];
  const nlohmann::json& solo = alone["perftest"][0]["sizes"][0];
  REQUIRE(bw["done"].get<bool>());
  REQUIRE(lat["done"].get<bool>());
  // read_lat's first post is read_bw's last completion: the same instant.
  CHECK(bw["start_ps"].get<uint64_t>() == 0);
  CHECK(lat["start_ps"].get<uint64_t>() == bw["duration_ps"].get<uint64_t>());
  // Its latency, to the picosecond: the sum of the round trips, the extremes
  // and the percentiles (written in ns with the picoseconds as decimals).
  CHECK(lat["duration_ps"].get<uint64_t>() == solo["duration_ps"].get<uint64_t>());
  for (const char* k : {"samples", "t_min_ns", "t_max_ns", "t_avg_ns", "t_typical_ns", "p99_ns", "p99_9_ns"}) {
    INFO(k);
    CHECK(lat["latency"][k] == solo["latency"][k]);
  }
  CHECK(both["run"]["perftest_overlaps"].empty());
}

TEST_CASE("perftest: a test given a start time runs then, and two tests sharing a port at once are named") {
  nlohmann::json lat = kSequenceReadLat;
  lat["start"] = "0us";
  const ScenarioRun run = run_scenario(sequence_scenario({kSequenceReadBw, lat}));
  REQUIRE(run.sim->workload_failures().empty());
  const workloads::PerftestSizeResult& bw = only_size_of(run, 0);
  const workloads::PerftestSizeResult& at_zero = only_size_of(run, 1);
  CHECK(bw.start_ps == 0);
  CHECK(at_zero.start_ps == 0);
  const std::vector<std::string> overlaps = run.sim->perftest_overlaps();
  REQUIRE(overlaps.size() == 1);
  CHECK_THAT(overlaps[0], Catch::StartsWith("perftest read_bw0 and read_lat1 ran at the same time on hca0.p1 from 0"));
}

TEST_CASE("perftest: start takes after_previous or a time, and writes back what it read") {
  nlohmann::json lat = kSequenceReadLat;
  lat["start"] = "after_previous";
  CHECK(sequence_scenario({kSequenceReadBw, lat}).workload.perftest[1].start_ps == config::kAfterPrevious);
  lat["start"] = "3us";
  CHECK(sequence_scenario({kSequenceReadBw, lat}).workload.perftest[1].start_ps == 3'000'000);
  lat["start"] = "later";
  REQUIRE_THROWS_WITH(sequence_scenario({kSequenceReadBw, lat}), Catch::Contains("workload.perftest.1.start") && Catch::Contains("after_previous"));
}
