// PcieLink's achieved data bandwidth against pcie-bench's formulas
// (Neugebauer et al., SIGCOMM 2018; pcie-bench/pcie-model model/mem_bw.py,
// write and read with rcb_chunks false), and its scaling with generation and
// width.
//
// Reference, Gen3 x8, MPS 256, MRRS 512, RCB 64, 64-bit addresses (4 DW
// request headers), no ECRC:
//   TLP_bw = 8 GT/s x 128/130 x 8 lanes x (1 - 8/AckLimit - 8/UpdateFC - 4/1538),
//            AckLimit = UpdateFC = 203 symbols (PCIe Base Spec 5.0 Table 3-9, x8, MPS 256)
//          = 57.884 Gb/s
//   write(S) = S x TLP_bw / (ceil(S/256) x 24 + S)     (24 = 8 DLLP_Hdr + 16 header)
//   read(S)  = S x TLP_bw / (ceil(S/256) x 20 + S)     (20 = 8 DLLP_Hdr + 12 completion header;
//                                                        the requests, ceil(S/512) x 24 bytes the
//                                                        other way, never limit)
// A stream of back-to-back transfers of S bytes, each at its own 4 KiB-aligned
// address (pcie-bench assumes aligned transfers), is driven into device_in
// against a zero-latency host memory; the bandwidth is the bytes of the last
// 90 % of the transfers over the time between their completions (the first
// 10 % are the start-up).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "models/pcie/tlp_math.hpp"
#include "testbench/tests/pcie/pcie_rig.hpp"

using namespace hcasim::pcie;
using namespace hcasim::pcie::test;

namespace {

PcieConfig gen3_x8() {
  PcieConfig c;
  c.gen = 3;
  c.lanes = 8;
  c.mps = 256;
  c.mrrs = 512;
  c.rcb = 64;
  c.tlp_header_dw = 4;
  return c;
}

// The reference of the header comment, from its constants alone.
double gen3_x8_tlp_bw() { return 8e9 * 128.0 / 130.0 * 8 * (1 - 8.0 / 203 - 8.0 / 203 - 4.0 / 1538); }
double ceil_div(double a, double b) { return std::ceil(a / b); }
double pcie_bench_write(double s) { return s * gen3_x8_tlp_bw() / (ceil_div(s, 256) * 24 + s); }
double pcie_bench_read(double s) { return s * gen3_x8_tlp_bw() / (ceil_div(s, 256) * 20 + s); }

// A stream of `count` back-to-back transfers of `size` bytes on its own link
// (all issued at time 0; the link queues them).
struct Stream {
  Stream(const PcieConfig& c, tlm::tlm_command command, uint32_t bytes, unsigned n, const char* name)
      : rig(c, name), cmd(command), size(bytes), count(n), done(n) {}
  void run() {
    for (unsigned i = 0; i < count; ++i) {
      const uint64_t addr = (i % 64) * 8192;  // 4 KiB-aligned, within the host memory
      const Result r = transfer(rig.device.socket, cmd, addr, size);
      CHECK(r.status == tlm::TLM_OK_RESPONSE);
      done[i] = r.delay_ps;  // issued at 0, so also the completion time
    }
  }
  // Steady-state data rate, bits/s: the last 90 % of the transfers.
  double bps() const {
    const unsigned first = count / 10;
    REQUIRE(std::is_sorted(done.begin(), done.end()));
    const double bytes = static_cast<double>(size) * (count - 1 - first);
    return bytes * 8 * 1e12 / static_cast<double>(done[count - 1] - done[first]);
  }
  Rig rig;
  tlm::tlm_command cmd;
  uint32_t size;
  unsigned count;
  std::vector<uint64_t> done;
};

// Runs the streams (one simulation) and returns their rates, bits/s.
std::vector<double> run_streams(std::vector<std::unique_ptr<Stream>>& streams) {
  sc_core::sc_spawn([&] {
    for (auto& s : streams) s->run();
  });
  sc_core::sc_start();
  std::vector<double> out;
  for (const auto& s : streams) out.push_back(s->bps());
  return out;
}

// A transfer count that makes the measured interval long (>= 200 us) so that
// rounding the completion times to ps does not show.
unsigned count_for(uint32_t size) { return std::max(200u, 2000000u / size); }

double deviation(double measured, double reference) { return std::abs(measured / reference - 1); }

// Both reference checks: the stream of each size against the formula.
void check_against_pcie_bench(tlm::tlm_command cmd, double (*reference)(double), const char* what) {
  const uint32_t sizes[] = {64, 100, 128, 256, 257, 512, 1024, 1500, 2048, 4096};
  std::vector<std::unique_ptr<Stream>> streams;
  for (uint32_t size : sizes)
    streams.push_back(
        std::make_unique<Stream>(gen3_x8(), cmd, size, count_for(size), ("s" + std::to_string(size)).c_str()));
  const std::vector<double> measured = run_streams(streams);
  double worst = 0;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const double size = sizes[i];
    INFO(what << " of " << size << " B: measured " << measured[i] / 1e9 << " Gb/s, pcie-bench "
              << reference(size) / 1e9 << " Gb/s");
    CHECK(measured[i] == Approx(reference(size)).epsilon(0.005));
    worst = std::max(worst, deviation(measured[i], reference(size)));
  }
  std::printf("pcie-bench agreement, %s, Gen3 x8: worst deviation %.3g %%\n", what, worst * 100);
}

}  // namespace

