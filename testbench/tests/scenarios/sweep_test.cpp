// hcasim sweep end to end on a shipped scenario (configs/b2b_hdr.json): the
// table's values are those of the same points run one by one, an interrupted
// sweep finishes only what is missing, and a failed point is a row with its
// exit code and error line (sweep_command.hpp).
#include <catch2/catch.hpp>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "testbench/cli/scenario_file.hpp"
#include "testbench/cli/slurm_backend.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// 3 x 4 points x 2 seeds over configs/b2b_hdr.json.
json sweep_file(const std::vector<std::string>& extra_sets = {}) {
  json j = {{"scenario", config_path("b2b_hdr.json")},
            {"set", {"outputs.pcap=false", "outputs.vcd=false"}},
            {"axes",
             {{{"path", "port.vl_buffer"}, {"name", "vl_buffer"}, {"values", {"8KiB", "16KiB", "32KiB"}}},
              {{"path", "link.propagation"}, {"name", "cable"}, {"values", {"2m", "100m", "300m", "1000m"}}}}},
            {"seeds", {1, 2}},
            {"metrics",
             {{{"name", "tput"}, {"path", "tables.flows.*.data_throughput_bps"}},  // from each run's results.db
              {{"name", "p99"}, {"path", "flows.first.*.latency.p99_ns"}},        // from its stats.json
              {{"name", "end"}, {"path", "run.sim_time_ps"}}}}};
  for (const std::string& s : extra_sets) j["set"].push_back(s);
  return j;
}

json results(const fs::path& out) { return read_json_file((out / "results.json").string()); }

int count_exits(const fs::path& logs) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(logs, ec)) n += e.path().extension() == ".exit";
  return n;
}

}  // namespace

