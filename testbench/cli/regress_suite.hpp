#pragma once
// A regression suite (`hcasim regress SUITE_DIR`): a folder of scenarios,
// each with its golden stats.json beside it.
//
// Rules:
// - Every NAME.json in the folder is a scenario, except NAME.golden.json (a
//   golden) and tolerances.json; they run in name order.
// - NAME.golden.json is NAME.json's golden: the stats.json of a run that was
//   right, less its "wall" section (which compare leaves out, and which would
//   change the file at every update), with its results.db's tables in it as
//   "tables": {"TABLE": [row, ...]} (stats_compare.hpp compare_results).
// - tolerances.json, optional: {"PATH": REL, ...}, the --tol entries of the
//   whole suite (stats_compare.hpp), before those given on the command line.
// - A scenario's verdict (one JUnit case): its run failed a check (exit 1):
//   failed, with the first "check failed" line; the run gave no result (exit
//   2, a signal, no stats.json): an error, with its first error line; no
//   golden: failed, saying to run --update; otherwise as compare finds it.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "testbench/cli/junit.hpp"
#include "testbench/cli/stats_compare.hpp"

namespace hcasim {

constexpr const char* kGoldenSuffix = ".golden.json";
constexpr const char* kSuiteTolerances = "tolerances.json";

struct SuiteScenario {
  std::string name;                 // NAME
  std::filesystem::path scenario;   // SUITE_DIR/NAME.json
  std::filesystem::path golden;     // SUITE_DIR/NAME.golden.json
};

// The suite's scenarios in name order. Throws std::invalid_argument when the
// folder is missing or holds none.
std::vector<SuiteScenario> suite_scenarios(const std::filesystem::path& dir);
// The suite's tolerances.json (none when absent). Throws std::invalid_argument
// naming the file and the entry when it is not an object of PATH: REL.
std::vector<Tolerance> suite_tolerances(const std::filesystem::path& dir);
// What a golden holds of a stats.json: all but the wall section.
nlohmann::json golden_of(const nlohmann::json& stats);

// How one scenario's run ended.
struct RunOutcome {
  int exit_code = -1;               // -1: killed by a signal
  int signal = 0;
  std::string stderr_text;
  double seconds = 0;
};
// The case of a run that did not exit 0 (rules above).
JunitCase failed_run_case(const std::string& classname, const std::string& name, const RunOutcome& r);

}  // namespace hcasim
