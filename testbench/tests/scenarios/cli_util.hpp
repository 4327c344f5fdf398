#pragma once
// Runs the hcasim binary from tests and captures what it printed.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "testbench/cli/sqlite_db.hpp"

#include "testbench/tests/scratch_dir.hpp"

namespace hcasim::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh, empty scratch folder named after the test, removed when the test ends.
inline ScratchDir scratch(const std::string& name) { return ScratchDir(name); }

// A shell command line, its output kept in dir.
inline CommandResult run_shell(const std::string& command, const std::filesystem::path& dir) {
  const auto out = dir / "stdout.txt";
  const auto err = dir / "stderr.txt";
  const std::string cmd = command + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// hcasim with these arguments.
inline CommandResult run_command(const std::string& args, const std::filesystem::path& dir) {
  return run_shell(std::string(HCASIM_BINARY) + " " + args, dir);
}

inline std::string write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

// Writes a scenario (JSON text) to DIR/NAME.json and runs it: hcasim run ... --quiet --out DIR/NAME.
inline CommandResult run_scenario_json(const std::filesystem::path& dir, const std::string& name,
                                       const std::string& scenario) {
  const std::string file = write_file(dir / (name + ".json"), scenario);
  return run_command("run " + file + " --quiet --out " + (dir / name).string(), dir);
}

// Runs a scenario in a scratch folder of its own (one simulation per
// process) and returns its stats.json; the run must succeed and its link
// checker stay clean.
inline nlohmann::json run_checked(const nlohmann::json& scenario, const std::string& scratch_name) {
  static int runs = 0;
  const ScratchDir dir = scratch(scratch_name);
  const std::string name = "r" + std::to_string(runs++);
  const CommandResult r = run_scenario_json(dir, name, scenario.dump());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json stats = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  REQUIRE(stats["checker"]["ok"] == true);
  return stats;
}

// The --set that makes a run write details.json (every port, flow, QP, host
// ... in full, as outputs.details "json" does) beside results.db.
constexpr const char* kWithDetails = " --set outputs.details=both";

// A run folder's details.json: {"ports": [...], "flows": [...], ...}
// (testbench/cli/details_output.hpp). Throws when it is missing.
inline nlohmann::json read_details(const std::filesystem::path& run_dir) {
  std::ifstream in(run_dir / "details.json");
  if (!in) throw std::runtime_error((run_dir / "details.json").string() + ": missing; run with outputs.details json or both");
  return nlohmann::json::parse(in);
}

// A table of a run folder's results.db (testbench/cli/detail_tables.hpp), its
// rows in order as objects keyed by column.
inline nlohmann::json read_table(const std::filesystem::path& run_dir, const std::string& table) {
  SqliteDb db((run_dir / "results.db").string(), SqliteDb::Mode::ReadOnly);
  nlohmann::json rows = nlohmann::json::array();
  db.each_row("SELECT * FROM " + sql_name(table) + " ORDER BY rowid", [&](const nlohmann::json& r) { rows.push_back(r); });
  return rows;
}

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A mistake in a config, made with --set arguments on a base file.
struct BadCase {
  const char* what;
  std::string sets;   // --set arguments applied to the base
  const char* path;   // the JSON path the error must name
};

// Each case: exit 2 and exactly one stderr line naming the path and what is accepted.
// (Catch2 macros: include catch.hpp before this header.)
inline void check_bad_configs(const std::string& base, const std::vector<BadCase>& cases,
                              const std::filesystem::path& dir) {
  for (const BadCase& c : cases) {
    INFO(c.what);
    const CommandResult r = run_command("validate " + base + " " + c.sets, dir);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(std::string(c.path) + ":") != std::string::npos);
    CHECK(r.err.find("accepted") != std::string::npos);
  }
}

}  // namespace hcasim::test
