#pragma once
// Turns a scenario into what a Simulation takes: the fabric, the flows with
// ports resolved to node and port indices, and the run options.

#include <string>
#include <vector>

#include "models/fabric/scenario.hpp"
#include "testbench/simulation.hpp"

namespace hcasim {

struct SimulationSetup {
  fabric::FabricSpec fabric;
  std::vector<workloads::FlowSpec> flows;
  RunOptions options;
};

SimulationSetup setup_from(const fabric::Scenario& s, const std::string& out_dir, bool quiet);

}  // namespace hcasim
