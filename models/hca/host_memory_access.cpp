#include "models/hca/host_memory_access.hpp"

#include "models/link/timeline.hpp"

namespace hcasim::hca {

uint64_t HostMemoryAccess::translated(uint32_t key, uint64_t addr, uint64_t length, uint64_t now_ps) {
  if (!contexts_.has_icm()) return now_ps;
  const MemoryRegion* mr = regions_.find_key(key);
  return mr != nullptr ? contexts_.translate(*mr, addr, length, now_ps) : now_ps;
}

uint64_t HostMemoryAccess::read(uint32_t key, uint64_t addr, uint8_t* out, uint64_t length) {
  const uint64_t now = link::now_ps();
  return dma_.read(addr, out, length, DmaPurpose::Gather, translated(key, addr, length, now));
}

uint64_t HostMemoryAccess::write(uint32_t key, uint64_t addr, const uint8_t* data, uint64_t length) {
  const uint64_t now = link::now_ps();
  const uint64_t done = dma_.write(addr, data, length, DmaPurpose::Scatter, translated(key, addr, length, now));
  if (done > now) {
    pending_.push_back({done, length});
    pending_bytes_ += length;
  }
  return done;
}

void HostMemoryAccess::retire(uint64_t now_ps) {
  while (!pending_.empty() && pending_.front().done_ps <= now_ps) {
    pending_bytes_ -= pending_.front().bytes;
    pending_.pop_front();
  }
}

uint64_t HostMemoryAccess::backlog_bytes(uint64_t now_ps) {
  retire(now_ps);
  return pending_bytes_;
}

uint64_t HostMemoryAccess::backlog_drained_ps(uint64_t now_ps) {
  retire(now_ps);
  return pending_.empty() ? 0 : pending_.front().done_ps;
}

}  // namespace hcasim::hca
