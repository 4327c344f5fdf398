#pragma once
// A sweep's results.db (docs/sweeps.md): its runs and their detail in one
// SQLite database, beside results.csv.
//
// Rules:
// - Table "runs": results.csv's table, a row per run in run order, the same
//   columns (run, point, seed, the axes, the metrics, exit_code, error).
// - Every detail table (detail_tables.hpp) with the rows of every run's own
//   results.db, in run order, each row led by the run's id ("run") and its
//   axis values ("axis_<name>" per axis). A run without a results.db (it
//   failed, or wrote outputs.details json or none) adds no rows.
// - The file is made anew at each collection (a resumed sweep rewrites it).

#include <filesystem>
#include <vector>

#include "testbench/cli/sweep_spec.hpp"
#include "testbench/cli/sweep_table.hpp"

namespace hcasim {

// Writes path from the table and the runs' folders (runs_dir/<id>/results.db).
void write_sweep_db(const std::filesystem::path& path, const SweepSpec& spec, const SweepTable& table,
                    const std::vector<SweepRun>& runs, const std::filesystem::path& runs_dir);

}  // namespace hcasim
