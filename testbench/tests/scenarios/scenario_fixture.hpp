#pragma once
// Runs a scenario file of configs/ from C++, the way the command line does.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "models/config/overrides.hpp"
#include "models/config/scenario.hpp"
#include "testbench/cli/scenario_setup.hpp"
#include "testbench/cli/simulation.hpp"

namespace hcasim::test {

inline std::string config_path(const std::string& relative) {
  return std::string(HCASIM_SOURCE_DIR) + "/configs/" + relative;
}

inline config::Scenario load_config(const std::string& relative, const std::vector<std::string>& sets = {}) {
  const std::string path = config_path(relative);
  std::ifstream in(path);
  nlohmann::json root = nlohmann::json::parse(in);
  for (const std::string& s : sets) config::apply_override(root, s);
  return config::load_scenario(root, std::filesystem::path(path).parent_path().string());
}

struct ScenarioRun {
  config::Scenario scenario;
  SimulationSetup setup;
  std::unique_ptr<Simulation> sim;
};

// Runs a loaded scenario: raw flows and transport workloads.
inline ScenarioRun run_scenario(config::Scenario s) {
  ScenarioRun r;
  r.scenario = std::move(s);
  r.setup = setup_from(r.scenario, "", true);
  r.sim = std::make_unique<Simulation>(r.setup.fabric, r.setup.flows, r.setup.options, r.setup.transport);
  r.sim->run();
  return r;
}

inline ScenarioRun run_config(const std::string& relative, const std::vector<std::string>& sets = {}) {
  return run_scenario(load_config(relative, sets));
}

}  // namespace hcasim::test
