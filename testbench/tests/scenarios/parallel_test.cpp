// Parallel simulation (models/link/partition.hpp, testbench/cli/windowed_run.hpp):
// a partitioned run gives the same results on any number of threads, delivers
// every packet byte for byte with the link checker watching the cut links,
// matches the unpartitioned model's throughput and latency, keeps its
// credits under loss on a cut link, and refuses what it cannot split.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "models/ib/packet.hpp"
#include "testbench/tests/scenarios/b2b_fixture.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

nlohmann::json run_stats(const std::string& args, const std::filesystem::path& dir, const std::string& out) {
  const CommandResult r = run_command("run " + config_path("fat_tree_permutation.json") + " --quiet --out " +
                                          (dir / out).string() + " " + args,
                                      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / out / "stats.json"));
}

}  // namespace

TEST_CASE("parallel: a fat tree in 2 or 3 partitions gives byte-identical stats on one thread and on several", "[parallel]") {
  const auto dir = scratch("parallel-threads");
  for (const char* parts : {"2", "3"}) {
    INFO(parts << " partitions");
    const std::string sets = std::string("--set run.duration=10us --set run.partitions=") + parts;
    nlohmann::json one = run_stats(sets + " --threads 1", dir, std::string("one") + parts);
    nlohmann::json many = run_stats(sets + " --threads " + parts, dir, std::string("many") + parts);
    REQUIRE(one["checker"]["ok"] == true);
    REQUIRE(one["run"]["partitions"] == std::stoi(parts));
    REQUIRE(one["run"]["cut_links"].get<unsigned>() > 0);
    REQUIRE(one["wall"]["threads"] == 1);
    REQUIRE(many["wall"]["threads"] == std::stoi(parts));
    one.erase("wall");
    many.erase("wall");
    REQUIRE(one.dump() == many.dump());
  }
}