TEST_CASE("a DMA write stream matches pcie-bench's write bandwidth within 0.5 % (Gen3 x8)") {
  check_against_pcie_bench(tlm::TLM_WRITE_COMMAND, pcie_bench_write, "DMA writes");
  for (uint32_t size : {64u, 1500u, 4096u})  // and the library's formula is the same one
    CHECK(reference_write_bps(gen3_x8(), size) == Approx(pcie_bench_write(size)).epsilon(1e-9));
}

TEST_CASE("a DMA read stream matches pcie-bench's read bandwidth within 0.5 % (Gen3 x8)") {
  check_against_pcie_bench(tlm::TLM_READ_COMMAND, pcie_bench_read, "DMA reads");
  for (uint32_t size : {64u, 1500u, 4096u})
    CHECK(reference_read_bps(gen3_x8(), size) == Approx(pcie_bench_read(size)).epsilon(1e-9));
}

TEST_CASE("write bandwidth scales with transfer rate, line code, lanes and the DLLP table, Gen1-Gen6 x1-x16") {
  // For a fixed transfer size the write bandwidth is TLP rate x S / wire bytes,
  // so it is GT/s x line code x lanes x (1 - share) x S / (4 x (header + overhead) + S).
  const uint32_t size = 1024;  // 4 TLPs of 256
  const double gts[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};
  const double code[] = {0, 0.8, 0.8, 128.0 / 130, 128.0 / 130, 128.0 / 130, 236.0 / 256};
  // AckLimit = UpdateFC at MPS 256 (pcie-bench Ack_Limits), 2.5, 5 and 8+ GT/s, x1 ... x16.
  const double ack[3][5] = {{416, 217, 118, 107, 72}, {467, 268, 169, 158, 123}, {512, 313, 214, 203, 168}};
  const unsigned widths[] = {1, 2, 4, 8, 16};
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<double> expected;
  for (unsigned gen = 1; gen <= 6; ++gen)
    for (unsigned w = 0; w < 5; ++w) {
      PcieConfig c = gen3_x8();
      c.gen = gen;
      c.lanes = widths[w];
      const double share = gen == 6 ? 0.0 : 16.0 / ack[std::min(gen, 3u) - 1][w] + 4.0 / 1538;
      const double wire_per_tlp = gen == 6 ? 16 : 24;  // FLIT mode: the header only
      expected.push_back(gts[gen] * code[gen] * widths[w] * (1 - share) * size / (4 * wire_per_tlp + size));
      const std::string name = "gen" + std::to_string(gen) + "x" + std::to_string(widths[w]);
      streams.push_back(std::make_unique<Stream>(c, tlm::TLM_WRITE_COMMAND, size, 400, name.c_str()));
    }
  const std::vector<double> measured = run_streams(streams);
  for (std::size_t i = 0; i < streams.size(); ++i) {
    INFO(streams[i]->rig.name());
    CHECK(measured[i] == Approx(expected[i]).epsilon(0.001));
  }
  auto at = [&](unsigned gen, unsigned w) { return measured[(gen - 1) * 5 + w]; };
  // The same table from Gen3 on: each generation doubles.
  CHECK(at(4, 3) / at(3, 3) == Approx(2.0).epsilon(0.001));
  CHECK(at(5, 3) / at(4, 3) == Approx(2.0).epsilon(0.001));
  CHECK(at(4, 4) / at(3, 4) == Approx(2.0).epsilon(0.001));
  // Gen1 -> Gen2 doubles the rate, but the 5 GT/s table has longer AckLimits.
  CHECK(at(2, 3) / at(1, 3) == Approx(2.0 * (1 - 16.0 / 158 - 4.0 / 1538) / (1 - 16.0 / 107 - 4.0 / 1538)).epsilon(0.001));
  // x16 / x8 = the ratio of the TLP rates: 2 x (1 - share x16) / (1 - share x8).
  CHECK(at(3, 4) / at(3, 3) == Approx(2.0 * (1 - 16.0 / 168 - 4.0 / 1538) / (1 - 16.0 / 203 - 4.0 / 1538)).epsilon(0.001));
}
