// perftest_bound.hpp: each bound against its formula worked by hand from the
// parameters (docs/perftest.md "What bounds a test").
#include <catch2/catch.hpp>

#include "models/pcie/tlp_math.hpp"
#include "testbench/workloads/perftest_bound.hpp"

using namespace hcasim;
using namespace hcasim::workloads;

namespace {

// The default host's driver costs (host/driver.hpp), BlueFlame on.
HostCosts default_cpu() {
  HostCosts c;
  c.post_ps = 40'000;
  c.doorbell_ps = 150'000;
  c.blueflame_ps = 200'000;
  c.poll_ps = 50'000;
  c.blueflame = true;
  return c;
}

// write_bw of 64 B as perftest runs it: tx_depth 128, cq_moderation 100, no inline; HDR 4x (200 Gb/s).
PerftestBoundInput write_64(uint32_t qps, uint32_t threads) {
  PerftestBoundInput in;
  in.bytes = 64;
  in.mtu = 4096;
  in.qps = qps;
  in.threads = threads;
  in.outstanding = 128;
  in.cq_moderation = 100;
  in.client.cpu = in.server.cpu = default_cpu();
  in.link_bps = 200e9;
  in.framing_bytes = 2;
  return in;
}

// A copy: the list is often a temporary.
Bound find(const std::vector<Bound>& all, BoundKind k) {
  for (const Bound& b : all)
    if (b.kind == k) return b;
  FAIL("no bound " << bound_key(k));
  return {};
}

bool has(const std::vector<Bound>& all, BoundKind k) {
  for (const Bound& b : all)
    if (b.kind == k) return true;
  return false;
}

}  // namespace

TEST_CASE("64 B write_bw on 8 threads: the CPU binds at 8 / (post 40 + BlueFlame 200 + poll 50 / 100 ns)") {
  const std::vector<Bound> all = perftest_bounds(write_64(8, 8));
  CHECK(find(all, BoundKind::Cpu).msgs_per_s == Approx(8 / 240.5e-9));
  CHECK(find(all, BoundKind::Cpu).detail == "8 threads, 240.5 ns per WR each: post 40.0 + BlueFlame 200.0 + poll 50.0 / 100");
  // Client units: 4 units x (wqe_parse 50 + packet_build 20); the server's ACKs (4 x 20 ns) bind less.
  const Bound tx = find(all, BoundKind::TxUnits);
  CHECK(tx.client);
  CHECK(tx.msgs_per_s == Approx(4 / 70e-9));
  CHECK(tx.detail == "4 units x 70.0 ns per message: wqe_parse 50.0 + 1 x packet_build 20.0");
  // WRITE ONLY: LRH 8 + BTH 12 + RETH 16 + 64 + ICRC 4 + VCRC 2 + framing 2 = 108 B.
  CHECK(find(all, BoundKind::Link).msgs_per_s == Approx(200e9 / 8 / 108));
  CHECK_FALSE(has(all, BoundKind::RxUnits));  // rx_units 0: a pipeline
  // The payload's DMA read at the client's link (Gen4 x16 default) binds less than its write at the server.
  const pcie::PcieConfig p;
  CHECK(find(all, BoundKind::Pcie).msgs_per_s ==
        Approx(std::min(pcie::reference_read_bps(p, 64), pcie::reference_write_bps(p, 64)) / 8 / 64));
  REQUIRE(least_bound(all) != nullptr);
  CHECK(least_bound(all)->kind == BoundKind::Cpu);
}

TEST_CASE("64 B write_bw on 16 threads: the transmit units bind at 4 / 70 ns") {
  const std::vector<Bound> all = perftest_bounds(write_64(16, 16));
  CHECK(find(all, BoundKind::Cpu).msgs_per_s == Approx(16 / 240.5e-9));
  CHECK(least_bound(all)->kind == BoundKind::TxUnits);
  CHECK(least_bound(all)->msgs_per_s == Approx(57.142857e6));
}