TEST_CASE("parallel: validate shows the split of a fat tree into two partitions") {
  const auto dir = scratch("parallel-validate");
  const CommandResult r = run_command("validate " + config_path("fat_tree_permutation.json") + " --set run.partitions=2", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 8-ary 2-tree: 64 hosts on 8 leaves, 8 spines. Each half holds 4 leaves
  // with their 32 hosts and 4 spines, whose links to the other half's 4
  // leaves are cut: 2 x 4 x 4 of the 64 switch-to-switch links.
  CHECK(r.out.find("2 partitions of 40, 40 nodes, 32 of 128 links cut") != std::string::npos);
}

TEST_CASE("parallel: throughput and latency of a fat tree under permutation match one partition within 1%", "[parallel]") {
  const auto dir = scratch("parallel-match");
  const nlohmann::json one = run_stats("--set run.duration=40us", dir, "p1");
  const nlohmann::json two = run_stats("--set run.duration=40us --set run.partitions=2 --threads 2", dir, "p2");
  REQUIRE(two["checker"]["ok"] == true);
  const nlohmann::json& a = one["patterns"][0];
  const nlohmann::json& b = two["patterns"][0];
  // The partitions change only the order of events at equal times.
  CHECK(b["throughput_bps"].get<double>() == Approx(a["throughput_bps"].get<double>()).epsilon(0.01));
  for (const char* q : {"p50_ns", "p99_ns", "mean_ns"}) {
    INFO(q);
    CHECK(b["latency"][q].get<double>() == Approx(a["latency"][q].get<double>()).epsilon(0.01));
  }
  CHECK(two["run"]["packet_hops"].get<double>() == Approx(one["run"]["packet_hops"].get<double>()).epsilon(0.01));
}

TEST_CASE("parallel: a fat tree split in two delivers every packet byte for byte and the checker sees every hop", "[parallel]") {
  const uint64_t count = 300;
  config::Scenario s = load_config("fat_tree_permutation.json", {"run.duration=0ns", "run.partitions=2",
                                                                 "workload.patterns.0.count=" + std::to_string(count)});
  SimulationSetup setup = setup_from(s, "", true);
  setup.options.threads = 2;
  Simulation sim(setup.fabric, setup.flows, setup.options, setup.transport);
  sim.run();
  REQUIRE(sim.partitions() == 2);
  REQUIRE(sim.threads() == 2);
  REQUIRE(sim.cut_links() > 0);
  INFO((sim.checker().ok() ? "" : sim.checker().messages().front()));
  REQUIRE(sim.checker().ok());
  REQUIRE(sim.checker().packets_checked() == sim.packet_hops());
  REQUIRE(sim.flow_results().size() == 64);
  for (const workloads::FlowResult& r : sim.flow_results()) {
    CHECK(r.sent == count);
    CHECK(r.delivered == count);
    CHECK(r.delivered_bytes == count * ud_wire_bytes(4096));
    CHECK(r.delivered_payload == count * 4096);
    CHECK(r.latency_ps.count() == count);
  }
  REQUIRE(sim.packets_delivered() == 64 * count);
  for (std::size_t d = 0; d < static_cast<std::size_t>(link::DropReason::Count); ++d)
    CHECK(drops_of(sim, static_cast<link::DropReason>(d)) == 0);
  check_credits_whole(sim);
  // The window: the shortest flight over a cut link (here between switches:
  // a flow-control packet or an LRH, 5 m of cable, the receiving switch's latency).
  const link::LinkTiming t(s.link);
  const uint64_t shortest = std::min(t.bytes_ps(ib::kLrhBytes), t.serialization_ps(ib::kFlowControlBytes));
  REQUIRE(sim.window_ps() == shortest + t.propagation_ps() + s.switches.core.latency_ps);
}

TEST_CASE("parallel: losses on a cut link are announced to the checker and the credits stay whole", "[parallel]") {
  link::LinkConfig l;
  l.faults.drop_rate = 0.05;
  l.faults.seed = 3;
  const uint64_t n = 20000;
  RunOptions o;
  o.partitions = 2;
  o.threads = 2;
  Simulation sim(config::back_to_back({}, {}, l), {flow(0, 256, n), flow(1, 4096, n / 4), flow(2, 256, n / 2, 1, 0)},
                 o);
  sim.run();
  REQUIRE(sim.cut_links() == 1);
  INFO((sim.checker().ok() ? "" : sim.checker().messages().front()));
  REQUIRE(sim.checker().ok());
  const uint64_t lost = drops_of(sim, link::DropReason::FaultDrop);
  uint64_t sent = 0, delivered = 0;
  for (const auto& r : sim.flow_results()) {
    sent += r.sent;
    delivered += r.delivered;
  }
  REQUIRE(sent == n + n / 4 + n / 2);
  REQUIRE(lost == sent - delivered);
  REQUIRE(lost == sim.checker().announced_losses());
  const double mean = 0.05 * static_cast<double>(sent);
  CHECK(std::abs(static_cast<double>(lost) - mean) <= 5 * std::sqrt(mean * 0.95));
  check_credits_whole(sim);
}

TEST_CASE("parallel: what needs one timeline is refused naming run.partitions - exit 2") {
  const auto dir = scratch("parallel-refused");
  const std::string ft = config_path("fat_tree_permutation.json");
  check_bad_configs(config_path("b2b_hdr.json"),
                    {{"more partitions than nodes", "--set run.partitions=3", "run.partitions"}}, dir);
  check_bad_configs(ft, {{"no partitions", "--set run.partitions=0", "run.partitions"},
                         {"more than the most", "--set run.partitions=65", "run.partitions"},
                         {"pcap", "--set run.partitions=2 --set outputs.pcap=true", "run.partitions"},
                         {"vcd", "--set run.partitions=2 --set outputs.vcd=true", "run.partitions"},
                         {"RTL blocks", "--set run.partitions=2 --set port.vl_arbiter=rtl", "run.partitions"}},
                    dir);
  check_bad_configs(config_path("perftest_write_bw.json"),
                    {{"perftest", "--set run.partitions=2", "run.partitions"}}, dir);
  check_bad_configs(config_path("inband_fat_tree.json"),
                    {{"management in band", "--set run.partitions=2", "run.partitions"}}, dir);
  // Threads without partitions: the run goes on, with a warning that says what to set.
  const CommandResult one = run_command("run " + config_path("b2b_hdr.json") + " --quiet --out " + (dir / "one").string() +
                                            " --threads 2 --set run.duration=1us",
                                        dir);
  CHECK(one.exit_code == 0);
  CHECK(one.err.find("warning: --threads 2 has no effect with run.partitions 1") != std::string::npos);
  for (const char* threads : {"0", "65", "two"}) {
    INFO("--threads " << threads);
    const CommandResult r = run_command("run " + ft + " --quiet --out " + (dir / "t").string() + " --threads " + threads, dir);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.find("--threads") != std::string::npos);
  }
}
