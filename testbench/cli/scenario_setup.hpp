#pragma once
// Turns a scenario into what a Simulation takes: the routed fabric, the flows
// (single flows and expanded traffic patterns) with ports resolved to HCA and
// port indices, and the run options.

#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/routing/credit_loops.hpp"
#include "testbench/cli/simulation.hpp"

namespace hcasim {

struct SimulationSetup {
  config::FabricSpec fabric;
  std::vector<workloads::FlowSpec> flows;
  TransportWorkloads transport;           // perftest tests and verbs scripts
  RunOptions options;
  routing::CreditLoopReport credit_loops;  // filled when the scenario asks for the check
  bool credit_loops_checked = false;
  routing::RoutingAlgorithm routing_engine = routing::RoutingAlgorithm::MinHop;  // the engine of the chain that routed
  std::vector<routing::Routes::Refusal> routing_refusals;  // the engines before it that refused
  unsigned routing_layers = 1;  // the virtual layers (SLs) the engine spread paths over; 1 without SLs
};

// Throws config::ConfigError.
SimulationSetup setup_from(const config::Scenario& s, const std::string& out_dir, bool quiet);

// The credit-loop check of a routed scenario fabric.
routing::CreditLoopReport check_credit_loops(const config::Scenario& s, const config::RoutedFabric& r);

}  // namespace hcasim
