// A workload that cannot finish ends the run with a diagnosis of what each of
// its QPs waits on (transport/qp_wait.hpp, docs/limits.md), never a silent
// hang: with run.duration 0 a watchdog stops a run that does no work for 1 s
// of simulated time while events keep coming; with a duration, an unfinished
// verbs operation or a perftest that completed nothing in its last stretch
// fails naming the QP, the port and what it waits for.

#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using hcasim::test::CommandResult;

namespace {

// An RC SEND to a QP that never posts a receive WQE: the responder answers
// RNR NAK every time, and rnr_retry 7 retries forever (IBA 9.7.5.2.8).
const std::string kNoReceive = R"({"name": "no_receive", "topology": {"pattern": "back_to_back"},
  "workload": {"verbs": [{"name": "c", "type": "rc", "a": "hca0.p1", "b": "hca1.p1", "min_rnr_timer": 1,
    "ops": [{"side": "a", "op": "send", "bytes": 100}]}]}})";

uint64_t number_before(const std::string& text, const std::string& words) {
  std::smatch m;
  const std::regex re("([0-9]+) " + words);
  REQUIRE(std::regex_search(text, m, re));
  return std::stoull(m[1]);
}

double seconds_at(const std::string& text) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex("stopped at ([0-9.]+)(s|ms)")));
  return std::stod(m[1]) * (m[2] == "ms" ? 1e-3 : 1.0);
}

}  // namespace

TEST_CASE("a send nobody receives with run.duration 0 is stopped by the watchdog with a diagnosis", "[stuck]") {
  const auto dir = test::scratch("stuck_watchdog");
  const CommandResult r = test::run_scenario_json(dir, "no_receive", kNoReceive);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no work request completed") != std::string::npos);
  CHECK(r.err.find("c: op 0 (send on a): expected success, got no completion: QP ") != std::string::npos);
  CHECK(r.err.find("on hca0.p1 waits for the responder") != std::string::npos);
  CHECK(r.err.find("to post a receive WQE") != std::string::npos);
  CHECK(r.err.find("retrying forever (rnr_retry 7)") != std::string::npos);
  // It ran for the watchdog's 1 s and not much more, and the RNR NAKs came
  // at most once per RNR timer (code 1: 0.01 ms) plus a round trip.
  const double stopped = seconds_at(r.err);
  CHECK(stopped >= 1.0);
  CHECK(stopped <= 4.0);
  const uint64_t naks = number_before(r.err, "RNR NAKs so far");
  CHECK(naks <= static_cast<uint64_t>(stopped / 10e-6));
  CHECK(naks >= static_cast<uint64_t>(stopped / 20e-6));
}

TEST_CASE("the same send with a duration fails naming its QP and the RNR NAKs of that time", "[stuck]") {
  const auto dir = test::scratch("stuck_duration");
  const std::string file = test::write_file(dir / "no_receive.json", kNoReceive);
  const CommandResult r =
      test::run_command("run " + file + " --quiet --set run.duration=200us --out " + (dir / "out").string(), dir);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("got no completion: QP ") != std::string::npos);
  CHECK(r.err.find("waits for the responder") != std::string::npos);
  CHECK(r.err.find("the run was stopped") == std::string::npos);  // the duration ended it, not the watchdog
  const uint64_t naks = number_before(r.err, "RNR NAKs so far");
  CHECK(naks <= 20);  // 200 us / 10 us
  CHECK(naks >= 10);  // 200 us / (10 us + a round trip well under 10 us)
}

TEST_CASE("a perftest whose link goes down for good fails as stuck naming the unacknowledged PSN and the link", "[stuck]") {
  const auto dir = test::scratch("stuck_perftest");
  const std::string scenario = R"({"name": "link_lost", "topology": {"pattern": "back_to_back"},
    "workload": {"perftest": [{"test": "write_bw", "qps": 2, "iterations": 100000}]},
    "link_events": [{"link": "hca0.p1", "down": "20us"}], "run": {"duration": "1ms"}})";
  const CommandResult r = test::run_scenario_json(dir, "link_lost", scenario);
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("write_bw0: size 64KiB: stopped after ") != std::string::npos);
  CHECK(r.err.find("stuck: no message completed from ") != std::string::npos);
  CHECK(r.err.find("to the run's end at 1ms") != std::string::npos);
  CHECK(r.err.find("waits for the acknowledgement of PSN 0x") != std::string::npos);
  // The local ACK timeout (perftest's 14: 4.096 us x 2^14 = 67.1 ms) is far
  // past the run's end: no timeout yet, every retry left.
  CHECK(r.err.find("0 timeouts so far") != std::string::npos);
  CHECK(r.err.find("7 retries left of 7") != std::string::npos);
  CHECK(r.err.find("the link of hca0.p1 is down") != std::string::npos);
}

TEST_CASE("a perftest cut by its duration while completing messages is not stuck", "[stuck]") {
  const auto dir = test::scratch("stuck_not");
  const std::string scenario = R"({"name": "cut", "topology": {"pattern": "back_to_back"},
    "workload": {"perftest": [{"test": "write_bw", "qps": 2, "iterations": 100000}]}, "run": {"duration": "300us"}})";
  const CommandResult r = test::run_scenario_json(dir, "cut", scenario);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("stuck") == std::string::npos);
}

TEST_CASE("a script whose next operation is seconds away is not stopped by the watchdog", "[stuck]") {
  const auto dir = test::scratch("stuck_late_op");
  // Few events between: the receive, then a send 3 s later.
  const std::string scenario = R"({"name": "late", "topology": {"pattern": "back_to_back"},
    "workload": {"verbs": [{"name": "c", "type": "rc", "a": "hca0.p1", "b": "hca1.p1",
      "ops": [{"side": "b", "op": "post_recv", "bytes": 100}, {"side": "a", "op": "send", "bytes": 100, "at": "3s"}]}]}})";
  const CommandResult r = test::run_scenario_json(dir, "late", scenario);
  INFO(r.err);
  CHECK(r.exit_code == 0);
}
