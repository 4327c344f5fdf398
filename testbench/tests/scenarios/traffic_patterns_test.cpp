// The destination choices of the raw traffic patterns (traffic_patterns.hpp),
// run end to end through one switch: who receives how many packets, against
// the counts the rules give (exact for all-to-all, within five standard
// deviations of the expectation for the random ones).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr unsigned kHosts = 8;
constexpr uint64_t kCount = 4000;  // packets per source

// kHosts hosts on one switch, each sending kCount small packets at a tenth of
// its link, so nothing congests; the run lasts until every packet is in.
ScenarioRun run_pattern(const nlohmann::json& pattern) {
  nlohmann::json p = pattern;
  p["name"] = "pattern";
  p["payload"] = "256B";
  p["rate"] = "10%";
  p["count"] = kCount;
  const nlohmann::json root = {
      {"name", "patterns"},
      {"topology", {{"pattern", "single_switch"}, {"hosts", kHosts}}},
      {"port", {{"data_vls", 1}, {"mtu", 4096}}},
      {"workload", {{"patterns", nlohmann::json::array({p})}}},
      {"run", {{"seed", 3}}}};
  return run_scenario(config::load_scenario(root));
}

// Packets each host's port received, by host number.
std::vector<uint64_t> received(const Simulation& sim) {
  std::vector<uint64_t> got(kHosts, 0);
  for (const link::Port* p : sim.fabric().ports()) {
    const std::string name = p->name();
    if (name.rfind("hca", 0) != 0) continue;
    got[std::stoul(name.substr(3))] = p->stats().vl[0].rx_packets;
  }
  return got;
}

void check_delivered_all(const Simulation& sim) {
  REQUIRE(sim.checker().ok());
  REQUIRE(sim.flows().size() == kHosts);
  for (const workloads::FlowResult& r : sim.flow_results()) REQUIRE(r.delivered == kCount);
}

}  // namespace

TEST_CASE("uniform: every source picks among the other hosts alone, each host receives its 1/8 within 5 sigma") {
  ScenarioRun run = run_pattern({{"kind", "uniform"}});
  check_delivered_all(*run.sim);
  // A source's choices are the other hosts, never itself.
  for (const workloads::FlowSpec& f : run.sim->flows()) {
    REQUIRE(f.dsts.size() == kHosts - 1);
    for (std::size_t i = 0; i < f.dsts.size(); ++i) REQUIRE(f.dsts[i].node != f.src_node);
  }
  // Host h receives from each of the 7 others Binomial(kCount, 1/7): mean kCount,
  // variance 7 x kCount x (1/7)(6/7).
  const double sigma = std::sqrt(kCount * 6.0 / 7.0);
  const std::vector<uint64_t> got = received(*run.sim);
  for (unsigned h = 0; h < kHosts; ++h) {
    INFO("hca" << h << " received " << got[h]);
    REQUIRE(std::abs(static_cast<double>(got[h]) - kCount) <= 5 * sigma);
  }
}

TEST_CASE("all_to_all: each source takes the others in turn, so each host receives exactly its share") {
  ScenarioRun run = run_pattern({{"kind", "all_to_all"}});
  check_delivered_all(*run.sim);
  // kCount is not a multiple of 7: 571 full rounds and 3 more, to the three
  // hosts after the source. Host h gets 571 from each other source, plus one
  // from each of the three sources just before it (were the turns to start at
  // the same host for every source, a few hosts would get all the extras).
  const uint64_t rounds = kCount / (kHosts - 1), extra = kCount % (kHosts - 1);
  const std::vector<uint64_t> got = received(*run.sim);
  for (unsigned h = 0; h < kHosts; ++h) {
    INFO("hca" << h);
    REQUIRE(got[h] == (kHosts - 1) * rounds + extra);
  }
}

TEST_CASE("hotspot: the target receives hot_fraction of the others' packets plus its uniform share") {
  const double hot = 0.5;
  ScenarioRun run = run_pattern({{"kind", "hotspot"}, {"targets", {"hca3.p1"}}, {"hot_fraction", hot}});
  check_delivered_all(*run.sim);
  // Each of the 7 other sources sends to hca3 with probability hot + (1 - hot) / 7;
  // hca3 itself sends uniformly to the 7 others.
  const double p_hot = hot + (1 - hot) / 7;
  const double mean_hot = 7 * kCount * p_hot;
  const double sigma_hot = std::sqrt(7 * kCount * p_hot * (1 - p_hot));
  const std::vector<uint64_t> got = received(*run.sim);
  INFO("hca3 received " << got[3] << ", expected " << mean_hot);
  REQUIRE(std::abs(static_cast<double>(got[3]) - mean_hot) <= 5 * sigma_hot);
  // Any other host: from 6 sources with probability (1 - hot) / 7, from hca3 with 1/7.
  const double p_cold = (1 - hot) / 7;
  const double mean_cold = 6 * kCount * p_cold + kCount / 7.0;
  const double sigma_cold = std::sqrt(6 * kCount * p_cold * (1 - p_cold) + kCount * (1.0 / 7) * (6.0 / 7));
  for (unsigned h = 0; h < kHosts; ++h) {
    if (h == 3) continue;
    INFO("hca" << h << " received " << got[h] << ", expected " << mean_cold);
    REQUIRE(std::abs(static_cast<double>(got[h]) - mean_cold) <= 5 * sigma_cold);
  }
}
