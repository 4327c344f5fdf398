#pragma once
// hcasim plot ...: pictures from a sweep's table, a run's stats.json and its
// time series, drawn by scripts/hcasim_plot.py with Debian's python3 and
// matplotlib (the script's --help and docs/plots.md say what each draws).
//
// Rules:
// - The script is found beside the program's source tree: <program's
//   folder>/../scripts/hcasim_plot.py (a build folder inside the checkout),
//   else the checkout the program was built from; HCASIM_PLOT_SCRIPT names
//   another. The interpreter is /usr/bin/python3 (Debian's, which has
//   matplotlib), or HCASIM_PYTHON.
// - The script's arguments follow unchanged; its exit code is the command's.
// - No script or no interpreter: one line naming what is missing, exit 2.

namespace hcasim {

int plot_command(int argc, char* argv[]);

}  // namespace hcasim
