#include "testbench/cli/compare_command.hpp"

#include "testbench/cli/scenario_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace hcasim {

namespace {

const char* kCompareUsage =
    "usage: hcasim compare GOLDEN NEW [--tol PATH=REL ...] [--junit FILE]\n"
    "  GOLDEN, NEW: run folders (stats.json and results.db), stats.json files (a results.db beside one\n"
    "               is read too), or goldens (stats.json with the tables in it: hcasim regress --update)\n"
    "  --tol PATH=REL: relative tolerance for the values the path matches (* one element, ** any number),\n"
    "                  e.g. flows.*.data_throughput_bps=0.02; default: exact for integers, 1e-9 for fractions\n"
    "  --junit FILE: also write the verdict as JUnit XML\n"
    "  The tables are compared row by row; a table value's path is tables.TABLE.ROW.COLUMN.\n"
    "  The wall section (wall-clock figures) is not compared. Exit: 0 same within tolerance, 1 differ, 2 bad input.\n";

struct CompareArgs {
  std::string golden, now, junit;
  std::vector<Tolerance> tolerances;
  bool help = false;
};

CompareArgs parse_compare_args(int argc, char* argv[]) {
  CompareArgs a;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") a.help = true;
    else if (arg == "--tol") a.tolerances.push_back(parse_tolerance(value()));
    else if (arg == "--junit") a.junit = value();
    else if (!arg.empty() && arg[0] != '-' && files.size() < 2) files.push_back(arg);
    else throw std::invalid_argument("compare: unexpected argument '" + arg + "'; accepted: GOLDEN NEW [--tol PATH=REL ...] [--junit FILE]");
  }
  if (!a.help && files.size() != 2)
    throw std::invalid_argument("compare: expected two stats.json files (GOLDEN NEW), got " + std::to_string(files.size()));
  if (files.size() == 2) {
    a.golden = files[0];
    a.now = files[1];
  }
  return a;
}

std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

}  // namespace

RunResults read_results(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file = fs::is_directory(path, ec) ? fs::path(path) / "stats.json" : fs::path(path);
  RunResults r;
  r.stats = read_stats_file(file.string());
  const fs::path db = file.parent_path() / "results.db";
  if (!r.stats.contains("tables") && fs::exists(db, ec)) r.db = db.string();
  return r;
}

nlohmann::json read_stats_file(const std::string& path) {
  std::error_code ec;
  const std::string file = std::filesystem::is_directory(path, ec) ? (std::filesystem::path(path) / "stats.json").string() : path;
  const nlohmann::json doc = read_json_file(file);
  if (!is_stats_document(doc))
    throw std::invalid_argument(file + ": not an hcasim stats document; accepted: a stats.json with \"schema\": \"hcasim-stats\"");
  return doc;
}

std::string comparison_report(const Comparison& c) {
  std::string out = c.same() ? "all " + with_commas(c.values) + " values as in the golden results\n"
                             : with_commas(c.differences.size()) + " of " + with_commas(c.values) +
                                   " values differ from the golden results:\n";
  for (const std::string& line : report_lines(c.differences)) out += "  " + line + "\n";
  return out;
}

JunitCase comparison_case(const std::string& classname, const std::string& name, const Comparison& c) {
  JunitCase jc;
  jc.classname = classname;
  jc.name = name;
  if (!c.same()) {
    jc.outcome = JunitCase::Outcome::Failed;
    jc.text = comparison_report(c);
  }
  return jc;
}

int compare_command(int argc, char* argv[]) {
  try {
    const CompareArgs a = parse_compare_args(argc, argv);
    if (a.help) {
      std::cout << kCompareUsage;
      return 0;
    }
    if (!a.junit.empty()) check_junit_target(a.junit);
    const RunResults golden = read_results(a.golden);
    const RunResults results = read_results(a.now);
    const nlohmann::json& now = results.stats;
    const Comparison c = compare_results(golden, results, a.tolerances);
    std::cout << comparison_report(c);
    if (!a.junit.empty()) {
      const auto run = now.find("run");
      const std::string scenario = run != now.end() && run->is_object() && run->contains("scenario") &&
                                           (*run)["scenario"].is_string()
                                       ? (*run)["scenario"].get<std::string>()
                                       : std::string("stats.json");
      write_junit(a.junit, {{"hcasim compare", {comparison_case("compare." + scenario, scenario, c)}}});
    }
    return c.same() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace hcasim
