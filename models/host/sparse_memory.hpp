#pragma once
// A host's memory: a byte-addressable 64-bit address space that costs only
// what is written to it.
//
// Rules:
// - Memory is kept in 4 KiB pages, allocated on the first write that touches
//   them; a page, once allocated, stays until the object goes.
// - Bytes never written read as 0; reading allocates nothing.
// - read and write take any length and cross page boundaries; addresses wrap
//   modulo 2^64 (the protection checks of MemoryRegions keep the engines'
//   ranges from wrapping).
// - read_u64 / write_u64 use little-endian byte order whatever the host's
//   (host_memory.hpp: atomics operate on 8-byte little-endian words).

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace hcasim::host {

class SparseMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  void read(uint64_t addr, uint8_t* out, uint64_t length) const;
  void write(uint64_t addr, const uint8_t* data, uint64_t length);

  uint64_t read_u64(uint64_t addr) const;
  void write_u64(uint64_t addr, uint64_t value);

  // The bytes of page `page` (address page * kPageBytes), allocated (zeroed)
  // if it was not: stable for the object's life, for direct memory access.
  uint8_t* page_data(uint64_t page);

  size_t pages() const { return pages_.size(); }
  uint64_t bytes_allocated() const { return pages_.size() * kPageBytes; }

 private:
  using Page = std::array<uint8_t, kPageBytes>;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;  // page number -> bytes
};

}  // namespace hcasim::host
