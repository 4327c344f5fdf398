#pragma once
// `hcasim regress SUITE_DIR [--update] [--junit FILE] [--jobs N] [--tol PATH=REL ...] [--keep]`:
// runs every scenario of a suite (regress_suite.hpp) as its own `hcasim run`
// process (this program, /proc/self/exe) into a scratch folder, N at a time,
// and compares each stats.json with the scenario's golden.
// --update writes the goldens instead (only of runs that passed their checks;
// a golden whose values are all unchanged is left as it is), and says which.
// Exit codes: 0 every scenario passed (or its golden was written), 1 any
// failed, 2 bad input (no such suite, a bad tolerances.json or --tol).

namespace hcasim {

int regress_command(int argc, char* argv[]);

}  // namespace hcasim