TEST_CASE("sweep: 3 x 4 points x 2 seeds on all cores give 24 rows equal to the same points run one by one", "[slow]") {
  const ScratchDir dir("sweep-local");
  const std::string file = write_file(dir / "s.json", sweep_file().dump());
  const CommandResult r = run_command("sweep " + file + " --out " + (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json t = results(dir / "out");
  REQUIRE(t["rows"].size() == 24);
  const std::vector<std::string> metrics = t["metrics"];
  CHECK(metrics.size() == 4 + 4 + 1);  // b2b_hdr's four flows twice, and the end time
  std::set<std::pair<std::string, std::string>> points;
  for (const json& row : t["rows"]) {
    INFO(row.dump());
    CHECK(row["exit_code"] == 0);
    points.insert({row["vl_buffer"].get<std::string>(), row["cable"].get<std::string>()});
    // The same point by hand.
    const std::string one = (dir / ("one-" + row["run"].get<std::string>())).string();
    const CommandResult o = run_command("run " + config_path("b2b_hdr.json") + " --quiet --out " + one +
                                            " --seed " + row["seed"].dump() + " --set outputs.pcap=false" +
                                            " --set outputs.vcd=false --set port.vl_buffer=" + row["vl_buffer"].get<std::string>() +
                                            " --set link.propagation=" + row["cable"].get<std::string>(),
                                        dir);
    REQUIRE(o.exit_code == 0);
    const json s = read_json_file(one + "/stats.json");
    REQUIRE(s["flows"]["first"].size() == 4);
    for (const json& f : s["flows"]["first"]) {
      CHECK(row["tput[" + f["name"].get<std::string>() + "]"] == f["data_throughput_bps"]);
      CHECK(row["p99[" + f["name"].get<std::string>() + "]"] == f["latency"]["p99_ns"]);
    }
    CHECK(row["end"] == s["run"]["sim_time_ps"]);
  }
  CHECK(points.size() == 12);
  // The CSV has the same rows: a header and 24 lines.
  CHECK(count_lines(slurp(dir / "out" / "results.csv")) == 25);
  // results.db: the table as "runs", and every run's ports (two each) led by its id and axes.
  SqliteDb db((dir / "out" / "results.db").string(), SqliteDb::Mode::ReadOnly);
  std::vector<json> runs, ports;
  db.each_row("SELECT * FROM runs ORDER BY rowid", [&](const json& r) { runs.push_back(r); });
  db.each_row("SELECT * FROM ports ORDER BY rowid", [&](const json& r) { ports.push_back(r); });
  REQUIRE(runs.size() == 24);
  REQUIRE(ports.size() == 2 * 24);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const json& row = t["rows"][i];
    CHECK(runs[i]["run"] == row["run"]);
    CHECK(runs[i]["tput[bulk_sl0]"] == row["tput[bulk_sl0]"]);
    CHECK(ports[2 * i]["run"] == row["run"]);
    CHECK(ports[2 * i]["axis_vl_buffer"] == row["vl_buffer"]);
    CHECK(ports[2 * i]["axis_cable"] == row["cable"]);
    CHECK(ports[2 * i]["name"] == "hca0.p1");
    CHECK(ports[2 * i + 1]["name"] == "hca1.p1");
  }
}

TEST_CASE("sweep: killed halfway, run again, it runs only the missing points and gives the same table", "[slow]") {
  const ScratchDir dir("sweep-resume");
  // Longer runs (about 0.1-0.3 s each), one at a time, so the kill lands halfway.
  const std::string file = write_file(dir / "s.json", sweep_file({"workload.flows.0.count=40000"}).dump());
  const fs::path out = dir / "out";
  const std::string pid_file = (dir / "pid").string();
  run_shell("(" + std::string(HCASIM_BINARY) + " sweep " + file + " --jobs 1 --quiet --out " + out.string() +
                " & echo $! >" + pid_file + ")",
            dir);
  const int pid = std::stoi(slurp(pid_file));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count_exits(out / "logs") < 8 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGTERM);
  while (::kill(pid, 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int done = count_exits(out / "logs");
  INFO("runs done before the kill: " << done);
  REQUIRE(done >= 8);
  REQUIRE(done < 24);
  // What the finished runs wrote, to see it is not written again.
  std::map<std::string, fs::file_time_type> kept;
  for (const auto& e : fs::directory_iterator(out / "logs"))
    if (e.path().extension() == ".exit") kept[e.path().stem().string()] = fs::last_write_time(out / "runs" / e.path().stem() / "stats.json");

  const CommandResult again = run_command("sweep " + file + " --out " + out.string(), dir);
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(again.err.find("24 runs: " + std::to_string(24 - done) + " run now, " + std::to_string(done) + " reused") !=
        std::string::npos);
  for (const auto& [id, time] : kept) CHECK(fs::last_write_time(out / "runs" / id / "stats.json") == time);
  const json resumed = results(out);
  REQUIRE(resumed["rows"].size() == 24);

  // The same table as a sweep that ran through.
  const CommandResult whole = run_command("sweep " + file + " --quiet --out " + (dir / "whole").string(), dir);
  REQUIRE(whole.exit_code == 0);
  CHECK(slurp(out / "results.csv") == slurp(dir / "whole" / "results.csv"));
}

TEST_CASE("sweep: a point that fails is a row with its exit code and error line, and the others run") {
  const ScratchDir dir("sweep-failed");
  json j = sweep_file();
  j["axes"][1]["values"] = {"2m", "1mi"};  // "1mi" is not a length hcasim takes
  j["seeds"] = {1};
  const std::string file = write_file(dir / "s.json", j.dump());
  const CommandResult r = run_command("sweep " + file + " --quiet --out " + (dir / "out").string(), dir);
  CHECK(r.exit_code == 1);
  const json t = results(dir / "out");
  REQUIRE(t["rows"].size() == 6);
  for (const json& row : t["rows"]) {
    INFO(row.dump());
    if (row["cable"] == "2m") {
      CHECK(row["exit_code"] == 0);
      CHECK(row["tput[bulk_sl0]"].is_number());
    } else {
      CHECK(row["exit_code"] == 2);
      CHECK(row["error"].get<std::string>().rfind("hcasim: link.propagation:", 0) == 0);
      CHECK(row["tput[bulk_sl0]"].is_null());
    }
  }
}

TEST_CASE("sweep: bad arguments and a folder of someone else's files are refused with one line, exit 2") {
  const ScratchDir dir("sweep-bad");
  const std::string file = write_file(dir / "s.json", sweep_file().dump());
  write_file(dir / "theirs.txt", "mine");
  for (const std::string& args : std::vector<std::string>{"sweep " + file + " --jobs 0", "sweep " + file + " --backend pbs",
                                  "sweep " + file + " --dry-run", "sweep", "sweep " + file + " --out " + dir.file(""),
                                  "sweep " + write_file(dir / "bad.json", R"({"scenario": "x.json", "axes": []})")}) {
    INFO(args);
    const CommandResult r = run_command(args, dir);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
  }
}

TEST_CASE("sweep --backend slurm --dry-run writes a job array of the runs to do, one task each, and submits nothing") {
  const ScratchDir dir("sweep-dry");
  const std::string file = write_file(dir / "s.json", sweep_file().dump());
  const CommandResult r = run_command("sweep " + file + " --backend slurm --dry-run --jobs 3 --partition debug"
                                      " --time 0:10:00 --account lab --sbatch --mem=1G --out " + (dir / "out").string(),
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string script = slurp(dir / "out" / "slurm" / "sweep.sbatch");
  CHECK(script.find("#SBATCH --array=0-23%3\n") != std::string::npos);
  CHECK(script.find("#SBATCH --partition=debug\n") != std::string::npos);
  CHECK(script.find("#SBATCH --time=0:10:00\n") != std::string::npos);
  CHECK(script.find("#SBATCH --account=lab\n") != std::string::npos);
  CHECK(script.find("#SBATCH --mem=1G\n") != std::string::npos);
  CHECK(count_lines(slurp(dir / "out" / "slurm" / "tasks.tsv")) == 24);
  CHECK_FALSE(fs::exists(dir / "out" / "results.csv"));
  // The script runs a task by hand as Slurm would: its run, its exit code.
  const CommandResult task = run_shell("SLURM_ARRAY_TASK_ID=5 bash " + (dir / "out" / "slurm" / "sweep.sbatch").string(), dir);
  CHECK(task.exit_code == 0);
  CHECK(slurp(dir / "out" / "logs" / "p0002-s01.exit") == "0\n");
  CHECK(fs::exists(dir / "out" / "runs" / "p0002-s01" / "stats.json"));
}
