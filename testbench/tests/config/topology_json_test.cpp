// The explicit JSON form of a topology: round trips of every generator and of
// link parameters, and every error with its JSON path.

#include <catch2/catch.hpp>

#include "models/config/config_error.hpp"
#include "models/config/topology_json.hpp"
#include "models/topology/topology_generators.hpp"

namespace config = hcasim::config;
namespace topology = hcasim::topology;
using config::ConfigError;
using nlohmann::json;

namespace {

json small() {
  return json::parse(R"({
    "nodes": [
      {"name": "sw0", "kind": "switch", "ports": 8, "guid": "0xE41D2D0300A1B2C0", "description": "leaf"},
      {"name": "hca0", "kind": "hca"},
      {"name": "hca1", "kind": "hca", "ports": 2}
    ],
    "links": [
      {"a": "sw0.p1", "b": "hca0.p1", "speed": "EDR", "width": "2x", "length": "3m"},
      {"a": "hca1.p2", "b": "sw0.p8"}
    ]
  })");
}

std::string error_at(const json& j, const std::string& path) {
  try {
    config::topology_from_json(j, "topology");
  } catch (const ConfigError& e) {
    CHECK(e.path() == path);
    CHECK(std::string(e.what()).find("accepted") != std::string::npos);
    return e.what();
  }
  FAIL("no ConfigError thrown");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("explicit topology reads nodes, defaults and link parameters") {
  const topology::Topology t = config::topology_from_json(small(), "topology");
  REQUIRE(t.nodes.size() == 3);
  CHECK(t.nodes[0].kind == topology::NodeKind::Switch);
  CHECK(t.nodes[0].ports == 8);
  CHECK(t.nodes[0].guid == 0xe41d2d0300a1b2c0ull);
  CHECK(t.nodes[0].description == "leaf");
  CHECK(t.nodes[1].kind == topology::NodeKind::Hca);
  CHECK(t.nodes[1].ports == 1);
  CHECK(t.nodes[1].guid == 0);
  REQUIRE(t.links.size() == 2);
  CHECK(t.links[0].a == topology::LinkEnd{0, 1});
  CHECK(t.links[0].b == topology::LinkEnd{1, 1});
  CHECK(t.links[0].params.speed == hcasim::link::Speed::Edr);
  CHECK(t.links[0].params.width == hcasim::link::Width::X2);
  CHECK(t.links[0].params.length_m == 3.0);
  CHECK(t.links[1].a == topology::LinkEnd{2, 2});
  CHECK_FALSE(t.links[1].params.speed.has_value());
  CHECK(topology::check_topology(t).empty());
}

TEST_CASE("explicit topology writes optional keys only when set and reads back equal") {
  const topology::Topology t = config::topology_from_json(small(), "topology");
  const json j = config::topology_to_json(t);
  CHECK(j["nodes"][0]["guid"] == "0xe41d2d0300a1b2c0");
  CHECK_FALSE(j["nodes"][1].contains("guid"));
  CHECK_FALSE(j["nodes"][1].contains("description"));
  CHECK(j["links"][0]["length"] == "3m");
  CHECK_FALSE(j["links"][1].contains("speed"));
  CHECK(config::topology_from_json(j, "") == t);
}

TEST_CASE("every generated topology survives the JSON round trip") {
  for (const topology::Topology& t : {topology::back_to_back_topology(), topology::single_switch_topology(3, 36),
                                      topology::fat_tree_topology(3, 3), topology::mesh_topology(3, 2, 2, true),
                                      topology::mesh_topology(3, 3, 1, false), topology::dragonfly_topology(2, 2, 1)}) {
    topology::Topology with_params = t;
    with_params.links[0].params.length_m = 0.25;
    with_params.links[0].params.speed = hcasim::link::Speed::Ndr;
    with_params.links.back().params.width = hcasim::link::Width::X12;
    CHECK(config::topology_from_json(config::topology_to_json(with_params), "topology") == with_params);
  }
}

TEST_CASE("explicit topology errors name the JSON path and what is accepted") {
  json j = small();
  j["links"][1]["b"] = "sw0.p9";
  CHECK(contains(error_at(j, "topology.links.1.b"), "ports 1 to 8"));
  j = small();
  j["links"][1]["b"] = "sw9.p1";
  CHECK(contains(error_at(j, "topology.links.1.b"), "no node named 'sw9'"));
  j = small();
  j["links"][1]["b"] = "sw0-1";
  CHECK(contains(error_at(j, "topology.links.1.b"), "<node>.p<port>"));
  j = small();
  j["links"][1]["b"] = "hca0.p1";
  CHECK(contains(error_at(j, "topology.links.1.b"), "already on topology.links.0"));
  j = small();
  j["links"][1]["b"] = "hca1.p2";
  CHECK(contains(error_at(j, "topology.links.1.b"), "to itself"));
  j = small();
  j["links"][0].erase("a");
  CHECK(contains(error_at(j, "topology.links.0.a"), "missing"));
  j = small();
  j["links"][0]["speed"] = "XDR";
  CHECK(contains(error_at(j, "topology.links.0.speed"), "SDR, DDR, QDR, FDR, EDR, HDR, NDR"));
  j = small();
  j["links"][0]["width"] = 4;
  CHECK(contains(error_at(j, "topology.links.0.width"), "1x, 2x, 4x, 8x, 12x"));
  j = small();
  j["links"][0]["length"] = "3";
  error_at(j, "topology.links.0.length");
  j = small();
  j["links"][0]["colour"] = "red";
  CHECK(contains(error_at(j, "topology.links.0.colour"), "a, b, speed, width, length"));
  j = small();
  j["nodes"][2]["name"] = "sw0";
  CHECK(contains(error_at(j, "topology.nodes.2.name"), "topology.nodes.0"));
  j = small();
  j["nodes"][1]["kind"] = "router";
  CHECK(contains(error_at(j, "topology.nodes.1.kind"), "switch, hca"));
  j = small();
  j["nodes"][0]["ports"] = 255;
  CHECK(contains(error_at(j, "topology.nodes.0.ports"), "1 to 254"));
  j = small();
  j["nodes"][0]["ports"] = 0;
  error_at(j, "topology.nodes.0.ports");
  j = small();
  j["nodes"][0]["guid"] = "e41d";
  CHECK(contains(error_at(j, "topology.nodes.0.guid"), "\"0x\""));
  j = small();
  j["nodes"][0]["guid"] = "0x1234567890abcdef0";
  error_at(j, "topology.nodes.0.guid");
  j = small();
  j["nodes"][0].erase("name");
  error_at(j, "topology.nodes.0.name");
  j = small();
  j["nodes"][0]["name"] = "";
  error_at(j, "topology.nodes.0.name");
  j = small();
  j["pattern"] = "explicit";
  CHECK(contains(error_at(j, "topology.pattern"), "nodes, links"));
  j = small();
  j.erase("links");
  error_at(j, "topology.links");
  j = small();
  j["nodes"] = json::object();
  error_at(j, "topology.nodes");
  error_at(json::array(), "topology");
}
