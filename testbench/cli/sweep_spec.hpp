#pragma once
// A sweep file (docs/sweeps.md): a base scenario, axes of --set values, seeds,
// and the metrics to collect from each run's stats.json.
//
// Rules:
// - Keys: "name" (default: the file's stem), "scenario" (required; a path
//   relative to the sweep file), "set" (list of "path=value" applied to every
//   point before its axes), "axes" (non-empty list of {"path", "name" (default
//   the path), "values" (non-empty list of JSON values)}), "combine"
//   ("product", the default: every combination, the last axis changing
//   fastest; "zip": the i-th values of all axes together, every axis as
//   long), "seeds" (list of integers; absent: each point once with the
//   scenario's own run.seed), "metrics" (non-empty list of {"name", "path"}:
//   a path into stats.json, or "tables.TABLE.ROW.COLUMN" into the run's
//   results.db, ROW an index or "*"; metric_paths.hpp).
// - Anything else (unknown key, wrong type, empty list, duplicate axis or
//   metric name) is a config::ConfigError naming the JSON path and what is
//   accepted.
// - Points are numbered from 0 in that order; a run is a point with one seed,
//   its id "p<point>-s<seed index>" (4 and 2 digits), in point then seed order.
// - An axis value becomes the --set value of its path as JSON text, so
//   "16KiB" is a string and 16 a number, whatever they would parse as.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcasim {

struct SweepAxis {
  std::string path;                   // a --set path
  std::string name;                   // its column
  std::vector<nlohmann::json> values;
};

struct SweepMetric {
  std::string name;  // its column (with labels added for wildcards: metric_paths.hpp)
  std::string path;  // into stats.json
};

enum class SweepCombine { Product, Zip };

struct SweepSpec {
  std::string name;
  std::string scenario;           // resolved against the sweep file's folder
  std::vector<std::string> sets;
  std::vector<SweepAxis> axes;
  SweepCombine combine = SweepCombine::Product;
  std::vector<uint64_t> seeds;    // empty: the scenario's own seed
  std::vector<SweepMetric> metrics;
};

struct SweepRun {
  std::string id;                       // "p0007-s01"
  unsigned point = 0;
  unsigned seed_index = 0;
  std::vector<nlohmann::json> values;   // one per axis
  std::optional<uint64_t> seed;
  std::vector<std::string> sets;        // the spec's sets, then one per axis
};

// Throws config::ConfigError. `file` names the sweep file (its stem is the
// default name, its folder the base of "scenario").
SweepSpec parse_sweep(const nlohmann::json& j, const std::string& file);

std::vector<SweepRun> expand_runs(const SweepSpec& s);

}  // namespace hcasim
