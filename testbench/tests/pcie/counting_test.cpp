// What PcieLink counts and how it answers what it does not time: TLPs and
// bytes per kind and direction for a known mix, busy time, ideal mode, TLM
// error responses, debug transport, DMI, extensions. Gen2 x16 with no DLLP
// share (125 ps per byte) so busy times are exact.
#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>

#include "testbench/tests/pcie/pcie_rig.hpp"

using namespace hcasim::pcie;
using namespace hcasim::pcie::test;

namespace {

PcieConfig exact() {
  PcieConfig c;
  c.gen = 2;
  c.lanes = 16;
  c.dllp_share = 0;
  return c;
}

// The mix: an 8-byte MMIO write (doorbell), a 4 KiB DMA read, a 4 KiB DMA
// write and an MSI-X message, each at an aligned address.
void run_mix(Rig& rig) {
  CHECK(mmio_write(rig, 0x800, 8).status == tlm::TLM_OK_RESPONSE);
  CHECK(dma_read(rig, 0x10000, 4096).status == tlm::TLM_OK_RESPONSE);
  CHECK(dma_write(rig, 0x20000, 4096).status == tlm::TLM_OK_RESPONSE);
  CHECK(msix(rig, 0xFEE00, 3).status == tlm::TLM_OK_RESPONSE);
}

void check_mix_counts(const PcieStats& s) {
  using D = Direction;
  using K = TlpKind;
  // MMIO write: one TLP of 16 + 8 + 8.
  CHECK(s.at(D::Downstream, K::MmioWrite).tlps == 1);
  CHECK(s.at(D::Downstream, K::MmioWrite).payload_bytes == 8);
  CHECK(s.at(D::Downstream, K::MmioWrite).wire_bytes == 32);
  // 4 KiB DMA read: 4096 / MRRS 512 = 8 requests of 24 bytes up ...
  CHECK(s.at(D::Upstream, K::DmaReadRequest).tlps == 8);
  CHECK(s.at(D::Upstream, K::DmaReadRequest).payload_bytes == 0);
  CHECK(s.at(D::Upstream, K::DmaReadRequest).wire_bytes == 8 * 24);
  // ... and 2 completions of MPS 256 per request down, 20 bytes each besides the data.
  CHECK(s.at(D::Downstream, K::DmaReadCompletion).tlps == 16);
  CHECK(s.at(D::Downstream, K::DmaReadCompletion).payload_bytes == 4096);
  CHECK(s.at(D::Downstream, K::DmaReadCompletion).wire_bytes == 16 * 20 + 4096);
  // 4 KiB DMA write: 16 TLPs of 256, 24 bytes each besides the data.
  CHECK(s.at(D::Upstream, K::DmaWrite).tlps == 16);
  CHECK(s.at(D::Upstream, K::DmaWrite).payload_bytes == 4096);
  CHECK(s.at(D::Upstream, K::DmaWrite).wire_bytes == 16 * 24 + 4096);
  // MSI-X: one 4-byte write.
  CHECK(s.at(D::Upstream, K::Msix).tlps == 1);
  CHECK(s.at(D::Upstream, K::Msix).payload_bytes == 4);
  CHECK(s.at(D::Upstream, K::Msix).wire_bytes == 28);
  // Nothing else, in either direction.
  uint64_t tlps = 0;
  for (const auto& dir : s.traffic)
    for (const TlpCounts& k : dir) tlps += k.tlps;
  CHECK(tlps == 1 + 8 + 16 + 16 + 1);
  CHECK(s.dma_reads == 1);
}

}  // namespace

TEST_CASE("a known mix is counted per kind and direction, and busy time is its wire time") {
  Rig rig(exact());
  rig.run([&] { run_mix(rig); });
  const PcieStats& s = rig.link.stats();
  check_mix_counts(s);
  CHECK(s.busy_ps[static_cast<int>(Direction::Upstream)] == (8 * 24 + 16 * 24 + 4096 + 28) * 125);
  CHECK(s.busy_ps[static_cast<int>(Direction::Downstream)] == (32 + 16 * 20 + 4096) * 125);
  CHECK(s.dma_read_latency_ps.count() == 1);
  CHECK(to_string(TlpKind::DmaReadCompletion) == std::string("dma_read_completion"));
  CHECK(to_string(TlpKind::Msix) == std::string("msix"));
  CHECK(to_string(Direction::Upstream) == std::string("upstream"));
}