TEST_CASE("the busiest thread sets the CPU bound: 10 QPs on 4 threads is 10 / (3 x per WR)") {
  const std::vector<Bound> all = perftest_bounds(write_64(10, 4));
  CHECK(find(all, BoundKind::Cpu).msgs_per_s == Approx(10 / (3 * 240.5e-9)));
  CHECK(find(all, BoundKind::Cpu).detail.rfind("4 threads,", 0) == 0);
}

TEST_CASE("fewer QPs than units: a QP is on one unit at a time") {
  const std::vector<Bound> all = perftest_bounds(write_64(2, 1));
  CHECK(find(all, BoundKind::TxUnits).msgs_per_s == Approx(2 / 70e-9));
}

TEST_CASE("a post list rings one doorbell for the list and no BlueFlame: post 40 + doorbell 150 / 4 + poll 50 / 100") {
  PerftestBoundInput in = write_64(1, 1);
  in.post_list = 4;
  CHECK(find(perftest_bounds(in), BoundKind::Cpu).msgs_per_s == Approx(1 / 78e-9));
  // The list and the moderation are at most the WRs kept posted.
  in.outstanding = 2;
  CHECK(find(perftest_bounds(in), BoundKind::Cpu).msgs_per_s == Approx(1 / (40e-9 + 75e-9 + 25e-9)));
  in.client.cpu.blueflame = false;  // doorbell mode mmio: a doorbell even for one WR
  in.post_list = 1;
  in.outstanding = 128;
  CHECK(find(perftest_bounds(in), BoundKind::Cpu).msgs_per_s == Approx(1 / 190.5e-9));
}

TEST_CASE("host costs of 0 leave no CPU bound and an ideal PCIe link no PCIe bound") {
  PerftestBoundInput in = write_64(1, 1);
  in.client.cpu = in.server.cpu = HostCosts{};
  in.client.pcie.ideal = in.server.pcie.ideal = true;
  const std::vector<Bound> all = perftest_bounds(in);
  CHECK_FALSE(has(all, BoundKind::Cpu));
  CHECK_FALSE(has(all, BoundKind::Pcie));
  CHECK(least_bound(all)->kind == BoundKind::TxUnits);
}

TEST_CASE("64 KiB write_bw: the link binds at its data rate over the wire bytes of 16 packets") {
  PerftestBoundInput in = write_64(1, 1);
  in.bytes = 65536;
  const std::vector<Bound> all = perftest_bounds(in);
  // WRITE FIRST 8 + 12 + 16 (RETH) + 4096 + 4 + 2 + 2, then 15 MIDDLE / LAST of 8 + 12 + 4096 + 4 + 2 + 2.
  const double wire = 4140 + 15 * 4124;
  CHECK(find(all, BoundKind::Link).msgs_per_s == Approx(200e9 / 8 / wire));
  CHECK(find(all, BoundKind::Link).detail == "200.0 Gb/s, 66000 B per message on the wire, client to server");
  // The units: wqe_parse 50 + 16 x packet_build 20 on the one QP's unit.
  CHECK(find(all, BoundKind::TxUnits).msgs_per_s == Approx(1 / 370e-9));
  CHECK(least_bound(all)->kind == BoundKind::Link);
}

TEST_CASE("64 KiB read_bw: the READ responses set the link and the units of the server build them") {
  PerftestBoundInput in = write_64(1, 1);
  in.test = config::PerftestKind::ReadBw;
  in.bytes = 65536;
  const std::vector<Bound> all = perftest_bounds(in);
  // RESPONSE FIRST and LAST carry an AETH (4): 2 x 4128 + 14 x 4124, server to client.
  CHECK(find(all, BoundKind::Link).msgs_per_s == Approx(200e9 / 8 / (2 * 4128 + 14 * 4124)));
  CHECK(find(all, BoundKind::Link).detail.find("server to client") != std::string::npos);
  // Server: 16 responses x packet_build 20 (no wqe_parse); client: one READ request, 70 ns.
  const Bound tx = find(all, BoundKind::TxUnits);
  CHECK_FALSE(tx.client);
  CHECK(tx.msgs_per_s == Approx(1 / 320e-9));
  // The payload is read at the server and written at the client.
  const pcie::PcieConfig p;
  CHECK(find(all, BoundKind::Pcie).msgs_per_s ==
        Approx(std::min(pcie::reference_read_bps(p, 65536), pcie::reference_write_bps(p, 65536)) / 8 / 65536));
}

