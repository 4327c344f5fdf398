#include "models/pcie/tlp_math.hpp"

#include <algorithm>
#include <array>

namespace hcasim::pcie {

namespace {

// AckLimit in symbol times, [rate][width][MPS], PCIe Base Spec 5.0 Tables 3-7
// (2.5 GT/s), 3-8 (5.0 GT/s) and 3-9 (8.0 GT/s and above), as pcie-bench
// lists them (model/pcie.py Ack_Limits; its FC_Guide has the same values).
// Widths x1, x2, x4, x8, x16; MPS 128, 256, 512, 1024, 2048, 4096.
using AckTable = std::array<std::array<uint16_t, 6>, 5>;
constexpr std::array<AckTable, 3> kAckLimit = {{
    {{{237, 416, 559, 1071, 2095, 4143},  // 2.5 GT/s
      {128, 217, 289, 545, 1057, 2081},
      {73, 118, 154, 282, 538, 1050},
      {67, 107, 86, 150, 278, 534},
      {48, 72, 86, 150, 278, 534}}},
    {{{288, 467, 610, 1122, 2146, 4194},  // 5.0 GT/s
      {179, 268, 340, 596, 1108, 2132},
      {124, 169, 205, 333, 589, 1101},
      {118, 158, 137, 201, 329, 585},
      {99, 123, 137, 201, 329, 585}}},
    {{{333, 512, 655, 1167, 2191, 4239},  // 8.0 GT/s and above
      {224, 313, 385, 641, 1153, 2177},
      {169, 214, 250, 378, 634, 1146},
      {163, 203, 182, 246, 374, 630},
      {144, 168, 182, 246, 374, 630}}},
}};

// log2 of v for a power of two v, else -1.
int log2_exact(uint32_t v) {
  if (v == 0 || (v & (v - 1)) != 0) return -1;
  int n = 0;
  while (v > 1) {
    v >>= 1;
    ++n;
  }
  return n;
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

double transfer_rate_per_s(unsigned gen) {
  switch (gen) {
    case 1: return 2.5e9;
    case 2: return 5e9;
    case 3: return 8e9;
    case 4: return 16e9;
    case 5: return 32e9;
    case 6: return 64e9;
    default: return 0;
  }
}

LineCode line_code(unsigned gen) {
  if (gen <= 2) return {8, 10};
  if (flit_mode(gen)) return {kFlitTlpBytes, kFlitBytes};
  return {128, 130};
}

double raw_rate_bps(unsigned gen, unsigned lanes) {
  const LineCode code = line_code(gen);
  // Integers up to 2^53 before the one division: Gen2 x16 is exactly 64e9.
  return transfer_rate_per_s(gen) * static_cast<double>(lanes) * static_cast<double>(code.data) /
         static_cast<double>(code.total);
}

uint32_t ack_limit_symbols(unsigned gen, unsigned lanes, uint32_t mps) {
  const int width = log2_exact(lanes);
  const int size = log2_exact(mps) - 7;  // 128 -> 0
  if (gen < 1 || flit_mode(gen) || width < 0 || width > 4 || size < 0 || size > 5) return 0;
  const unsigned rate = gen >= 3 ? 2 : gen - 1;
  return kAckLimit[rate][static_cast<unsigned>(width)][static_cast<unsigned>(size)];
}

double spec_dllp_share(unsigned gen, unsigned lanes, uint32_t mps) {
  const uint32_t limit = ack_limit_symbols(gen, lanes, mps);
  if (limit == 0) return 0.0;
  const double ack = static_cast<double>(kDllpBytes) / limit;
  const double update_fc = static_cast<double>(kDllpBytes) / limit;  // same table (see above)
  const double skip = static_cast<double>(kSkipBytes) / kSkipInterval;
  return ack + update_fc + skip;
}

double dllp_share(const PcieConfig& c) {
  return c.dllp_share >= 0 ? c.dllp_share : spec_dllp_share(c.gen, c.lanes, c.mps);
}

double tlp_rate_bps(const PcieConfig& c) {
  const double raw = raw_rate_bps(c.gen, c.lanes);
  return raw - raw * dllp_share(c);
}

TlpSizes tlp_sizes(const PcieConfig& c) {
  return {4 * c.tlp_header_dw, kCompletionHeader, flit_mode(c.gen) ? 0 : c.tlp_overhead_bytes};
}

uint64_t count_pieces(uint64_t addr, uint64_t len, uint32_t max_bytes, uint32_t first_boundary) {
  if (len == 0) return 0;
  uint64_t n = 0;
  if (first_boundary != 0 && addr % first_boundary != 0) {
    // The first piece ends at the boundary (which is no further than the page's end: RCB divides 4 KiB).
    const uint64_t first = std::min<uint64_t>(len, first_boundary - addr % first_boundary);
    ++n;
    addr += first;
    len -= first;
  }
  // Per 4 KiB page the pieces start over: ceil(bytes in the page / max).
  while (len > 0) {
    const uint64_t in_page = std::min<uint64_t>(len, kPageBytes - addr % kPageBytes);
    n += ceil_div(in_page, max_bytes);
    addr += in_page;
    len -= in_page;
  }
  return n;
}

double reference_write_bps(const PcieConfig& c, uint64_t size) {
  const TlpSizes s = tlp_sizes(c);
  const uint64_t tlps = ceil_div(size, c.mps);
  const double wire = static_cast<double>(tlps * (s.request_header + s.overhead) + size);
  return static_cast<double>(size) * tlp_rate_bps(c) / wire;
}

double reference_read_bps(const PcieConfig& c, uint64_t size) {
  const TlpSizes s = tlp_sizes(c);
  const double up = static_cast<double>(ceil_div(size, c.mrrs) * (s.request_header + s.overhead));
  const double down = static_cast<double>(ceil_div(size, c.mps) * (s.completion_header + s.overhead) + size);
  return static_cast<double>(size) * tlp_rate_bps(c) / std::max(up, down);
}

}  // namespace hcasim::pcie
