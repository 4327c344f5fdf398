// Issue 33, "What must be shown" item 4 (docs/hca-processing.md): the QP
// scheduler chosen by name. Weighted round robin gives byte shares within 1 %
// of the weights (by SL and by the QPs' own weights) while the transmit unit
// is the bottleneck; strict priority keeps a READ response's wait at a loaded
// responder within one packet build and one packet time, where round robin
// makes it wait for every loading QP's turn.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

// Back to back, HDR 4x, no host-side cost (the ideal preset), one transmit
// unit per HCA; `transport` and `tests` are JSON members.
std::string scenario(const std::string& transport, const std::string& tests, const std::string& duration) {
  return R"({ "name": "sched", "topology": { "pattern": "back_to_back" },
  "port": { "data_vls": 2, "mtu": 4096 },
  "link": { "speed": "HDR", "width": "4x", "propagation": "2m" },
  "hca": { "preset": "ideal" },
  "transport": { "tx_units": 1, )" +
         transport + R"( },
  "workload": { "perftest": [ )" +
         tests + R"( ] }, "run": { "duration": ")" + duration + R"(" } })";
}

// A saturating write_bw test; a scenario's tests all start at 0, to share the ports.
std::string write_bw(const std::string& client, const std::string& server, unsigned sl, unsigned weight,
                     unsigned qps = 1) {
  return R"({ "test": "write_bw", "start": "0us", "client": ")" + client + R"(", "server": ")" + server +
         R"(", "sizes": ["64KiB"], "iterations": 1000000, "sl": )" + std::to_string(sl) +
         R"(, "weight": )" + std::to_string(weight) + R"(, "qps": )" + std::to_string(qps) + " }";
}

nlohmann::json run(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string file = write_file(dir / (name + ".json"), text);
  const auto out = dir / name;
  const CommandResult r = run_command("run " + file + " --quiet --out " + out.string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json stats = nlohmann::json::parse(slurp(out / "stats.json"));
  stats["qp_rows"] = read_table(out, "qps");
  return stats;
}

// Byte shares of hca0's sending QPs, in QP-number order.
std::vector<double> byte_shares(const nlohmann::json& stats) {
  std::vector<double> bytes;
  double total = 0;
  for (const auto& qp : stats["qp_rows"])
    if (qp["hca"] == "hca0" && qp["request_packets"].get<uint64_t>() > 0) {
      bytes.push_back(qp["request_packets"].get<double>() * 4096);  // every packet carries 4 KiB
      total += bytes.back();
    }
  for (double& b : bytes) b /= total;
  return bytes;
}

constexpr double kBuildNs = 1000;  // packet_build: the unit (1 Mpps) is far slower than the link

}  // namespace

TEST_CASE("weighted round robin by SL: byte shares within 1 % of the SL weights 3:1") {
  const auto dir = scratch("wrr-sl");
  const auto stats = run(dir, "wrr",
                         scenario(R"("packet_build": "1us", "wqe_parse": "0ns", "scheduler": "weighted_round_robin",
                                     "sl_weights": [3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])",
                                  write_bw("hca0.p1", "hca1.p1", 0, 1) + ", " + write_bw("hca0.p1", "hca1.p1", 1, 1),
                                  "3ms"));
  const auto s = byte_shares(stats);
  REQUIRE(s.size() == 2);
  CHECK(s[0] == Approx(0.75).epsilon(0.01));
  CHECK(s[1] == Approx(0.25).epsilon(0.01));
  // The unit was the bottleneck: one packet per packet_build.
  CHECK(stats["engines"]["first"][0]["packets_built"].get<double>() == Approx(3e6 / kBuildNs).epsilon(0.01));
}

TEST_CASE("weighted round robin by QP: byte shares within 1 % of the QPs' weights 1:2:5") {
  const auto dir = scratch("wrr-qp");
  const auto stats =
      run(dir, "wrr",
          scenario(R"("packet_build": "1us", "wqe_parse": "0ns", "scheduler": "weighted_round_robin", "weights": "qp")",
                   write_bw("hca0.p1", "hca1.p1", 0, 1) + ", " + write_bw("hca0.p1", "hca1.p1", 0, 2) + ", " +
                       write_bw("hca0.p1", "hca1.p1", 0, 5),
                   "4ms"));
  const auto s = byte_shares(stats);
  REQUIRE(s.size() == 3);
  CHECK(s[0] == Approx(1.0 / 8).epsilon(0.01));
  CHECK(s[1] == Approx(2.0 / 8).epsilon(0.01));
  CHECK(s[2] == Approx(5.0 / 8).epsilon(0.01));
}

TEST_CASE("strict priority: a READ response waits at most one packet build and one packet time under a saturating "
          "request load") {
  const auto dir = scratch("strict");
  // hca0 measures READ round trips against hca1, whose one unit also serves
  // four saturating write_bw QPs towards hca0 (500 ns a packet: the unit is
  // the bottleneck, so the link's queues hold at most a packet or so).
  const std::string units = R"("packet_build": "500ns", "wqe_parse": "0ns")";
  const std::string read = R"({ "test": "read_lat", "client": "hca0.p1", "server": "hca1.p1", "sizes": ["64B"],
                                "iterations": 1000 })";
  const auto latency = [&](const std::string& name, const std::string& transport, bool loaded) {
    const auto stats = run(dir, name,
                           scenario(units + transport,
                                    read + (loaded ? ", " + write_bw("hca1.p1", "hca0.p1", 0, 1, 4) : std::string()),
                                    loaded ? "8ms" : "0ns"));  // the READs take under 5 ms
    return stats["perftest"][0]["sizes"][0]["latency"];
  };
  const double alone = latency("alone", "", false)["t_max_ns"].get<double>();
  // A 4 KiB request packet on the wire: LRH 8 + BTH 12 + RETH 16 + 4096 + ICRC 4 + VCRC 2, plus
  // framing, at HDR 4x's 200 Gb/s data rate: under 170 ns.
  constexpr double kPacketNs = 170;
  // At hca0, the READ request may wait for an ACK being built (20 ns ack_generation); at hca1 the
  // response waits for the packet the unit builds and for a request packet on the wire.
  const double bound = alone + 500 + 20 + kPacketNs;
  const auto strict = latency("strict", R"(, "scheduler": "strict_priority")", true);
  INFO("alone " << alone << " ns, bound " << bound << " ns, strict t_max " << strict["t_max_ns"]);
  CHECK(strict["t_max_ns"].get<double>() <= bound);
  // Round robin: the response waits for the four QPs' turns as well.
  const auto rr = latency("rr", "", true);
  INFO("round robin t_max " << rr["t_max_ns"]);
  CHECK(rr["t_max_ns"].get<double>() > alone + 3 * 500);
}
