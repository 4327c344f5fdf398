// stats.json written port by port (what `hcasim run` does) against the whole
// document rendered at once.

#include <catch2/catch.hpp>

#include <sstream>

#include "testbench/cli/stats_document.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;

TEST_CASE("stats.json written port by port has the bytes of the whole document, and the same summary") {
  // A switch and nine HCAs: more ports than the summary lists one by one.
  const test::ScenarioRun r = test::run_config("incast_8to1.json");
  const Simulation& sim = *r.sim;
  const RunMetadata meta{"incast", 1, "-"};
  const nlohmann::json whole = stats_document(sim, meta);
  const nlohmann::json streamed = stats_document(sim, meta, PortList::Streamed);
  REQUIRE(whole["ports"].size() == sim.fabric().ports().size());
  REQUIRE(whole["ports"].size() > PortDigest::kListed);

  std::ostringstream from_whole, from_streamed;
  const PortDigest a = write_stats(from_whole, whole, sim);
  const PortDigest b = write_stats(from_streamed, streamed, sim);
  CHECK(from_whole.str() == whole.dump(2) + "\n");
  CHECK(from_streamed.str() == from_whole.str());

  CHECK(b.count == sim.fabric().ports().size());
  CHECK(b.first.size() == PortDigest::kListed);
  CHECK(b.first.front() == whole["ports"].front());
  CHECK(a.count == b.count);
  CHECK(a.drops == b.drops);
  const std::string summary = human_summary(streamed, b);
  CHECK(summary == human_summary(whole, a));
  CHECK(summary.find("ports in all") != std::string::npos);
}
