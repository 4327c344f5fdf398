// The link arithmetic against the spec and pcie-bench (model/pcie.py,
// model/mem_bw.py): rates and line codes, TLP wire sizes, the AckLimit /
// UpdateFC table, splitting at MPS, MRRS, RCB and 4 KiB, the config check.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/pcie/pcie_config.hpp"
#include "models/pcie/tlp_math.hpp"

using namespace hcasim::pcie;

namespace {

std::vector<uint32_t> lengths(uint64_t addr, uint64_t len, uint32_t max, uint32_t first = 0) {
  std::vector<uint32_t> out;
  for (Splitter s(addr, len, max, first); !s.done();) out.push_back(s.next().len);
  return out;
}

using Lens = std::vector<uint32_t>;

}  // namespace

TEST_CASE("raw rate per lane is the transfer rate times the line code, times the lanes") {
  // Gen1-2 8b/10b, Gen3-5 128b/130b, Gen6 FLIT 236/256.
  CHECK(raw_rate_bps(1, 1) == Approx(2.5e9 * 8 / 10));
  CHECK(raw_rate_bps(2, 1) == Approx(5e9 * 8 / 10));
  CHECK(raw_rate_bps(3, 1) == Approx(8e9 * 128 / 130));
  CHECK(raw_rate_bps(4, 1) == Approx(16e9 * 128 / 130));
  CHECK(raw_rate_bps(5, 1) == Approx(32e9 * 128 / 130));
  CHECK(raw_rate_bps(6, 1) == Approx(64e9 * 236 / 256));
  CHECK(raw_rate_bps(6, 1) == Approx(59e9));
  for (unsigned gen = 1; gen <= 6; ++gen)
    for (unsigned lanes : {1u, 2u, 4u, 8u, 16u}) CHECK(raw_rate_bps(gen, lanes) == Approx(lanes * raw_rate_bps(gen, 1)));
  // Exact where the numbers are: Gen2 x16 is 64 Gb/s, so 125 ps per byte.
  CHECK(raw_rate_bps(2, 16) == 64e9);
  CHECK(raw_rate_bps(1, 1) == 2e9);
}

TEST_CASE("the AckLimit table has the spec's values as pcie-bench lists them") {
  // PCIe Base Spec 5.0 Tables 3-7 (2.5 GT/s), 3-8 (5.0 GT/s), 3-9 (8.0 GT/s+); pcie-bench Ack_Limits.
  CHECK(ack_limit_symbols(1, 1, 128) == 237);
  CHECK(ack_limit_symbols(1, 1, 4096) == 4143);
  CHECK(ack_limit_symbols(1, 8, 512) == 86);
  CHECK(ack_limit_symbols(1, 16, 256) == 72);
  CHECK(ack_limit_symbols(2, 2, 1024) == 596);
  CHECK(ack_limit_symbols(2, 16, 4096) == 585);
  CHECK(ack_limit_symbols(3, 8, 256) == 203);
  CHECK(ack_limit_symbols(3, 4, 2048) == 634);
  CHECK(ack_limit_symbols(4, 16, 256) == 168);
  CHECK(ack_limit_symbols(5, 1, 512) == 655);
  CHECK(ack_limit_symbols(5, 16, 128) == 144);
  // Gen4 and Gen5 use the 8.0 GT/s table.
  for (unsigned lanes : {1u, 2u, 4u, 8u, 16u})
    for (uint32_t mps = 128; mps <= 4096; mps *= 2) {
      CHECK(ack_limit_symbols(4, lanes, mps) == ack_limit_symbols(3, lanes, mps));
      CHECK(ack_limit_symbols(5, lanes, mps) == ack_limit_symbols(3, lanes, mps));
    }
  CHECK(ack_limit_symbols(6, 16, 256) == 0);  // FLIT mode: no DLLPs
}

TEST_CASE("the DLLP share is 8/AckLimit + 8/UpdateFC + 4/1538, 0 in FLIT mode, or the config's own") {
  CHECK(spec_dllp_share(3, 8, 256) == Approx(8.0 / 203 + 8.0 / 203 + 4.0 / 1538));
  CHECK(spec_dllp_share(1, 1, 128) == Approx(16.0 / 237 + 4.0 / 1538));
  CHECK(spec_dllp_share(6, 16, 256) == 0.0);
  PcieConfig c;
  c.gen = 3;
  c.lanes = 8;
  CHECK(dllp_share(c) == Approx(16.0 / 203 + 4.0 / 1538));
  // pcie-bench TLP_bw['gen3']['x8'][256] = Raw - Raw x overheads = 57.884 Gb/s.
  CHECK(tlp_rate_bps(c) == Approx(63.015384e9 * (1 - (16.0 / 203 + 4.0 / 1538))).epsilon(1e-6));
  CHECK(tlp_rate_bps(c) / 1e9 == Approx(57.884).epsilon(1e-4));
  c.dllp_share = 0.05;
  CHECK(tlp_rate_bps(c) == Approx(raw_rate_bps(3, 8) * 0.95));
  c.gen = 6;
  c.dllp_share = -1;
  CHECK(tlp_rate_bps(c) == Approx(8 * 59e9));
}

