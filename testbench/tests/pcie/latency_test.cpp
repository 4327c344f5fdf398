// PcieLink's delays, each against the sum of its parts: wire time of every
// TLP on the path, the one-way latency per crossing, and the target's own
// delay. Most tests use Gen2 x16 with no DLLP share: 5 GT/s x 8/10 x 16 lanes
// = 64 Gb/s, 125 ps per byte exactly, so the sums are exact in ps.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "testbench/tests/pcie/pcie_rig.hpp"

using namespace hcasim::pcie;
using namespace hcasim::pcie::test;

namespace {

constexpr uint64_t kPsPerByte = 125;
constexpr uint64_t kLatency = 250000;  // the default one-way latency
constexpr uint64_t kHost = 40000;      // host memory's own delay
constexpr uint64_t kBar = 10000;       // the device's BAR's own delay

PcieConfig exact() {
  PcieConfig c;
  c.gen = 2;
  c.lanes = 16;
  c.dllp_share = 0;
  return c;
}

// Wire bytes with 4 DW request headers, 3 DW completions, 8 bytes overhead.
constexpr uint64_t request_wire() { return 16 + 8; }
constexpr uint64_t write_wire(uint64_t data) { return 16 + data + 8; }
constexpr uint64_t completion_wire(uint64_t data) { return 12 + data + 8; }

// A single 64-byte DMA read: request up, latency, host, completion down, latency.
constexpr uint64_t kSingleRead = request_wire() * kPsPerByte + kLatency + kHost +
                                 completion_wire(64) * kPsPerByte + kLatency;

}  // namespace

TEST_CASE("a single 64-byte DMA read takes request wire + latency + host + completion wire + latency") {
  Rig rig(exact());
  rig.host.delay_ps = kHost;
  Result r{};
  rig.run([&] { r = dma_read(rig, 0x1000, 64); });
  REQUIRE(r.status == tlm::TLM_OK_RESPONSE);
  CHECK(r.delay_ps == 24 * 125 + 250000 + 40000 + 84 * 125 + 250000);
  CHECK(r.delay_ps == kSingleRead);
  const PcieStats& s = rig.link.stats();
  CHECK(s.dma_reads == 1);
  CHECK(s.dma_read_latency_ps.count() == 1);
  CHECK(s.dma_read_latency_ps.max() == kSingleRead);
  CHECK(s.dma_read_latency_ps.min() == kSingleRead);
}

TEST_CASE("a delay given with a transfer offsets it from now, also after time has passed") {
  Rig rig(exact());
  rig.host.delay_ps = kHost;
  Result first{}, later{};
  rig.run([&] {
    first = dma_read(rig, 0, 64, 7000);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));  // the link is idle again
    later = dma_read(rig, 0, 64, 3000);
  });
  CHECK(first.delay_ps == 7000 + kSingleRead);
  CHECK(later.delay_ps == 3000 + kSingleRead);
  // The histogram counts from issue: the offsets are not latency.
  CHECK(rig.link.stats().dma_read_latency_ps.max() == kSingleRead);
}

TEST_CASE("a DMA read of the default Gen4 x16 link takes the analytic time within a ps") {
  Rig rig(PcieConfig{});
  Result r{};
  rig.run([&] { r = dma_read(rig, 0, 64); });
  // 16 GT/s x 128/130 x 16 lanes x (1 - 16/168 - 4/1538) (AckLimit 168, x16 MPS 256)
  const double ps_per_byte = 8e12 / (16e9 * 128 / 130 * 16 * (1 - 16.0 / 168 - 4.0 / 1538));
  const double expected = (24 + 84) * ps_per_byte + 2 * 250000.0;
  CHECK(std::abs(static_cast<double>(r.delay_ps) - expected) <= 1.0);
}

TEST_CASE("a posted DMA write returns when its last TLP's data is in host memory") {
  Rig rig(exact());
  rig.host.delay_ps = kHost;
  Result small{}, big{};
  rig.run([&] {
    small = dma_write(rig, 0, 64);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    big = dma_write(rig, 0x2000, 1500);  // 5 x 256 + 220
  });
  CHECK(small.delay_ps == write_wire(64) * kPsPerByte + kLatency + kHost);
  CHECK(big.delay_ps == (5 * write_wire(256) + write_wire(220)) * kPsPerByte + kLatency + kHost);
  CHECK(rig.host.calls == 2);  // forwarded once each
}

