#include "testbench/cli/regress_command.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <stdlib.h>

#include "testbench/cli/compare_command.hpp"
#include "testbench/cli/process_pool.hpp"
#include "testbench/cli/regress_suite.hpp"
#include "testbench/cli/scenario_file.hpp"

namespace hcasim {

namespace {

namespace fs = std::filesystem;

const char* kRegressUsage =
    "usage: hcasim regress SUITE_DIR [--update] [--junit FILE] [--jobs N] [--tol PATH=REL ...] [--keep]\n"
    "  runs every SUITE_DIR/NAME.json and compares its stats.json with SUITE_DIR/NAME.golden.json\n"
    "  (tolerances: SUITE_DIR/tolerances.json, then --tol; see hcasim compare --help)\n"
    "  --update: write the goldens from these runs (runs that fail a check write none)\n"
    "  --junit FILE: one JUnit test case per scenario\n"
    "  --jobs N: runs at a time (default: the machine's cores)\n"
    "  --keep: keep the scratch folder of the runs (its path is printed)\n"
    "  Exit: 0 all passed, 1 any failed, 2 bad input.\n";

struct RegressArgs {
  std::string suite, junit;
  bool update = false, keep = false, help = false;
  unsigned jobs = 0;
  std::vector<Tolerance> tolerances;
};

RegressArgs parse_regress_args(int argc, char* argv[]) {
  RegressArgs a;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") a.help = true;
    else if (arg == "--update") a.update = true;
    else if (arg == "--keep") a.keep = true;
    else if (arg == "--junit") a.junit = value();
    else if (arg == "--tol") a.tolerances.push_back(parse_tolerance(value()));
    else if (arg == "--jobs") {
      a.jobs = parse_jobs(value(), 1024);
    } else if (!arg.empty() && arg[0] != '-' && a.suite.empty()) a.suite = arg;
    else throw std::invalid_argument("regress: unexpected argument '" + arg + "'; accepted: SUITE_DIR [--update] [--junit FILE] [--jobs N] [--tol PATH=REL ...] [--keep]");
  }
  if (!a.help && a.suite.empty()) throw std::invalid_argument("regress: missing SUITE_DIR");
  if (a.jobs == 0) a.jobs = std::max(1u, std::thread::hardware_concurrency());
  return a;
}

struct Job {
  const SuiteScenario* scenario = nullptr;
  fs::path out;   // the run's folder
  RunOutcome outcome;
};

// Runs every job as its own hcasim run, at most `jobs` at a time.
void run_all(std::vector<Job>& all, unsigned jobs, const fs::path& scratch) {
  const std::string self = own_program_path();
  std::vector<ChildJob> children;
  for (const Job& j : all)
    children.push_back({{self, "run", j.scenario->scenario.string(), "--out", j.out.string(), "--quiet"},
                        (scratch / (j.scenario->name + ".stdout")).string(),
                        (scratch / (j.scenario->name + ".stderr")).string()});
  run_jobs(children, jobs, [&](std::size_t i, const ChildEnd& end) {
    RunOutcome& o = all[i].outcome;
    o.seconds = end.seconds;
    o.exit_code = end.signal ? -1 : end.exit_code;
    o.signal = end.signal;
    o.stderr_text = file_text(children[i].stderr_file);
  });
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out.flush()) throw std::runtime_error(p.string() + ": cannot write");
}

