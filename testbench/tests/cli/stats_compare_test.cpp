// The comparison of two stats.json documents (stats_compare.hpp) and the
// JUnit writer (junit.hpp), on documents built here.

#include <catch2/catch.hpp>

#include <cmath>

#include "testbench/cli/junit.hpp"
#include "testbench/cli/stats_compare.hpp"

using namespace hcasim;
using nlohmann::json;

namespace {

json small_document() {
  return json::parse(R"({
    "schema": "hcasim-stats", "version": 1,
    "run": {"scenario": "s", "seed": 1, "config_hash": "0123", "sim_time_ps": 1000000},
    "wall": {"seconds": 0.5, "peak_rss_bytes": 1000},
    "flows": [
      {"name": "f0", "packets_sent": 100, "data_throughput_bps": 2.0e11, "latency": {"p99_ns": 512.25}},
      {"name": "f1", "packets_sent": 50, "data_throughput_bps": 1.0e11, "latency": {"p99_ns": 300.5}}
    ],
    "checker": {"ok": true, "first_violations": []}
  })");
}

}  // namespace

TEST_CASE("compare: path patterns match one element with * and any number with **") {
  CHECK(path_matches("flows.*.data_throughput_bps", "flows.0.data_throughput_bps"));
  CHECK(path_matches("flows.*.data_throughput_bps", "flows.12.data_throughput_bps"));
  CHECK_FALSE(path_matches("flows.*.data_throughput_bps", "flows.0.latency.data_throughput_bps"));
  CHECK_FALSE(path_matches("flows.*", "flows.0.x"));
  CHECK(path_matches("**.p99_ns", "flows.1.latency.p99_ns"));
  CHECK(path_matches("**.p99_ns", "p99_ns"));
  CHECK(path_matches("flows.**", "flows.1.latency.p99_ns"));
  CHECK(path_matches("run.sim_time_ps", "run.sim_time_ps"));
  CHECK_FALSE(path_matches("run.sim_time_ps", "run.sim_time"));
}

TEST_CASE("compare: a malformed tolerance is refused with the accepted form") {
  CHECK(parse_tolerance("flows.*.data_throughput_bps=0.02").relative == Approx(0.02));
  CHECK(parse_tolerance("flows.*.data_throughput_bps=0.02").pattern == "flows.*.data_throughput_bps");
  for (const char* bad : {"flows.0.x", "=0.1", "flows.0.x=", "flows.0.x=abc", "flows.0.x=-0.1", "flows..x=0.1",
                          "flows.0.x=1e999", "flows.0.x=0.1%"}) {
    INFO(bad);
    try {
      parse_tolerance(bad);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()).find("--tol") != std::string::npos);
      CHECK(std::string(e.what()).find("accepted: PATH=REL") != std::string::npos);
    }
  }
}

TEST_CASE("compare: identical documents, and documents differing only in wall-clock figures, are the same") {
  const json a = small_document();
  json b = a;
  b["wall"]["seconds"] = 9.75;
  b["wall"]["peak_rss_bytes"] = 123456;
  b["run"]["config_hash"] = "4567";  // names the input, not a result
  const Comparison c = compare_stats(a, b, {});
  CHECK(c.same());
  // run: scenario, seed, sim_time_ps; version, schema; flows: 2 x 4; checker.ok
  CHECK(c.values == 3 + 2 + 8 + 1);
}

TEST_CASE("compare: integers are exact, fractions within 1e-9 by default") {
  const json a = small_document();
  json b = a;
  b["flows"][1]["packets_sent"] = 51;                          // an integer one off
  b["flows"][0]["data_throughput_bps"] = 2.0e11 * (1 + 1e-12); // within the default
  b["flows"][1]["latency"]["p99_ns"] = 300.5 * (1 + 1e-6);     // beyond it
  const Comparison c = compare_stats(a, b, {});
  REQUIRE(c.differences.size() == 2);  // in key order
  const Difference& count = c.differences[1];
  CHECK(count.path == "flows.1.packets_sent");
  CHECK(count.kind == Difference::Kind::Moved);
  CHECK(count.golden == "50");
  CHECK(count.now == "51");
  CHECK(count.relative == Approx(0.02));
  CHECK(count.tolerance == 0);
  CHECK(count.names == "flows.1 = f1");
  CHECK(describe(count) == "flows.1.packets_sent: 50 -> 51 (+2%, tolerance 0)  [flows.1 = f1]");
  const Difference& p99 = c.differences[0];
  CHECK(p99.path == "flows.1.latency.p99_ns");
  CHECK(p99.relative == Approx(1e-6));
  CHECK(p99.tolerance == kDefaultFloatTolerance);
}

TEST_CASE("compare: a tolerance lets a change through up to its size, and the last matching entry wins") {
  const json a = small_document();
  json b = a;
  b["flows"][0]["data_throughput_bps"] = 2.0e11 * 1.01;  // +1%
  b["flows"][1]["packets_sent"] = 49;                    // -2%
  CHECK(compare_stats(a, b, {parse_tolerance("flows.*.data_throughput_bps=0.02"),
                             parse_tolerance("flows.*.packets_sent=0.03")}).same());
  const Comparison tight = compare_stats(a, b, {parse_tolerance("flows.*.data_throughput_bps=0.005"),
                                                parse_tolerance("**.packets_sent=0.03")});
  REQUIRE(tight.differences.size() == 1);
  CHECK(tight.differences[0].path == "flows.0.data_throughput_bps");
  CHECK(tight.differences[0].relative == Approx(0.01));
  CHECK(tight.differences[0].tolerance == 0.005);
  const Comparison last = compare_stats(a, b, {parse_tolerance("**=0.5"), parse_tolerance("flows.1.packets_sent=0")});
  REQUIRE(last.differences.size() == 1);
  CHECK(last.differences[0].path == "flows.1.packets_sent");
}

