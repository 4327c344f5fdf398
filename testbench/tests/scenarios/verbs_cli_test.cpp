// The command line with transport workloads: a perftest scenario and a verbs
// script run (exit 0), a verbs expectation that does not hold fails the run
// (exit 1, naming the operation), and config mistakes in "transport",
// "workload.perftest" and "workload.verbs" give one line naming the JSON path
// (exit 2).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {
std::string config(const std::string& name) { return std::string(HCASIM_SOURCE_DIR) + "/configs/" + name; }
}  // namespace

TEST_CASE("a perftest scenario runs - every size is reported - and the resolved config reproduces it") {
  const auto dir = scratch("perftest-cli");
  const CommandResult r = run_command("run " + config("perftest_write_bw.json") +
                                          " --set 'workload.perftest.0.sizes=[\"4KiB\",\"64KiB\"]'"
                                          " --set workload.perftest.0.iterations=200 --out " + (dir / "a").string(),
                                      dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("BW average[MiB/sec]") != std::string::npos);  // the perftest-style table
  const auto stats = nlohmann::json::parse(slurp(dir / "a" / "stats.json"));
  const auto& t = stats["perftest"][0];
  CHECK(t["ok"] == true);
  REQUIRE(t["sizes"].size() == 2);
  CHECK(t["sizes"][1]["bytes"] == 65536);
  CHECK(t["sizes"][1]["messages"] == 200);
  CHECK(t["sizes"][1]["bw_Gbps"].get<double>() > 150);
  // Two QPs (client and server), with their counters; one HCA engine entry each.
  REQUIRE(stats["qps"]["count"] == 2);
  CHECK(stats["qps"]["first"][0]["owner"] == t["name"]);
  CHECK(stats["qps"]["first"][0]["messages_sent"] == 400);
  CHECK(stats["qps"]["first"][0]["naks_received"]["psn_seq_err"] == 0);
  CHECK(stats["engines"]["count"] == 2);
  const std::string resolved = (dir / "a" / "scenario.resolved.json").string();
  REQUIRE(run_command("run " + resolved + " --quiet --out " + (dir / "b").string(), dir).exit_code == 0);
  auto a = stats;
  auto b = nlohmann::json::parse(slurp(dir / "b" / "stats.json"));
  a.erase("wall");
  b.erase("wall");
  CHECK(a == b);
}

