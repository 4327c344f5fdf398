#pragma once
// The explicit, node-by-node form of a topology in JSON:
//
//   {"nodes": [{"name": "sw0", "kind": "switch", "ports": 36,
//               "guid": "0xe41d2d0300a1b2c0", "description": "MF0;sw0:MQM8700/U1"}, ...],
//    "links": [{"a": "sw0.p1", "b": "hca0.p1", "speed": "HDR", "width": "4x", "length": "3m"}, ...]}
//
// Rules:
// - "nodes" and "links" are required lists; no other key is accepted (a caller
//   that keeps more keys beside them, such as a pattern name, removes its own
//   keys first).
// - A node: "name" (required, non-empty, unique), "kind" (required: "switch"
//   or "hca"), "ports" (1 to 254, default 1), "guid" (a string "0x" followed by
//   1 to 16 hex digits; absent = 0, none given), "description" (a string,
//   default empty).
// - A link: "a" and "b" (required) name ports as "<node>.p<port>"; "speed"
//   (SDR, DDR, QDR, FDR, EDR, HDR, NDR), "width" (1x, 2x, 4x, 8x, 12x) and
//   "length" (a length such as "3m") are optional and override the scenario's
//   link defaults.
// - Errors are ConfigError at the JSON path of the offending value, e.g.
//   "topology.links.3.b", naming what is accepted (config_error.hpp).
// - topology_to_json writes optional keys only when set (guid when not 0,
//   description when not empty), and topology_from_json(topology_to_json(t))
//   == t for every topology that passes check_topology.

#include <string>

#include <nlohmann/json.hpp>

#include "models/topology/topology.hpp"

namespace hcasim::config {

nlohmann::json topology_to_json(const topology::Topology& t);

// `path` is the JSON path of `j` itself ("topology"; "" at the root).
topology::Topology topology_from_json(const nlohmann::json& j, const std::string& path);

// The JSON Schema of the form above (config_schema.hpp); names that must exist, unique
// names and ports on one link each are checked by topology_from_json alone.
nlohmann::json topology_json_schema();

// "0x" followed by 16 lower-case hex digits.
std::string format_guid(uint64_t guid);

}  // namespace hcasim::config
