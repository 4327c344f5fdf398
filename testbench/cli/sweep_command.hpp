#pragma once
// hcasim sweep SWEEP.json [--jobs N] [--backend local|slurm] [--out DIR] ...:
// many runs of one scenario, one table (docs/sweeps.md).
//
// Rules:
// - Each run (sweep_spec.hpp) is a separate `hcasim run` process writing
//   DIR/runs/<id>/; its standard output and error and its exit code go to
//   DIR/logs/<id>.out, .err and .exit. A run whose stats.json is there with
//   the config hash the run would have (same scenario, sets and seed) and
//   whose exit code is recorded is not run again: an interrupted sweep
//   resumes. Any other run's folder is emptied first.
// - local: N processes at once (default: the machine's cores), the runs
//   expected to take longest first: by run.duration times the fabric's port
//   count when every run has a duration, else in run order.
// - slurm: an sbatch job array of the runs still to do (slurm_backend.hpp),
//   submitted and waited for; --dry-run writes the script and stops.
// - Then DIR/results.csv and DIR/results.json (sweep_table.hpp) and
//   DIR/results.db (sweep_db.hpp). Progress on
//   stderr (runs done, failed, running, ETA) unless --quiet.
// - DIR must be new, empty or a sweep's own (it holds .hcasim-sweep).
// - Exit codes: 0 every run exited 0; 1 a run failed (its exit code and error
//   line are in the table) or the sweep was interrupted; 2 bad input (the
//   sweep file, an argument, DIR).

namespace hcasim {

extern const char* const kSweepUsage;

int sweep_command(int argc, char* argv[]);

}  // namespace hcasim