TEST_CASE("back-to-back writes queue behind each other on the upstream direction") {
  Rig rig(exact());
  std::vector<uint64_t> delays;
  rig.run([&] {
    for (int i = 0; i < 4; ++i) delays.push_back(dma_write(rig, 0, 256).delay_ps);
  });
  for (int i = 0; i < 4; ++i) CHECK(delays[i] == (i + 1) * write_wire(256) * kPsPerByte + kLatency);
}

TEST_CASE("an MMIO write arrives at the device after its TLPs and the latency") {
  Rig rig(exact());
  rig.bar.delay_ps = kBar;
  Result doorbell{}, wqe{};
  rig.run([&] {
    doorbell = mmio_write(rig, 0x800, 8);
    sc_core::wait(sc_core::sc_time(5, sc_core::SC_US));
    wqe = mmio_write(rig, 0x1000, 320);  // 256 + 64
  });
  CHECK(doorbell.delay_ps == write_wire(8) * kPsPerByte + kLatency + kBar);
  CHECK(wqe.delay_ps == (write_wire(256) + write_wire(64)) * kPsPerByte + kLatency + kBar);
  CHECK(rig.bar.calls == 2);
}

TEST_CASE("an MMIO read returns when its completion reaches the host") {
  Rig rig(exact());
  rig.bar.delay_ps = kBar;
  Result r{};
  rig.run([&] { r = mmio_read(rig, 0x10, 8); });
  CHECK(r.status == tlm::TLM_OK_RESPONSE);
  CHECK(r.delay_ps == request_wire() * kPsPerByte + kLatency + kBar + completion_wire(8) * kPsPerByte + kLatency);
}

TEST_CASE("with one tag DMA reads are strictly serial: n reads take n single-read latencies") {
  PcieConfig c = exact();
  c.tags = 1;
  Rig rig(c);
  rig.host.delay_ps = kHost;
  std::vector<uint64_t> delays;
  rig.run([&] {
    for (int i = 0; i < 10; ++i) delays.push_back(dma_read(rig, 0x40 * i, 64).delay_ps);
  });
  for (int i = 0; i < 10; ++i) CHECK(delays[i] == (i + 1) * kSingleRead);
  const PcieStats& s = rig.link.stats();
  CHECK(s.max_outstanding_reads == 1);
  CHECK(s.tag_waits == 9);
  // Each read's latency counts from its issue (time 0), waiting for the tag included.
  CHECK(s.dma_read_latency_ps.max() == 10 * kSingleRead);
}

TEST_CASE("tags bound the outstanding DMA read requests, also within one large read") {
  PcieConfig c = exact();
  c.tags = 4;
  Rig rig(c);
  Result big{};
  rig.run([&] { big = dma_read(rig, 0, 8 * 512); });  // 8 requests of 512
  const PcieStats& s = rig.link.stats();
  CHECK(s.max_outstanding_reads == 4);
  CHECK(s.tag_waits == 4);
  // With a zero-delay host, a request is 3000 ps up and its two 256-byte
  // completions 2 x 276 x 125 = 69000 ps down. Round 1: requests 1-4 arrive
  // from 253000 on and their completions fill the downstream back to back, so
  // request 1 is done at the device at 253000 + 69000 + 250000 = 572000 and
  // request 4 at 253000 + 4 x 69000 + 250000 = 779000. Round 2: request 5
  // takes request 1's tag at 572000 and arrives at 825000; requests 6-8 take
  // the next tags 69000 apart and arrive as the downstream frees, so the last
  // is done at 825000 + 4 x 69000 + 250000.
  const uint64_t cpl = 2 * completion_wire(256) * kPsPerByte;
  const uint64_t round1_first = request_wire() * kPsPerByte + kLatency + cpl + kLatency;
  CHECK(cpl == 69000);
  CHECK(round1_first == 572000);
  CHECK(big.delay_ps == round1_first + request_wire() * kPsPerByte + kLatency + 4 * cpl + kLatency);
  CHECK(big.delay_ps == 1351000);
}

TEST_CASE("enough tags keep a read stream's requests outstanding together") {
  PcieConfig c = exact();
  Rig rig(c);  // 256 tags
  rig.run([&] {
    for (int i = 0; i < 64; ++i) dma_read(rig, 0, 512);
  });
  const PcieStats& s = rig.link.stats();
  CHECK(s.tag_waits == 0);
  CHECK(s.max_outstanding_reads == 64);  // all issued at time 0, none done by then
}
