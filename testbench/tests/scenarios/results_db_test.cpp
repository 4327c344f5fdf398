// results.db (docs/results.md): read by Python's own sqlite3 module, its
// tables are the documented ones, a row per object, each value the one the
// run's details.json (the objects stats.json listed before the database)
// gives; and docs/results-db.md is what `hcasim tables` prints.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = HCASIM_SOURCE_DIR;

// The regression suite's scenarios: small copies of every shipped scenario (testbench/regress/README.md).
std::vector<fs::path> shipped_small_scenarios() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSource / "testbench" / "regress")) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name.find(".golden.") == std::string::npos) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("docs/results-db.md is what hcasim tables prints") {
  const auto dir = scratch("tables-reference");
  const CommandResult r = run_command("tables", dir);
  REQUIRE(r.exit_code == 0);
  // Regenerate with: build/hcasim tables > docs/results-db.md
  REQUIRE(r.out == slurp(kSource / "docs" / "results-db.md"));
}

TEST_CASE("results.db read with Python's sqlite3: every table documented, a row per object, every port, VL, flow, "
          "QP and host value as details.json has it, on the shipped scenarios") {
  const auto dir = scratch("results-db-python");
  const std::vector<fs::path> scenarios = shipped_small_scenarios();
  REQUIRE(scenarios.size() >= 10);
  std::string runs;
  for (const fs::path& s : scenarios) {
    const std::string out = (dir / s.stem()).string();
    const CommandResult r = run_command("run " + s.string() + " --quiet --set outputs.details=both --out " + out, dir);
    INFO(s << "\n" << r.err);
    REQUIRE(r.exit_code == 0);
    runs += " " + out;
  }
  const CommandResult check = run_shell("/usr/bin/python3 " +
                                            (kSource / "testbench/tests/scenarios/results_db_check.py").string() + " " +
                                            (kSource / "docs" / "results-db.md").string() + runs,
                                        dir);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  CHECK(count_lines(check.out) == static_cast<int>(scenarios.size()));
}

TEST_CASE("outputs.details json is refused above 20,000 ports and flows, in one line naming it (exit 2)") {
  const auto dir = scratch("details-json-limit");
  // A 2-level fat tree of 92-port switches: 42,320 ports.
  const CommandResult r = run_command("run " + (kSource / "configs" / "fat_tree_uniform_load.json").string() +
                                          " --quiet --set topology.k=92 --set outputs.details=json --out " +
                                          (dir / "big").string(),
                                      dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("outputs.details: \"json\"") != std::string::npos);
  CHECK(r.err.find("this run has 42320 ports;") != std::string::npos);
  CHECK(r.err.find("accepted: \"db\"") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "big" / "stats.json"));
}
