#pragma once
// The test pattern the transport workloads fill source buffers with: a byte
// that depends on its address and a seed, so data landing at the wrong place,
// from the wrong buffer or from an earlier operation does not compare equal.

#include <cstdint>
#include <vector>

#include "models/host/sparse_memory.hpp"

namespace hcasim::workloads {

inline uint8_t pattern_byte(uint64_t addr, uint8_t seed) {
  return static_cast<uint8_t>((addr * 131 + seed * 7 + (addr >> 8)) & 0xFF);
}

// Writes the pattern over [addr, addr + len); `scratch` is reused between calls.
inline void fill_pattern(host::SparseMemory& m, uint64_t addr, uint64_t len, uint8_t seed,
                         std::vector<uint8_t>& scratch) {
  scratch.resize(len);
  for (uint64_t i = 0; i < len; ++i) scratch[i] = pattern_byte(addr + i, seed);
  m.write(addr, scratch.data(), len);
}

}  // namespace hcasim::workloads
