#pragma once
// Parameters of a PCIe link between a host (root complex) and a device (the
// HCA). Defaults live here and nowhere else: a Gen4 x16 link, as an HDR-era
// HCA has. The config parser (models/config) calls check() and prefixes the
// JSON path to its message.
//
// Facts behind the fields (the timing is in tlp_math.hpp):
// - Transfer rate per lane: 2.5, 5, 8, 16, 32, 64 GT/s for Gen1..Gen6 (PCIe
//   Base Spec 6.0, Physical Layer; pcie-bench model/pcie.py GTs).
// - Line code: 8b/10b for Gen1-2, 128b/130b for Gen3-5 (PCIe Base Spec 6.0,
//   Physical Layer). Gen6 runs in FLIT mode (PCIe Base Spec 6.0 flit layout): a
//   256-byte flit carries 236 bytes of TLPs, 6 bytes of DLP, 8 of CRC and 6 of
//   FEC, so 236/256 of the rate is left for TLPs; a TLP there has no sequence
//   number, LCRC or framing of its own, and ACKs and UpdateFCs ride in the
//   flits' DLP bytes (no DLLP share). pcie-bench uses 242/256 for Gen6, which
//   leaves the DLP bytes in; we count them out.
// - Per TLP outside FLIT mode: sequence number 2 + LCRC 4 + framing 2 = 8
//   bytes (pcie-bench's DLLP_Hdr). Memory request headers are 3 DW (32-bit
//   address) or 4 DW (64-bit address); completions 3 DW (PCIe Base Spec,
//   Transaction Layer: TLP header formats; pcie-bench TLP_*_Hdr).

#include <cstdint>
#include <string>

namespace hcasim::pcie {

struct PcieConfig {
  unsigned gen = 4;                  // PCIe generation 1-6 (6 = FLIT mode)
  unsigned lanes = 16;               // link width: 1, 2, 4, 8 or 16 lanes
  uint32_t mps = 256;                // Max_Payload_Size, bytes: 128-4096, a power of two
  uint32_t mrrs = 512;               // Max_Read_Request_Size, bytes: 128-4096, a power of two
  uint32_t rcb = 64;                 // Read Completion Boundary, bytes: 64 or 128
  unsigned tlp_header_dw = 4;        // memory request header, DW: 3 (32-bit address) or 4 (64-bit); completions are 3
  uint32_t tlp_overhead_bytes = 8;   // per TLP: sequence number 2 + LCRC 4 + framing 2 (pcie-bench DLLP_Hdr); none in FLIT mode
  double dllp_share = -1;            // share of the rate lost to ACK/UpdateFC DLLPs and SKIPs; < 0 = the spec's tables (0 in FLIT mode)
  uint64_t latency_ps = 250000;      // one-way latency of link and root complex, ps: half of pcie-bench's ~0.5 us DMA read round trips (Xeon E5), a fair order
  uint32_t tags = 256;               // most DMA read requests the device keeps outstanding, 1-16384
  bool ideal = false;                // infinite bandwidth and zero latency: transfers cost nothing, still counted
};

// "" when the config is valid, else one line naming the field and what it accepts.
std::string check(const PcieConfig& c);

}  // namespace hcasim::pcie
