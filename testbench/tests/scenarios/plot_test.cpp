// hcasim plot (scripts/hcasim_plot.py): PNG and SVG written, and the values
// drawn (the sidecar CSV) are the table's, the run's and the time series'
// own, recomputed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/cli/scenario_file.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {  // no quoted fields in these files
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells(1);
    for (char c : line) {
      if (c == ',') cells.emplace_back();
      else cells.back() += c;
    }
    rows.push_back(cells);
  }
  return rows;
}

void check_pictures(const fs::path& base) {
  INFO(base.string());
  CHECK(slurp(base.string() + ".png").rfind("\x89PNG", 0) == 0);
  CHECK(slurp(base.string() + ".svg").find("<svg") != std::string::npos);
}

}  // namespace

TEST_CASE("plot sweep: one series per vl_buffer, each point the mean, min and max over the seeds of the table") {
  const ScratchDir dir("plot-sweep");
  const CommandResult s = run_command("sweep " + config_path("experiments/b2b_buffer_cable.json") + " --quiet --out " +
                                          (dir / "sweep").string(), dir);
  REQUIRE(s.exit_code == 0);
  const CommandResult r = run_command("plot sweep " + (dir / "sweep").string() +
                                          " --x cable --y 'throughput_bps[bulk_sl0]' --series vl_buffer --out " +
                                          (dir / "tput").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_pictures(dir / "tput");
  // The expected points from results.json.
  std::map<std::pair<std::string, std::string>, std::vector<double>> runs;
  const json table = read_json_file((dir / "sweep" / "results.json").string());
  for (const json& row : table["rows"])
    runs[{row["vl_buffer"].get<std::string>(), row["cable"].get<std::string>()}].push_back(row["throughput_bps[bulk_sl0]"].get<double>());
  const auto drawn = read_csv(dir / "tput.csv");
  REQUIRE(drawn.size() == 1 + 12);
  CHECK(drawn[0] == std::vector<std::string>{"series", "x", "mean", "low", "high", "runs"});
  std::set<std::string> series;
  for (std::size_t i = 1; i < drawn.size(); ++i) {
    const auto& d = drawn[i];
    INFO(d[0] << " " << d[1]);
    series.insert(d[0]);
    const std::vector<double>& v = runs.at({d[0], d[1]});
    double mean = 0;
    for (double x : v) mean += x / static_cast<double>(v.size());
    CHECK(std::stod(d[2]) == Approx(mean).epsilon(1e-12));
    CHECK(std::stod(d[3]) == Approx(*std::min_element(v.begin(), v.end())).epsilon(1e-12));
    CHECK(std::stod(d[4]) == Approx(*std::max_element(v.begin(), v.end())).epsilon(1e-12));
    CHECK(d[5] == "2");
  }
  CHECK(series == std::set<std::string>{"8KiB", "16KiB", "32KiB"});
  // From the sweep's results.db, the same values drawn.
  const CommandResult from_db = run_command("plot sweep " + (dir / "sweep" / "results.db").string() +
                                                " --x cable --y 'throughput_bps[bulk_sl0]' --series vl_buffer --out " +
                                                (dir / "tput-db").string(), dir);
  INFO(from_db.err);
  REQUIRE(from_db.exit_code == 0);
  CHECK(slurp(dir / "tput-db.csv") == slurp(dir / "tput.csv"));
  // An axis left varying is refused, naming it and how to fix it.
  const CommandResult bad = run_command("plot sweep " + (dir / "sweep").string() + " --x cable --y 'p99_ns[mgmt]'", dir);
  CHECK(bad.exit_code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("--series vl_buffer") != std::string::npos);
}

TEST_CASE("plot run: per-flow throughput and latency, and every switch port by level in the heat map") {
  const ScratchDir dir("plot-run");
  const CommandResult run = run_command("run " + config_path("fat_tree_permutation.json") + " --quiet --out " +
                                            (dir / "run").string(), dir);
  REQUIRE(run.exit_code == 0);
  const CommandResult r = run_command("plot run " + (dir / "run").string() + " --out " + (dir / "ft").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* part : {"_throughput", "_latency", "_ports"}) check_pictures(dir / (std::string("ft") + part));
  const json flows = read_table(dir / "run", "flows");
  // Throughput: every flow's, in Gb/s.
  const auto tput = read_csv(dir / "ft_throughput.csv");
  REQUIRE(tput.size() == 1 + flows.size());
  CHECK(std::stod(tput[1][2]) == Approx(flows[0]["data_throughput_bps"].get<double>() / 1e9));
  // Ports: one row per switch port; level 1 = a switch with an HCA on a port.
  std::set<std::string> switches, leaves;
  for (const json& w : read_table(dir / "run", "switches")) switches.insert(w["name"]);
  std::size_t switch_ports = 0;
  for (const json& p : read_table(dir / "run", "ports")) {
    const std::string name = p["name"], node = name.substr(0, name.rfind('.'));
    const std::string peer = p["peer"].is_string() ? p["peer"].get<std::string>() : "";
    if (switches.count(node) == 0) continue;
    ++switch_ports;
    if (!peer.empty() && switches.count(peer.substr(0, peer.rfind('.'))) == 0) leaves.insert(node);
  }
  const auto ports = read_csv(dir / "ft_ports.csv");
  REQUIRE(ports.size() == 1 + switch_ports);
  for (std::size_t i = 1; i < ports.size(); ++i) {
    INFO(ports[i][0]);
    CHECK((ports[i][1] == "1") == (leaves.count(ports[i][0]) == 1));
    CHECK(std::stod(ports[i][3]) >= 0.0);
    CHECK(std::stod(ports[i][3]) <= 1.0);
  }
}

TEST_CASE("plot timeseries: a byte count per interval drawn as Gb/s over that interval") {
  const ScratchDir dir("plot-series");
  // Two flows sampled every 1 us: 12,500 bytes in 1 us = 100 Gb/s.
  write_file(dir / "timeseries.csv",
             "time_ps,kind,name,vl,metric,value\n"
             "1000000,flow,a,,bytes_delivered,12500\n1000000,flow,b,,bytes_delivered,0\n"
             "2000000,flow,a,,bytes_delivered,6250\n2000000,flow,b,,bytes_delivered,25000\n"
             "2000000,port,x.p1,0,credits_available,7\n");
  const CommandResult r = run_command("plot timeseries " + dir.file("") + " --kind flow --out " + dir.file("ts"), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_pictures(dir / "ts");
  const auto drawn = read_csv(dir / "ts.csv");
  REQUIRE(drawn.size() == 5);
  CHECK(drawn[1] == std::vector<std::string>{"a", "1000000", "100.0"});
  CHECK(drawn[2] == std::vector<std::string>{"a", "2000000", "50.0"});
  CHECK(drawn[4] == std::vector<std::string>{"b", "2000000", "200.0"});
  const CommandResult bad = run_command("plot timeseries " + dir.file("") + " --kind port --metric bytes_sent", dir);
  CHECK(bad.exit_code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("credits_available") != std::string::npos);
}

TEST_CASE("plot sweep --reference: the published points that pass --reference-where, beside the model's line", "[slow]") {
  const ScratchDir dir("plot-reference");
  const CommandResult s = run_command("sweep " + config_path("experiments/qp_scalability.json") + " --quiet --out " +
                                          (dir / "sweep").string(), dir);
  REQUIRE(s.exit_code == 0);
  const std::string reference = (fs::path(HCASIM_SOURCE_DIR) / "docs/experiments/rc_swarm_connectib.csv").string();
  const CommandResult r = run_command("plot sweep " + (dir / "sweep").string() + " --x vms --y reads_per_s --reference " +
                                          reference + " --reference-x vms --reference-y reads_per_s " +
                                          "--reference-where window=24 --reference-label Connect-IB --out " +
                                          (dir / "qps").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_pictures(dir / "qps");
  std::map<double, double> expected;  // vms -> reads/s of the reference rows with window 24
  const auto ref = read_csv(reference);
  for (std::size_t i = 1; i < ref.size(); ++i)
    if (ref[i][2] == "24") expected[std::stod(ref[i][0])] = std::stod(ref[i][3]);
  REQUIRE(expected.size() == 8);
  std::map<double, double> drawn;
  std::size_t model = 0;
  const auto rows = read_csv(dir / "qps.csv");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i][0] == "reference: Connect-IB") drawn[std::stod(rows[i][1])] = std::stod(rows[i][2]);
    else ++model;
  }
  CHECK(drawn == expected);
  CHECK(model == 8);
  // A filter on a column the file lacks is one line naming it.
  const CommandResult bad = run_command("plot sweep " + (dir / "sweep").string() + " --x vms --y reads_per_s --reference " +
                                            reference + " --reference-x vms --reference-y reads_per_s --reference-where "
                                            "threads=14 --out " + (dir / "bad").string(), dir);
  CHECK(bad.exit_code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("--reference-where threads=14") != std::string::npos);
}
