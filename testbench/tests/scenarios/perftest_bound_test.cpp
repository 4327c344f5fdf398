// Issue 51, test 3, and docs/perftest.md "What bounds a test": a bandwidth
// test reaches the least of its bounds within 5%, and stats.json and the
// printed summary name it. Every bound is worked out here from the scenario's
// resolved parameters, not taken from the model: the CPU (8 threads, default
// host), the HCA's transmit units (16 threads) and the link (64 KiB).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "models/config/scenario.hpp"
#include "models/link/link_timing.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace perftest_bound_test {  // named: the scenario tests are built as one unity file

// IBA 7.7 / iba-facts 2: the bytes of a data packet besides its payload.
constexpr double kLrh = 8, kBth = 12, kReth = 16, kIcrc = 4, kVcrc = 2;

nlohmann::json write_bw(const std::string& size, unsigned qps, unsigned threads, unsigned iterations) {
  return {{"name", "bound"},
          {"topology", {{"pattern", "back_to_back"}}},
          {"port", {{"mtu", 4096}, {"vl_buffer", "64KiB"}}},
          {"link", {{"speed", "HDR"}, {"width", "4x"}}},
          {"workload",
           {{"perftest", nlohmann::json::array({{{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"},
                                                 {"sizes", {size}}, {"iterations", iterations}, {"qps", qps},
                                                 {"threads", threads}}})}}}};
}

struct Expected {
  double cpu, units, link;  // messages per second
  std::string least;        // the stats.json name of the least
  std::string title;        // as the summary prints it
  double bound() const { return std::min({cpu, units, link}); }
};

// The bounds of write_bw of `bytes` with perftest's defaults (tx_depth 128,
// cq_moderation 100, one WR a post: BlueFlame), from the scenario's values.
Expected expected(const nlohmann::json& root, double bytes, unsigned qps, unsigned threads) {
  const config::Scenario s = config::load_scenario(root);
  const host::DriverConfig& d = s.hca.host.driver;
  const transport::TransportConfig& t = s.transport;
  const double mtu = 4096, packets = std::max(1.0, std::ceil(bytes / mtu));
  Expected e;
  // One WR: post + BlueFlame, and a poll for every 100th; each thread has qps / threads QPs.
  const double per_wr_s = (static_cast<double>(d.post_ps + d.blueflame_ps) + d.poll_ps / 100.0) * 1e-12;
  e.cpu = threads / per_wr_s;
  REQUIRE(qps % threads == 0);
  // A message takes one unit wqe_parse + packets x packet_build; a QP is on one unit at a time.
  e.units = std::min<double>(t.tx_units, qps) /
            ((t.wqe_parse_ps + packets * static_cast<double>(t.packet_build_ps)) * 1e-12);
  // Each packet LRH + BTH + payload + ICRC + VCRC + framing, the first with a RETH.
  const double wire = packets * (kLrh + kBth + kIcrc + kVcrc + s.link.framing_bytes) + kReth + bytes;
  e.link = link::data_rate_bps(s.link.speed, s.link.width) / 8 / wire;
  if (e.bound() == e.cpu) e.least = "cpu", e.title = "CPU threads (client)";
  else if (e.bound() == e.units) e.least = "tx_units", e.title = "HCA transmit units (client)";
  else e.least = "link", e.title = "link data rate";
  return e;
}

void check_bound(const std::string& name, const std::string& size, double bytes, unsigned qps, unsigned threads,
                 unsigned iterations, const std::string& want) {
  const ScratchDir dir("perftest_bound_" + name);
  const nlohmann::json root = write_bw(size, qps, threads, iterations);
  const Expected e = expected(root, bytes, qps, threads);
  INFO(name << ": bounds cpu " << e.cpu / 1e6 << ", units " << e.units / 1e6 << ", link " << e.link / 1e6
            << " M msg/s");
  REQUIRE(e.least == want);
  const std::string file = write_file(dir / (name + ".json"), root.dump());
  const CommandResult r = run_command("run " + file + " --out " + (dir / name).string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / name / "stats.json"));
  const auto& z = stats["perftest"][0]["sizes"][0];
  const double rate = z["msg_rate_Mpps"].get<double>() * 1e6;
  INFO("measured " << rate / 1e6 << " M msg/s");
  // A bound is never passed; the test reaches it within 5%.
  CHECK(rate <= e.bound() * 1.001);
  CHECK(rate >= e.bound() * 0.95);
  // stats.json names it, with the same figure and each candidate.
  CHECK(z["bound"] == e.least);
  CHECK(z["bound_msgs_per_s"].get<double>() == Approx(e.bound()).epsilon(1e-9));
  CHECK(z["bounds"]["cpu_msgs_per_s"].get<double>() == Approx(e.cpu).epsilon(1e-9));
  CHECK(z["bounds"]["tx_units_msgs_per_s"].get<double>() == Approx(e.units).epsilon(1e-9));
  CHECK(z["bounds"]["link_msgs_per_s"].get<double>() == Approx(e.link).epsilon(1e-9));
  CHECK(z["bound_reached"].get<double>() == Approx(rate / e.bound()).epsilon(1e-6));
  // The summary's line after the table: its name and rate, and the share reached.
  char figure[64];
  std::snprintf(figure, sizeof figure, "   bound: %s, %.4g M msg/s (", e.title.c_str(), e.bound() / 1e6);
  INFO(r.out);
  const std::size_t at = r.out.find(figure);
  REQUIRE(at != std::string::npos);
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  char reached[32];
  std::snprintf(reached, sizeof reached, "; reached %.1f%%", 100 * rate / e.bound());
  CHECK_THAT(line, Catch::EndsWith(reached));
}

}  // namespace perftest_bound_test

using perftest_bound_test::check_bound;

TEST_CASE("64 B write_bw with 8 threads and the default host reaches the CPU bound within 5% and the summary names it") {
  check_bound("cpu", "64B", 64, 8, 8, 2500, "cpu");
}

TEST_CASE("64 B write_bw with 16 threads reaches the bound of the HCA transmit units within 5% and the summary names it") {
  check_bound("units", "64B", 64, 16, 16, 1250, "tx_units");
}

TEST_CASE("64 KiB write_bw reaches the data-rate bound of the link within 5% and the summary names it") {
  check_bound("link", "64KiB", 65536, 1, 1, 500, "link");
}
