// docs/latency-parts.md: read_lat's round trip in parts. The parts sum to the
// total exactly; with caches that always hit and round costs
// (configs/read_lat_parts.json) each part equals the time its parameters
// give, from the IBA's header sizes, the link rate and PCIe's TLP sizes and
// rate; PCIe Gen3 x8 against Gen4 x16 changes only the parts that cross PCIe,
// by their TLP bytes at the two rates.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <string>

#include "models/pcie/tlp_math.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

nlohmann::json parts_config() {
  std::ifstream in(std::string(HCASIM_SOURCE_DIR) + "/configs/read_lat_parts.json");
  return nlohmann::json::parse(in);
}

struct ReadLatSplit {
  std::map<std::string, double> ns;  // mean of each part
  uint64_t parts_sum_ps = 0;         // the parts' sums added up
  double t_avg_ns = 0;
  uint64_t samples = 0;
};

ReadLatSplit run_read_lat(const ScratchDir& dir, const std::string& name, const nlohmann::json& scenario) {
  const CommandResult r = run_scenario_json(dir, name, scenario.dump());
  INFO(name << ": " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto s = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  const auto& size = s["perftest"][0]["sizes"][0];
  ReadLatSplit out;
  out.t_avg_ns = size["latency"]["t_avg_ns"].get<double>();
  out.samples = size["latency"]["samples"].get<uint64_t>();
  const uint64_t trips = size["latency"]["reported"] == "half_round_trip" ? 2 : 1;  // an iteration's one-way trips
  REQUIRE(size["latency_parts"]["samples"].get<uint64_t>() == trips * out.samples);
  for (const auto& p : size["latency_parts"]["parts"]) {
    out.ns[p["part"].get<std::string>()] = p["mean_ns"].get<double>();
    out.parts_sum_ps += p["sum_ps"].get<uint64_t>();
  }
  return out;
}

// Wire bytes (IBA vol. 1: LRH 8, BTH 12, RETH 16, AETH 4, ICRC 4, VCRC 2;
// a start and an end delimiter, 2 bytes of the link's time per packet).
constexpr double kReadRequestWire = 8 + 12 + 16 + 4 + 2 + 2;
constexpr double kReadResponseWire = 8 + 12 + 4 + 8 + 4 + 2 + 2;  // READ Response Only with 8 B
// TLP bytes (PCIe Base Spec: 4 DW request header, 3 DW completion header; 8 B
// sequence number, LCRC and framing per TLP).
constexpr double kOverhead = 8;
constexpr double kBlueFlameTlp = 16 + 48 + kOverhead;    // the READ's WQE: control, remote address, one data segment
constexpr double kReadRequestTlp = 16 + kOverhead;       // the responder reads 8 B
constexpr double kReadCompletionTlp = 12 + 8 + kOverhead;
constexpr double kDataWriteTlp = 16 + 8 + kOverhead;     // the requester writes the 8 B
constexpr double kCqeWriteTlp = 16 + 64 + kOverhead;

struct ReadLatCosts {
  double post, blueflame, poll, pcie_latency, memory, wqe_parse, packet_build, receive_parse, propagation;
  double link_bytes_per_ns;
  unsigned gen, lanes;
};

double tlp_bytes_per_ns(unsigned gen, unsigned lanes) {
  pcie::PcieConfig c;
  c.gen = gen;
  c.lanes = lanes;
  c.dllp_share = 0;
  return pcie::tlp_rate_bps(c) / 8e9;
}

std::map<std::string, double> expected_parts(const ReadLatCosts& c) {
  const double pcie = tlp_bytes_per_ns(c.gen, c.lanes);
  return {{"cpu_post", c.post + c.blueflame},
          {"doorbell", c.pcie_latency + kBlueFlameTlp / pcie},
          {"wqe_fetch", 0},  // taken from the BlueFlame write
          {"requester", c.wqe_parse + c.packet_build},
          {"to_port", 0},    // a READ request carries no data, and the port has room
          {"request_network", kReadRequestWire / c.link_bytes_per_ns + c.propagation + c.receive_parse},
          {"responder", kReadRequestTlp / pcie + 2 * c.pcie_latency + c.memory + kReadCompletionTlp / pcie},
          {"response_network", kReadResponseWire / c.link_bytes_per_ns + c.propagation + c.receive_parse},
          {"completion", c.pcie_latency + c.memory + (kDataWriteTlp + kCqeWriteTlp) / pcie},
          {"poll", c.poll}};
}

void check_read_lat_parts(const ReadLatSplit& got, const std::map<std::string, double>& want) {
  REQUIRE(got.ns.size() == want.size());
  for (const auto& [part, ns] : want) {
    INFO(part);
    CHECK(got.ns.at(part) == Approx(ns).margin(0.002));  // each transfer rounds to the picosecond
  }
}

}  // namespace

