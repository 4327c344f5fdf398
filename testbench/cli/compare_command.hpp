#pragma once
// `hcasim compare GOLDEN NEW [--tol PATH=REL ...] [--junit FILE]`: two runs'
// results (stats.json and results.db, or a golden holding its tables)
// compared by stats_compare.hpp; each difference printed on a line of its own.
// Exit codes: 0 no difference beyond tolerance, 1 some, 2 bad input (a file
// missing or not an hcasim stats.json, a malformed --tol).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "testbench/cli/junit.hpp"
#include "testbench/cli/stats_compare.hpp"

namespace hcasim {

int compare_command(int argc, char* argv[]);

// A stats.json read from a file, or from DIR/stats.json for a folder; throws
// std::invalid_argument naming the file when it is missing, not JSON or not
// an hcasim stats document.
nlohmann::json read_stats_file(const std::string& path);
// A run's results: its stats.json as read_stats_file reads it, and the
// results.db beside it unless the document holds its own tables (a golden).
RunResults read_results(const std::string& path);

// The differences as lines under a summary line, e.g.
// "2 of 1,406 values differ from the golden stats.json:\n  flows.0...\n".
std::string comparison_report(const Comparison& c);

// A scenario's verdict as one JUnit case: passed, or failed with the report.
JunitCase comparison_case(const std::string& classname, const std::string& name, const Comparison& c);

}  // namespace hcasim
