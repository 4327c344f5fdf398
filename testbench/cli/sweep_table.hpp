#pragma once
// A sweep's results as a table: one row per run (point and seed), the axes
// then the metrics, then how the run ended. Written as results.csv and
// results.json; the rows are in run order, whatever order the runs finished
// in, so the same sweep gives the same bytes on any backend.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testbench/cli/metric_paths.hpp"
#include "testbench/cli/sweep_spec.hpp"

namespace hcasim {

struct SweepOutcome {
  int exit_code = -1;          // the run's; -1: it did not finish
  std::string error;           // its error line, when it failed
  nlohmann::json seed;         // the seed it ran with (null when unknown)
  std::vector<MetricCell> metrics;
};

struct SweepTable {
  std::vector<std::string> columns;
  std::vector<nlohmann::json> rows;  // objects keyed by column
};

// Columns: run, point, seed, the axes, every metric column any run has (in
// run order of first appearance), exit_code, error.
SweepTable make_table(const SweepSpec& spec, const std::vector<SweepRun>& runs, const std::vector<SweepOutcome>& outcomes);

// RFC 4180: a header line, then one line per row; a field with a comma, a
// quote or a line break is quoted. Numbers as JSON writes them, strings bare,
// a missing cell empty.
std::string table_csv(const SweepTable& t);
// {"sweep": name, "scenario", "axes": [names], "metrics": [metric columns], "columns", "rows"}.
nlohmann::json table_json(const SweepSpec& spec, const SweepTable& t);

}  // namespace hcasim
