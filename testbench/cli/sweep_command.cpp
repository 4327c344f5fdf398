#include "testbench/cli/sweep_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "models/config/config_error.hpp"
#include "testbench/cli/output_folder.hpp"
#include "testbench/cli/process_pool.hpp"
#include "testbench/cli/scenario_file.hpp"
#include "testbench/cli/slurm_backend.hpp"
#include "testbench/cli/stats_document.hpp"
#include "testbench/cli/sqlite_db.hpp"
#include "testbench/cli/sweep_db.hpp"
#include "testbench/cli/sweep_spec.hpp"
#include "testbench/cli/sweep_table.hpp"

namespace fs = std::filesystem;

namespace hcasim {

const char* const kSweepUsage =
    "usage: hcasim sweep SWEEP.json [--out DIR] [--jobs N] [--backend local|slurm] [--quiet]\n"
    "                    [--dry-run] [--partition P] [--time T] [--account A] [--sbatch OPTION ...]\n"
    "  Runs every point of the sweep file (docs/sweeps.md) once per seed and writes\n"
    "  DIR/results.csv, DIR/results.json and DIR/results.db (the table as \"runs\", and every run's\n"
    "  detail tables with its id and axes; default DIR: out/sweeps/<sweep name>).\n"
    "  --jobs N       local: runs at once (default: the machine's cores); slurm: array tasks at once (%N)\n"
    "  --backend      local (default): processes on this machine; slurm: one sbatch job array\n"
    "  --dry-run      slurm: write DIR/slurm/sweep.sbatch and stop\n"
    "  --partition, --time, --account, --sbatch OPTION: passed to sbatch (slurm)\n"
    "  Runs already done (their stats.json there, with their config hash) are not run again.\n";

namespace {

constexpr const char* kMarker = ".hcasim-sweep";

struct SweepArgs {
  std::string file, out;
  unsigned jobs = 0;
  bool slurm = false, dry_run = false, quiet = false;
  SlurmOptions slurm_options;
};

struct Usage : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

SweepArgs parse(int argc, char* argv[]) {
  SweepArgs a;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--out") a.out = value();
    else if (arg == "--jobs") {
      a.jobs = parse_jobs(value(), 4096);
    } else if (arg == "--backend") {
      const std::string v = value();
      if (v != "local" && v != "slurm") throw Usage("--backend: '" + v + "'; accepted: local, slurm");
      a.slurm = v == "slurm";
    } else if (arg == "--dry-run") a.dry_run = true;
    else if (arg == "--quiet") a.quiet = true;
    else if (arg == "--partition") a.slurm_options.partition = value();
    else if (arg == "--time") a.slurm_options.time = value();
    else if (arg == "--account") a.slurm_options.account = value();
    else if (arg == "--sbatch") a.slurm_options.extra.push_back(value());
    else if (!arg.empty() && arg[0] != '-' && a.file.empty()) a.file = arg;
    else throw Usage("unexpected argument '" + arg + "' for sweep");
  }
  if (a.file.empty()) throw Usage("sweep: missing SWEEP.json");
  const bool slurm_only = a.dry_run || !a.slurm_options.partition.empty() || !a.slurm_options.time.empty() ||
                          !a.slurm_options.account.empty() || !a.slurm_options.extra.empty();
  if (slurm_only && !a.slurm) throw Usage("--dry-run, --partition, --time, --account and --sbatch need --backend slurm");
  if (a.slurm) a.slurm_options.max_running = a.jobs;
  return a;
}

// What a run would be: its config hash and expected cost (0: cannot tell).
struct Plan {
  std::string hash;
  double cost = 0;
};

Plan plan(const SweepSpec& spec, const SweepRun& r) {
  Plan p;
  try {
    nlohmann::json root;
    const config::Scenario s = load_scenario_file({spec.scenario, r.sets, r.seed, false, false}, root);
    p.hash = config_hash(config::resolved_json(s));
    p.cost = static_cast<double>(s.run.duration_ps) * static_cast<double>(config::port_names(s).size());
  } catch (const std::exception&) {
    // The run itself reports the error (exit 2) in its own log.
  }
  return p;
}

// The run's error line: its first "hcasim:" or "check failed:" line that is not a
// notice ("hcasim: note:", how the scenario was read) or a warning (the run
// went on), else its last line.
std::string error_line(const std::string& err) {
  std::istringstream in(err);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.rfind("hcasim: note: ", 0) == 0 || line.rfind("hcasim: warning: ", 0) == 0) continue;
    if (line.rfind("hcasim: ", 0) == 0 || line.rfind("check failed: ", 0) == 0) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

bool read_exit(const fs::path& p, int& code) {
  std::ifstream in(p);
  return static_cast<bool>(in >> code);
}

// What a metric's path is read from: stats.json, or for a path
// "tables.TABLE...." {"tables": {TABLE: [its rows]}} from the run's results.db
// (none when it has no such file or table).
nlohmann::json metric_source(const nlohmann::json& stats, const std::string& path, const fs::path& run_dir) {
  if (path.rfind("tables.", 0) != 0) return stats;
  const std::string table = path.substr(7, path.find('.', 7) == std::string::npos ? std::string::npos : path.find('.', 7) - 7);
  nlohmann::json rows = nlohmann::json::array();
  const fs::path db = run_dir / "results.db";
  std::error_code ec;
  if (!fs::exists(db, ec)) return nlohmann::json::object();
  SqliteDb d(db.string(), SqliteDb::Mode::ReadOnly);
  if (!d.has_table(table)) return nlohmann::json::object();
  d.each_row("SELECT * FROM " + sql_name(table) + " ORDER BY rowid", [&](const nlohmann::json& row) { rows.push_back(row); });
  return {{"tables", {{table, std::move(rows)}}}};
}

SweepOutcome collect(const SweepSpec& spec, const fs::path& dir, const SweepRun& r, const Plan& p) {
  SweepOutcome o;
  if (r.seed) o.seed = *r.seed;
  if (!read_exit(dir / "logs" / (r.id + ".exit"), o.exit_code)) {
    o.exit_code = -1;
    o.error = "did not finish";
    return o;
  }
  if (o.exit_code != 0) o.error = error_line(file_text((dir / "logs" / (r.id + ".err")).string()));
  const fs::path stats = dir / "runs" / r.id / "stats.json";
  if ((o.exit_code == 0 || o.exit_code == 1) && fs::exists(stats)) {
    try {
      const nlohmann::json doc = read_json_file(stats.string());
      if (doc.at("run").at("config_hash") != p.hash) {
        o.error = "stats.json is not this run's (config hash differs)";
        return o;
      }
      o.seed = doc.at("run").at("seed");
      for (const SweepMetric& m : spec.metrics) {
        std::vector<MetricCell> cells = pick_metric(metric_source(doc, m.path, dir / "runs" / r.id), m.name, m.path);
        o.metrics.insert(o.metrics.end(), cells.begin(), cells.end());
      }
    } catch (const std::exception& e) {
      o.error = std::string("stats.json unreadable: ") + e.what();
    }
  }
  return o;
}

bool done_before(const fs::path& dir, const SweepRun& r, const Plan& p) {
  int code = 0;
  if (p.hash.empty() || !read_exit(dir / "logs" / (r.id + ".exit"), code)) return false;
  try {
    const nlohmann::json doc = read_json_file((dir / "runs" / r.id / "stats.json").string());
    return doc.at("run").at("config_hash") == p.hash;
  } catch (const std::exception&) {
    return false;
  }
}

class SweepProgress {
 public:
  SweepProgress(bool quiet, std::size_t total, double total_cost)
      : quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1), total_(total), total_cost_(total_cost),
        started_(std::chrono::steady_clock::now()) {}
  void reused(std::size_t n) { reused_ = n; done_ = n; }
  void finished(bool ok, double cost) {
    ++done_;
    failed_ += !ok;
    done_cost_ += cost;
    ++finished_;
  }
  void set_running(std::size_t n) { running_ = n; }
  // At most once a second, and when every run is done.
  void print(bool last = false) {
    if (quiet_) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (printed_ && wall - printed_at_ < 1.0 && done_ < total_) return;
    printed_ = true;
    printed_at_ = wall;
    std::fprintf(stderr, "%ssweep: %zu/%zu runs done (%zu reused), %zu failed, %zu running", tty_ && !last ? "\r" : "",
                 done_, total_, reused_, failed_, running_);
    if (!last && finished_ > 0 && done_ < total_) {
      // By expected cost when the sweep can tell, else by count.
      const double left = done_cost_ > 0 ? (total_cost_ - done_cost_) / done_cost_
                                         : static_cast<double>(total_ - done_) / static_cast<double>(finished_);
      std::fprintf(stderr, ", ETA %.0f s", wall * left);
    }
    std::fprintf(stderr, "%s", tty_ && !last ? "   " : "\n");
    std::fflush(stderr);
  }