TEST_CASE("TLP wire bytes are header + data + 8 bytes of sequence number, LCRC and framing") {
  PcieConfig c;  // 4 DW requests
  TlpSizes s = tlp_sizes(c);
  CHECK(wire_bytes(s, TlpType::MemWrite, 256) == 16 + 256 + 8);  // pcie-bench TLP_MWr_Hdr_Sz[64] = 24
  CHECK(wire_bytes(s, TlpType::MemRead, 512) == 16 + 8);
  CHECK(wire_bytes(s, TlpType::Completion, 64) == 12 + 64 + 8);  // TLP_CplD_Hdr_Sz = 20
  CHECK(wire_bytes(s, TlpType::Completion, 0) == 20);
  c.tlp_header_dw = 3;
  s = tlp_sizes(c);
  CHECK(wire_bytes(s, TlpType::MemWrite, 256) == 12 + 256 + 8);  // TLP_MWr_Hdr_Sz[32] = 20
  CHECK(wire_bytes(s, TlpType::MemRead, 128) == 20);
  CHECK(wire_bytes(s, TlpType::Completion, 64) == 84);
  c.tlp_header_dw = 4;
  c.gen = 6;  // FLIT mode: no per-TLP overhead
  s = tlp_sizes(c);
  CHECK(wire_bytes(s, TlpType::MemWrite, 256) == 16 + 256);
  CHECK(wire_bytes(s, TlpType::MemRead, 0) == 16);
  CHECK(wire_bytes(s, TlpType::Completion, 64) == 12 + 64);
}

TEST_CASE("writes split at MPS and at 4 KiB boundaries, from the start address on") {
  CHECK(lengths(0, 1500, 256) == Lens{256, 256, 256, 256, 256, 220});
  CHECK(lengths(0, 256, 256) == Lens{256});
  CHECK(lengths(0x1000 - 128, 300, 256) == Lens{128, 172});  // cut at 4 KiB
  CHECK(lengths(3, 1000, 256) == Lens{256, 256, 256, 232});
  CHECK(lengths(0x0F00, 512, 4096) == Lens{256, 256});  // MPS 4096 still stops at the page
  CHECK(lengths(0, 0, 256).empty());
  PcieConfig c;  // MPS 256, MRRS 512
  CHECK(count_write_tlps(c, 0, 1500) == 6);
  CHECK(count_write_tlps(c, 0, 4096) == 16);
  CHECK(count_write_tlps(c, 0x0FFF, 2) == 2);  // one byte each side of the boundary
  CHECK(count_write_tlps(c, 0x10, 4096) == 17);  // 4080 bytes (16 TLPs) + 16
}

TEST_CASE("read requests split at MRRS and at 4 KiB boundaries") {
  PcieConfig c;
  CHECK(lengths(0, 4096, c.mrrs) == Lens(8, 512));
  CHECK(count_read_requests(c, 0, 4096) == 8);
  CHECK(count_read_requests(c, 0x100, 4096) == 9);  // 3840 = 7 x 512 + 256, then 256
  CHECK(lengths(0x100, 4096, c.mrrs) == Lens{512, 512, 512, 512, 512, 512, 512, 256, 256});
  CHECK(count_read_requests(c, 7, 1) == 1);
  CHECK(count_read_requests(c, 0, 1500) == 3);
  c.mrrs = 4096;
  CHECK(count_read_requests(c, 0x800, 4096) == 2);
}

TEST_CASE("completions end first at the RCB boundary when unaligned, then at most MPS each") {
  PcieConfig c;  // MPS 256, RCB 64
  CHECK(lengths(0x1010, 512, c.mps, c.rcb) == Lens{48, 256, 208});
  CHECK(count_completions(c, 0x1010, 512) == 3);
  CHECK(lengths(0x1000, 512, c.mps, c.rcb) == Lens{256, 256});
  CHECK(lengths(0x1001, 10, c.mps, c.rcb) == Lens{10});  // ends before the boundary
  CHECK(lengths(0x1040, 300, c.mps, c.rcb) == Lens{256, 44});  // aligned to RCB already
  c.rcb = 128;
  CHECK(lengths(0x1010, 512, c.mps, c.rcb) == Lens{112, 256, 144});
  CHECK(count_completions(c, 0x1010, 512) == 3);
  c.mps = 128;
  CHECK(lengths(0x1010, 512, c.mps, c.rcb) == Lens{112, 128, 128, 128, 16});
}

