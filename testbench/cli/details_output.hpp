#pragma once
// A run's detail, written as outputs.details says (docs/results.md):
//   "db" (the default): DIR/results.db, the tables of detail_tables.hpp;
//   "json": DIR/details.json, every object of every kind in full, as
//     {"run": [...], "ports": [...], ...} in detail_kinds() order (the lists
//     stats.json had before results.db), for fabrics of at most
//     kDetailsJsonLimit ports and flows together;
//   "both": the two; "none": neither.
// One walk over the objects (detail_objects.hpp) feeds the files and the
// summary; what it returns goes into stats.json: the summary's sections
// (detail_summary.hpp) and "details": the format, the files written and, with
// results.db, each table's rows and rows left out.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

#include "models/config/scenario.hpp"
#include "testbench/cli/simulation.hpp"
#include "testbench/cli/stats_document.hpp"

namespace hcasim {

using config::kDetailsJsonLimit;
constexpr const char* kResultsDb = "results.db";
constexpr const char* kDetailsJson = "details.json";

// Why the run's detail cannot be written as chosen ("" when it can): details.json
// for more than kDetailsJsonLimit ports and flows.
std::string details_refusal(config::DetailsOutput format, std::size_t ports, std::size_t flows);

// Writes the detail into dir (the run's own folder: a results.db or
// details.json already there, a previous run's, is removed first); returns
// the stats.json sections. Throws
// SqliteError or std::runtime_error when a file cannot be written.
nlohmann::json write_details(const Simulation& sim, const RunMetadata& meta, config::DetailsOutput format,
                             const std::string& dir);

}  // namespace hcasim