TEST_CASE("every perftest tool runs with its data checked") {
  const auto dir = scratch("perftest-tools");
  nlohmann::json s = {{"name", "tools"}, {"topology", {{"pattern", "single_switch"}, {"hosts", 4}}}};
  auto& list = s["workload"]["perftest"];
  list.push_back({{"test", "send_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"}, {"sizes", {"8B", "9000B"}},
                  {"iterations", 100}, {"qps", 3}});
  list.push_back({{"test", "read_bw"}, {"client", "hca2.p1"}, {"server", "hca3.p1"}, {"iterations", 50}});
  list.push_back({{"test", "write_lat"}, {"client", "hca1.p1"}, {"server", "hca0.p1"}, {"sizes", {"2B", "5000B"}},
                  {"iterations", 50}});
  list.push_back({{"test", "read_lat"}, {"client", "hca3.p1"}, {"server", "hca2.p1"}, {"iterations", 50}});
  list.push_back({{"test", "atomic_lat"}, {"client", "hca3.p1"}, {"server", "hca2.p1"}, {"iterations", 50},
                  {"atomic", "cmp_swap"}});
  list.push_back({{"test", "send_lat"}, {"client", "hca0.p1"}, {"server", "hca1.p1"}, {"qp_type", "uc"},
                  {"iterations", 50}});
  list.push_back({{"test", "write_bw"}, {"client", "hca2.p1"}, {"server", "hca3.p1"}, {"qp_type", "uc"},
                  {"iterations", 50}});
  const std::string path = write_file(dir / "tools.json", s.dump());
  const CommandResult r = run_command("run " + path + " --quiet --out " + (dir / "out").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  REQUIRE(stats["perftest"].size() == list.size());
  for (const auto& t : stats["perftest"]) {
    INFO(t["name"]);
    CHECK(t["ok"] == true);
    for (const auto& size : t["sizes"]) CHECK(size["done"] == true);
  }
  // Latency tests report perftest's fields; write_lat half, read_lat the full round trip.
  CHECK(stats["perftest"][2]["sizes"][0]["latency"]["reported"] == "half_round_trip");
  CHECK(stats["perftest"][3]["sizes"][0]["latency"]["reported"] == "round_trip");
  CHECK(stats["perftest"][3]["sizes"][0]["latency"]["samples"] == 50);
}

TEST_CASE("a verbs script whose expectations hold exits 0") {
  const auto dir = scratch("verbs-pass");
  const CommandResult r = run_command("run " + config("verbs_script.json") + " --out " + (dir / "out").string(), dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  REQUIRE(stats["verbs"].size() == 2);
  for (const auto& v : stats["verbs"])
    for (const auto& op : v["ops"]) CHECK(op["got"] == op["expect"]);
  CHECK(stats["verbs"][0]["ops"][10]["got"] == "rem_access_err");
}

TEST_CASE("a verbs script with a wrong expectation exits 1 naming the operation and what it got") {
  const auto dir = scratch("verbs-fail");
  const CommandResult r = run_command("run " + config("verbs_script.json") +
                                          " --quiet --set workload.verbs.0.ops.9.expect=rnr_retry_exc_err --out " +
                                          (dir / "out").string(),
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 1);
  CHECK(r.err.find("rc1: op 9 (send on b): expected rnr_retry_exc_err, got wr_flush_err") != std::string::npos);
  const auto stats = nlohmann::json::parse(slurp(dir / "out" / "stats.json"));
  CHECK(stats["verbs"][0]["ok"] == false);
}

TEST_CASE("transport workload config mistakes each give one line naming the JSON path - and exit 2") {
  const auto dir = scratch("bad-verbs-configs");
  const std::string base = write_file(dir / "base.json", R"({
    "name": "bad",
    "topology": { "pattern": "single_switch", "hosts": 4 },
    "port_overrides": [ { "port": "hca3.p1", "mtu": 1024 } ],
    "workload": {
      "flows": [ { "src": "hca2.p1", "dst": "hca3.p1", "count": 10 } ],
      "perftest": [ { "test": "write_bw", "client": "hca0.p1", "server": "hca1.p1" } ],
      "verbs": [ { "a": "hca0.p1", "b": "hca1.p1", "ops": [ { "op": "send" } ] } ]
    }
  })");
  REQUIRE(run_command("validate " + base, dir).exit_code == 0);
  const std::vector<BadCase> cases = {
      {"misspelt transport key", "--set transport.enginez=2", "transport.enginez"},
      {"no transmit units", "--set transport.tx_units=0", "transport.tx_units"},
      {"unknown scheduler", "--set transport.scheduler=fifo", "transport.scheduler"},
      {"unknown unit mapping", "--set transport.unit_mapping=random", "transport.unit_mapping"},
      {"sl_weights not 16", "--set transport.sl_weights=[1,2]", "transport.sl_weights"},
      {"unknown AckReq policy", "--set transport.ack_req=sometimes", "transport.ack_req"},
      {"latency without a unit", "--set transport.packet_build=20", "transport.packet_build"},
      {"unknown tool", "--set workload.perftest.0.test=write_bandwidth", "workload.perftest.0.test"},
      {"misspelt perftest key", "--set workload.perftest.0.iters=5", "workload.perftest.0.iters"},
      {"unknown client port", "--set workload.perftest.0.client=hca9.p1", "workload.perftest.0.client"},
      {"client is the server", "--set workload.perftest.0.server=hca0.p1", "workload.perftest.0.server"},
      {"port also used by a raw flow", "--set workload.perftest.0.server=hca2.p1", "workload.perftest.0.server"},
      {"write over UD", "--set workload.perftest.0.qp_type=ud", "workload.perftest.0.qp_type"},
      {"read over UC", "--set workload.perftest.0.test=read_bw --set workload.perftest.0.qp_type=uc",
       "workload.perftest.0.qp_type"},
      {"bad size", "--set 'workload.perftest.0.sizes=[\"64KiB\",\"3parsec\"]'", "workload.perftest.0.sizes.1"},
      {"sizes neither all nor a list", "--set workload.perftest.0.sizes=some", "workload.perftest.0.sizes"},
      {"UD message over the MTU",
       "--set workload.perftest.0.test=send_bw --set workload.perftest.0.qp_type=ud "
       "--set 'workload.perftest.0.sizes=[\"8KiB\"]'",
       "workload.perftest.0.sizes.0"},
      {"path MTU over the port MTU",
       "--set workload.flows.0.dst=hca1.p1 --set workload.perftest.0.server=hca3.p1 --set workload.perftest.0.mtu=4096",
       "workload.perftest.0.mtu"},
      {"several QPs in a latency test", "--set workload.perftest.0.test=send_lat --set workload.perftest.0.qps=2",
       "workload.perftest.0.qps"},
      {"atomic of 64 bytes", "--set workload.perftest.0.test=atomic_lat --set 'workload.perftest.0.sizes=[64]'",
       "workload.perftest.0.sizes"},
      {"unknown verb", "--set workload.verbs.0.ops.0.op=teleport", "workload.verbs.0.ops.0.op"},
      {"unknown status", "--set workload.verbs.0.ops.0.expect=fine", "workload.verbs.0.ops.0.expect"},
      {"unknown access flag", "--set 'workload.verbs.0.access=[\"remote_dance\"]'", "workload.verbs.0.access.0"},
      {"read on a UD QP", "--set workload.verbs.0.type=ud --set workload.verbs.0.ops.0.op=read",
       "workload.verbs.0.ops.0.op"},
      {"atomic that is not 8 bytes", "--set workload.verbs.0.ops.0.op=fetch_add --set workload.verbs.0.ops.0.bytes=16",
       "workload.verbs.0.ops.0.bytes"},
      {"verbs port used by a raw flow", "--set workload.verbs.0.b=hca3.p1", "workload.verbs.0.b"},
      {"duplicate names", "--set workload.verbs.0.name=write_bw0", "workload.verbs.0.name"},
      {"bad side", "--set workload.verbs.0.ops.0.side=c", "workload.verbs.0.ops.0.side"},
  };
  check_bad_configs(base, cases, dir);
}