TEST_CASE("read_lat's parts sum to its total exactly, with caches that miss and a first round trip unlike the rest") {
  const ScratchDir dir("latency_parts_sum");
  nlohmann::json s = parts_config();
  s.erase("hca");  // the realistic HCA: context and WQE misses, the memory's bandwidth
  s["workload"]["perftest"][0]["iterations"] = 1000;
  s["workload"]["perftest"].push_back({{"test", "atomic_lat"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                       {"iterations", 500}});
  const CommandResult r = run_scenario_json(dir, "sum", s.dump());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "sum" / "stats.json"));
  for (const auto& t : stats["perftest"]) {
    const auto& size = t["sizes"][0];
    uint64_t parts = 0;
    for (const auto& p : size["latency_parts"]["parts"]) parts += p["sum_ps"].get<uint64_t>();
    const auto n = size["latency"]["samples"].get<uint64_t>();
    INFO(t["test"]);
    CHECK(n == t["sizes"][0]["iterations"].get<uint64_t>());
    CHECK(parts == size["latency_parts"]["sum_ps"].get<uint64_t>());
    // The record's mean is the sum of the round trips over n, in double.
    CHECK(static_cast<double>(parts) == Approx(size["latency"]["t_avg_ns"].get<double>() * 1000 * n).epsilon(1e-12));
    CHECK(size["latency"]["t_max_ns"].get<double>() > size["latency"]["t_min_ns"].get<double>() + 100);
  }
}

TEST_CASE("read_lat's parts each equal the time their parameters give, at two sets of hand-set costs") {
  const ScratchDir dir("latency_parts_costs");
  // configs/read_lat_parts.json as written.
  const ReadLatCosts base{40, 200, 50, 250, 80, 50, 20, 40, 10, 25, 4, 16};  // HDR 4x: 200 Gb/s, 25 B/ns; 2 m at 5 ns/m
  const ReadLatSplit a = run_read_lat(dir, "base", parts_config());
  check_read_lat_parts(a, expected_parts(base));
  CHECK(a.parts_sum_ps == static_cast<uint64_t>(std::llround(a.t_avg_ns * 1000 * a.samples)));
  // Every cost changed, and EDR (100 Gb/s, 12.5 B/ns) over 7 ns of cable.
  nlohmann::json s = parts_config();
  s["link"] = {{"speed", "EDR"}, {"width", "4x"}, {"propagation", "7ns"}};
  s["transport"] = {{"wqe_parse", "35ns"}, {"packet_build", "15ns"}, {"receive_parse", "25ns"}};
  s["hca"]["cpu"] = {{"post", "30ns"}, {"blueflame", "110ns"}, {"poll", "70ns"}};
  s["hca"]["pcie"]["latency"] = "300ns";
  s["hca"]["host_memory"]["latency"] = "90ns";
  const ReadLatCosts other{30, 110, 70, 300, 90, 35, 15, 25, 7, 12.5, 4, 16};
  check_read_lat_parts(run_read_lat(dir, "other", s), expected_parts(other));
}