TEST_CASE("busy-until of a direction is where its last TLP ends, and utilisation is busy over elapsed") {
  Rig rig(exact());
  rig.run([&] {
    dma_write(rig, 0, 4096);  // at time 0: 16 x 280 bytes
    CHECK(rig.link.busy_until_ps(Direction::Upstream) == 16 * 280 * 125);
    CHECK(rig.link.busy_until_ps(Direction::Downstream) == 0);
    sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
    dma_write(rig, 0, 4096);  // at 1 us, the link idle since 560 ns
    CHECK(rig.link.busy_until_ps(Direction::Upstream) == 1000000 + 16 * 280 * 125);
  });
  const PcieStats& s = rig.link.stats();
  const uint64_t busy = s.busy_ps[static_cast<int>(Direction::Upstream)];
  CHECK(busy == 2 * 16 * 280 * 125);
  // Over the 1.56 us to the end of the second write, the upstream was busy 1.12 us.
  CHECK(static_cast<double>(busy) / static_cast<double>(rig.link.busy_until_ps(Direction::Upstream)) ==
        Approx(1120.0 / 1560.0));
}

TEST_CASE("ideal mode costs nothing and still counts") {
  PcieConfig c = exact();
  c.ideal = true;
  Rig rig(c);
  rig.host.delay_ps = 40000;
  rig.bar.delay_ps = 10000;
  rig.run([&] {
    CHECK(dma_read(rig, 0, 4096, 500).delay_ps == 500 + 40000);  // the target's time only
    CHECK(dma_write(rig, 0, 4096, 700).delay_ps == 700 + 40000);
    CHECK(mmio_write(rig, 0, 8).delay_ps == 10000);
    CHECK(mmio_read(rig, 0, 8).delay_ps == 10000);
    CHECK(msix(rig, 0xFEE00, 1).delay_ps == 40000);
  });
  const PcieStats& s = rig.link.stats();
  CHECK(s.busy_ps[0] == 0);
  CHECK(s.busy_ps[1] == 0);
  CHECK(rig.link.busy_until_ps(Direction::Upstream) == 0);
  CHECK(s.at(Direction::Upstream, TlpKind::DmaReadRequest).tlps == 8);
  CHECK(s.at(Direction::Downstream, TlpKind::DmaReadCompletion).tlps == 16);
  CHECK(s.at(Direction::Downstream, TlpKind::DmaReadCompletion).wire_bytes == 16 * 20 + 4096);
  CHECK(s.at(Direction::Upstream, TlpKind::DmaWrite).tlps == 16);
  CHECK(s.at(Direction::Downstream, TlpKind::MmioWrite).tlps == 1);
  CHECK(s.at(Direction::Downstream, TlpKind::MmioReadRequest).tlps == 1);
  CHECK(s.at(Direction::Upstream, TlpKind::MmioReadCompletion).payload_bytes == 8);
  CHECK(s.at(Direction::Upstream, TlpKind::Msix).tlps == 1);
  CHECK(s.dma_reads == 1);
  CHECK(s.dma_read_latency_ps.max() == 40000);
  CHECK(rig.host.calls == 3);  // forwarded whole: one read, one write, one MSI-X
}

TEST_CASE("ideal mode counts the same mix as the timed link") {
  PcieConfig c = exact();
  c.ideal = true;
  Rig rig(c);
  rig.run([&] { run_mix(rig); });
  check_mix_counts(rig.link.stats());
}

