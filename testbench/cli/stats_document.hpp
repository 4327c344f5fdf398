#pragma once
// The whole stats.json of a run (DESIGN.md "Command line and outputs"): the
// summary a person reads, under 1 MB for any fabric. Everything except the
// "wall" object is a function of the scenario and seed alone.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "testbench/cli/simulation.hpp"

namespace hcasim {

// 2: ports, switches, flows, qps, engines and hosts became summaries; their
// objects went to results.db (or details.json).
constexpr int kStatsSchemaVersion = 2;
// run.load_warnings lists this many flows at most; run.flows_under_offered counts them all.
constexpr std::size_t kListedWarnings = 16;

struct RunMetadata {
  std::string scenario;
  uint64_t seed = 0;
  std::string config_hash;   // config_hash(resolved configuration)
};

// stats.json less its summary of the detail objects (details_output.hpp
// adds that): schema, version, run metadata, management, congestion
// control, the workloads' sections (patterns, perftest, dma, swarm, verbs),
// the checker and wall.
nlohmann::json stats_document(const Simulation& sim, const RunMetadata& meta);

// FNV-1a 64 of a string, as 16 hex digits.
std::string fnv1a_hex(const std::string& s);
// The run's config_hash: of the resolved configuration, less the choice of
// model or RTL blocks (port vl_arbiter and credit_manager), so that a
// co-simulated run's stats.json compares with the model's byte for byte.
std::string config_hash(const nlohmann::json& resolved);
// A few lines for a person: the busiest ports, the first flows, the workloads.
std::string human_summary(const nlohmann::json& stats);

}  // namespace hcasim
