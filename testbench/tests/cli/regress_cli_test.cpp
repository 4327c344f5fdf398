// `hcasim regress` on suites made here from the shipped scenarios.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/cli/junit_reader.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kConfigs = std::string(HCASIM_SOURCE_DIR) + "/configs/";

// A suite folder holding copies of these shipped scenarios.
fs::path make_suite(const ScratchDir& dir, const std::vector<std::string>& scenarios) {
  const fs::path suite = dir / "suite";
  fs::create_directories(suite);
  for (const std::string& s : scenarios) fs::copy_file(kConfigs + s + ".json", suite / (s + ".json"));
  return suite;
}

CommandResult regress(const fs::path& suite, const std::string& extra, const ScratchDir& dir) {
  return run_command("regress " + suite.string() + " --jobs 2 " + extra, dir);
}

}  // namespace

TEST_CASE("regress: without goldens every scenario fails telling to run --update, --update writes them, then all pass") {
  ScratchDir dir("regress-update");
  const fs::path suite = make_suite(dir, {"verbs_script", "vl_isolation"});

  const CommandResult none = regress(suite, "--junit " + dir.file("none.xml"), dir);
  INFO(none.out << none.err);
  CHECK(none.exit_code == 1);
  CHECK(none.out.find("FAIL verbs_script") != std::string::npos);
  CHECK(none.out.find("FAIL vl_isolation") != std::string::npos);
  const std::string hint = "no golden " + (suite / "verbs_script.golden.json").string() + "; run hcasim regress " +
                           suite.string() + " --update to write it";
  CHECK(none.out.find(hint) != std::string::npos);
  const JunitRead nx = read_junit(dir / "none.xml", dir);
  REQUIRE(nx.parsed);
  CHECK(nx.failures == 2);
  REQUIRE(nx.find("verbs_script") != nullptr);
  CHECK(nx.find("verbs_script")->message == hint);

  const CommandResult update = regress(suite, "--update", dir);
  INFO(update.out << update.err);
  CHECK(update.exit_code == 0);
  CHECK(update.out.find("wrote " + (suite / "verbs_script.golden.json").string() + " (new)") != std::string::npos);
  CHECK(update.out.find("wrote " + (suite / "vl_isolation.golden.json").string() + " (new)") != std::string::npos);
  const json golden = json::parse(slurp(suite / "vl_isolation.golden.json"));
  CHECK(golden["schema"] == "hcasim-stats");
  CHECK(golden["run"]["scenario"] == "vl_isolation");
  CHECK_FALSE(golden.contains("wall"));

  const CommandResult again = regress(suite, "--junit " + dir.file("again.xml"), dir);
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("pass verbs_script") != std::string::npos);
  CHECK(again.out.find("pass vl_isolation") != std::string::npos);
  const JunitRead ax = read_junit(dir / "again.xml", dir);
  INFO(ax.error);
  REQUIRE(ax.parsed);
  CHECK(ax.tests == 2);
  CHECK(ax.failures == 0);
  CHECK(ax.errors == 0);
  REQUIRE(ax.cases.size() == 2);
  CHECK(ax.cases[0].name == "verbs_script");
  CHECK(ax.cases[1].name == "vl_isolation");
  CHECK(ax.cases[0].classname == "regress.suite");

  // --keep leaves the runs' folders where it says.
  const CommandResult keep = regress(suite, "--keep", dir);
  const std::string kept_in = "runs kept in ";
  REQUIRE(keep.out.find(kept_in) != std::string::npos);
  std::string scratch = keep.out.substr(keep.out.find(kept_in) + kept_in.size());
  scratch = scratch.substr(0, scratch.find('\n'));
  REQUIRE(fs::path(scratch).filename().string().rfind("hcasim-regress-", 0) == 0);
  CHECK(fs::exists(fs::path(scratch) / "vl_isolation" / "stats.json"));
  fs::remove_all(scratch);

  // A second update with nothing changed keeps the goldens.
  const CommandResult kept = regress(suite, "--update", dir);
  CHECK(kept.exit_code == 0);
  CHECK(kept.out.find("kept " + (suite / "verbs_script.golden.json").string() + " (unchanged)") != std::string::npos);
}

