// OpenSM's routing-engine chain (osm_ucast_mgr.c, osm_ucast_mgr_process): the
// engines are tried in order, the first that routes the fabric routes it, and
// min-hop routes a fabric every engine refused unless the chain says
// no_fallback. updn refuses a fabric where it finds no root (a torus: no switch
// has one hop count holding 90% of the HCA ports), and routes a fat tree (its
// top switches are roots). The OpenSM oracle test runs the same chains through
// OpenSM itself (testbench/tests/mgmt/opensm_oracle_test.py).

#include <catch2/catch.hpp>

#include "models/config/scenario.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology_generators.hpp"

namespace config = hcasim::config;
namespace routing = hcasim::routing;
namespace topology = hcasim::topology;
using routing::RoutingAlgorithm;

namespace {

routing::Routes route(const topology::Topology& t, routing::EngineChain chain) {
  routing::RoutingConfig c;
  c.algorithm = std::move(chain);
  return routing::compute_routes(t, routing::assign_lids(t, 0), c);
}

routing::EngineChain chain(std::vector<RoutingAlgorithm> engines, bool fallback = true) {
  routing::EngineChain c;
  c.engines = std::move(engines);
  c.fallback = fallback;
  return c;
}

config::Scenario with_algorithm(const nlohmann::json& algorithm) {
  return config::load_scenario({{"name", "chain"}, {"routing", {{"algorithm", algorithm}}}});
}

}  // namespace

TEST_CASE("a chain: the first engine that routes the fabric routes it") {
  const topology::Topology torus = topology::mesh_topology(4, 4, 1, true);
  const topology::Topology tree = topology::fat_tree_topology(4, 2);

  SECTION("updn refuses a torus, dor routes it as dor alone does") {
    const routing::Routes r = route(torus, chain({RoutingAlgorithm::Updn, RoutingAlgorithm::Dor}));
    CHECK(r.algorithm == RoutingAlgorithm::Dor);
    REQUIRE(r.refusals.size() == 1);
    CHECK(r.refusals[0].engine == RoutingAlgorithm::Updn);
    CHECK(r.refusals[0].why == "no root nodes were found");
    CHECK(r.lft == route(torus, RoutingAlgorithm::Dor).lft);
    CHECK(r.lft != route(torus, RoutingAlgorithm::MinHop).lft);  // dor is not min-hop on a torus
  }
  SECTION("when every engine refuses, min-hop routes it (OpenSM's default engine)") {
    const routing::Routes r = route(torus, RoutingAlgorithm::Updn);
    CHECK(r.algorithm == RoutingAlgorithm::MinHop);
    CHECK(r.refusals.size() == 1);
    CHECK(r.lft == route(torus, RoutingAlgorithm::MinHop).lft);
  }
  SECTION("no_fallback: a fabric every engine refuses is not routed") {
    CHECK_THROWS_AS(route(torus, chain({RoutingAlgorithm::Updn}, false)), routing::NoEngineRoutes);
    CHECK_THROWS_WITH(route(torus, chain({RoutingAlgorithm::Updn}, false)),
                      Catch::Contains("updn: no root nodes were found"));
  }
  SECTION("dfsssp refuses a torus with one VL, the next engine routes it; on a fat tree it routes") {
    routing::RoutingConfig c;
    c.algorithm = chain({RoutingAlgorithm::Dfsssp, RoutingAlgorithm::Dor}, false);
    c.vls = 1;
    const routing::Routes r = routing::compute_routes(torus, routing::assign_lids(torus, 0), c);
    CHECK(r.algorithm == RoutingAlgorithm::Dor);
    REQUIRE(r.refusals.size() == 1);
    CHECK(r.refusals[0].engine == RoutingAlgorithm::Dfsssp);
    CHECK(r.refusals[0].why == "Not enough VLs available (avail=1, needed=2); Stopping dfsssp routing!");
    CHECK_FALSE(r.has_path_sls());
    CHECK(r.lft == route(torus, RoutingAlgorithm::Dor).lft);
    const routing::Routes t = routing::compute_routes(tree, routing::assign_lids(tree, 0), c);
    CHECK(t.algorithm == RoutingAlgorithm::Dfsssp);
    CHECK(t.refusals.empty());
  }
  SECTION("an engine that routes ends the chain: updn on a fat tree") {
    const routing::Routes r = route(tree, chain({RoutingAlgorithm::Updn, RoutingAlgorithm::Dor}, false));
    CHECK(r.algorithm == RoutingAlgorithm::Updn);
    CHECK(r.refusals.empty());
    CHECK(r.roots.size() == 4);  // the k = 4 tree's four top switches
    CHECK(r.lft == route(tree, RoutingAlgorithm::Updn).lft);
  }
}

TEST_CASE("routing.algorithm: one engine, a list, or OpenSM's routing_engine string") {
  CHECK(with_algorithm("dor").routing.algorithm.engines == std::vector<RoutingAlgorithm>{RoutingAlgorithm::Dor});
  const config::Scenario listed = with_algorithm({"updn", "dor", "no_fallback"});
  CHECK(listed.routing.algorithm.engines == std::vector<RoutingAlgorithm>{RoutingAlgorithm::Updn, RoutingAlgorithm::Dor});
  CHECK_FALSE(listed.routing.algorithm.fallback);
  CHECK(with_algorithm("dfsssp,minhop").routing.algorithm.engines ==
        std::vector<RoutingAlgorithm>{RoutingAlgorithm::Dfsssp, RoutingAlgorithm::MinHop});
  CHECK(with_algorithm("sssp").routing.algorithm.engines == std::vector<RoutingAlgorithm>{RoutingAlgorithm::Sssp});
  const config::Scenario opensm = with_algorithm("updn, dor,no_fallback");
  CHECK(opensm.routing.algorithm.engines == listed.routing.algorithm.engines);
  CHECK_FALSE(opensm.routing.algorithm.fallback);
  // Written back as read: a name for one engine, a list for a chain.
  CHECK(config::resolved_json(with_algorithm("updn"))["routing"]["algorithm"] == "updn");
  CHECK(config::resolved_json(listed)["routing"]["algorithm"] == nlohmann::json({"updn", "dor", "no_fallback"}));
  CHECK(config::resolved_json(with_algorithm({"dor"}))["routing"]["algorithm"] == "dor");

  CHECK_THROWS_WITH(with_algorithm({"updn", "ftre"}),
                    Catch::StartsWith("routing.algorithm.1: unknown engine 'ftre'; accepted: minhop,"));
  CHECK_THROWS_WITH(with_algorithm("updn,bogus"), Catch::StartsWith("routing.algorithm: unknown engine 'bogus'"));
  CHECK_THROWS_WITH(with_algorithm(nlohmann::json::array()), Catch::StartsWith("routing.algorithm: names no engine"));
  CHECK_THROWS_WITH(with_algorithm("no_fallback"), Catch::StartsWith("routing.algorithm: names no engine"));
  CHECK_THROWS_WITH(with_algorithm({"updn", 3}), Catch::StartsWith("routing.algorithm.1: expected an engine name"));
  CHECK_THROWS_WITH(with_algorithm(7), Catch::StartsWith("routing.algorithm: expected an engine name or a list"));
}
