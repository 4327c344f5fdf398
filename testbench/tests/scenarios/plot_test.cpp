// hcasim plot (scripts/hcasim_plot.py): PNG and SVG written, and the values
// drawn (the sidecar CSV) are the table's, the run's and the time series'
// own, recomputed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
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

// The text of a picture's SVG (the script keeps text as text), element by element in the
// order drawn: an axis's tick labels come just before its label.
std::vector<std::string> svg_texts(const fs::path& svg) {
  std::vector<std::string> texts;
  const std::string s = slurp(svg);
  for (std::size_t at = s.find("<text"); at != std::string::npos; at = s.find("<text", at + 1)) {
    const std::size_t open = s.find('>', at), close = s.find("</text>", at);
    texts.push_back(s.substr(open + 1, close - open - 1));
  }
  return texts;
}

// The tick labels of the axis labelled `label`: the texts drawn just before it that are numbers.
std::vector<double> tick_numbers(const std::vector<std::string>& texts, const std::string& label) {
  const auto it = std::find(texts.begin(), texts.end(), label);
  REQUIRE(it != texts.end());
  std::vector<double> ticks;
  for (auto t = std::make_reverse_iterator(it); t != texts.rend(); ++t) {
    std::string digits;
    for (char c : *t)
      if (c != ',') digits += c;
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || *end != '\0') break;
    ticks.insert(ticks.begin(), v);
  }
  return ticks;
}