TEST_CASE("regress: a scenario whose results changed fails naming the moved metrics, and tolerances.json can let it through") {
  ScratchDir dir("regress-changed");
  const fs::path suite = make_suite(dir, {"verbs_script", "b2b_hdr"});
  json b2b = json::parse(slurp(suite / "b2b_hdr.json"));
  b2b.erase("outputs");
  write_file(suite / "b2b_hdr.json", b2b.dump(2));
  REQUIRE(regress(suite, "--update", dir).exit_code == 0);
  const json golden = json::parse(slurp(suite / "b2b_hdr.golden.json"));

  b2b["workload"]["flows"][2]["count"] = 400;  // was 500: the reverse flow sends less
  write_file(suite / "b2b_hdr.json", b2b.dump(2));
  const CommandResult r = regress(suite, "--junit " + dir.file("r.xml"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("pass verbs_script") != std::string::npos);
  CHECK(r.out.find("FAIL b2b_hdr") != std::string::npos);
  REQUIRE(golden["flows"]["first"][2]["name"] == "reverse");
  // The summary lists the first 20 moved values; the JUnit report has them all.
  CHECK(slurp(dir / "r.xml").find("flows.first.2.packets_sent: " + golden["flows"]["first"][2]["packets_sent"].dump() +
                                  " -&gt; 400 (-20%, tolerance 0)") != std::string::npos);
  const JunitRead x = read_junit(dir / "r.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  CHECK(x.tests == 2);
  CHECK(x.failures == 1);
  REQUIRE(x.find("b2b_hdr") != nullptr);
  CHECK(x.find("b2b_hdr")->outcome == "failure");
  CHECK(x.find("b2b_hdr")->message.find("values differ from the golden results") != std::string::npos);
  CHECK(x.find("verbs_script")->outcome == "passed");

  // Every value let through by a suite tolerance of 100%, except the ones from 0.
  write_file(suite / "tolerances.json", R"({"**": 1.0})");
  const CommandResult loose = regress(suite, "", dir);
  INFO(loose.out);
  CHECK(loose.out.find("flows.first.2.packets_sent") == std::string::npos);
  // A command-line --tol after the suite's: exact again for that path.
  const CommandResult exact = regress(suite, "--tol flows.first.2.packets_sent=0", dir);
  CHECK(exact.exit_code == 1);
  CHECK(exact.out.find("flows.first.2.packets_sent: ") != std::string::npos);

  // --update takes the change in, saying how many values it changed.
  const CommandResult update = regress(suite, "--update", dir);
  INFO(update.out);
  CHECK(update.exit_code == 0);
  const std::string wrote = "wrote " + (suite / "b2b_hdr.golden.json").string() + " (";
  REQUIRE(update.out.find(wrote) != std::string::npos);
  CHECK(std::stoi(update.out.substr(update.out.find(wrote) + wrote.size())) > 0);
  CHECK(update.out.find(" values changed)") != std::string::npos);
  CHECK(json::parse(slurp(suite / "b2b_hdr.golden.json"))["flows"]["first"][2]["packets_sent"] == 400);
  CHECK(regress(suite, "", dir).exit_code == 0);
}

TEST_CASE("regress: a run that fails a check or gives no result fails its case with the first violation or error line") {
  ScratchDir dir("regress-broken");
  const fs::path suite = make_suite(dir, {"verbs_script"});
  REQUIRE(regress(suite, "--update", dir).exit_code == 0);
  fs::copy_file(suite / "verbs_script.golden.json", suite / "wrong_expect.golden.json");
  json broken = json::parse(slurp(suite / "verbs_script.json"));
  broken["workload"]["verbs"][0]["ops"][2]["expect"] = "rem_access_err";
  write_file(suite / "wrong_expect.json", broken.dump(2));
  json bad = broken;
  bad["link"]["sped"] = "HDR";
  write_file(suite / "bad_key.json", bad.dump(2));

  const CommandResult r = regress(suite, "--junit " + dir.file("r.xml"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const JunitRead x = read_junit(dir / "r.xml", dir);
  INFO(x.error);
  REQUIRE(x.parsed);
  CHECK(x.tests == 3);
  CHECK(x.failures == 1);
  CHECK(x.errors == 1);
  REQUIRE(x.find("wrong_expect") != nullptr);
  CHECK(x.find("wrong_expect")->outcome == "failure");
  CHECK(x.find("wrong_expect")->message == "check failed: rc1: op 2 (send on a): expected rem_access_err, got success");
  REQUIRE(x.find("bad_key") != nullptr);
  CHECK(x.find("bad_key")->outcome == "error");
  CHECK(x.find("bad_key")->message.find("link.sped") != std::string::npos);
  CHECK(x.find("verbs_script")->outcome == "passed");

  // --update writes no golden for a run that failed.
  const CommandResult u = regress(suite, "--update", dir);
  CHECK(u.exit_code == 1);
  CHECK_FALSE(fs::exists(suite / "bad_key.golden.json"));
  CHECK(u.out.find("no golden written: check failed: rc1: op 2") != std::string::npos);
}

TEST_CASE("regress: bad input is one line on stderr and exit 2") {
  ScratchDir dir("regress-bad");
  const fs::path suite = make_suite(dir, {"verbs_script"});
  fs::create_directories(dir / "empty");
  const struct {
    std::string args, names;
  } cases[] = {
      {dir.file("missing"), "missing: not a folder; accepted"},
      {dir.file("empty"), "empty: holds no scenario; accepted"},
      {suite.string() + " --tol flows.*.x", "--tol 'flows.*.x': accepted: PATH=REL"},
      {suite.string() + " --jobs 0", "--jobs '0': accepted: 1 to 1024"},
      {"", "regress: missing SUITE_DIR"},
  };
  for (const auto& c : cases) {
    const CommandResult r = run_command("regress " + c.args, dir);
    INFO(c.args << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find(c.names) != std::string::npos);
  }
  write_file(suite / "tolerances.json", R"({"flows.*.x": "2%"})");
  const CommandResult t = run_command("regress " + suite.string(), dir);
  CHECK(t.exit_code == 2);
  CHECK(count_lines(t.err) == 1);
  CHECK(t.err.find("tolerances.json: flows.*.x: \"2%\" is not a relative tolerance; accepted: a number >= 0") !=
        std::string::npos);
}

TEST_CASE("regress: one port counter moved in results.db fails the golden, naming the table, row and column") {
  ScratchDir dir("regress-port-counter");
  const fs::path suite = make_suite(dir, {"b2b_hdr"});
  REQUIRE(regress(suite, "--update", dir).exit_code == 0);
  json golden = json::parse(slurp(suite / "b2b_hdr.golden.json"));
  // The golden holds the run's tables; move one VL counter of one port and nothing else.
  json& rows = golden["tables"]["port_vls"];
  REQUIRE(rows.size() >= 2);
  REQUIRE(rows[1]["port"] == "hca0.p1");
  const uint64_t sent = rows[1]["tx_packets"];
  REQUIRE(sent > 0);
  rows[1]["tx_packets"] = sent + 1;
  write_file(suite / "b2b_hdr.golden.json", golden.dump(2));
  const CommandResult r = regress(suite, "--junit " + dir.file("r.xml"), dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("FAIL b2b_hdr") != std::string::npos);
  const std::string xml = slurp(dir / "r.xml");
  CHECK(xml.find("1 of ") != std::string::npos);
  CHECK(xml.find("tables.port_vls.1.tx_packets: " + std::to_string(sent + 1) + " -&gt; " + std::to_string(sent)) !=
        std::string::npos);
  CHECK(xml.find("[tables.port_vls.1 = hca0.p1, 1]") != std::string::npos);
}
