#pragma once
// What a run checked, as JUnit cases (`hcasim run --junit FILE`), the
// scenario's name as every case's classname:
// - "link checker": credits, receive buffers, no packet lost on a lossless
//   link (testbench/checkers/link_checker.hpp); failed with its first violations;
// - "rtl co-simulation", when ports run RTL blocks: the first divergences;
// - "management", when the fabric is managed in band: the SM's sweep finished
//   and every PathRecord lookup was answered right;
// - per perftest test, one case per message size ("perftest write_bw0 size
//   64KiB"): every completion a success, the data check held and the size
//   finished; a size the run did not reach is skipped (the run's duration
//   ended it, or an earlier size failed and the test stopped); an idle test
//   is one case;
// - per verbs script, one case per operation, named with the status it must
//   end in ("verbs conn0 op 2 (write on a) expects success"): it completed
//   once, with that status, and its data checked out. A failure that names no
//   operation goes to a case of the connection's own.
// The cases fail with exactly the lines `hcasim run` prints as "check failed".

#include <ostream>
#include <string>
#include <vector>

#include "testbench/cli/junit.hpp"
#include "testbench/cli/simulation.hpp"

namespace hcasim {

std::vector<JunitCase> run_check_cases(const Simulation& sim, const std::string& scenario);

// Writes "check failed: ..." to `err` for each failure of the link checker,
// the workloads and the RTL co-simulation; true when there was none.
bool print_check_failures(const Simulation& sim, std::ostream& err);

}  // namespace hcasim
