#pragma once
// An IOMMU in the host's root complex, between the PCIe link and host memory
// (optional; host.hpp puts it there when enabled): every DMA address a device
// uses is an I/O virtual address (IOVA), translated page by page through an
// IOTLB before the access reaches memory.
//
// Rules:
// - A DMA read or write (a transaction from the link's host_out) touches the
//   IOVA pages [addr / page, (addr + length - 1) / page]; each is looked up
//   in the IOTLB (an hca::ContextCache keyed by the page number: entries,
//   ways, replacement, and mshrs = page walks in flight) at the transaction's
//   issue time (now + delay). The access goes on to memory when its last page
//   is translated: delay = the latest translation's done time - now.
// - A miss walks the I/O page table: miss_penalty, then walk_levels reads of
//   an 8-byte entry of host memory one after the other, each a b_transport
//   on `out` (the memory's own latency and bandwidth; not over PCIe: the
//   IOMMU is in the root complex). Level l of the walk for page p reads the
//   entry at kIoPageTables + l * 2^44 + (p >> (9 * (walk_levels - 1 - l))) * 8
//   (512 entries a table, as x86's). walk_levels 0 is the fixed penalty alone.
// - Mapping: the model maps IOVA = physical address (the driver maps each
//   buffer at its own address), so translation costs time, not addresses.
// - Not translated, and not counted: MSI-X writes (they carry
//   pcie::MsiMessage; interrupt remapping is not modelled), ignore commands
//   and zero-length transactions. transport_dbg passes through untimed.
//   DMI is refused (every access must be timed).
// - Stats: translations (transactions translated), the IOTLB's lookups,
//   hits, misses, merged (a page whose walk is under way) and miss latency,
//   and walk_reads.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>

#include "models/hca/context_cache.hpp"

namespace hcasim::host {

constexpr uint64_t kIoPageTables = uint64_t{0x7E} << 40;  // where the I/O page tables are (apart from the driver's area)
constexpr uint64_t kIoPageEntryBytes = 8;
constexpr uint32_t kIoPageTableBits = 9;                  // 512 entries a table (x86, VT-d, AMD-Vi)

struct IommuConfig {
  bool enabled = false;                 // off: the link reaches host memory directly
  uint64_t page_bytes = 4096;           // IOVA page size: 4 KiB or 2 MiB
  // The IOTLB: 64 entries, as pcie-bench infers for a Xeon E5 (Neugebauer et al., SIGCOMM 2018, section 6.4).
  hca::ContextCacheConfig iotlb = iotlb_defaults();
  uint32_t walk_levels = 0;             // page-table reads of host memory per miss (0: miss_penalty only)
  // A miss's fixed cost, ps. With 5 walks in flight: calibrated on pcie-bench's NFP6000 / Xeon E5-2630 v4
  // data (docs/experiments/iotlb_footprint.md): 5 / 260 ns = 19.2 M misses/s, its 64 MiB window's rate.
  uint64_t miss_penalty_ps = 260'000;

  static hca::ContextCacheConfig iotlb_defaults() {
    hca::ContextCacheConfig c;
    c.entries = 64;
    c.ways = 0;            // fully associative
    c.entry_bytes = 8;     // one page-table entry
    c.mshrs = 5;           // page walks in flight (calibrated with miss_penalty_ps)
    c.write_back = false;  // translations are never dirty
    return c;
  }
};

struct IommuStats {
  uint64_t translations = 0;  // transactions translated
  uint64_t walk_reads = 0;    // page-table reads of host memory
};

class Iommu : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Iommu> in{"in"};     // from the PCIe link's host_out
  tlm_utils::simple_initiator_socket<Iommu> out{"out"};  // to host memory

  // Throws std::invalid_argument for a page size that is not a power of two
  // or an IOTLB the cache refuses (entries 0, ways not dividing entries, mshrs 0).
  Iommu(const sc_core::sc_module_name& name, const IommuConfig& config);
  Iommu() = delete;
  Iommu(const Iommu&) = delete;
  Iommu& operator=(const Iommu&) = delete;

  const IommuConfig& config() const { return config_; }
  const IommuStats& stats() const { return stats_; }
  const hca::ContextCacheStats& iotlb_stats() const { return iotlb_.stats(); }
  const hca::ContextCache& iotlb() const { return iotlb_; }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& t);
  // The walk for page `page` starting at start_ps; returns when it is done.
  uint64_t walk(uint64_t page, uint64_t start_ps);

  IommuConfig config_;
  unsigned page_shift_ = 12;
  hca::ContextCache iotlb_;
  tlm::tlm_generic_payload walk_trans_;
  uint8_t entry_[kIoPageEntryBytes] = {};
  IommuStats stats_;
};

}  // namespace hcasim::host
