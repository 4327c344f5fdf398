// routing.nue_max_num_vls and nue_include_switches: OpenSM's names and
// defaults, accepted only where nue can run, bounded as OpenSM bounds them
// (0 to 15), and carried to the engine (its layers; the switches' LIDs inside
// them).

#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"

using namespace hcasim;

namespace {

nlohmann::json nue_scenario() {
  return {{"name", "nue"},
          {"topology", {{"pattern", "torus"}, {"x", 4}, {"y", 4}, {"hosts_per_switch", 1}}},
          {"port", {{"data_vls", 8}}},
          {"routing", {{"algorithm", "nue"}}}};
}

unsigned layers(const config::RoutedFabric& r) {
  const std::vector<uint8_t>& sls = r.routes.dlid_sls;
  return sls.empty() ? 1u : 1u + *std::max_element(sls.begin(), sls.end());
}

}  // namespace

TEST_CASE("routing.nue_max_num_vls and nue_include_switches: OpenSM's defaults, for nue only, carried to the engine",
          "[config]") {
  const config::Scenario plain = config::load_scenario(nue_scenario());
  CHECK(plain.routing.nue_max_num_vls == 1);  // OpenSM's default: one layer
  CHECK_FALSE(plain.routing.nue_include_switches);
  const config::RoutedFabric one = config::route_fabric(plain);
  CHECK(one.routes.algorithm == routing::RoutingAlgorithm::Nue);
  CHECK(layers(one) == 1);
  CHECK(one.routes.switch_lids_outside_layers);

  nlohmann::json s = nue_scenario();
  s["routing"]["nue_max_num_vls"] = 3;
  s["routing"]["nue_include_switches"] = true;
  const config::RoutedFabric three = config::route_fabric(config::load_scenario(s));
  CHECK(layers(three) == 3);
  CHECK_FALSE(three.routes.switch_lids_outside_layers);
  s["routing"]["nue_max_num_vls"] = 0;  // every operational VL: port.data_vls
  CHECK(layers(config::route_fabric(config::load_scenario(s))) == 8);

  s["routing"]["nue_max_num_vls"] = 16;
  CHECK_THROWS_WITH(config::load_scenario(s), Catch::StartsWith("routing.nue_max_num_vls"));
  s["routing"]["nue_max_num_vls"] = 2;
  s["routing"]["algorithm"] = "dfsssp";
  CHECK_THROWS_WITH(config::load_scenario(s), Catch::Contains("routing.nue_max_num_vls") &&
                                                  Catch::Contains("applies only to algorithm nue"));
  s["routing"]["algorithm"] = nlohmann::json::array({"nue", "minhop"});  // a chain with nue
  CHECK(config::load_scenario(s).routing.nue_max_num_vls == 2);
}
