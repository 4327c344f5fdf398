#pragma once
// The objects of a run's detail, kind by kind in the order of detail_kinds()
// (detail_tables.hpp): what results.db's rows and details.json's lists are
// made of. They come one at a time, so that no list of them is held whole
// (a 277,440-port fabric's ports as JSON values would take gigabytes).
//
// Kinds: run (one object: scenario, seed, config hash, simulated time,
// version); ports (Simulation::port_json, plus "level" and "peer_level",
// node_levels' of the port's node and of its peer's); switches (name, LID,
// level, ports, forwarded, to management); flows (Simulation::flow_json);
// qps, engines (transport_stats.hpp); hosts (host_stats.hpp); swarms (with
// their machines); cc_switches, cc_hca_ports (congestion_stats.hpp);
// sa_servers (management_stats.hpp).

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "models/config/fabric_spec.hpp"
#include "testbench/cli/simulation.hpp"
#include "testbench/cli/stats_document.hpp"

namespace hcasim {

using DetailVisitor = std::function<void(const std::string& kind, nlohmann::json&& object)>;

void visit_detail_objects(const Simulation& sim, const RunMetadata& meta, const DetailVisitor& visit);

// Each node's level: 0 for an HCA; for a switch its distance in links from
// the nearest HCA (1: a leaf), or 0 when no HCA is connected to it.
std::vector<unsigned> node_levels(const config::FabricSpec& spec);

}  // namespace hcasim