TEST_CASE("RC ACKs: one per request packet on the units of the server or one per message with ack_coalescing") {
  PerftestBoundInput in = write_64(4, 4);
  in.bytes = 65536;
  in.server.units.ack_generation_ps = 100'000;
  in.client.units.wqe_parse_ps = in.client.units.packet_build_ps = 0;
  Bound tx = find(perftest_bounds(in), BoundKind::TxUnits);
  CHECK_FALSE(tx.client);
  CHECK(tx.msgs_per_s == Approx(4 / (16 * 100e-9)));
  in.server.units.ack_coalescing = true;
  tx = find(perftest_bounds(in), BoundKind::TxUnits);
  CHECK(tx.msgs_per_s == Approx(4 / 100e-9));
  in.qp_type = transport::QpType::Uc;  // no ACKs at all: no transmit bound left
  CHECK_FALSE(has(perftest_bounds(in), BoundKind::TxUnits));
}

TEST_CASE("receive units when there are any: packets received per message x receive_parse") {
  PerftestBoundInput in = write_64(8, 8);
  in.server.units.rx_units = 2;
  in.server.units.receive_parse_ps = 40'000;
  const Bound rx = find(perftest_bounds(in), BoundKind::RxUnits);
  CHECK_FALSE(rx.client);
  CHECK(rx.msgs_per_s == Approx(2 / 40e-9));
}

TEST_CASE("send_bw: the thread of the server posts and polls a receive per message") {
  PerftestBoundInput in = write_64(1, 1);
  in.test = config::PerftestKind::SendBw;
  in.qp_type = transport::QpType::Ud;
  in.post_list = 32;  // the client: 40 + 150 / 32 + 50 / 100 ns per WR
  const std::vector<Bound> all = perftest_bounds(in);
  const Bound cpu = find(all, BoundKind::Cpu);
  CHECK_FALSE(cpu.client);
  CHECK(cpu.msgs_per_s == Approx(1 / 90e-9));
  // UD SEND ONLY: LRH 8 + BTH 12 + DETH 8 + 64 + ICRC 4 + VCRC 2 + framing 2, no ACKs.
  CHECK(find(all, BoundKind::Link).msgs_per_s == Approx(200e9 / 8 / 100));
  in.server.cpu.cqes_per_poll = 8;  // CQE compression: a block polled at once
  CHECK(find(perftest_bounds(in), BoundKind::Cpu).msgs_per_s == Approx(1 / (40e-9 + 50e-9 / 8)));
}

TEST_CASE("inline messages: no payload DMA at the client and a larger WQE still within BlueFlame") {
  PerftestBoundInput in = write_64(1, 1);
  in.inline_size = 64;
  const std::vector<Bound> all = perftest_bounds(in);
  CHECK(find(all, BoundKind::Cpu).msgs_per_s == Approx(1 / 240.5e-9));
  const Bound p = find(all, BoundKind::Pcie);
  CHECK_FALSE(p.client);
  CHECK(p.msgs_per_s == Approx(pcie::reference_write_bps(pcie::PcieConfig{}, 64) / 8 / 64));
}

TEST_CASE("bound names") {
  CHECK(std::string(bound_key(BoundKind::TxUnits)) == "tx_units");
  CHECK(std::string(bound_title(BoundKind::TxUnits)) == "HCA transmit units");
  CHECK(least_bound({}) == nullptr);
}
