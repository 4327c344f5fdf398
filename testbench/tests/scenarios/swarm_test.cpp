// rdma_bench's rc-swarm (workload.swarm) against analytic numbers: the QPs
// each machine makes, the message rate of threads bound by their CPU costs,
// and the one-line errors of a wrong swarm. Each case runs hcasim as a user
// would and reads stats.json.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

// Six machines on one switch; an HCA that costs nothing on its host side but
// the driver's CPU costs below, so the threads' CPU time bounds the rate.
// (Polling is free: the driver charges poll_ps per wake-up of a CQ's poller,
// which may take several CQEs, so it has no fixed cost per READ.)
nlohmann::json swarm_scenario(const nlohmann::json& swarm) {
  return {{"name", "swarm"},
          {"topology", {{"pattern", "single_switch"}, {"hosts", 6}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"hca", {{"preset", "ideal"}, {"cpu", {{"post", "40ns"}, {"blueflame", "200ns"}, {"poll", "0ns"}}}}},
          {"workload", {{"swarm", {swarm}}}},
          {"run", {{"duration", "140us"}}}};
}

nlohmann::json run_swarm(const ScratchDir& dir, const std::string& name, const nlohmann::json& scenario) {
  const std::string file = write_file(dir / (name + ".json"), scenario.dump());
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / name).string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "stats.json"));
}

}  // namespace

TEST_CASE("swarm: each machine holds threads x machines x vms QPs, and CPU-bound threads post at 1 / (post + "
          "blueflame)") {
  const ScratchDir dir = scratch("swarm_rate");
  // 3 threads, 2 virtual machines: 3 x 6 x 2 = 36 QPs per machine. A window of
  // 48 keeps every thread busy: a READ takes well under 48 x 240 ns. The
  // warm-up outlasts the first window's posts (48 x 240 ns), so the count
  // holds only the steady state.
  const nlohmann::json stats = run_swarm(
      dir, "rate", swarm_scenario({{"threads", 3}, {"vms", 2}, {"window", 48}, {"sq_depth", 64}, {"warmup", "40us"}}));
  const nlohmann::json& w = stats["swarm"][0];
  CHECK(w["failures"].empty());
  CHECK(w["qps_per_machine"].get<unsigned>() == 3 * 6 * 2);
  const nlohmann::json machines = read_table(dir / "rate", "swarm_machines");
  REQUIRE(machines.size() == 6);
  const double bound = 3 / 240e-9;  // each thread: one post (40 + 200 ns) per READ; polling costs nothing here
  for (const auto& m : machines) {
    INFO(m.dump());
    CHECK(m["qps"].get<unsigned>() == 36);
    CHECK(m["ops_per_s"].get<double>() == Approx(bound).epsilon(0.02));
  }
  // CPU-bound: each of the 3 threads busy nearly all the time, so the mean
  // over the threads (not their sum) is close to 1, and it is their mean.
  for (const auto& host : stats["hosts"]["first"]) {
    const nlohmann::json& d = host["driver"];
    INFO(d.dump());
    REQUIRE(d["cpu_threads"].get<unsigned>() == 3);
    double sum = 0;
    for (const auto& t : d["cpu_thread_utilization"]) sum += t.get<double>();
    CHECK(d["cpu_utilization"].get<double>() == Approx(sum / 3).epsilon(1e-9));
    CHECK(d["cpu_utilization"].get<double>() > 0.9);
    CHECK(d["cpu_utilization"].get<double>() <= 1.0);
    CHECK(d["cpu_utilization_max"].get<double>() <= 1.0);
  }
  // The QPs a machine makes for itself carry nothing: 3 x 2 per machine stay in RESET.
  unsigned reset = 0;
  for (const auto& q : read_table(dir / "rate", "qps")) reset += q["state"] == "reset";
  CHECK(stats["qps"]["by_state"]["reset"] == 6 * 3 * 2);
  CHECK(reset == 6 * 3 * 2);
}

TEST_CASE("swarm: with ports 2 thread t's QPs use port 1 + t mod 2 of its machine's HCA, and every port carries "
          "the same share") {
  const ScratchDir dir = scratch("swarm_ports");
  // Four dual-port HCAs on one switch; 4 threads: threads 0 and 2 on port 1, 1 and 3 on port 2.
  nlohmann::json nodes = {{{"name", "sw0"}, {"kind", "switch"}, {"ports", 8}}};
  nlohmann::json links = nlohmann::json::array();
  for (int i = 0; i < 4; ++i) {
    const std::string h = "hca" + std::to_string(i);
    nodes.push_back({{"name", h}, {"kind", "hca"}, {"ports", 2}});
    for (int p = 1; p <= 2; ++p)
      links.push_back({{"a", h + ".p" + std::to_string(p)}, {"b", "sw0.p" + std::to_string(2 * i + p)}});
  }
  nlohmann::json s = swarm_scenario({{"threads", 4}, {"ports", 2}, {"window", 4}});
  s["topology"] = {{"pattern", "explicit"}, {"graph", {{"nodes", nodes}, {"links", links}}}};
  const std::string file = write_file(dir / "ports.json", s.dump());
  const CommandResult r = run_command("run " + file + " --quiet --out " + (dir / "ports").string() + kWithDetails, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json stats = nlohmann::json::parse(slurp(dir / "ports" / "stats.json"));
  CHECK(stats["swarm"][0]["qps_per_machine"] == 4 * 4);  // threads x machines x vms, whatever the ports
  std::map<std::string, double> sent;  // HCA port -> packets sent
  const nlohmann::json details = read_details(dir / "ports");
  for (const nlohmann::json& port : details["ports"]) {
    const std::string name = port["name"];
    if (name.rfind("hca", 0) != 0) continue;
    double packets = 0;
    for (const nlohmann::json& vl : port["vls"]) packets += vl["tx_packets"].get<double>();
    sent[name] = packets;
  }
  REQUIRE(sent.size() == 8);
  for (const auto& [name, packets] : sent) {
    INFO(name);
    // Two threads on each port, QPs to random machines: each port within 10 % of the mean.
    CHECK(packets == Approx(sent["hca0.p1"]).epsilon(0.10));
    CHECK(packets > 1000);
  }
}

TEST_CASE("swarm: a wrong swarm is one line naming its path") {
  const ScratchDir dir = scratch("swarm_errors");
  nlohmann::json base = swarm_scenario({{"threads", 2}});
  const std::string file = write_file(dir / "base.json", base.dump());
  check_bad_configs(file,
                    {{"one machine", "--set 'workload.swarm.0.machines=[\"hca0.p1\"]'", "workload.swarm.0.machines"},
                     {"a machine twice", "--set 'workload.swarm.0.machines=[\"hca0.p1\",\"hca0.p1\"]'",
                      "workload.swarm.0.machines.1"},
                     {"no such port", "--set 'workload.swarm.0.machines=[\"hca0.p1\",\"hca9.p1\"]'",
                      "workload.swarm.0.machines.1"},
                     {"window beyond the send queue", "--set workload.swarm.0.window=200", "workload.swarm.0.window"},
                     {"buffer too small for the window", "--set workload.swarm.0.buffer=4KiB --set workload.swarm.0.size=1KiB",
                      "workload.swarm.0.buffer"},
                     {"regions too small", "--set workload.swarm.0.regions=3000", "workload.swarm.0.regions"},
                     {"no duration", "--set run.duration=0ns", "workload.swarm.0"},
                     {"a second port the HCAs lack", "--set workload.swarm.0.ports=2", "workload.swarm.0.ports"}},
                    dir);
}
