// `hcasim compare` and `hcasim run --junit`, run as a user runs them.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/cli/junit_reader.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kConfigs = std::string(HCASIM_SOURCE_DIR) + "/configs/";

json read_json(const std::filesystem::path& p) { return json::parse(slurp(p)); }

// configs/b2b_hdr.json without its pcap and VCD, with these extra arguments, into dir/name.
CommandResult run_b2b(const ScratchDir& dir, const std::string& name, const std::string& extra = "") {
  return run_command("run " + kConfigs + "b2b_hdr.json --quiet --set outputs.pcap=false --set outputs.vcd=false --out " +
                         dir.file(name) + " " + extra,
                     dir);
}

}  // namespace

TEST_CASE("compare: the same scenario run twice is the same (exit 0), whatever its wall-clock figures") {
  ScratchDir dir("compare-same");
  REQUIRE(run_b2b(dir, "a").exit_code == 0);
  REQUIRE(run_b2b(dir, "b").exit_code == 0);
  const json a = read_json(dir / "a/stats.json"), b = read_json(dir / "b/stats.json");
  REQUIRE(a["wall"] != b["wall"]);  // the run's own wall time at least
  const CommandResult r = run_command("compare " + dir.file("a/stats.json") + " " + dir.file("b"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.rfind("all ", 0) == 0);
  CHECK(r.out.find("values as in the golden results") != std::string::npos);
  CHECK(count_lines(r.out) == 1);
}

TEST_CASE("compare: a changed parameter is caught and the metrics it moved are named with both values (exit 1)") {
  ScratchDir dir("compare-changed");
  REQUIRE(run_b2b(dir, "hdr").exit_code == 0);
  // Half the link rate: every saturating flow's throughput changes.
  REQUIRE(run_b2b(dir, "edr", "--set link.speed=EDR").exit_code == 0);
  const json hdr = read_json(dir / "hdr/stats.json"), edr = read_json(dir / "edr/stats.json");
  const CommandResult r =
      run_command("compare " + dir.file("hdr/stats.json") + " " + dir.file("edr/stats.json") + " --junit " + dir.file("c.xml"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find(" values differ from the golden results:\n") != std::string::npos);
  const std::string path = "flows.first.0.data_throughput_bps";
  REQUIRE(hdr["flows"]["first"][0]["name"] == "bulk_sl0");
  const std::string line = "  " + path + ": " + hdr["flows"]["first"][0]["data_throughput_bps"].dump() + " -> " +
                           edr["flows"]["first"][0]["data_throughput_bps"].dump() + " (";
  CHECK(r.out.find(line) != std::string::npos);
  CHECK(r.out.find("[flows.first.0 = bulk_sl0]") != std::string::npos);
  CHECK(r.out.find("run.sim_time_ps: ") != std::string::npos);

  const JunitRead x = read_junit(dir / "c.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  CHECK(x.tests == 1);
  CHECK(x.failures == 1);
  REQUIRE(x.cases.size() == 1);
  CHECK(x.cases[0].name == "b2b_hdr");
  CHECK(x.cases[0].classname == "compare.b2b_hdr");
  CHECK(x.cases[0].outcome == "failure");
  CHECK(x.cases[0].message.find("values differ from the golden") != std::string::npos);
}

TEST_CASE("compare: a tolerance lets a small change through and a smaller one does not") {
  ScratchDir dir("compare-tolerance");
  REQUIRE(run_b2b(dir, "a").exit_code == 0);
  json moved = read_json(dir / "a/stats.json");
  const double was = moved["flows"]["first"][1]["data_throughput_bps"].get<double>();
  REQUIRE(was > 0);
  moved["flows"]["first"][1]["data_throughput_bps"] = was * 1.01;  // +1%
  fs::create_directories(dir / "m");
  write_file(dir / "m" / "stats.json", moved.dump(2));
  fs::copy_file(dir / "a" / "results.db", dir / "m" / "results.db");  // the same tables
  const std::string files = dir.file("a/stats.json") + " " + dir.file("m/stats.json");

  const CommandResult exact = run_command("compare " + files, dir);
  CHECK(exact.exit_code == 1);
  CHECK(exact.out.find("flows.first.1.data_throughput_bps: ") != std::string::npos);
  CHECK(exact.out.find("(+1%, tolerance 1e-09)") != std::string::npos);
  CHECK(exact.out.rfind("1 of ", 0) == 0);

  const CommandResult loose = run_command("compare " + files + " --tol 'flows.first.*.data_throughput_bps=0.02'", dir);
  INFO(loose.out << loose.err);
  CHECK(loose.exit_code == 0);
  const CommandResult tight = run_command("compare " + files + " --tol 'flows.first.*.data_throughput_bps=0.005'", dir);
  CHECK(tight.exit_code == 1);
  CHECK(tight.out.find("flows.first.1.data_throughput_bps: ") != std::string::npos);
  CHECK(tight.out.find("(+1%, tolerance 0.005)") != std::string::npos);
  CHECK(run_command("compare " + files + " --tol '**=0.02'", dir).exit_code == 0);
}

TEST_CASE("compare: bad input is one line on stderr and exit 2") {
  ScratchDir dir("compare-bad");
  REQUIRE(run_b2b(dir, "a").exit_code == 0);
  write_file(dir / "not.json", "{ nope");
  write_file(dir / "other.json", R"({"schema": "something-else"})");
  write_file(dir / "user.xml", "<mine/>\n");
  const std::string a = dir.file("a/stats.json");
  const struct {
    std::string args, names;
  } cases[] = {
      {a + " " + dir.file("missing.json"), "missing.json: cannot open"},
      {a + " " + dir.file("not.json"), "not.json: not valid JSON"},
      {a + " " + dir.file("other.json"), "other.json: not an hcasim stats document; accepted"},
      {a + " " + a + " --tol flows.0.x", "--tol 'flows.0.x': accepted: PATH=REL"},
      {a + " " + a + " --tol flows.0.x=-1", "is not a relative tolerance; accepted: PATH=REL"},
      {a, "expected two stats.json files"},
      {a + " " + a + " --junit " + dir.file("user.xml"), "hcasim did not write it; accepted"},
  };
  for (const auto& c : cases) {
    const CommandResult r = run_command("compare " + c.args, dir);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c.names) != std::string::npos);
  }
  CHECK(slurp(dir / "user.xml") == "<mine/>\n");
  // A stats document with no run section is compared all the same.
  write_file(dir / "bare.json", R"({"schema": "hcasim-stats", "version": 1})");
  const CommandResult bare = run_command("compare " + dir.file("bare.json") + " " + dir.file("bare.json") + " --junit " +
                                         dir.file("bare.xml"), dir);
  CHECK(bare.exit_code == 0);
  CHECK(read_junit(dir / "bare.xml", dir).find("stats.json") != nullptr);
}

TEST_CASE("run --junit: the checker and every verbs expectation are test cases named after the scenario") {
  ScratchDir dir("run-junit-verbs");
  const json scenario = json::parse(slurp(kConfigs + "verbs_script.json"));
  const CommandResult r = run_command("run " + kConfigs + "verbs_script.json --quiet --out " + dir.file("out") +
                                          " --junit " + dir.file("run.xml"), dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const JunitRead x = read_junit(dir / "run.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  std::size_t ops = 0;
  for (const json& conn : scenario["workload"]["verbs"]) ops += conn["ops"].size();
  CHECK(x.tests == static_cast<int>(ops + 1));
  CHECK(x.failures == 0);
  CHECK(x.count("passed") == static_cast<int>(ops + 1));
  for (const auto& c : x.cases) CHECK(c.classname == "verbs_script");
  CHECK(x.find("link checker") != nullptr);
  // Each operation's case says the status it must end in (default success).
  CHECK(x.find("verbs rc1 op 0 (post_recv on b) expects success") != nullptr);
  CHECK(x.find("verbs rc1 op 10 (write on a) expects rem_access_err") != nullptr);
  CHECK(x.find("verbs ud1 op 1 (send_with_imm on a) expects success") != nullptr);
}

TEST_CASE("run --junit: a broken expectation fails its own case with the run's message (exit 1)") {
  ScratchDir dir("run-junit-fail");
  // The script's first send must now end in rem_access_err; it succeeds.
  const CommandResult r = run_command("run " + kConfigs + "verbs_script.json --quiet --out " + dir.file("out") +
                                          " --set workload.verbs.0.ops.2.expect=rem_access_err --junit " + dir.file("run.xml"),
                                      dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);
  const JunitRead x = read_junit(dir / "run.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  CHECK(x.failures == 1);
  const auto* c = x.find("verbs rc1 op 2 (send on a) expects rem_access_err");
  REQUIRE(c != nullptr);
  CHECK(c->outcome == "failure");
  CHECK(c->message == "rc1: op 2 (send on a): expected rem_access_err, got success");
  CHECK(r.err.find("check failed: " + c->message) != std::string::npos);
  CHECK(x.find("link checker")->outcome == "passed");
}

TEST_CASE("run --junit: one perftest case per message size") {
  ScratchDir dir("run-junit-perftest");
  const CommandResult r = run_command("run " + kConfigs + "perftest_write_bw.json --quiet --out " + dir.file("out") +
                                          " --set 'workload.perftest.0.sizes=[\"4KiB\",\"64KiB\"]'"
                                          " --set workload.perftest.0.iterations=50 --junit " + dir.file("run.xml"),
                                      dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const JunitRead x = read_junit(dir / "run.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  CHECK(x.tests == 3);
  CHECK(x.failures == 0);
  REQUIRE(x.find("perftest write_bw0 size 4KiB") != nullptr);
  REQUIRE(x.find("perftest write_bw0 size 64KiB") != nullptr);
  CHECK(x.find("perftest write_bw0 size 64KiB")->classname == "perftest_write_bw");
  // Cut by a run duration before the second size ends (50 x 1 MiB at 200 Gb/s: 2.1 ms): that case is
  // skipped, not passed.
  ScratchDir cut("run-junit-perftest-cut");
  const CommandResult rc = run_command("run " + kConfigs + "perftest_write_bw.json --quiet --out " + cut.file("out") +
                                           " --set 'workload.perftest.0.sizes=[\"4KiB\",\"1MiB\"]'"
                                           " --set workload.perftest.0.iterations=50 --set run.duration=20us --junit " +
                                           cut.file("run.xml"),
                                       cut);
  INFO(rc.out << rc.err);
  REQUIRE(rc.exit_code == 0);
  const JunitRead y = read_junit(cut / "run.xml", cut);
  REQUIRE(y.parsed);
  REQUIRE(y.find("perftest write_bw0 size 1MiB") != nullptr);
  CHECK(y.find("perftest write_bw0 size 1MiB")->outcome == "skipped");
  CHECK(y.skipped >= 1);
  CHECK(y.failures == 0);
}

TEST_CASE("compare and regress: --help prints the usage, and hcasim --help lists both") {
  ScratchDir dir("compare-help");
  for (const std::string c : {"compare", "regress"}) {
    INFO(c);
    const CommandResult r = run_command(c + " --help", dir);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.rfind("usage: hcasim " + c, 0) == 0);
    CHECK(run_command("--help", dir).out.find("\n  " + c + " ") != std::string::npos);
  }
}

TEST_CASE("compare: two run folders that differ in one port counter of results.db fail, naming table, row and column") {
  ScratchDir dir("compare-db-row");
  REQUIRE(run_b2b(dir, "a").exit_code == 0);
  fs::copy(dir / "a", dir / "b", fs::copy_options::recursive);
  CHECK(run_command("compare " + dir.file("a") + " " + dir.file("b"), dir).exit_code == 0);
  // Debian's sqlite3 moves hca0.p1's VL1 count by one packet.
  const CommandResult edit =
      run_shell("sqlite3 " + dir.file("b/results.db") +
                " \"UPDATE port_vls SET tx_packets = tx_packets + 1 WHERE port = 'hca0.p1' AND vl = 1\"", dir);
  REQUIRE(edit.exit_code == 0);
  const CommandResult r = run_command("compare " + dir.file("a") + " " + dir.file("b"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.rfind("1 of ", 0) == 0);
  CHECK(r.out.find("  tables.port_vls.1.tx_packets: ") != std::string::npos);
  CHECK(r.out.find("[tables.port_vls.1 = hca0.p1, 1]") != std::string::npos);
  // A tolerance on the table's column lets it through.
  CHECK(run_command("compare " + dir.file("a") + " " + dir.file("b") + " --tol 'tables.port_vls.*.tx_packets=0.01'", dir)
            .exit_code == 0);
}
