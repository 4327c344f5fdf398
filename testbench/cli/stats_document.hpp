#pragma once
// The whole stats.json of a run (DESIGN.md "Command line and outputs"):
// schema and version, run metadata, ports, flows and the checker. Everything
// except the "wall" object is a function of the scenario and seed alone.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "testbench/cli/simulation.hpp"

namespace hcasim {

constexpr int kStatsSchemaVersion = 1;

struct RunMetadata {
  std::string scenario;
  uint64_t seed = 0;
  std::string config_hash;   // config_hash(resolved configuration)
};

// Whether a stats document holds its ports section, or a placeholder that
// write_stats fills port by port: on a large fabric the section is most of the
// document (9,317 ports and 27 MB of text for configs/bench/fat_tree3_1331.json),
// and as JSON values in memory it took more than the simulation itself.
enum class PortList { Included, Streamed };

nlohmann::json stats_document(const Simulation& sim, const RunMetadata& meta,
                              PortList ports = PortList::Included);

// What the human summary says about the ports: the first few, how many, and
// their drops.
struct PortDigest {
  static constexpr std::size_t kListed = 16;
  std::vector<nlohmann::json> first;  // at most kListed
  std::size_t count = 0;
  uint64_t drops = 0;
  void add(const nlohmann::json& port);
};

// Writes the document as stats.json: indented by 2, a newline at the end. A
// streamed document's ports go where the placeholder is, one at a time, in
// exactly the bytes the whole document would have had.
PortDigest write_stats(std::ostream& out, const nlohmann::json& doc, const Simulation& sim);
// FNV-1a 64 of a string, as 16 hex digits.
std::string fnv1a_hex(const std::string& s);
// The run's config_hash: of the resolved configuration, less the choice of
// model or RTL blocks (port vl_arbiter and credit_manager), so that a
// co-simulated run's stats.json compares with the model's byte for byte.
std::string config_hash(const nlohmann::json& resolved);
// A few lines for a person: per port and per flow.
std::string human_summary(const nlohmann::json& stats, const PortDigest& ports);

}  // namespace hcasim