TEST_CASE("byte enables and streaming are refused, zero length is free, neither is forwarded") {
  Rig rig(exact());
  rig.run([&] {
    for (auto* socket : {&rig.device.socket, &rig.cpu.socket}) {
      unsigned char data[64] = {};
      unsigned char enables[64];
      tlm::tlm_generic_payload t;
      t.set_command(tlm::TLM_WRITE_COMMAND);
      t.set_address(0);
      t.set_data_ptr(data);
      t.set_data_length(64);
      t.set_streaming_width(64);
      t.set_byte_enable_ptr(enables);
      t.set_byte_enable_length(64);
      sc_core::sc_time d = sc_core::sc_time::from_value(123);
      (*socket)->b_transport(t, d);
      CHECK(t.get_response_status() == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      CHECK(d.value() == 123);

      t.set_byte_enable_ptr(nullptr);
      t.set_byte_enable_length(0);
      t.set_streaming_width(4);
      t.set_command(tlm::TLM_READ_COMMAND);
      (*socket)->b_transport(t, d);
      CHECK(t.get_response_status() == tlm::TLM_BURST_ERROR_RESPONSE);
      CHECK(d.value() == 123);

      t.set_data_length(0);
      t.set_streaming_width(0);
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      (*socket)->b_transport(t, d);
      CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);
      CHECK(d.value() == 123);
    }
  });
  CHECK(rig.host.calls == 0);
  CHECK(rig.bar.calls == 0);
  const PcieStats& s = rig.link.stats();
  for (const auto& dir : s.traffic)
    for (const TlpCounts& k : dir) CHECK(k.tlps == 0);
  CHECK(s.busy_ps[0] == 0);
  CHECK(s.busy_ps[1] == 0);
  CHECK(s.dma_reads == 0);
}