// Compares (or, with --update, writes) one scenario's golden; the verdict as a JUnit case.
JunitCase judge(const Job& j, const RegressArgs& a, const std::vector<Tolerance>& tolerances,
                const std::string& classname) {
  const SuiteScenario& s = *j.scenario;
  if (j.outcome.exit_code != 0) {
    JunitCase c = failed_run_case(classname, s.name, j.outcome);
    if (a.update) c.text = "no golden written: " + c.text;
    return c;
  }
  JunitCase c;
  c.classname = classname;
  c.name = s.name;
  c.seconds = j.outcome.seconds;
  nlohmann::json stats;
  try {
    stats = golden_of(read_stats_file((j.out / "stats.json").string()));
    if (fs::exists(j.out / "results.db")) stats["tables"] = tables_json((j.out / "results.db").string());
  } catch (const std::exception& e) {
    c.outcome = JunitCase::Outcome::Error;
    c.text = std::string("the run wrote no result: ") + e.what() + "\n";
    return c;
  }
  std::error_code ec;
  const bool has_golden = fs::exists(s.golden, ec);
  if (a.update) {
    std::string note = "new";
    if (has_golden) {
      try {
        const Comparison was = compare_results({read_stats_file(s.golden.string()), ""}, {stats, ""}, {});
        if (was.same()) {
          std::cout << "kept " << s.golden.string() << " (unchanged)\n";
          return c;
        }
        note = std::to_string(was.differences.size()) + " values changed";
      } catch (const std::invalid_argument&) {
        note = "the old one was not a stats document";
      }
    }
    write_text(s.golden, stats.dump(2) + "\n");
    std::cout << "wrote " << s.golden.string() << " (" << note << ")\n";
    return c;
  }
  if (!has_golden) {
    c.outcome = JunitCase::Outcome::Failed;
    c.text = "no golden " + s.golden.string() + "; run hcasim regress " + a.suite + " --update to write it\n";
    return c;
  }
  try {
    const Comparison cmp = compare_results({read_stats_file(s.golden.string()), ""}, {stats, ""}, tolerances);
    JunitCase judged = comparison_case(classname, s.name, cmp);
    judged.seconds = c.seconds;
    return judged;
  } catch (const std::invalid_argument& e) {
    c.outcome = JunitCase::Outcome::Error;
    c.text = std::string("bad golden: ") + e.what() + "\n";
    return c;
  }
}

// A scratch folder for the runs, made fresh under the temporary folder.
fs::path make_scratch() {
  std::string tmpl = (fs::temp_directory_path() / "hcasim-regress-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot make a scratch folder like " + tmpl + ": " + std::strerror(errno));
  return tmpl;
}

int regress(const RegressArgs& a) {
  if (!a.junit.empty()) check_junit_target(a.junit);
  const std::vector<SuiteScenario> scenarios = suite_scenarios(a.suite);
  std::vector<Tolerance> tolerances = suite_tolerances(a.suite);
  tolerances.insert(tolerances.end(), a.tolerances.begin(), a.tolerances.end());
  const fs::path scratch = make_scratch();
  std::vector<Job> jobs(scenarios.size());
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    jobs[i].scenario = &scenarios[i];
    jobs[i].out = scratch / scenarios[i].name;
  }
  const std::string suite_name = fs::path(a.suite).lexically_normal().filename().empty()
                                     ? fs::path(a.suite).lexically_normal().parent_path().filename().string()
                                     : fs::path(a.suite).lexically_normal().filename().string();
  const std::string classname = "regress." + suite_name;
  try {
    run_all(jobs, a.jobs, scratch);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
    throw;
  }
  std::vector<JunitCase> cases;
  std::size_t failed = 0;
  for (const Job& j : jobs) {
    cases.push_back(judge(j, a, tolerances, classname));
    const JunitCase& c = cases.back();
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s", c.seconds);
    if (c.outcome == JunitCase::Outcome::Passed) {
      if (!a.update) std::cout << "pass " << c.name << " (" << seconds << ")\n";
      continue;
    }
    ++failed;
    std::cout << (c.outcome == JunitCase::Outcome::Error ? "error " : "FAIL ") << c.name << " (" << seconds << "): ";
    std::istringstream text(c.text);
    std::string line;
    std::getline(text, line);
    std::cout << line << "\n";
    for (int shown = 0; std::getline(text, line) && shown < 20; ++shown) std::cout << "  " << line << "\n";
  }
  std::cout << "regress " << a.suite << ": " << scenarios.size() << " scenarios, " << scenarios.size() - failed
            << (a.update ? " goldens up to date, " : " passed, ") << failed << " failed\n";
  if (!a.junit.empty()) write_junit(a.junit, {{"hcasim regress " + suite_name, cases}});
  std::error_code ec;
  if (a.keep) std::cout << "runs kept in " << scratch.string() << "\n";
  else fs::remove_all(scratch, ec);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int regress_command(int argc, char* argv[]) {
  try {
    const RegressArgs a = parse_regress_args(argc, argv);
    if (a.help) {
      std::cout << kRegressUsage;
      return 0;
    }
    return regress(a);
  } catch (const std::exception& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace hcasim