TEST_CASE("every split covers the range once, within its limits and pages, and is counted right") {
  const uint32_t maxes[] = {128, 256, 4096};
  for (uint64_t addr : {0ull, 1ull, 63ull, 64ull, 100ull, 4000ull, 4095ull, 8191ull})
    for (uint64_t len : {1ull, 63ull, 64ull, 255ull, 256ull, 1500ull, 4096ull, 9000ull})
      for (uint32_t max : maxes)
        for (uint32_t first : {0u, 64u, 128u}) {
          uint64_t at = addr;
          uint64_t n = 0;
          for (Splitter s(addr, len, max, first); !s.done(); ++n) {
            const Piece p = s.next();
            REQUIRE(p.addr == at);
            REQUIRE(p.len >= 1);
            REQUIRE(p.len <= max);
            REQUIRE(p.addr / 4096 == (p.addr + p.len - 1) / 4096);  // no 4 KiB crossing
            if (n == 0 && first != 0 && addr % first != 0)  // the first ends at the RCB boundary or the end
              REQUIRE(p.addr + p.len == std::min(addr + len, addr + first - addr % first));
            if (n > 0 && first != 0) REQUIRE(p.addr % first == 0);  // the rest start RCB-aligned
            at += p.len;
          }
          REQUIRE(at == addr + len);
          REQUIRE(count_pieces(addr, len, max, first) == n);
        }
}

TEST_CASE("pcie-bench's write and read formulas, Gen3 x8, MPS 256, MRRS 512, 64-bit addresses") {
  PcieConfig c;
  c.gen = 3;
  c.lanes = 8;
  // TLP_bw = 8 GT/s x 128/130 x 8 lanes x (1 - 8/203 - 8/203 - 4/1538)
  const double tlp_bw = 8e9 * 128 / 130 * 8 * (1 - 16.0 / 203 - 4.0 / 1538);
  // write: size x TLP_bw / (ceil(size/256) x 24 + size)
  CHECK(reference_write_bps(c, 64) == Approx(64 * tlp_bw / (24 + 64)));
  CHECK(reference_write_bps(c, 256) == Approx(256 * tlp_bw / (24 + 256)));
  CHECK(reference_write_bps(c, 1500) == Approx(1500 * tlp_bw / (6 * 24 + 1500)));
  // read (rcb_chunks false): completions ceil(size/256) x 20 + size downstream limit.
  CHECK(reference_read_bps(c, 64) == Approx(64 * tlp_bw / (20 + 64)));
  CHECK(reference_read_bps(c, 1500) == Approx(1500 * tlp_bw / (6 * 20 + 1500)));
  CHECK(reference_read_bps(c, 4096) == Approx(4096 * tlp_bw / (16 * 20 + 4096)));
}

TEST_CASE("check() accepts the defaults and names the field of a bad value") {
  CHECK(check(PcieConfig{}).empty());
  auto why = [](auto change) {
    PcieConfig c;
    change(c);
    return check(c);
  };
  CHECK(why([](PcieConfig& c) { c.gen = 0; }).rfind("gen is 0", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.gen = 7; }).rfind("gen is 7", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.lanes = 12; }).rfind("lanes is 12", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.lanes = 32; }).rfind("lanes is 32", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.mps = 384; }).rfind("mps is 384", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.mps = 64; }).rfind("mps is 64", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.mrrs = 8192; }).rfind("mrrs is 8192", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.rcb = 256; }).rfind("rcb is 256", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.tlp_header_dw = 5; }).rfind("tlp_header_dw is 5", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.dllp_share = 1.0; }).rfind("dllp_share is", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.dllp_share = std::nan(""); }).rfind("dllp_share is", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.tags = 0; }).rfind("tags is 0", 0) == 0);
  CHECK(why([](PcieConfig& c) { c.dllp_share = 0.1; }).empty());
  CHECK(why([](PcieConfig& c) {
          c.gen = 1;
          c.lanes = 1;
          c.mps = 4096;
          c.mrrs = 128;
          c.rcb = 128;
          c.tlp_header_dw = 3;
          c.tags = 1;
        }).empty());
  CHECK(why([](PcieConfig& c) { c.mps = 384; }).find("accepted") != std::string::npos);
}

TEST_CASE("the last pages of the 64-bit address space split like any other, and the split ends") {
  // Found by fuzz_hca_mmio: an MSI-X address of 0xFFFFFFFFFFFFFF09 made the page end overflow to
  // 0, and the splitter walked the whole address space in 4 KiB steps (a hang).
  CHECK(lengths(0xFFFFFFFFFFFFFF09, 4, 256) == Lens{4});
  CHECK(lengths(0xFFFFFFFFFFFFEFF8, 16, 256) == Lens{8, 8});          // across the last 4 KiB boundary
  CHECK(lengths(0xFFFFFFFFFFFFF000, 4096, 256) == Lens(16, 256));    // up to the very last byte
  CHECK(lengths(0xFFFFFFFFFFFFFFC0, 64, 256, 64) == Lens{64});        // RCB-aligned, ending at 2^64
  CHECK(lengths(0xFFFFFFFFFFFFFFE0, 32, 256, 64) == Lens{32});        // the first piece to the RCB boundary, 2^64
  CHECK(count_pieces(0xFFFFFFFFFFFFEFF8, 16, 256) == 2);
}
