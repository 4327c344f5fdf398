// Open-loop sources, latency from creation with its parts, offered against
// accepted load, fair turns within a VL, and the measured window
// (raw_generator.hpp, flow_recorder.hpp, testbench/cli/measurement.hpp),
// against queueing theory and analytic bounds.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "models/config/config_error.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// Two HCAs back to back, one data VL, HDR 4x: flows from hca0 to hca1.
nlohmann::json b2b(const std::vector<nlohmann::json>& flows, const nlohmann::json& run = nlohmann::json::object()) {
  return {{"name", "open_loop"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"port", {{"data_vls", 2}, {"mtu", 4096}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
          {"workload", {{"flows", flows}}},
          {"run", run}};
}
nlohmann::json flow(const std::string& rate, uint64_t count, const nlohmann::json& more = nlohmann::json::object()) {
  nlohmann::json f = {{"src", "hca0.p1"}, {"dst", "hca1.p1"}, {"payload", "4KiB"}, {"rate", rate}, {"count", count}};
  f.update(more);
  return f;
}
ScenarioRun run_json(const nlohmann::json& root) { return run_scenario(config::load_scenario(root)); }

// Runs the scenario with the hcasim program (one simulation per process) and
// returns its stats.json and summary.
struct CliRun {
  nlohmann::json stats;
  std::string summary;
};
CliRun run_cli(const nlohmann::json& root, const ScratchDir& dir, const std::string& name) {
  const std::string file = write_file(dir / (name + ".json"), root.dump());
  const CommandResult r = run_command("run " + file + " --out " + dir.file(name) + kWithDetails, dir);
  REQUIRE(r.exit_code == 0);
  nlohmann::json stats = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  stats["objects"] = read_details(dir / name);  // every port and flow in full
  return {stats, r.out};
}

// The time hca0's port takes to send one 4 KiB packet of a flow: the M/D/1 service time.
double service_ps(const Simulation& sim) {
  const uint32_t wire = static_cast<uint32_t>(sim.flow_results()[0].delivered_bytes / sim.flow_results()[0].delivered);
  return static_cast<double>(sim.fabric().hca(0).port(0).timing().serialization_ps(wire));
}

// One source with Poisson arrivals into one link at load rho: the mean wait
// before service, within 2 % of Pollaczek-Khinchine's for deterministic service.
void check_md1(int load, unsigned count) {
  const ScenarioRun run = run_json(b2b({flow(std::to_string(load) + "%", count, {{"source", {{"arrival", "poisson"}}}})}));
  const Simulation& sim = *run.sim;
  REQUIRE(sim.checker().ok());
  const workloads::FlowResult& r = sim.flow_results()[0];
  REQUIRE(r.delivered == count);
  const double rho = load / 100.0, s = service_ps(sim);
  const double expected = rho * s / (2 * (1 - rho));  // rho / (2 mu (1 - rho)), mu = 1 / s
  // The wait before service: in the source queue and the port's transmit buffer, to the first byte on the wire.
  REQUIRE(r.source_wait_ps.mean() == Approx(expected).epsilon(0.02));
  // The network part is the packet's own time on the link plus the cable: the same for every packet.
  REQUIRE(r.network_ps.min() == r.network_ps.max());
  // The parts add up to the whole.
  REQUIRE(r.source_wait_ps.mean() + r.network_ps.mean() == Approx(r.latency_ps.mean()).epsilon(1e-9));
}

}  // namespace

TEST_CASE("M/D/1 at rho 0.3: mean source wait rho / (2 mu (1 - rho)) within 2 %") { check_md1(30, 400'000); }
TEST_CASE("M/D/1 at rho 0.6: mean source wait rho / (2 mu (1 - rho)) within 2 %") { check_md1(60, 1'000'000); }
TEST_CASE("M/D/1 at rho 0.9: mean source wait rho / (2 mu (1 - rho)) within 2 %", "[slow]") { check_md1(90, 2'000'000); }

TEST_CASE("fair sources: three saturating flows on SLs 0, 0, 1 with equal VL weights get 25/25/50 within 1 point") {
  std::vector<nlohmann::json> flows;
  for (int sl : {0, 0, 1}) flows.push_back(flow("saturate", 0, {{"sl", sl}}));
  const ScenarioRun run = run_json(b2b(flows, {{"duration", "200us"}}));
  const auto& r = run.sim->flow_results();
  const double total = static_cast<double>(r[0].delivered_bytes + r[1].delivered_bytes + r[2].delivered_bytes);
  REQUIRE(100.0 * static_cast<double>(r[0].delivered_bytes) / total == Approx(25).margin(1));
  REQUIRE(100.0 * static_cast<double>(r[1].delivered_bytes) / total == Approx(25).margin(1));
  REQUIRE(100.0 * static_cast<double>(r[2].delivered_bytes) / total == Approx(50).margin(1));
}

TEST_CASE("above saturation: accepted stays at the link's bound while offered grows, the run warns, latency grows with the run") {
  // Two flows share hca0's link, each offered `load` of it.
  const ScratchDir dir("saturation");
  const auto overload = [&](const std::string& load, const std::string& duration) {
    return run_cli(b2b({flow(load, 0), flow(load, 0)}, {{"duration", duration}}), dir, load.substr(0, 2) + "_" + duration);
  };
  const CliRun at120 = overload("60%", "100us"), at120_long = overload("60%", "200us"), at160 = overload("80%", "100us");
  // The link's bound on packet bytes: its data rate less 2 bytes of framing per
  // 4 KiB packet (link_timing.hpp). A flow offered `load` is offered that
  // share of the bound (offered_load is a share of the data rate).
  const double wire = 4096 + 34;  // LRH 8, BTH 12, DETH 8, ICRC 4, VCRC 2
  for (const auto& [r, load] : {std::pair{&at120, 0.6}, std::pair{&at160, 0.8}})
    // (within one packet of the about 360 each flow is offered in 100 us)
    REQUIRE(r->stats["flows"]["first"][0]["offered_load"].get<double>() == Approx(load * wire / (wire + 2)).epsilon(0.004));
  const auto sum = [](const CliRun& r, const char* key) {
    return r.stats["flows"]["first"][0][key].get<double>() + r.stats["flows"]["first"][1][key].get<double>();
  };
  const double bound = sum(at120, "offered_bps") / 1.2;
  for (const CliRun* r : {&at120, &at120_long, &at160}) {
    REQUIRE(sum(*r, "accepted_bps") <= bound * 1.0001);
    REQUIRE(sum(*r, "accepted_bps") >= bound * 0.995);  // less the flow-control packets hca0 sends
    // The summary warns for both flows.
    REQUIRE(r->summary.find("warning: flow flow0 carried") != std::string::npos);
    REQUIRE(r->summary.find("warning: flow flow1 carried") != std::string::npos);
  }
  REQUIRE(sum(at160, "offered_bps") == Approx(sum(at120, "offered_bps") * 160 / 120).epsilon(0.01));
  REQUIRE(sum(at160, "accepted_bps") == Approx(sum(at120, "accepted_bps")).epsilon(0.005));
  // With an unbounded source queue the backlog grows without end. At 120 %
  // each flow's queue grows by 0.1 packet a service time and is served at 0.5:
  // a packet made at t waits 0.2 t, so the packets delivered by T (made by
  // T / 1.2) wait T / 12 on average.
  for (const auto& [r, t] : {std::pair{&at120, 100e3}, std::pair{&at120_long, 200e3}})
    REQUIRE(r->stats["flows"]["first"][0]["latency"]["mean_ns"].get<double>() == Approx(t / 12).epsilon(0.05));
}

TEST_CASE("below saturation the latency does not depend on the transmit buffer's size") {
  const ScratchDir dir("tx_buffer");
  const auto with_buffer = [&](const std::string& size) {
    nlohmann::json root = b2b({flow("70%", 100'000, {{"source", {{"arrival", "poisson"}}}})});
    root["port"]["tx_buffer"] = size;
    return run_cli(root, dir, size).stats["flows"]["first"][0];
  };
  const nlohmann::json small = with_buffer("64KiB"), large = with_buffer("1MiB");
  REQUIRE(small["latency"] == large["latency"]);
  // The split between the source queue and the transmit buffer moves; their sum does not.
  REQUIRE(small["latency_parts"]["source_queue"] == large["latency_parts"]["source_queue"]);
  REQUIRE(small["latency_parts"]["port_queue"]["max_ns"].get<double>() <=
          large["latency_parts"]["port_queue"]["max_ns"].get<double>());
}

TEST_CASE("a bounded source queue drops the arrivals that find it full and counts them against the offered load") {
  const ScenarioRun run = run_json(b2b({flow("60%", 0, {{"source", {{"queue", 4}}}}), flow("60%", 0)}, {{"duration", "100us"}}));
  const workloads::FlowResult& r = run.sim->flow_results()[0];
  REQUIRE(r.source_queue_high_water == 4);
  REQUIRE(r.dropped_source_queue > 0);
  REQUIRE(r.created == r.sent + r.dropped_source_queue + (r.created - r.sent - r.dropped_source_queue));
  REQUIRE(r.offered_lost == r.dropped_source_queue);
  // The unbounded one keeps everything.
  REQUIRE(run.sim->flow_results()[1].dropped_source_queue == 0);
  REQUIRE(run.sim->flow_results()[1].source_queue_high_water > 4);
}

TEST_CASE("a fixed warm-up and a measured window: only packets made in the window are measured, and the run drains them") {
  const ScenarioRun run =
      run_json(b2b({flow("50%", 0)}, {{"warmup", "20us"}, {"measure", "30us"}}));
  const Simulation& sim = *run.sim;
  const workloads::FlowResult& r = sim.flow_results()[0];
  const nlohmann::json m = sim.measurement_json();
  REQUIRE(m["window_start_ps"] == 20'000'000);
  REQUIRE(m["window_end_ps"] == 50'000'000);
  REQUIRE(m["drained"] == true);
  REQUIRE(r.measured_delivered == r.offered);
  REQUIRE(r.latency_ps.count() == r.offered);
  // Deterministic arrivals at half the link's rate: one packet per 2 service times.
  const double interval = 2 * service_ps(sim);
  REQUIRE(static_cast<double>(r.offered) == Approx(30e6 / interval).margin(1));
  // The source port's counters over the window: busy half the time, a packet every interval.
  const nlohmann::json port = sim.port_json(*sim.fabric().ports()[0])["measured"];
  REQUIRE(port["utilization"].get<double>() == Approx(0.5).margin(0.005));
  REQUIRE(static_cast<double>(port["tx_packets"].get<uint64_t>()) == Approx(30e6 / interval).margin(1));
  // The run ends once the last measured packet is in: soon after the window, not at an idle fabric (never: count 0).
  REQUIRE(sim.sim_time_ps() < 51'000'000);
  REQUIRE(sim.sim_time_ps() > 50'000'000);
}

TEST_CASE("warm-up auto on a fat tree at 50 % load: statistics within 2 % of a run ten times longer, steady state reported") {
  const ScratchDir dir("warmup");
  const auto fat_tree = [&](const std::string& measure) {
    const nlohmann::json root = {
        {"name", "warmup"},
        {"topology", {{"pattern", "fat_tree"}, {"k", 4}, {"levels", 2}}},
        {"port", {{"data_vls", 1}, {"mtu", 4096}}},
        {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "5m"}}},
        {"workload",
         {{"patterns", {{{"name", "u"}, {"kind", "uniform"}, {"payload", "4KiB"}, {"rate", "50%"},
                         {"source", {{"arrival", "poisson"}}}}}}}},
        {"run", {{"warmup", "auto"}, {"measure", measure}, {"warmup_period", "5us"}, {"seed", 2}}}};
    return run_cli(root, dir, measure).stats;
  };
  const nlohmann::json one = fat_tree("100us"), ten = fat_tree("1ms");
  for (const nlohmann::json* r : {&one, &ten}) {
    const nlohmann::json& m = (*r)["run"]["measurement"];
    REQUIRE(m["steady_state"] == true);
    REQUIRE(m["drained"] == true);
    REQUIRE(m["window_start_ps"].get<uint64_t>() > 0);
  }
  const nlohmann::json &a = one["patterns"][0], &b = ten["patterns"][0];
  REQUIRE(a["latency"]["mean_ns"].get<double>() == Approx(b["latency"]["mean_ns"].get<double>()).epsilon(0.02));
  REQUIRE(a["accepted_bps"].get<double>() == Approx(b["accepted_bps"].get<double>()).epsilon(0.02));
  REQUIRE(a["offered_load"].get<double>() == Approx(0.5).epsilon(0.02));
}

TEST_CASE("measurement settings: bad values name their path") {
  const auto refused = [](const nlohmann::json& run, const std::string& path) {
    try {
      config::load_scenario(b2b({flow("50%", 10)}, run));
      FAIL("accepted");
    } catch (const config::ConfigError& e) {
      REQUIRE(std::string(e.what()).find(path) != std::string::npos);
    }
  };
  refused({{"warmup", "soon"}}, "run.warmup");
  refused({{"warmup", 5}}, "run.warmup");
  refused({{"warmup_threshold", 0}}, "run.warmup_threshold");
  refused({{"partitions", 2}, {"warmup", "auto"}}, "run.partitions");
  nlohmann::json bad = b2b({flow("50%", 10, {{"source", {{"arrival", "bursty"}}}})});
  REQUIRE_THROWS_WITH(config::load_scenario(bad), Catch::Contains("workload.flows.0.source.arrival"));
}

TEST_CASE("hop latency: queueing at a switch's congested output shows in its hop latency and in the flows' network part alike") {
  const ScratchDir dir("hops");
  // Two senders into one receiver through one switch: light (10 % each) and loaded (45 % each).
  const auto incast = [&](const std::string& load) {
    const nlohmann::json f = {{"payload", "4KiB"}, {"rate", load}, {"count", 20000}, {"dst", "hca2.p1"},
                              {"source", {{"arrival", "poisson"}}}};
    nlohmann::json a = f, b = f;
    a["src"] = "hca0.p1";
    b["src"] = "hca1.p1";
    const nlohmann::json root = {{"name", "hops"},
                                 {"topology", {{"pattern", "single_switch"}, {"hosts", 3}}},
                                 {"port", {{"data_vls", 1}, {"mtu", 4096}}},
                                 {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
                                 {"workload", {{"flows", {a, b}}}},
                                 {"outputs", {{"hop_latency", true}}}};
    return run_cli(root, dir, load.substr(0, 2)).stats;
  };
  const nlohmann::json light = incast("10%"), loaded = incast("45%");
  const auto egress = [](const nlohmann::json& stats) {  // the switch port toward hca2
    for (const auto& p : stats["objects"]["ports"])
      if (p.contains("hop_latency") && p["hop_latency"]["count"].get<uint64_t>() == 40000) return p["hop_latency"];
    FAIL("no switch port forwarded all 40,000 packets");
    return nlohmann::json();
  };
  const double hop_light = egress(light)["mean_ns"].get<double>(), hop_loaded = egress(loaded)["mean_ns"].get<double>();
  REQUIRE(hop_loaded > hop_light + 50);  // 90 % at the egress: packets queue there
  // The rest of the network part is the links' time, which load does not
  // change: over both flows (the hop latency is the egress port's, of both).
  const auto network = [](const nlohmann::json& stats) {
    return (stats["flows"]["first"][0]["latency_parts"]["network"]["mean_ns"].get<double>() +
            stats["flows"]["first"][1]["latency_parts"]["network"]["mean_ns"].get<double>()) / 2;
  };
  REQUIRE(network(loaded) - hop_loaded == Approx(network(light) - hop_light).margin(1.0));
  // Ports of HCAs carry no hop latency.
  for (const auto& p : light["objects"]["ports"])
    if (p["name"].get<std::string>().rfind("hca", 0) == 0) REQUIRE_FALSE(p.contains("hop_latency"));
}

TEST_CASE("the knee of uniform traffic over two switches joined by one cable is where the bisection puts it, within 5 %") {
  // h hosts on each of two switches, one cable between them, of a quarter of
  // a host link's width (1x against 4x). Uniform traffic: a share h / (2h - 1)
  // of each host's packets crosses, so the cable saturates at a load of
  // (2h - 1) / h^2 / 4 of a host link per host: 7/64 for h = 4. A host's
  // packets wait in one FIFO source queue, so above that load every host
  // drains at 7/64 (its crossing packets hold its local ones): accepted stays
  // there. (The narrow cable keeps the hosts' links lightly loaded, so that
  // head-of-line blocking where the cable enters a switch (a packet waiting
  // for a busy host link stops the cable's queue) costs the cable little:
  // with a full-width cable it carries 10 % less than the bisection's bound.)
  constexpr int h = 4;
  const double knee = (2.0 * h - 1) / (h * h) / 4;
  nlohmann::json nodes = {{{"name", "sw0"}, {"kind", "switch"}, {"ports", h + 1}},
                          {{"name", "sw1"}, {"kind", "switch"}, {"ports", h + 1}}};
  nlohmann::json links = {
      {{"a", "sw0.p" + std::to_string(h + 1)}, {"b", "sw1.p" + std::to_string(h + 1)}, {"width", "1x"}}};
  for (int i = 0; i < 2 * h; ++i) {
    const std::string host = "hca" + std::to_string(i);
    nodes.push_back({{"name", host}, {"kind", "hca"}});
    links.push_back({{"a", host + ".p1"}, {"b", "sw" + std::to_string(i / h) + ".p" + std::to_string(i % h + 1)}});
  }
  const ScratchDir dir("knee");
  const auto at = [&](double share_of_knee) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.4f%%", 100 * knee * share_of_knee);
    const nlohmann::json root = {
        {"name", "knee"},
        {"topology", {{"pattern", "explicit"}, {"graph", {{"nodes", nodes}, {"links", links}}}}},
        {"port", {{"data_vls", 1}, {"mtu", 4096}}},
        {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
        {"workload",
         {{"patterns", {{{"name", "u"}, {"kind", "uniform"}, {"payload", "4KiB"}, {"rate", rate},
                         {"source", {{"arrival", "poisson"}}}}}}}},
        {"run", {{"warmup", "200us"}, {"measure", "4ms"}, {"drain_limit", "1ns"}, {"seed", 4}}}};
    return run_cli(root, dir, std::to_string(static_cast<int>(share_of_knee * 100))).stats["patterns"][0];
  };
  const double framing = 4130.0 / 4132.0;  // offered and accepted loads are shares of the data rate
  const nlohmann::json below = at(0.95), above = at(1.05), far = at(1.3);
  CAPTURE(below["accepted_load"], above["accepted_load"], far["accepted_load"]);
  REQUIRE(below["carried"].get<double>() >= 0.98);
  REQUIRE(above["carried"].get<double>() < 0.97);
  for (const nlohmann::json* p : {&above, &far})
    REQUIRE((*p)["accepted_load"].get<double>() == Approx(knee * framing).epsilon(0.03));
}

TEST_CASE("head-of-line blocking: a 16-port switch under uniform traffic saturates between Karol's values for N = 8 and N = infinity") {
  // Karol, Hluchyj and Morgan (1987): an input-queued switch with saturated
  // FIFO inputs carries 0.618 of its links for N = 8 and 0.586 as N grows.
  const nlohmann::json root = {
      {"name", "hol"},
      {"topology", {{"pattern", "single_switch"}, {"hosts", 16}}},
      {"port", {{"data_vls", 1}, {"mtu", 4096}}},
      {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
      {"workload",
       {{"patterns", {{{"name", "u"}, {"kind", "uniform"}, {"payload", "4KiB"}, {"rate", "80%"},
                       {"source", {{"arrival", "poisson"}}}}}}}},
      {"run", {{"warmup", "50us"}, {"measure", "300us"}, {"drain_limit", "1ns"}, {"seed", 1}}}};
  const ScenarioRun run = run_json(root);
  const double accepted = run.sim->results_json()["patterns"][0]["accepted_load"].get<double>();
  CAPTURE(accepted);
  REQUIRE(accepted > 0.586);
  REQUIRE(accepted < 0.618);
}
