// The HCA's BAR0 through MMIO (host_formats.hpp "BAR0", hca.hpp's MMIO rule):
// the register page, the MSI-X table, UAR doorbells and their errors. A test
// CPU writes straight into the BAR (host_platform.hpp); the driver beside it
// programs a vector's MSI-X entry when it creates the vector's first CQ, as
// driver.hpp says.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/hca/rc_connect.hpp"
#include "testbench/tests/hca/host_platform.hpp"

using namespace hcasim;
using namespace hcasim::test;

namespace {

constexpr uint32_t kUarPages = 4;
constexpr uint32_t kVectors = 8;

config::HcaSettings bar_settings() {
  config::HcaSettings s = ideal_settings();
  s.hca.uar_pages = kUarPages;
  s.hca.msix_vectors = kVectors;
  return s;
}

// One HCA (its port left unconnected) with its host platform.
struct Bar {
  Bar() : hca("hca", {link::PortConfig{}}, {1}, pool, transport::TransportConfig{}, bar_settings().hca),
          side("host", bar_settings(), hca) {}
  // Runs body in a thread at time 0, then the simulation to its end.
  template <class F>
  void run(F body) {
    sc_core::sc_spawn(std::move(body));
    sc_core::sc_start();
  }
  TestCpu& cpu() { return side.cpu; }
  ib::PacketPool pool;
  hca::Hca hca;
  HostSide side;
};

std::vector<uint8_t> le_bytes(uint64_t v, unsigned n) {
  std::vector<uint8_t> b(n);
  for (unsigned i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  return b;
}

std::vector<uint8_t> doorbell(uint32_t low, uint32_t high) {
  std::vector<uint8_t> b(8);
  hca::put_u32(b.data(), low);
  hca::put_u32(b.data() + 4, high);
  return b;
}

// An RC QP of 4 WRs and one SGE each way on CQ cq.
transport::QpInit small_qp(uint32_t cq) {
  transport::QpInit init;
  init.send_cq = init.recv_cq = cq;
  init.max_send_wr = init.max_recv_wr = 4;
  init.max_send_sge = init.max_recv_sge = 1;
  return init;
}

// Rings of 4 entries for small_qp, on UAR page 2 (made through the command interface, not the driver).
hca::QpRings uar2_rings() {
  hca::QpRings rings;
  rings.uar = 2;
  rings.sq_addr = 0x100000;
  rings.sq_entries = 4;
  rings.sq_stride = hca::send_stride(transport::QpType::Rc, 1, 0);
  rings.rq_addr = 0x200000;
  rings.rq_entries = 4;
  rings.rq_stride = hca::recv_stride(1);
  rings.doorbell_record = 0x300000;
  return rings;
}

}  // namespace

TEST_CASE("BAR0 register page: device id, UAR pages and MSI-X vectors read as 4 or 8 bytes, nothing else") {
  Bar bar;
  std::vector<TestCpu::Result> r;
  bar.run([&] {
    r.push_back(bar.cpu().read(hca::kRegDeviceId, 4));     // 0
    r.push_back(bar.cpu().read(hca::kRegDeviceId, 8));     // 1
    r.push_back(bar.cpu().read(hca::kRegUarPages, 4));     // 2
    r.push_back(bar.cpu().read(hca::kRegMsixVectors, 8));  // 3
    r.push_back(bar.cpu().read(hca::kRegDeviceId, 2));     // 4: wrong size
    r.push_back(bar.cpu().read(0x004, 4));                 // 5: inside the device id's 8 bytes, no register
    r.push_back(bar.cpu().read(0x018, 8));                 // 6: no register
    r.push_back(bar.cpu().read(0x7F8, 8));                 // 7: no register below the MSI-X table
    r.push_back(bar.cpu().write(hca::kRegUarPages, le_bytes(99, 8)));  // 8: read only
    r.push_back(bar.cpu().read(hca::kRegUarPages, 8));     // 9: unchanged
  });
  REQUIRE(r.size() == 10);
  CHECK(r[0].status == tlm::TLM_OK_RESPONSE);
  CHECK(r[0].data == le_bytes(0x15B31017, 4));  // kDeviceId, little-endian
  CHECK(r[1].data == le_bytes(0x15B31017, 8));
  CHECK(r[2].data == le_bytes(kUarPages, 4));
  CHECK(r[3].data == le_bytes(kVectors, 8));
  for (int i : {4, 5, 6, 7, 8}) {
    INFO("access " << i);
    CHECK(r[i].status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  CHECK(r[9].data == le_bytes(kUarPages, 8));
  // 8 reads and 1 write from the test CPU; the driver, with no CQ, programs no MSI-X entry.
  CHECK(bar.hca.mmio_stats().reads == 9);
  CHECK(bar.hca.mmio_stats().writes == 1);
  CHECK(bar.hca.mmio_stats().errors == 5);
}

TEST_CASE("BAR0 MSI-X table: the driver's entries for its CQs, a test's writes read back and act, misuse is an error") {
  Bar bar;
  // CQs 0 .. kVectors-2 take vectors 0 .. kVectors-2 in turn; the last vector has no CQ.
  for (uint32_t c = 0; c + 1 < kVectors; ++c) bar.side.driver.create_cq(4);
  std::vector<TestCpu::Result> entries, r;
  std::vector<hca::MsixEntry> at_start;
  bar.run([&] {
    at_start = bar.hca.msix_table();
    for (uint32_t v = 0; v < kVectors; ++v)
      entries.push_back(bar.cpu().read(hca::kMsixTable + v * hca::kMsixEntryBytes, 16));
    // Vector 3: a new address and data, masked (PCIe's entry layout: 0-7 address, 8-11 data, 12-15 control).
    std::vector<uint8_t> e(16);
    hca::put_u64(e.data(), 0xFEE0'1230ull);
    hca::put_u32(e.data() + 8, 0x55);
    hca::put_u32(e.data() + 12, 1);
    r.push_back(bar.cpu().write(hca::kMsixTable + 3 * 16, e));                 // 0
    r.push_back(bar.cpu().read(hca::kMsixTable + 3 * 16, 16));                 // 1
    r.push_back(bar.cpu().write(hca::kMsixTable + 5 * 16 + 8, le_bytes(0xABCD, 4)));  // 2: vector 5's data
    r.push_back(bar.cpu().read(hca::kMsixTable + 5 * 16, 8));                  // 3: its address, untouched
    r.push_back(bar.cpu().read(hca::kMsixTable + 5 * 16 + 8, 4));              // 4
    r.push_back(bar.cpu().read(hca::kMsixTable + 4, 8));                       // 5: not aligned to its size
    r.push_back(bar.cpu().read(hca::kMsixTable, 2));                           // 6: a size the table lacks
    r.push_back(bar.cpu().read(hca::kPageBytes - 8, 16));                      // 7: runs off the page
  });
  // The driver: each vector with a CQ to the interrupt window, data = its
  // number, unmasked (driver.cpp program_vector); the last, unused, stays as
  // reset left it: no address, masked (PCIe's reset state; completion_writer.hpp).
  REQUIRE(entries.size() == kVectors);
  CHECK(at_start[kVectors - 1].address == 0);
  CHECK(at_start[kVectors - 1].masked);
  CHECK(bar.hca.mmio_stats().writes >= kVectors - 1);
  for (uint32_t v = 0; v + 1 < kVectors; ++v) {
    INFO("vector " << v);
    std::vector<uint8_t> expected = le_bytes(host::kInterruptArea + 4 * v, 8);
    const std::vector<uint8_t> data = le_bytes(v, 4), control = le_bytes(0, 4);
    expected.insert(expected.end(), data.begin(), data.end());
    expected.insert(expected.end(), control.begin(), control.end());
    CHECK(entries[v].data == expected);
    CHECK(at_start[v].address == host::kInterruptArea + 4 * v);
    CHECK(at_start[v].data == v);
    CHECK_FALSE(at_start[v].masked);
  }
  REQUIRE(r.size() == 8);
  CHECK(r[0].status == tlm::TLM_OK_RESPONSE);
  const std::vector<uint8_t> written = [] {
    std::vector<uint8_t> e(16);
    hca::put_u64(e.data(), 0xFEE0'1230ull);
    hca::put_u32(e.data() + 8, 0x55);
    hca::put_u32(e.data() + 12, 1);
    return e;
  }();
  CHECK(r[1].data == written);
  CHECK(bar.hca.msix_table()[3].address == 0xFEE0'1230ull);
  CHECK(bar.hca.msix_table()[3].data == 0x55);
  CHECK(bar.hca.msix_table()[3].masked);
  CHECK(r[2].status == tlm::TLM_OK_RESPONSE);
  CHECK(r[3].data == le_bytes(host::kInterruptArea + 4 * 5, 8));
  CHECK(r[4].data == le_bytes(0xABCD, 4));
  CHECK(bar.hca.msix_table()[5].data == 0xABCD);
  CHECK(bar.hca.msix_table()[5].address == host::kInterruptArea + 4 * 5);
  for (int i : {5, 6, 7}) {
    INFO("access " << i);
    CHECK(r[i].status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  CHECK(bar.hca.mmio_stats().errors == 3);
}

TEST_CASE("BAR0 UAR pages: reads, wrong sizes, unmapped offsets and pages past uar_pages are address errors") {
  Bar bar;
  std::vector<TestCpu::Result> r;
  const uint64_t uar1 = hca::kPageBytes;
  bar.run([&] {
    r.push_back(bar.cpu().read(uar1 + hca::kUarSendDoorbell, 8));                        // 0: a read of a UAR page
    r.push_back(bar.cpu().write(uar1 + hca::kUarSendDoorbell, le_bytes(1, 4)));          // 1: 4-byte doorbell
    r.push_back(bar.cpu().write(uar1 + hca::kUarSendDoorbell, std::vector<uint8_t>(16)));  // 2: 16-byte doorbell
    r.push_back(bar.cpu().write(uar1 + hca::kUarCqDoorbell, le_bytes(0, 4)));            // 3: 4-byte CQ doorbell
    r.push_back(bar.cpu().write(uar1 + 0x010, le_bytes(0, 8)));                          // 4: unmapped offset
    r.push_back(bar.cpu().write(uar1 + 0x800, le_bytes(0, 8)));                          // 5: unmapped offset
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame, std::vector<uint8_t>(8)));    // 6: BlueFlame below 16
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame, std::vector<uint8_t>(24)));   // 7: not 16 x n
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame, std::vector<uint8_t>(hca::kBlueFlameBytes + 16)));  // 8
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame + 16, std::vector<uint8_t>(16)));  // 9: inside the buffer
    r.push_back(bar.cpu().write((kUarPages + 1) * hca::kPageBytes, le_bytes(0, 8)));      // 10: page past the UARs
    r.push_back(bar.cpu().read((kUarPages + 1) * hca::kPageBytes, 8));                    // 11
  });
  REQUIRE(r.size() == 12);
  for (std::size_t i = 0; i < r.size(); ++i) {
    INFO("access " << i);
    CHECK(r[i].status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  CHECK(bar.hca.mmio_stats().errors == 12);
  CHECK(bar.hca.fetch_stats().doorbells == 0);
  CHECK(bar.hca.fetch_stats().blueflame_writes == 0);
  CHECK(bar.hca.completion_stats().arms == 0);
}

TEST_CASE("BAR0 doorbells for a QP or CQ that does not exist, or a QP of another UAR page, are generic errors") {
  Bar bar;
  // A CQ and a QP on UAR 1 through the driver; a second QP made through the command interface on UAR 2.
  const uint32_t cq = bar.side.driver.create_cq(8);
  const uint32_t qp1 = bar.side.driver.create_qp(small_qp(cq));
  const uint32_t qp2 = bar.hca.create_qp(small_qp(cq), uar2_rings());
  const uint32_t none = qp2 + 100;
  const uint64_t uar1 = hca::kPageBytes, uar2 = 2 * hca::kPageBytes;
  std::vector<TestCpu::Result> r;
  bar.run([&] {
    r.push_back(bar.cpu().write(uar1 + hca::kUarSendDoorbell, doorbell(0, none)));  // 0: no such QP
    r.push_back(bar.cpu().write(uar1 + hca::kUarSendDoorbell, doorbell(0, qp2)));   // 1: qp2 is UAR 2's
    r.push_back(bar.cpu().write(uar2 + hca::kUarSendDoorbell, doorbell(0, qp1)));   // 2: qp1 is UAR 1's
    std::vector<uint8_t> bf(64, 0);
    hca::put_u32(bf.data() + 4, none);
    bf[8] = 4;
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame, bf));  // 3: BlueFlame naming no QP
    hca::put_u32(bf.data() + 4, qp2);
    r.push_back(bar.cpu().write(uar1 + hca::kUarBlueFlame, bf));  // 4: BlueFlame for UAR 2's QP on UAR 1
    r.push_back(bar.cpu().write(uar1 + hca::kUarCqDoorbell, doorbell((cq + 7) | 1u << 24, 0)));  // 5: no such CQ
    r.push_back(bar.cpu().write(uar1 + hca::kUarCqDoorbell, doorbell(cq | 3u << 24, 0)));      // 6: no command 3
    r.push_back(bar.cpu().write(uar1 + hca::kUarCqDoorbell, doorbell(cq, 0)));                 // 7: no command 0
    // The same doorbells where they belong are taken.
    r.push_back(bar.cpu().write(uar2 + hca::kUarSendDoorbell, doorbell(0, qp2)));  // 8
    r.push_back(bar.cpu().write(uar1 + hca::kUarSendDoorbell, doorbell(0, qp1)));  // 9
    r.push_back(bar.cpu().write(uar2 + hca::kUarCqDoorbell, doorbell(cq | 1u << 24, 0)));  // 10: CQs are on any page
    // A counter more than a ring (4) ahead: the write is taken, the doorbell counted and ignored.
    r.push_back(bar.cpu().write(uar2 + hca::kUarSendDoorbell, doorbell(5, qp2)));  // 11
  });
  REQUIRE(r.size() == 12);
  for (int i = 0; i < 8; ++i) {
    INFO("access " << i);
    CHECK(r[i].status == tlm::TLM_GENERIC_ERROR_RESPONSE);
  }
  for (int i = 8; i < 12; ++i) {
    INFO("access " << i);
    CHECK(r[i].status == tlm::TLM_OK_RESPONSE);
  }
  CHECK(bar.hca.mmio_stats().errors == 8);
  CHECK(bar.hca.fetch_stats().doorbells == 3);  // 8, 9 and 11 reached the front end
  CHECK(bar.hca.fetch_stats().bad_doorbells == 1);
  CHECK(bar.hca.fetch_stats().blueflame_writes == 0);
  CHECK(bar.hca.fetch_stats().sq_fetches == 0);  // the QPs are in RESET, and nothing is posted
  CHECK(bar.hca.completion_stats().arms == 1);
  CHECK(bar.side.driver.stats().mmio_errors == 0);  // the driver's own writes (the MSI-X table) were all taken
}