 private:
  bool quiet_, tty_;
  std::size_t total_, done_ = 0, reused_ = 0, failed_ = 0, running_ = 0, finished_ = 0;
  double total_cost_, done_cost_ = 0;
  bool printed_ = false;
  double printed_at_ = 0;
  std::chrono::steady_clock::time_point started_;
};

void write_results(const SweepSpec& spec, const fs::path& dir, const std::vector<SweepRun>& runs,
                   const std::vector<Plan>& plans) {
  std::vector<SweepOutcome> outcomes;
  for (std::size_t i = 0; i < runs.size(); ++i) outcomes.push_back(collect(spec, dir, runs[i], plans[i]));
  const SweepTable t = make_table(spec, runs, outcomes);
  std::ofstream(dir / "results.csv") << table_csv(t);
  std::ofstream(dir / "results.json") << table_json(spec, t).dump(2) << "\n";
  write_sweep_db(dir / "results.db", spec, t, runs, dir / "runs");
}

int sweep(const SweepArgs& a) {
  const SweepSpec spec = parse_sweep(read_json_file(a.file), a.file);
  const std::vector<SweepRun> runs = expand_runs(spec);
  const fs::path dir = a.out.empty() ? fs::path("out/sweeps") / spec.name : fs::path(a.out);
  claim_output_folder(dir.string(), kMarker, "hcasim sweep");
  std::error_code made;
  for (const char* sub : {"runs", "logs"}) fs::create_directories(dir / sub, made);
  if (made) throw Usage("--out " + dir.string() + ": cannot create: " + made.message());
  std::ofstream(dir / "sweep.json") << file_text(a.file);
  const std::string program = own_program_path();

  std::vector<Plan> plans;
  for (const SweepRun& r : runs) plans.push_back(plan(spec, r));
  std::vector<std::size_t> todo;
  double total_cost = 0;
  bool costs_known = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    total_cost += plans[i].cost;
    costs_known = costs_known && plans[i].cost > 0;
    if (done_before(dir, runs[i], plans[i])) continue;
    std::error_code ec;
    fs::remove_all(dir / "runs" / runs[i].id, ec);
    for (const char* ext : {".out", ".err", ".exit"}) fs::remove(dir / "logs" / (runs[i].id + ext), ec);
    todo.push_back(i);
  }
  if (!costs_known) {
    total_cost = 0;
    for (Plan& p : plans) p.cost = 0;
  }
  if (costs_known)
    std::stable_sort(todo.begin(), todo.end(), [&](std::size_t x, std::size_t y) { return plans[x].cost > plans[y].cost; });

  auto command = [&](const SweepRun& r) {
    std::vector<std::string> argv = {program, "run", fs::absolute(spec.scenario).string(), "--quiet", "--out",
                                     fs::absolute(dir / "runs" / r.id).string()};
    if (r.seed) {
      argv.push_back("--seed");
      argv.push_back(std::to_string(*r.seed));
    }
    for (const std::string& s : r.sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    return argv;
  };
  auto log = [&](const SweepRun& r, const char* ext) { return fs::absolute(dir / "logs" / (r.id + ext)).string(); };

  SweepProgress progress(a.quiet, runs.size(), total_cost);
  progress.reused(runs.size() - todo.size());
  bool complete = true;
  if (a.slurm) {
    std::vector<SlurmTask> tasks;
    for (std::size_t i : todo)
      tasks.push_back({runs[i].id, command(runs[i]), log(runs[i], ".out"), log(runs[i], ".err"), log(runs[i], ".exit")});
    std::error_code ec;
    fs::create_directories(dir / "slurm", ec);
    const std::string script = write_job(fs::absolute(dir / "slurm").string(), "hcasim-" + spec.name, tasks, a.slurm_options);
    if (a.dry_run) {
      std::cout << "sweep " << spec.name << ": " << tasks.size() << " of " << runs.size()
                << " runs to do; submit with: sbatch " << script << "\n";
      return 0;
    }
    if (!tasks.empty()) {
      const std::string job = submit(script);
      if (!a.quiet) std::fprintf(stderr, "sweep: submitted Slurm job %s (%zu tasks)\n", job.c_str(), tasks.size());
      std::vector<bool> seen(todo.size(), false);
      complete = wait_for(job, 1000, [&] {
        std::size_t running = 0;
        for (std::size_t k = 0; k < todo.size(); ++k) {
          int code = 0;
          if (seen[k] || !read_exit(dir / "logs" / (runs[todo[k]].id + ".exit"), code)) {
            running += !seen[k] && fs::exists(dir / "logs" / (runs[todo[k]].id + ".err"));
            continue;
          }
          seen[k] = true;
          progress.finished(code == 0, plans[todo[k]].cost);
        }
        progress.set_running(running);
        progress.print();
      });
    }
  } else {
    std::vector<ChildJob> jobs;
    for (std::size_t i : todo) jobs.push_back({command(runs[i]), log(runs[i], ".out"), log(runs[i], ".err")});
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const unsigned at_once = a.jobs ? a.jobs : cores;
    std::size_t finished = 0;
    progress.set_running(std::min<std::size_t>(at_once, todo.size()));
    progress.print();
    complete = run_jobs(jobs, at_once, [&](std::size_t k, const ChildEnd& end) {
      const SweepRun& r = runs[todo[k]];
      const int code = end.exit_code;
      std::ofstream(dir / "logs" / (r.id + ".exit")) << code << "\n";
      ++finished;
      progress.set_running(std::min<std::size_t>(at_once, todo.size() - finished));
      progress.finished(code == 0, plans[todo[k]].cost);
      progress.print();
    });
  }
  write_results(spec, dir, runs, plans);
  std::size_t failed = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    int code = -1;
    failed += !read_exit(dir / "logs" / (runs[i].id + ".exit"), code) || code != 0;
  }
  progress.set_running(0);
  if (!a.quiet) std::fprintf(stderr, "sweep: %zu runs: %zu run now, %zu reused, %zu failed%s\n", runs.size(), todo.size(),
                             runs.size() - todo.size(), failed, complete ? "" : "; interrupted");
  std::cout << "sweep " << spec.name << ": " << runs.size() - failed << " of " << runs.size() << " runs ok; results in "
            << (dir / "results.csv").string() << "\n";
  return complete && failed == 0 ? 0 : 1;
}

}  // namespace

int sweep_command(int argc, char* argv[]) {
  try {
    for (int i = 2; i < argc; ++i)
      if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
        std::cout << kSweepUsage;
        return 0;
      }
    return sweep(parse(argc, argv));
  } catch (const config::ConfigError& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {  // Usage, a file that cannot be read
    std::cerr << "hcasim: " << e.what() << "\n";
  } catch (const std::runtime_error& e) {
    std::cerr << "hcasim: sweep: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace hcasim
