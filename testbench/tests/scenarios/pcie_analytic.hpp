#pragma once
// Analytic PCIe times the scenario tests compare the model with.
#include <cstdint>

#include "models/pcie/pcie_config.hpp"
#include "models/pcie/tlp_math.hpp"

namespace hcasim::test {

// A DMA read of one entry of `bytes` on an otherwise idle link: the read
// request upstream (4 DW header + per-TLP overhead), the one-way latency, the
// memory's, then the completion with the data downstream (3 DW header +
// overhead + data, one TLP: bytes <= MPS and RCB-aligned) and the latency
// again. Wire times at the link's TLP rate (tlp_math: the spec's symbol rate
// less DLLPs and SKIPs).
inline double entry_read_ns(const pcie::PcieConfig& c, uint32_t bytes, double one_way_ns, double memory_ns) {
  const double bytes_per_ns = pcie::tlp_rate_bps(c) / 8e9;
  const double request = 4 * 4 + c.tlp_overhead_bytes;
  const double completion = pcie::kCompletionHeader + c.tlp_overhead_bytes + bytes;
  return request / bytes_per_ns + one_way_ns + memory_ns + completion / bytes_per_ns + one_way_ns;
}

}  // namespace hcasim::test