TEST_CASE("BAR0 BlueFlame: a WQE index more than a ring ahead is a wrong counter, counted and never fetched") {
  // Found by fuzz_hca_mmio: a BlueFlame write whose index ran up to 65,535 WQEs ahead made the HCA
  // read its 8-entry ring round and round (16,444 reads, 65,764 failed WQEs for one write). Taken
  // as a doorbell, its counter obeys the doorbell's rule (wqe_fetcher.hpp): at most a ring ahead.
  Bar bar;
  const uint32_t qp = bar.hca.create_qp(small_qp(bar.side.driver.create_cq(8)), uar2_rings());
  hca::rc_to_rts(bar.hca, qp, 1, qp);  // RTS: the HCA may fetch
  const uint64_t uar2 = 2 * hca::kPageBytes;
  std::vector<TestCpu::Result> r;
  bar.run([&] {
    for (uint16_t index : {uint16_t{4}, uint16_t{0x7FFF}, uint16_t{0xFFFE}}) {  // 5, 32768 and 65535 WQEs ahead
      std::vector<uint8_t> bf(64, 0);
      bf[2] = static_cast<uint8_t>(index);
      bf[3] = static_cast<uint8_t>(index >> 8);
      hca::put_u32(bf.data() + 4, qp);
      bf[8] = 4;  // ds: 64 bytes
      r.push_back(bar.cpu().write(uar2 + hca::kUarBlueFlame, bf));
    }
  });
  REQUIRE(r.size() == 3);
  for (const TestCpu::Result& x : r) CHECK(x.status == tlm::TLM_OK_RESPONSE);  // the writes are taken
  const hca::FetchStats& f = bar.hca.fetch_stats();
  CHECK(f.blueflame_writes == 3);
  CHECK(f.blueflame_wqes == 0);
  CHECK(f.bad_doorbells == 3);
  CHECK(f.sq_fetches == 0);
  CHECK(f.bad_wqes == 0);
}
