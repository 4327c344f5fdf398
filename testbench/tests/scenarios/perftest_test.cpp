// Issue 4, "What must be shown" item 6: perftest's write_bw against the
// analytic goodput of the wire, and send_lat against the analytic sum of
// serialization, propagation and the configured processing latencies. Every
// number the tests compare with is computed from the configuration.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/ib/packet.hpp"
#include "models/transport/transport_timers.hpp"
#include "testbench/workloads/connection.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

// IBA 7.7 / iba-facts 2: the bytes of a data packet besides its payload.
constexpr double kLrh = 8, kBth = 12, kReth = 16, kDeth = 8, kIcrc = 4, kVcrc = 2;

// The transport's own figures: a host side of no cost (the "ideal" preset).
config::Scenario back_to_back(const nlohmann::json& perftest) {
  const nlohmann::json root = {
      {"name", "perftest"},
      {"topology", {{"pattern", "back_to_back"}}},
      {"hca", {{"preset", "ideal"}}},
      {"port", {{"mtu", 4096}, {"vl_buffer", "64KiB"}}},
      {"link", {{"speed", "HDR"}, {"width", "4x"}, {"propagation", "2m"}}},
      {"workload", {{"perftest", nlohmann::json::array({perftest})}}}};
  return config::load_scenario(root);
}

}  // namespace

TEST_CASE("write_bw with 64 KiB messages over HDR 4x back to back is within 1% of the analytic goodput") {
  constexpr uint64_t kIterations = 2000;
  const ScenarioRun run = run_scenario(back_to_back(
      {{"test", "write_bw"}, {"client", "hca0.p1"}, {"server", "hca1.p1"}, {"sizes", {"64KiB"}},
       {"iterations", kIterations}}));
  const config::Scenario& s = run.scenario;
  REQUIRE(run.sim->workload_failures().empty());
  REQUIRE(run.sim->checker().ok());
  const workloads::PerftestSizeResult& r = run.sim->perftests()[0]->result().sizes.at(0);
  REQUIRE(r.done);
  REQUIRE(r.messages == kIterations);
  const double size = 65536, mtu = s.workload.perftest[0].mtu;
  const double measured = r.messages * size * 8 * 1e12 / static_cast<double>(r.end_ps - r.start_ps);

  // The wire of one message, client to server:
  //   P = size / MTU request packets, each LRH 8 + BTH 12 + payload + ICRC 4 +
  //   VCRC 2 + framing, the first with a RETH 16.
  // Flow control on the same direction: the server ACKs every request packet
  // (ack_coalescing off); the client's host takes each ACK from its VL buffer
  // and its port returns the credit at once when the credit the server holds
  // lasts less on the wire than fc_period (vl_buffer x 8 / R < fc_period):
  // one flow-control packet (6 bytes + framing) per request packet. The ACKs
  // themselves travel the other direction and do not compete.
  //   goodput = R x size / (P x (LRH + BTH + ICRC + VCRC + framing) + size + RETH
  //                         + P x (FC + framing))
  const double rate = link::data_rate_bps(s.link.speed, s.link.width);
  const double framing = s.link.framing_bytes;
  REQUIRE(s.port.vl_buffer_bytes * 8.0 / rate * 1e12 < static_cast<double>(s.link.fc_period_ps));
  const double packets = std::ceil(size / mtu);
  const double wire = packets * (kLrh + kBth + kIcrc + kVcrc + framing) + size + kReth;
  const double fc = packets * (ib::kFlowControlBytes + framing);
  const double goodput = rate * size / (wire + fc);
  const double no_fc = rate * size / wire;  // what the data alone could reach
  INFO("measured " << measured / 1e9 << " Gb/s, analytic " << goodput / 1e9 << " Gb/s, without flow control "
                   << no_fc / 1e9 << " Gb/s");
  CHECK(measured <= no_fc);
  CHECK(std::abs(measured - goodput) / goodput < 0.01);
  // Once every message is acknowledged the transport timer is stopped: the run
  // ends with the last ACK and credits, not at a stale timer's deadline.
  const uint64_t ttr = transport::transport_timer_ps(workloads::ConnectionParams{}.timeout);
  INFO("run ends " << (run.sim->sim_time_ps() - r.end_ps) / 1e3 << " ns after the last completion; Ttr "
                   << ttr / 1e3 << " ns");
  CHECK(run.sim->sim_time_ps() - r.end_ps < ttr / 100);
}

namespace {

void check_send_lat(const char* type) {
  INFO("qp_type " << type);
  const ScenarioRun run = run_scenario(back_to_back({{"test", "send_lat"}, {"client", "hca0.p1"},
                                                     {"server", "hca1.p1"}, {"sizes", {8}},
                                                     {"iterations", 200}, {"qp_type", type}}));
  const config::Scenario& s = run.scenario;
  REQUIRE(run.sim->workload_failures().empty());
  const workloads::PerftestResult& result = run.sim->perftests()[0]->result();
  REQUIRE(result.halved);
  const trace::LatencyRecord& rtt = result.sizes.at(0).round_trip_ps;
  REQUIRE(rtt.count() == 200);

  // One way: the sender's engine builds the message's only packet
  // (wqe_parse + packet_build), the idle port serializes it
  // (LRH 8 + BTH 12 [+ DETH 8 for UD] + 8 + ICRC 4 + VCRC 2 + framing bytes
  // at the link's data rate), the cable delays it (length x ps_per_m), the
  // host takes it from the buffer at once (drain_rate unlimited) and the
  // receiver's QP acts on it receive_parse later, completing the receive;
  // the host answers at once.
  const transport::TransportConfig& t = s.transport;
  const bool ud = std::string(type) == "ud";
  const double bytes = kLrh + kBth + (ud ? kDeth : 0) + 8 + kIcrc + kVcrc + s.link.framing_bytes;
  const double serialization = bytes * 8 / link::data_rate_bps(s.link.speed, s.link.width) * 1e12;
  const double propagation = s.link.length_m * static_cast<double>(s.link.ps_per_m);
  const double one_way = static_cast<double>(t.wqe_parse_ps + t.packet_build_ps) + serialization + propagation +
                         static_cast<double>(t.receive_parse_ps);
  // RC only: the receiving QP's engine first builds the ACK of the request
  // it just took (responses before requests, one packet of a QP at a time),
  // so each answer leaves ack_generation later. The first ping has no ACK
  // ahead of it at the client: its half round trip is half an
  // ack_generation shorter.
  const double ack = ud ? 0 : static_cast<double>(t.ack_generation_ps);
  INFO("one way " << one_way / 1e3 << " ns; half round trips " << rtt.min() / 2e3 << " .. " << rtt.max() / 2e3
                  << " ns");
  CHECK(std::abs(rtt.max() / 2.0 - (one_way + ack)) <= 2);
  CHECK(std::abs(rtt.min() / 2.0 - (one_way + ack / 2)) <= 2);
  // t_typical (the median) as perftest reports it; the histogram's midpoint is within 1/1024 of the sample.
  const double typical = static_cast<double>(rtt.quantile(0.5)) / 2;
  CHECK(typical >= (one_way + ack) * (1 - 1.0 / 1024) - 2);
  CHECK(typical <= (one_way + ack) * (1 + 1.0 / 1024) + 2);
}

}  // namespace

TEST_CASE("send_lat over UD with 8-byte messages equals serialization plus propagation plus the configured latencies") {
  check_send_lat("ud");
}

TEST_CASE("send_lat over RC with 8-byte messages equals the same sum plus the ACK built ahead of each answer") {
  check_send_lat("rc");
}
