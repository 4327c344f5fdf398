#pragma once
// The whole stats.json of a run (DESIGN.md "Command line and outputs"):
// schema and version, run metadata, ports, flows and the checker. Everything
// except the "wall" object is a function of the scenario and seed alone.

#include <nlohmann/json.hpp>

#include <string>

#include "testbench/simulation.hpp"

namespace hcasim {

constexpr int kStatsSchemaVersion = 1;

struct RunMetadata {
  std::string scenario;
  uint64_t seed = 0;
  std::string config_hash;   // config_hash(resolved configuration)
};

nlohmann::json stats_document(const Simulation& sim, const RunMetadata& meta);
// FNV-1a 64 of a string, as 16 hex digits.
std::string fnv1a_hex(const std::string& s);
// The run's config_hash: of the resolved configuration, less the choice of
// model or RTL blocks (port vl_arbiter and credit_manager), so that a
// co-simulated run's stats.json compares with the model's byte for byte.
std::string config_hash(const nlohmann::json& resolved);
// A few lines for a person: per port and per flow.
std::string human_summary(const nlohmann::json& stats);

}  // namespace hcasim
