#pragma once
// Parameters of an HCA's host side: its BAR0, how it fetches work queue
// entries, when it raises interrupts, and how much received data it keeps
// while host memory writes are under way. Defaults live here and nowhere
// else; models/config reads them from the scenario's "hca" object. The
// transport engines' own parameters are transport::TransportConfig.

#include <cstdint>

namespace hcasim::hca {

struct HcaConfig {
  uint32_t uar_pages = 16;                // BAR0 UAR pages (user contexts), after the register page
  uint32_t msix_vectors = 64;             // MSI-X table entries (at most 128: the register page's second half)
  uint32_t wqe_fetch_batch = 4;           // WQEs read per DMA read of a send or receive ring (ConnectX reads several)
  uint32_t msix_moderation_count = 1;     // completions an armed CQ collects before its interrupt (1 = each)
  uint64_t msix_moderation_ps = 0;        // or this long after the first of them, ps (0 = no timer)
  // Per-CQ defaults: create_cq may choose compression, modify_cq the moderation (completion_writer.hpp).
  bool cqe_compression = false;           // CQs write completions in compressed blocks (title + mini CQEs)
  uint32_t cqe_compression_max = 8;       // completions a block holds at most (8: a title and one full mini-CQE array)
  uint64_t cqe_compression_wait_ps = 100'000;  // a block not full is written this long after its first completion, ps
  uint64_t rx_buffer_bytes = 256 * 1024;  // received data waiting for its host-memory write before ports stall
};

}  // namespace hcasim::hca
