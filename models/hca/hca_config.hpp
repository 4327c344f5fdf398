#pragma once
// Parameters of an HCA's host side: its BAR0, how it fetches work queue
// entries, when it raises interrupts, and how much received data it keeps
// while host memory writes are under way. Defaults live here and nowhere
// else; models/config reads them from the scenario's "hca" object. The
// transport engines' own parameters are transport::TransportConfig.

#include <cstdint>

#include "models/hca/context_cache.hpp"

namespace hcasim::hca {

// One cache's defaults (ContextCacheConfig's other fields keep theirs).
inline ContextCacheConfig cache_defaults(uint32_t entries, uint32_t ways, uint32_t entry_bytes, uint32_t mshrs,
                                         bool write_back, Replacement replacement = Replacement::Lru) {
  ContextCacheConfig c;
  c.entries = entries;
  c.ways = ways;
  c.entry_bytes = entry_bytes;
  c.mshrs = mshrs;
  c.write_back = write_back;
  c.replacement = replacement;
  return c;
}

// The HCA's on-chip context caches (context_cache.hpp), backed by the ICM
// tables in host memory (icm_layout.hpp). Sizes are assumptions of the order
// the rdma_bench QP sweeps imply for Connect-IB / ConnectX-4 (message rate
// falls beyond a few hundred active QPs, Kalia et al. ATC 2016 / OSDI 2016);
// entry sizes are mlx4's (QPC 256 B, CQC and MPT 64 B, MTT 8 B). The WQE
// cache's lines are 64 B, one send WQE basic block (mlx5's WQEBB); it is read
// only (no write-back). Its 640 lines are an assumption large enough that
// rc-swarm's 14 threads x 24 READs miss no WQE; Connect-IB's fall at a window
// of 32 is not the cache's size but hca.wqe_reads_kept (docs/devices/connect-ib.md).
// The QPC and WQE caches keep 64 misses in flight (a PCIe function has 256
// tags at least; 16 bounded 64 B writes to 13.5 M/s once the QPs outgrew the
// QPC cache), and the QPC cache replaces at random: QPs served in turn, as a
// scheduler serves them, miss every time in an LRU cache they outnumber (512
// -> 1,024 QPs fell by 76%), where random replacement keeps a share
// (docs/context-caches.md, "When the QPs outgrow the caches").
// The transmit units' own store of QP contexts, in front of the QPC cache (a
// first level): a unit that builds a packet for a QP whose context is not in
// it loads the context from the QPC cache, which takes `load` of that unit's
// time (the context crossing from the cache's SRAM into the unit). entries 0:
// no first level (every context is read from the QPC cache at no unit cost).
// Its lines are a ContextCache whose fills take no time (no DMA, nothing written back): of
// `store`, entries, ways, replacement and seed are the scenario's.
// index: a QP's set is its QPN mod sets (modulo), or a hash of the QPN keyed
// by the HCA's name (hashed: unit_context_store.hpp), so QPs conflict in a set
// before the store is full, each HCA with other QPs.
enum class SetIndex : uint8_t { Modulo, Hashed };

struct QpcFirstLevelConfig {
  ContextCacheConfig store = cache_defaults(0, 0, 256, 1, false);  // entries 0 = none
  uint64_t load_ps = 0;  // unit time to load a context that is not held
  SetIndex index = SetIndex::Modulo;
  bool on() const { return store.entries > 0; }
};

struct ContextCachesConfig {
  QpcFirstLevelConfig qpc_l1;                                       // the transmit units' QP contexts (off)
  ContextCacheConfig qpc = cache_defaults(512, 8, 256, 64, true, Replacement::Random);  // QP contexts: written by every packet
  ContextCacheConfig cqc = cache_defaults(128, 8, 64, 8, true);     // CQ contexts: written by every completion
  ContextCacheConfig mpt = cache_defaults(256, 8, 64, 8, false);    // memory protection entries (read only)
  ContextCacheConfig mtt = cache_defaults(2048, 8, 64, 16, false);  // lines of 8 translation entries (read only)
  ContextCacheConfig wqe = cache_defaults(640, 8, 64, 64, false);   // send and receive WQEs (wqe_cache.hpp)
};

struct HcaConfig {
  uint32_t uar_pages = 16;                // BAR0 UAR pages (user contexts), after the register page
  uint32_t msix_vectors = 64;             // MSI-X table entries (at most 128: the register page's second half)
  uint32_t wqe_fetch_batch = 4;           // WQEs read per DMA read of a send or receive ring (ConnectX reads several)
  uint32_t wqe_prefetch = 8;              // send WQEs ahead of the one a unit takes that the WQE cache fetches then (0: off)
  // READs and atomics a QP may have posted and not completed whose WQEs stay in the WQE cache
  // between request and response; past it a sent READ's lines leave, and its response reads
  // them again (0: no limit). hca_contexts.hpp, docs/context-caches.md.
  uint32_t wqe_reads_kept = 0;
  uint32_t msix_moderation_count = 1;     // completions an armed CQ collects before its interrupt (1 = each)
  uint64_t msix_moderation_ps = 0;        // or this long after the first of them, ps (0 = no timer)
  // Per-CQ defaults: create_cq may choose compression, modify_cq the moderation (completion_writer.hpp).
  bool cqe_compression = false;           // CQs write completions in compressed blocks (title + mini CQEs)
  uint32_t cqe_compression_max = 8;       // completions a block holds at most (8: a title and one full mini-CQE array)
  uint64_t cqe_compression_wait_ps = 100'000;  // a block not full is written this long after its first completion, ps
  uint64_t rx_buffer_bytes = 256 * 1024;  // received data waiting for its host-memory write before ports stall
  ContextCachesConfig caches;             // QPC, CQC, MPT, MTT and WQE caches
  // MR page size: one MTT entry per page (a power of two, 4 KiB to 1 GiB). 2 MiB: buffers in huge
  // pages, as RDMA applications allocate them (an assumption); with 4 KiB a perftest of 1 MiB
  // messages touches 32,768 pages and thrashes the MTT cache.
  uint64_t page_bytes = uint64_t{2} << 20;
};

}  // namespace hcasim::hca