TEST_CASE("compare: keys in one document only, changed strings and booleans, and a change from 0 are reported") {
  const json a = small_document();
  json b = a;
  b["flows"].erase(1);
  b["flows"][0].erase("packets_sent");
  b["flows"][0]["retries"] = 3;
  b["checker"]["ok"] = false;
  b["checker"]["first_violations"].push_back("lost");
  b["run"]["scenario"] = "t";
  b["run"]["sim_time_ps"] = "1us";
  json zero = a;
  zero["run"]["seed"] = 0;
  const Comparison from_zero = compare_stats(zero, a, {parse_tolerance("**=1000")});
  REQUIRE(from_zero.differences.size() == 1);
  CHECK(std::isinf(from_zero.differences[0].relative));
  CHECK(describe(from_zero.differences[0]) == "run.seed: 0 -> 1 (from 0, tolerance 1000)");

  const Comparison c = compare_stats(a, b, {});
  std::vector<std::string> lines;
  for (const Difference& d : c.differences) lines.push_back(describe(d));
  CHECK(lines == std::vector<std::string>{
                     "checker.first_violations.0: only in the new document (\"lost\")",
                     "checker.ok: true -> false (changed)",
                     "flows.0.packets_sent: only in the golden document (100)  [flows.0 = f0]",
                     "flows.0.retries: only in the new document (3)  [flows.0 = f0]",
                     "flows.1: only in the golden document ({\"data_throughput_bps\":100000000000.0,\"latency\":{\"p99_ns\":300.5},\"name\":\"f1\",...)  [flows.1 = f1]",
                     "run.scenario: \"s\" -> \"t\" (changed)",
                     "run.sim_time_ps: 1000000 -> \"1us\" (changed)"});
}

TEST_CASE("junit: counts per suite and in all, escaping, failure message = first line") {
  JunitCase pass{"scen<1>", "link checker", JunitCase::Outcome::Passed, "", 0.25};
  JunitCase fail{"scen<1>", "op \"0\" & 'x'", JunitCase::Outcome::Failed, "first <line>\nsecond\x01line\n", 1.5};
  JunitCase error{"other", "e", JunitCase::Outcome::Error, "bad input", 0};
  JunitCase skip{"other", "s", JunitCase::Outcome::Skipped, "not reached", 0};
  const std::string xml = junit_xml({{"one", {pass, fail}}, {"two", {error, skip}}});
  CHECK(xml.find("<testsuites tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\" time=\"1.750\">") != std::string::npos);
  CHECK(xml.find("<testsuite name=\"one\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.750\">") !=
        std::string::npos);
  CHECK(xml.find("<testcase classname=\"scen&lt;1&gt;\" name=\"op &quot;0&quot; &amp; &apos;x&apos;\" time=\"1.500\">") !=
        std::string::npos);
  CHECK(xml.find("<failure message=\"first &lt;line&gt;\">first &lt;line&gt;\nsecond?line\n</failure>") != std::string::npos);
  CHECK(xml.find("<error message=\"bad input\">bad input</error>") != std::string::npos);
  CHECK(xml.find("<skipped message=\"not reached\">not reached</skipped>") != std::string::npos);
  CHECK(xml.find(kJunitWrittenBy) != std::string::npos);
  CHECK(xml_escape("a\tb\rc\x7f") == "a\tb\rc?");
}

TEST_CASE("compare: a report lists throughput, latency and drops first and only counts the latency estimates' by-products") {
  CHECK(rank_of("flows.3.data_throughput_bps") == DifferenceRank::Headline);
  CHECK(rank_of("perftest.0.sizes.0.msg_rate_Mpps") == DifferenceRank::Headline);
  CHECK(rank_of("flows.0.latency.p99_ns") == DifferenceRank::Headline);
  CHECK(rank_of("flows.0.latency.mean_ns") == DifferenceRank::Headline);
  CHECK(rank_of("ports.totals.drops") == DifferenceRank::Headline);
  CHECK(rank_of("hosts.first.0.caches.wqe.misses") == DifferenceRank::Other);
  CHECK(rank_of("flows.0.latency.batch_lag1_autocorrelation") == DifferenceRank::ByProduct);
  CHECK(rank_of("flows.0.latency.mean_ci95_ns") == DifferenceRank::ByProduct);
  CHECK(rank_of("flows.0.latency.batches") == DifferenceRank::ByProduct);

  json golden = small_document();
  json now = small_document();
  now["flows"][0]["latency"]["batches"] = 12;
  now["flows"][0]["latency"]["batch_lag1_autocorrelation"] = 0.5;
  now["flows"][1]["latency"]["batches"] = 9;
  now["flows"][0]["packets_sent"] = 90;
  now["flows"][1]["data_throughput_bps"] = 0.5e11;
  const Comparison c = compare_stats(golden, now, {});
  REQUIRE(c.differences.size() == 5);
  const std::vector<std::string> lines = report_lines(c.differences);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find("flows.1.data_throughput_bps") != std::string::npos);  // the headline first
  CHECK(lines[1].find("flows.0.packets_sent") != std::string::npos);
  CHECK(lines[2] == "and 3 statistical by-products of the latency estimates (batch_lag1_autocorrelation, batches), "
                    "not listed");
}