TEST_CASE("a transfer running past the 64-bit address space is an address error, not forwarded") {
  // Found by fuzz_hca_mmio (an MSI-X address near 2^64): such a range has no TLPs to cut it into.
  Rig rig(exact());
  rig.run([&] {
    for (auto* socket : {&rig.device.socket, &rig.cpu.socket})
      for (tlm::tlm_command command : {tlm::TLM_WRITE_COMMAND, tlm::TLM_READ_COMMAND}) {
        unsigned char data[16] = {};
        tlm::tlm_generic_payload t;
        t.set_command(command);
        t.set_address(0xFFFFFFFFFFFFFFF8);  // 8 bytes left below 2^64
        t.set_data_ptr(data);
        t.set_data_length(16);
        t.set_streaming_width(16);
        sc_core::sc_time d = sc_core::sc_time::from_value(123);
        (*socket)->b_transport(t, d);
        CHECK(t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
        CHECK(d.value() == 123);
      }
  });
  CHECK(rig.host.calls == 0);
  CHECK(rig.bar.calls == 0);
  for (const auto& dir : rig.link.stats().traffic)
    for (const TlpCounts& k : dir) CHECK(k.tlps == 0);
}

TEST_CASE("a target's error response passes back and ends a DMA read at that request") {
  Rig rig(exact(), "rig", 0x10000 + 512);  // host memory ends after the first request
  Result read{}, write{};
  rig.run([&] {
    read = dma_read(rig, 0x10000, 1024);  // two requests; the second is out of range
    write = dma_write(rig, 0x20000, 64);
  });
  CHECK(read.status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(write.status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(rig.host.calls == 3);
  const PcieStats& s = rig.link.stats();
  CHECK(s.at(Direction::Upstream, TlpKind::DmaReadRequest).tlps == 2);
  // The first request's two completions with data, then one without.
  CHECK(s.at(Direction::Downstream, TlpKind::DmaReadCompletion).tlps == 3);
  CHECK(s.at(Direction::Downstream, TlpKind::DmaReadCompletion).payload_bytes == 512);
  CHECK(s.at(Direction::Downstream, TlpKind::DmaReadCompletion).wire_bytes == 2 * 20 + 512 + 20);
}

TEST_CASE("a multi-request DMA read moves all its bytes and keeps the requester id on every request") {
  Rig rig(exact());
  rig.host.log = true;
  for (std::size_t i = 0; i < 4096; ++i) rig.host.bytes[0x3000 + i] = static_cast<unsigned char>(i * 7 + 1);
  std::vector<unsigned char> got(4096, 0);
  rig.run([&] {
    InitiatorId id(0x0300);  // bus 3, device 0, function 0
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(0x3000);
    t.set_data_ptr(got.data());
    t.set_data_length(4096);
    t.set_streaming_width(4096);
    t.set_extension(&id);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    rig.device.socket->b_transport(t, d);
    CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);
    // The transaction comes back as it was given.
    CHECK(t.get_address() == 0x3000);
    CHECK(t.get_data_ptr() == got.data());
    CHECK(t.get_data_length() == 4096);
    CHECK(t.get_streaming_width() == 4096);
    t.clear_extension(&id);
  });
  for (std::size_t i = 0; i < 4096; ++i) REQUIRE(got[i] == static_cast<unsigned char>(i * 7 + 1));
  REQUIRE(rig.host.addresses.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) {
    CHECK(rig.host.addresses[i] == 0x3000 + 512 * i);
    CHECK(rig.host.requester[i] == 0x0300);
  }
}

TEST_CASE("transport_dbg moves the bytes both ways at no cost and is not counted") {
  Rig rig(exact());
  rig.bar.bytes[0x20] = 0x5A;
  rig.run([&] {
    unsigned char data[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(0x100);
    t.set_data_ptr(data);
    t.set_data_length(16);
    CHECK(rig.device.socket->transport_dbg(t) == 16);
    unsigned char back[1] = {0};
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(0x20);
    t.set_data_ptr(back);
    t.set_data_length(1);
    CHECK(rig.cpu.socket->transport_dbg(t) == 1);
    CHECK(back[0] == 0x5A);
  });
  CHECK(rig.host.bytes[0x100] == 1);
  CHECK(rig.host.bytes[0x10F] == 16);
  const PcieStats& s = rig.link.stats();
  for (const auto& dir : s.traffic)
    for (const TlpCounts& k : dir) CHECK(k.tlps == 0);
  CHECK(rig.link.busy_until_ps(Direction::Upstream) == 0);
  CHECK(rig.link.busy_until_ps(Direction::Downstream) == 0);
}

TEST_CASE("DMI is refused on both targets and invalidations pass back to the initiators") {
  Rig rig(exact());
  rig.run([&] {
    for (auto* socket : {&rig.device.socket, &rig.cpu.socket}) {
      tlm::tlm_generic_payload t;
      t.set_command(tlm::TLM_READ_COMMAND);
      t.set_address(0x40);
      tlm::tlm_dmi dmi;
      CHECK_FALSE((*socket)->get_direct_mem_ptr(t, dmi));  // the memories behind would grant it
      CHECK(dmi.get_dmi_ptr() == nullptr);
      CHECK_FALSE(dmi.is_read_allowed());
      CHECK_FALSE(dmi.is_write_allowed());
    }
    rig.host.socket->invalidate_direct_mem_ptr(0x1000, 0x1FFF);
    rig.bar.socket->invalidate_direct_mem_ptr(0x40, 0x7F);
  });
  REQUIRE(rig.device.invalidated.size() == 1);
  CHECK(rig.device.invalidated[0] == std::make_pair(uint64_t(0x1000), uint64_t(0x1FFF)));
  REQUIRE(rig.cpu.invalidated.size() == 1);
  CHECK(rig.cpu.invalidated[0] == std::make_pair(uint64_t(0x40), uint64_t(0x7F)));
}

TEST_CASE("the extensions clone and copy their fields") {
  InitiatorId id(42);
  std::unique_ptr<InitiatorId> copy(static_cast<InitiatorId*>(id.clone()));
  CHECK(copy->id == 42);
  InitiatorId other;
  other.copy_from(id);
  CHECK(other.id == 42);
  MsiMessage msg(17);
  std::unique_ptr<MsiMessage> msg_copy(static_cast<MsiMessage*>(msg.clone()));
  CHECK(msg_copy->vector == 17);
  MsiMessage msg2;
  msg2.copy_from(msg);
  CHECK(msg2.vector == 17);
}

TEST_CASE("a link with an invalid config is not built: the error names the field") {
  PcieConfig c;
  c.mps = 100;
  try {
    PcieLink link("link", c);
    FAIL("built with mps 100");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("mps is 100") != std::string::npos);
  }
}
