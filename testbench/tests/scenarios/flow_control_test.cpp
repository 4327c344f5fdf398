// Credit flow control under a slow receiver, counter wrap, and the port's
// drop rules (MTU, SL mapped to VL15), all watched by the link checker.
// testbench/tests/rtl runs the first two with the RTL credit manager.
#include <catch2/catch.hpp>

#include "testbench/tests/scenarios/flow_control_checks.hpp"

using namespace hcasim;
using namespace hcasim::test;
using namespace hcasim::test::flow_control;

TEST_CASE("a slowly draining receiver: no drops - the sender stalls on credits - throughput follows the drain") {
  check_slow_receiver(link::Implementation::Model);
}

TEST_CASE("credit counters wrap past 4096 many times without error") { check_credit_wrap(link::Implementation::Model); }

TEST_CASE("a payload longer than the port's MTU is dropped at the sender and counted") {
  link::PortConfig pc;
  pc.mtu = 2048;
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 4096, 100), flow(1, 2048, 100)});
  const auto& vl0 = sim->fabric().ports()[0]->stats().vl[0];
  REQUIRE(vl0.drops[static_cast<std::size_t>(link::DropReason::MtuExceeded)] == 100);
  REQUIRE(sim->flow_results()[0].dropped_at_source == 100);
  REQUIRE(sim->flow_results()[0].delivered == 0);
  REQUIRE(sim->flow_results()[1].delivered == 100);
}

TEST_CASE("a port refuses an MTU beyond the largest IBA MTU (4096 bytes)") {
  ib::PacketPool pool;
  link::PortConfig pc;
  pc.mtu = 4096;
  link::Port largest("largest", pc, pool);
  REQUIRE(largest.mtu() == 4096);
  pc.mtu = 4097;
  REQUIRE_THROWS_WITH(link::Port("beyond", pc, pool), Catch::Contains("accepted: at most 4096"));
}

TEST_CASE("a receiver with a smaller MTU drops and counts - credits heal through FCTBS") {
  link::PortConfig big;
  link::PortConfig small;
  small.mtu = 1024;
  auto sim = run_b2b(big, small, link::LinkConfig{}, {flow(0, 4096, 500)});
  const link::Port& rx = *sim->fabric().ports()[1];
  // Discarded packets do not count in ABR; the sender's FCTBS resets it, so
  // every packet still gets sent instead of the VL deadlocking.
  REQUIRE(sim->flow_results()[0].sent == 500);
  REQUIRE(rx.stats().vl[0].drops[static_cast<std::size_t>(link::DropReason::MtuExceeded)] == 500);
  REQUIRE(sim->checker().ok());
}

TEST_CASE("an SL mapped to VL15 is dropped and counted (seed 004 Table 25-2)") {
  link::PortConfig pc;
  pc.sl2vl = {0, 1, 2, 15, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(3, 256, 40), flow(2, 256, 40)});
  REQUIRE(sim->fabric().ports()[0]->stats().vl[15].drops[static_cast<std::size_t>(link::DropReason::SlToVl15)] == 40);
  REQUIRE(sim->flow_results()[0].delivered == 0);
  REQUIRE(sim->flow_results()[1].delivered == 40);
  REQUIRE(sim->fabric().ports()[1]->stats().vl[15].rx_packets == 0);
}

TEST_CASE("SL-to-VL mapping puts each SL on its VL") {
  link::PortConfig pc;
  pc.sl2vl = {3, 2, 1, 0, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  auto sim = run_b2b(pc, pc, link::LinkConfig{}, {flow(0, 64, 10), flow(1, 64, 20), flow(2, 64, 30)});
  const auto& s = sim->fabric().ports()[1]->stats();
  REQUIRE(s.vl[3].rx_packets == 10);
  REQUIRE(s.vl[2].rx_packets == 20);
  REQUIRE(s.vl[1].rx_packets == 30);
}

TEST_CASE("a long cable is credit bound: one buffer of packets per credit round trip") {
  // 64 KiB = 1024 blocks holds 15 packets of 65 blocks. A packet's credit comes
  // back one round trip after it started: its serialization, the propagation
  // there, a flow-control packet's serialization and the propagation back.
  link::PortConfig pc;
  link::LinkConfig lc;
  lc.length_m = 1000;  // 5 us each way
  const uint64_t n = 20000;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, n)});
  const auto& r = sim->flow_results()[0];
  REQUIRE(r.delivered == n);
  REQUIRE(sim->checker().ok());
  const link::LinkTiming t(lc);
  const double rtt_ps = static_cast<double>(t.serialization_ps(ud_wire_bytes(4096)) + t.serialization_ps(6) +
                                            2 * t.propagation_ps());
  const double window = (pc.vl_buffer_bytes / 64) / 65;  // whole packets in the advertised credit
  const double bound = window * 4096 * 8 * 1e12 / rtt_ps;
  const double measured = 8.0 * 4096.0 * static_cast<double>(n - 1) * 1e12 /
                          static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
  INFO("measured " << measured / 1e9 << " Gb/s, credit-loop bound " << bound / 1e9 << " Gb/s");
  REQUIRE(measured <= bound * 1.001);
  REQUIRE(measured >= bound * 0.99);
  // The sender waits for credits most of the time, and it is reported.
  REQUIRE(sim->fabric().ports()[0]->stats().vl[0].credit_stall_ps > 0.5 * (r.last_delivery_ps - r.first_delivery_ps));
  // One VL: the port's transmit wait is that VL's stall.
  CHECK(sim->fabric().ports()[0]->stats().xmit_wait_ps() == sim->fabric().ports()[0]->stats().vl[0].credit_stall_ps);
}