TEST_CASE("With perftest's send CQ of one entry, read_lat's completion waits for a read of the CQ's consumer counter") {
  // configs/read_lat_parts.json sets cq_depth 1024, room for every completion of the test. perftest's own
  // send CQ holds one completion (DEF_TX_LAT): before each CQE the HCA finds it full as far as
  // it knows and reads the doorbell record, a PCIe round trip and a memory read, 2 L + M
  // (docs/host-interface.md); the other parts stay as they are.
  const ScratchDir dir("latency_parts_record");
  const ReadLatSplit roomy = run_read_lat(dir, "roomy", parts_config());
  nlohmann::json s = parts_config();
  s["workload"]["perftest"][0].erase("cq_depth");
  const ReadLatSplit tool = run_read_lat(dir, "tool", s);
  for (const auto& [part, ns] : roomy.ns) {
    INFO(part);
    if (part == "completion") CHECK(tool.ns.at(part) - ns == Approx(2 * 250 + 80).epsilon(0.02));
    else CHECK(tool.ns.at(part) == Approx(ns).margin(0.002));
  }
}

TEST_CASE("Gen3 x8 against Gen4 x16 lengthens only the PCIe parts, by the TLP bytes on read_lat's path at the two rates") {
  const ScratchDir dir("latency_parts_gen");
  nlohmann::json s = parts_config();
  const ReadLatSplit gen4 = run_read_lat(dir, "gen4", s);
  s["hca"]["pcie"]["gen"] = 3;
  s["hca"]["pcie"]["lanes"] = 8;
  const ReadLatSplit gen3 = run_read_lat(dir, "gen3", s);
  const double per_byte = 1 / tlp_bytes_per_ns(3, 8) - 1 / tlp_bytes_per_ns(4, 16);
  const std::map<std::string, double> tlp_bytes = {{"doorbell", kBlueFlameTlp},
                                                   {"responder", kReadRequestTlp + kReadCompletionTlp},
                                                   {"completion", kDataWriteTlp + kCqeWriteTlp}};
  for (const auto& [part, ns] : gen4.ns) {
    INFO(part);
    const auto t = tlp_bytes.find(part);
    CHECK(gen3.ns.at(part) - ns == Approx(t == tlp_bytes.end() ? 0.0 : t->second * per_byte).margin(0.003));
  }
  // docs/latency-parts.md: 244 TLP bytes, 23.2 ns more at Gen3 x8.
  CHECK(kBlueFlameTlp + kReadRequestTlp + kReadCompletionTlp + kDataWriteTlp + kCqeWriteTlp == 244);
  CHECK(gen3.t_avg_ns - gen4.t_avg_ns == Approx(23.2).margin(0.05));
}

TEST_CASE("verbs operations and rc-swarm split their latencies too: each verbs operation's parts sum to its post-to-poll time") {
  const ScratchDir dir("latency_parts_verbs");
  for (const char* config : {"verbs_script", "rc_swarm"}) {
    const CommandResult r = run_command(std::string("run ") + HCASIM_SOURCE_DIR + "/configs/" + config +
                                            ".json --quiet --out " + (dir / config).string(), dir);
    INFO(config << ": " << r.err);
    REQUIRE(r.exit_code == 0);
  }
  const auto verbs = nlohmann::json::parse(slurp(dir / "verbs_script" / "stats.json"));
  unsigned split = 0;
  for (const auto& op : verbs["verbs"][0]["ops"]) {
    INFO(op["index"]);
    if (op["op"] == "post_recv") {
      CHECK_FALSE(op.contains("latency_parts"));  // a receive has no trip of its own
      continue;
    }
    const auto& l = op["latency_parts"];
    uint64_t sum = 0;
    for (const auto& p : l["parts"]) sum += p["sum_ps"].get<uint64_t>();
    CHECK(l["samples"] == 1);
    CHECK(sum == op["completed_ps"].get<uint64_t>() - op["posted_ps"].get<uint64_t>());
    CHECK(l["parts"][0]["sum_ps"].get<uint64_t>() >= 240000);  // at least its own post and BlueFlame write
    ++split;
  }
  CHECK(split >= 4);
  const auto swarm = nlohmann::json::parse(slurp(dir / "rc_swarm" / "stats.json"))["swarm"][0];
  const auto& l = swarm["latency_parts"];
  CHECK(l["samples"] == swarm["latency"]["count"]);
  CHECK(l["mean_ns"].get<double>() == Approx(swarm["latency"]["mean_ns"].get<double>()).epsilon(1e-9));
  // Every counted operation is a signaled 32 B READ answered by the other machines: each part but
  // wqe_fetch (BlueFlame) has time in it.
  for (const auto& p : l["parts"])
    if (p["part"] != "wqe_fetch") CHECK(p["sum_ps"].get<uint64_t>() > 0);
}

