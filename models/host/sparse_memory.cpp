#include "models/host/sparse_memory.hpp"

#include <algorithm>
#include <cstring>

namespace hcasim::host {

void SparseMemory::read(uint64_t addr, uint8_t* out, uint64_t length) const {
  while (length > 0) {
    uint64_t offset = addr % kPageBytes;
    uint64_t chunk = std::min(length, kPageBytes - offset);
    auto it = pages_.find(addr / kPageBytes);
    if (it == pages_.end())
      std::memset(out, 0, chunk);
    else
      std::memcpy(out, it->second->data() + offset, chunk);
    out += chunk;
    addr += chunk;  // wraps modulo 2^64
    length -= chunk;
  }
}

uint8_t* SparseMemory::page_data(uint64_t page) {
  auto& p = pages_[page];
  if (!p) p = std::make_unique<Page>();  // value-initialised: all zero
  return p->data();
}

void SparseMemory::write(uint64_t addr, const uint8_t* data, uint64_t length) {
  while (length > 0) {
    uint64_t offset = addr % kPageBytes;
    uint64_t chunk = std::min(length, kPageBytes - offset);
    std::memcpy(page_data(addr / kPageBytes) + offset, data, chunk);
    data += chunk;
    addr += chunk;
    length -= chunk;
  }
}

uint64_t SparseMemory::read_u64(uint64_t addr) const {
  uint8_t b[8];
  read(addr, b, sizeof b);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

void SparseMemory::write_u64(uint64_t addr, uint64_t value) {
  uint8_t b[8];
  for (auto& byte : b) {
    byte = static_cast<uint8_t>(value);
    value >>= 8;
  }
  write(addr, b, sizeof b);
}

}  // namespace hcasim::host