TEST_CASE("a port's transmit wait is the union of its VLs' credit stalls: the sum when one VL stalls, less with two") {
  // PortXmitWait (IBA 16.1.3.5): ticks in which the port had data but sent
  // nothing. Two credit-bound VLs on a long cable stall in the same idle
  // gaps: the port waited less than the sum of their stalls, and at least as
  // long as the longer one.
  link::PortConfig pc;
  pc.data_vls = 2;
  pc.sl2vl = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  link::LinkConfig lc;
  lc.length_m = 1000;
  auto sim = run_b2b(pc, pc, lc, {flow(0, 4096, 3000), flow(1, 4096, 3000)});
  REQUIRE(sim->checker().ok());
  const link::Port& p = *sim->fabric().ports()[0];
  const uint64_t a = p.stats().vl[0].credit_stall_ps, b = p.stats().vl[1].credit_stall_ps;
  const uint64_t wait = p.stats().xmit_wait_ps();
  INFO("VL0 " << a << " ps, VL1 " << b << " ps, port " << wait << " ps");
  REQUIRE(a > 0);
  REQUIRE(b > 0);
  CHECK(wait >= std::max(a, b));
  CHECK(wait < a + b);
  CHECK(p.xmit_wait_ps_until(sim->sim_time_ps()) == wait);  // nothing open after the run
}

TEST_CASE("a port takes a transmit buffer of up to 1 GiB per VL and refuses a larger one") {
  // The queue's occupancy is a 32-bit count (Port::Lane); configs stop at the
  // same bound (link_config_io.hpp).
  ib::PacketPool pool;
  link::PortConfig pc;
  pc.tx_buffer_bytes = link::kMaxVlBufferBytes;
  REQUIRE_NOTHROW(link::Port("largest", pc, pool));
  pc.tx_buffer_bytes = link::kMaxVlBufferBytes + 64;
  REQUIRE_THROWS_WITH(link::Port("too_large", pc, pool), Catch::Contains("accepted: at most 1073741824"));
}

TEST_CASE("flow control runs on every operated VL and is counted per port, and an idle VL reads zeros") {
  // 8 data VLs, traffic on VL 0 only: each VL's credits are advertised at
  // link up, so each port sends at least one flow-control packet per VL, and
  // the transmitter's busy time is its data packets' and its flow-control
  // packets' serialization (IBA 7.9.4: a flow-control packet is 6 bytes).
  link::PortConfig pc;
  pc.data_vls = 8;
  const link::LinkConfig lc{};
  auto sim = run_b2b(pc, pc, lc, {flow(0, 2048, 50)});
  const link::Port& tx = *sim->fabric().ports()[0];
  const link::Port& rx = *sim->fabric().ports()[1];
  REQUIRE(tx.stats().fc_tx() >= 8);
  REQUIRE(rx.stats().fc_tx() >= 8);
  REQUIRE(rx.stats().fc_rx() == tx.stats().fc_tx());
  REQUIRE(tx.stats().fc_rx() == rx.stats().fc_tx());
  const uint64_t data_ps = 50 * tx.timing().serialization_ps(ud_wire_bytes(2048));
  const uint64_t fc_ps = tx.stats().fc_tx() * tx.timing().serialization_ps(ib::kFlowControlBytes);
  REQUIRE(ib::kFlowControlBytes == 6);
  REQUIRE(tx.stats().busy_ps() == data_ps + fc_ps);
  REQUIRE(tx.stats().vl[0].tx_packets == 50);
  REQUIRE(rx.stats().vl[0].rx_packets == 50);
  for (unsigned vl = 1; vl < 16; ++vl) {
    INFO("VL " << vl);
    for (const link::Port* p : {&tx, &rx}) {
      const link::VlStats& v = p->stats().vl[vl];
      CHECK(v.tx_packets + v.rx_packets + v.tx_bytes + v.rx_bytes + v.credit_stall_ps == 0);
      CHECK(p->credit_stall_ps_until(vl, sim->sim_time_ps()) == 0);
    }
  }
  uint64_t sent = 0;
  for (const link::VlStats& v : tx.stats().vl) sent += v.tx_packets;
  REQUIRE(sent == 50);
}