TEST_CASE("send_lat and write_lat split each one-way trip: two an iteration, their mean the half round trip reported") {
  const ScratchDir dir("latency_parts_one_way");
  nlohmann::json s = parts_config();
  s.erase("hca");  // the realistic HCA
  const auto test = [](const char* name, const char* qp_type) {
    return nlohmann::json{{"test", name}, {"qp_type", qp_type}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                          {"sizes", {"8B", "4KiB"}}, {"iterations", 300}};
  };
  s["workload"]["perftest"] = {test("send_lat", "rc"), test("write_lat", "rc"), test("send_lat", "ud"),
                               test("write_lat", "uc")};
  const CommandResult r = run_scenario_json(dir, "one_way", s.dump());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "one_way" / "stats.json"));
  for (const auto& t : stats["perftest"]) {
    for (const auto& size : t["sizes"]) {
      INFO(t["test"] << " " << t["qp_type"] << " " << size["bytes"]);
      const auto& l = size["latency_parts"];
      const auto n = size["latency"]["samples"].get<uint64_t>();
      REQUIRE(n == 300);
      CHECK(l["samples"].get<uint64_t>() == 2 * n);  // the last server trip counts too, its sender's completion late
      uint64_t parts = 0;
      for (const auto& p : l["parts"]) parts += p["sum_ps"].get<uint64_t>();
      CHECK(parts == l["sum_ps"].get<uint64_t>());
      // The parts of all trips add up to the round trips: their mean is perftest's t_avg (round trip / 2).
      CHECK(l["mean_ns"].get<double>() == Approx(size["latency"]["t_avg_ns"].get<double>()).epsilon(1e-12));
      CHECK(l["parts"][6]["sum_ps"] == 0);  // responder and response_network: nothing answers on a one-way trip
      CHECK(l["parts"][7]["sum_ps"] == 0);
      // The request's arrival is known from the ACK (RC) or the receive (send); a UC write has
      // neither, so its network trip counts in completion.
      if (t["qp_type"] == "uc") CHECK(l["parts"][5]["sum_ps"] == 0);
      else CHECK(l["parts"][5]["sum_ps"].get<uint64_t>() > 0);
    }
  }
}

TEST_CASE("write_lat's one-way trip: each part equals the time its parameters give") {
  const ScratchDir dir("latency_parts_write_lat");
  nlohmann::json s = parts_config();
  s["workload"]["perftest"] = {{{"test", "write_lat"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                {"sizes", {"8B"}}, {"iterations", 100}}};
  const ReadLatSplit got = run_read_lat(dir, "write_lat", s);
  const double pcie = tlp_bytes_per_ns(4, 16);
  constexpr double kWriteWire = 8 + 12 + 16 + 8 + 4 + 2 + 2;  // LRH, BTH, RETH, 8 B, ICRC, VCRC, delimiters
  // The 8 B go inline (perftest's 220 B for write_lat): the WQE is control, remote address and an
  // inline segment of 4 + 8 bytes rounded to 16: 48 B, as the READ's.
  check_read_lat_parts(got, {{"cpu_post", 40 + 200},
                             {"doorbell", 250 + kBlueFlameTlp / pcie},
                             {"wqe_fetch", 0},
                             {"requester", 50 + 20},
                             {"to_port", 0},
                             {"request_network", kWriteWire / 25 + 10 + 40},
                             {"responder", 0},
                             {"response_network", 0},
                             {"completion", 250 + 80 + kDataWriteTlp / pcie},  // the last byte visible
                             {"poll", 0}});  // the host sees it land (perftest polls the buffer's last byte)
}
