#pragma once
// Turns a scenario into what a Simulation takes: the routed fabric, the flows
// (single flows and expanded traffic patterns) with ports resolved to HCA and
// port indices, and the run options.

#include <string>
#include <vector>

#include "models/fabric/credit_loops.hpp"
#include "models/fabric/scenario.hpp"
#include "testbench/simulation.hpp"

namespace hcasim {

struct SimulationSetup {
  fabric::FabricSpec fabric;
  std::vector<workloads::FlowSpec> flows;
  TransportWorkloads transport;           // perftest tests and verbs scripts
  RunOptions options;
  fabric::CreditLoopReport credit_loops;  // filled when the scenario asks for the check
  bool credit_loops_checked = false;
};

// Throws fabric::ConfigError.
SimulationSetup setup_from(const fabric::Scenario& s, const std::string& out_dir, bool quiet);

// The credit-loop check of a routed scenario fabric.
fabric::CreditLoopReport check_credit_loops(const fabric::Scenario& s, const fabric::RoutedFabric& r);

}  // namespace hcasim
