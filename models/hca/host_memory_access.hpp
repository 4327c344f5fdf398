#pragma once
// The transport engines' view of host memory (transport::HostMemory): key and
// range checks by the HCA's memory regions, the bytes by DMA over the host
// link. Reads are gather reads (the payload of a request or a READ response,
// an atomic's original value); writes are scatter writes (received data, READ
// response data and atomic results at the requester, an atomic's result).
//
// Rules:
// - read returns when the bytes are at the HCA, write when they are visible
//   in host memory (dma_engine.hpp); both move the bytes at once. The DMA is
//   issued once the key's MPT entry and the MTT entries of the pages it
//   touches are on chip (hca_contexts.hpp: translate).
// - Received data waits on the HCA until its write is done: backlog_bytes()
//   is the data written whose writes are not yet done. The HCA stops taking
//   packets from its ports while it is at rx_buffer_bytes (so a slow host
//   link backpressures the fabric through its credits), and
//   backlog_drained_ps() says when the oldest pending write is done.

#include <cstdint>

#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_contexts.hpp"
#include "models/hca/memory_regions.hpp"
#include "models/ib/ring_fifo.hpp"
#include "models/transport/host_memory.hpp"

namespace hcasim::hca {

class HostMemoryAccess : public transport::HostMemory {
 public:
  HostMemoryAccess(MemoryRegions& regions, DmaEngine& dma, HcaContexts& contexts)
      : regions_(regions), dma_(dma), contexts_(contexts) {}

  transport::KeyCheck check_local(uint32_t lkey, uint64_t addr, uint64_t length, uint32_t access) const override {
    return regions_.check_local(lkey, addr, length, access);
  }
  transport::KeyCheck check_remote(uint32_t rkey, uint64_t addr, uint64_t length, uint32_t access) const override {
    return regions_.check_remote(rkey, addr, length, access);
  }
  bool invalidate_rkey(uint32_t rkey) override { return regions_.invalidate_rkey(rkey); }
  uint64_t read(uint32_t key, uint64_t addr, uint8_t* out, uint64_t length) override;
  uint64_t write(uint32_t key, uint64_t addr, const uint8_t* data, uint64_t length) override;

  // Received data not yet in host memory, at now_ps.
  uint64_t backlog_bytes(uint64_t now_ps);
  // When the oldest pending scatter write is done (0 when none is pending).
  uint64_t backlog_drained_ps(uint64_t now_ps);

 private:
  struct Pending {
    uint64_t done_ps;
    uint64_t bytes;
  };
  void retire(uint64_t now_ps);
  // When the translation of [addr, addr + length) under key is on chip.
  uint64_t translated(uint32_t key, uint64_t addr, uint64_t length, uint64_t now_ps);

  MemoryRegions& regions_;
  DmaEngine& dma_;
  HcaContexts& contexts_;
  ib::RingFifo<Pending, 6> pending_;  // scatter writes not yet done, in order
  uint64_t pending_bytes_ = 0;
};

}  // namespace hcasim::hca