bool has_text(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(), [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

// A zip sweep of the rc_swarm scenario (a few seconds): the window shrinks as the VMs (and so the
// QPs per machine) grow, the two axes tied; two seeds a point.
void run_zip_sweep(const ScratchDir& dir) {
  const std::string sweep = write_file(dir / "zip.json", R"({
    "name": "vms_window_zip", "scenario": ")" + config_path("rc_swarm.json") + R"(",
    "set": ["run.duration=150us", "workload.swarm.0.warmup=50us"],
    "combine": "zip",
    "axes": [
      { "path": "workload.swarm.0.vms", "name": "vms", "values": [1, 2, 3] },
      { "path": "workload.swarm.0.window", "name": "window", "values": [24, 16, 8] }
    ],
    "seeds": [1, 2],
    "metrics": [
      { "name": "qps_per_machine", "path": "swarm.0.qps_per_machine" },
      { "name": "reads_per_s", "path": "swarm.0.ops_per_s_per_machine" }
    ]
  })");
  const CommandResult s = run_command("sweep " + sweep + " --jobs 2 --quiet --out " + (dir / "sweep").string(), dir);
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
}

// The sweep's runs grouped by their vms: the values of a column, one per run.
std::map<std::string, std::vector<double>> by_vms(const json& table, const std::string& column) {
  std::map<std::string, std::vector<double>> runs;
  for (const json& row : table["rows"]) runs[row["vms"].dump()].push_back(row[column].get<double>());
  return runs;
}

double mean_of(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m += x / static_cast<double>(v.size());
  return m;
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
  // So is one with a metric on x: the first axis (vl_buffer) sets the points, cable is not tied to it.
  const CommandResult untied = run_command("plot sweep " + (dir / "sweep").string() +
                                               " --x sim_time_ps --y 'throughput_bps[bulk_sl0]'", dir);
  CHECK(untied.exit_code == 2);
  CHECK(count_lines(untied.err) == 1);
  CHECK(untied.err.find("--series cable") != std::string::npos);
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
  // Latency: over 20 flows, the 5 fastest and the 15 slowest at p99 drawn, and the legend says how
  // many were left out; the log axis labelled within the latencies drawn.
  REQUIRE(flows.size() > 20);
  std::vector<std::pair<double, std::string>> by_p99;
  for (const json& f : flows) by_p99.emplace_back(f["latency_p99_ns"].get<double>(), f["name"].get<std::string>());
  std::sort(by_p99.begin(), by_p99.end());  // equal p99s by name, as the script orders them
  std::set<std::string> expected_flows;
  for (std::size_t i = 0; i < by_p99.size(); ++i)
    if (i < 5 || i >= by_p99.size() - 15) expected_flows.insert(by_p99[i].second);
  std::set<std::string> drawn_flows;
  double lowest = 1e300, highest = 0;
  const auto latency = read_csv(dir / "ft_latency.csv");
  for (std::size_t i = 1; i < latency.size(); ++i) {
    drawn_flows.insert(latency[i][0]);
    lowest = std::min(lowest, std::stod(latency[i][1]));
    highest = std::max(highest, std::stod(latency[i][1]));
  }
  CHECK(drawn_flows == expected_flows);
  const auto texts = svg_texts(dir / "ft_latency.svg");
  CHECK(has_text(texts, std::to_string(flows.size() - 20) + " flows left out"));
  const std::vector<double> ticks = tick_numbers(texts, "latency (ns)");
  CHECK(ticks.size() >= 3);
  for (double t : ticks) {
    CHECK(t >= lowest);
    CHECK(t <= highest);
  }
  // The heat map's title says the simulated time as a person would (100 us, not 1e+02 us).
  REQUIRE(read_json_file((dir / "run" / "stats.json").string())["run"]["sim_time_ps"] == 100000000);
  CHECK(has_text(svg_texts(dir / "ft_ports.svg"), "switch ports over 100 us"));
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
  // With --top 1 the larger by total (b: 25,000 bytes against 18,750) is drawn, and the legend says one more matched.
  const CommandResult top = run_command("plot timeseries " + dir.file("") + " --kind flow --top 1 --out " + dir.file("top"), dir);
  REQUIRE(top.exit_code == 0);
  const auto one = read_csv(dir / "top.csv");
  REQUIRE(one.size() == 3);
  CHECK(one[1][0] == "b");
  CHECK(one[2][0] == "b");
  CHECK(has_text(svg_texts(dir / "top.svg"), "1 more left out, smaller by total"));
  const CommandResult bad = run_command("plot timeseries " + dir.file("") + " --kind port --metric bytes_sent", dir);
  CHECK(bad.exit_code == 2);
  CHECK(count_lines(bad.err) == 1);
  CHECK(bad.err.find("credits_available") != std::string::npos);
}

TEST_CASE("plot sweep --reference: the published points that pass --reference-where, beside the model's line", "[slow]") {
  const ScratchDir dir("plot-reference");
  const CommandResult s = run_command("sweep " + config_path("experiments/connect_ib_qps.json") + " --quiet --out " +
                                          (dir / "sweep").string(), dir);
  REQUIRE(s.exit_code == 0);
  const std::string reference = (fs::path(HCASIM_SOURCE_DIR) / "docs/devices/connect-ib-rc-swarm-reads.csv").string();
  const CommandResult r = run_command("plot sweep " + (dir / "sweep").string() + " --x vms --y reads_per_s --reference " +
                                          reference + " --reference-x vms --reference-y reads_per_s " +
                                          "--reference-where window=24 --reference-label Connect-IB " +
                                          "--xlabel 'virtual machines M' --ylabel 'READs per machine' --out " +
                                          (dir / "qps").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_pictures(dir / "qps");
  // The axes carry the names given and the unit the values were scaled to.
  const auto texts = svg_texts(dir / "qps.svg");
  CHECK(has_text(texts, "READs per machine (M/s)"));
  CHECK(has_text(texts, "virtual machines M"));
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

TEST_CASE("plot sweep of a zip sweep: its tied axes as one x axis, and a metric (QPs per machine) on x, "
          "the values drawn the table's, the rate in M ops/s") {
  const ScratchDir dir("plot-zip");
  run_zip_sweep(dir);
  const json table = read_json_file((dir / "sweep" / "results.json").string());
  const auto reads = by_vms(table, "reads_per_s"), qps = by_vms(table, "qps_per_machine");
  std::map<std::string, std::string> window;  // vms -> its tied window
  for (const json& row : table["rows"]) window[row["vms"].dump()] = row["window"].dump();
  REQUIRE(reads.size() == 3);

  // The axis vms on x: window, which varies with it, is not refused but written beside it.
  const CommandResult r = run_command("plot sweep " + (dir / "sweep").string() + " --x vms --y reads_per_s --out " +
                                          (dir / "zip").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_pictures(dir / "zip");
  const auto drawn = read_csv(dir / "zip.csv");
  REQUIRE(drawn.size() == 1 + reads.size());
  CHECK(drawn[0] == std::vector<std::string>{"series", "x", "mean", "low", "high", "runs", "window"});
  double top = 0;
  for (std::size_t i = 1; i < drawn.size(); ++i) {
    const auto& d = drawn[i];
    INFO("vms " << d[1]);
    const std::vector<double>& v = reads.at(d[1]);
    CHECK(std::stod(d[2]) == Approx(mean_of(v)).epsilon(1e-12));
    CHECK(std::stod(d[3]) == Approx(*std::min_element(v.begin(), v.end())).epsilon(1e-12));
    CHECK(std::stod(d[4]) == Approx(*std::max_element(v.begin(), v.end())).epsilon(1e-12));
    CHECK(d[5] == "2");
    CHECK(d[6] == window.at(d[1]));
    top = std::max(top, mean_of(v));
  }
  const auto texts = svg_texts(dir / "zip.svg");
  CHECK(has_text(texts, "vms / window"));
  for (const auto& [vms, w] : window) CHECK(has_text(texts, vms + " / " + w));
  // The rate's axis in the SI prefix of its values: between 10^6 and 10^9 ops/s here.
  REQUIRE(top >= 1e6);
  REQUIRE(top < 1e9);
  CHECK(has_text(texts, "reads_per_s (M ops/s)"));
  // Its tick labels are the values in M ops/s themselves (no offset, no multiplier).
  const std::vector<double> yticks = tick_numbers(texts, "reads_per_s (M ops/s)");
  CHECK(yticks.size() >= 2);
  for (double t : yticks) {
    CHECK(t * 1e6 >= 0.9 * mean_of(reads.at("3")));
    CHECK(t * 1e6 <= 1.1 * top);
  }

  // The metric qps_per_machine on x (log): each point at the mean over its runs, the axes that set it beside.
  const CommandResult m = run_command("plot sweep " + (dir / "sweep").string() + " --x qps_per_machine --y reads_per_s " +
                                          "--logx --out " + (dir / "qps").string(), dir);
  INFO(m.err);
  REQUIRE(m.exit_code == 0);
  check_pictures(dir / "qps");
  const auto by_qps = read_csv(dir / "qps.csv");
  REQUIRE(by_qps.size() == 1 + reads.size());
  CHECK(by_qps[0] == std::vector<std::string>{"series", "x", "mean", "low", "high", "runs", "x_low", "x_high", "vms",
                                              "window"});
  std::vector<double> xs;
  for (std::size_t i = 1; i < by_qps.size(); ++i) {
    const auto& d = by_qps[i];
    INFO("vms " << d[8]);
    const std::vector<double>& x = qps.at(d[8]);
    CHECK(std::stod(d[1]) == Approx(mean_of(x)).epsilon(1e-12));
    CHECK(std::stod(d[6]) == *std::min_element(x.begin(), x.end()));
    CHECK(std::stod(d[7]) == *std::max_element(x.begin(), x.end()));
    CHECK(std::stod(d[2]) == Approx(mean_of(reads.at(d[8]))).epsilon(1e-12));
    CHECK(d[9] == window.at(d[8]));
    xs.push_back(std::stod(d[1]));
  }
  CHECK(std::is_sorted(xs.begin(), xs.end()));
  // The log axis is labelled at the points' x values.
  CHECK(tick_numbers(svg_texts(dir / "qps.svg"), "qps_per_machine") == xs);
}

TEST_CASE("plot KIND --help: every option with what it does, each in docs/plots.md, and a bad value is one line "
          "naming the option and what is accepted") {
  const ScratchDir dir("plot-help");
  const std::string docs = slurp(fs::path(HCASIM_SOURCE_DIR) / "docs" / "plots.md");
  const std::map<std::string, std::set<std::string>> options = {
      {"sweep", {"--x", "--y", "--series", "--where", "--band", "--logx", "--logy", "--title", "--label", "--xlabel",
                 "--ylabel", "--out", "--reference", "--reference-x", "--reference-y", "--reference-where",
                 "--reference-label"}},
      {"run", {"--out"}},
      {"timeseries", {"--kind", "--metric", "--match", "--top", "--bin", "--out"}},
  };
  for (const auto& [kind, expected] : options) {
    INFO(kind);
    const CommandResult r = run_command("plot " + kind + " --help", dir);
    REQUIRE(r.exit_code == 0);
    // argparse's option lines: "  --x COLUMN   what it does", or the text on the next, deeper line.
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::set<std::string> listed;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind("  -", 0) != 0) continue;
      const std::string flag = lines[i].substr(2, lines[i].find_first_of(" ,", 2) - 2);
      INFO(lines[i]);
      const std::size_t gap = lines[i].find("  ", 2);
      const bool described = (gap != std::string::npos && lines[i].find_first_not_of(' ', gap) != std::string::npos) ||
                             (i + 1 < lines.size() && lines[i + 1].rfind("          ", 0) == 0 &&
                              lines[i + 1].find_first_not_of(' ') != std::string::npos);
      CHECK(described);
      if (flag != "-h") listed.insert(flag);
    }
    CHECK(listed == expected);
    for (const std::string& flag : expected) {
      INFO(flag);
      CHECK(docs.find("`" + flag) != std::string::npos);
    }
  }
  const CommandResult top = run_command("plot timeseries " + dir.file("") + " --top 30", dir);
  CHECK(top.exit_code == 2);
  CHECK(count_lines(top.err) == 1);
  CHECK(top.err.find("--top 30: accepted: a whole number from 1 to 20") != std::string::npos);
  const CommandResult band = run_command("plot sweep " + dir.file("") + " --x a --y b --band wide", dir);
  CHECK(band.exit_code == 2);
  CHECK(count_lines(band.err) == 1);
  CHECK(band.err.find("--band") != std::string::npos);
  CHECK(band.err.find("'minmax', 'std'") != std::string::npos);
}

TEST_CASE("plot sweep: over 20 series the first 20 drawn in order and the legend says which were left out, "
          "a rate in b/s in the SI prefix of its values") {
  const ScratchDir dir("plot-many");
  // A table of 23 message sizes (the series) at two offered loads, each one run of
  // 100 Gb/s plus 1 Gb/s per size index.
  std::ostringstream table;
  table << "run,point,seed,size,offered,rate_bps,wait_ns,exit_code,error\n";
  for (int i = 0; i < 23; ++i)
    for (const char* offered : {"50%", "100%"})
      table << "r" << i << offered << ",0,1," << i + 1 << "B," << offered << "," << 1e11 + i * 1e9 << "," << 100 + i
            << ",0,\n";
  write_file(dir / "results.csv", table.str());
  write_file(dir / "results.json", R"({"axes": ["size", "offered"], "metrics": ["rate_bps", "wait_ns"]})");
  const CommandResult r = run_command("plot sweep " + dir.file("") + " --x offered --y rate_bps --series size --out " +
                                          dir.file("many"), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::set<std::string> drawn;
  for (const auto& row : read_csv(dir / "many.csv")) drawn.insert(row[0]);
  drawn.erase("series");
  std::set<std::string> first20;
  for (int i = 1; i <= 20; ++i) first20.insert(std::to_string(i) + "B");
  CHECK(drawn == first20);
  const auto texts = svg_texts(dir / "many.svg");
  CHECK(has_text(texts, "3 more size values left out (21B to 23B)"));
  CHECK(has_text(texts, "rate_bps (Gb/s)"));
  // Other units as the column's name says them.
  const CommandResult ns = run_command("plot sweep " + dir.file("") + " --x offered --y wait_ns --where size=1B --out " +
                                           dir.file("wait"), dir);
  REQUIRE(ns.exit_code == 0);
  CHECK(has_text(svg_texts(dir / "wait.svg"), "wait_ns (ns)"));
}
