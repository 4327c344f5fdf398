#pragma once
// Numbers handed out in turn, as an HCA hands out QP and CQ numbers: each create takes the next
// number not in use, wrapping at the range's end. A destroyed number comes back only after the
// whole range has been offered again, so an event still on its way for a destroyed QP or CQ
// never reaches a new one, and a simulation that creates and destroys without end keeps its
// numbers inside the field that carries them (24 bits for QP and CQ numbers).

#include <cstdint>
#include <optional>

namespace hcasim::transport {

// The first number from next on (after last comes first) that in_use(n) says is free, and next
// moves past it; nullopt when every number of [first, last] is in use.
template <class InUse>
std::optional<uint32_t> take_cyclic(uint32_t& next, uint32_t first, uint32_t last, InUse in_use) {
  const uint64_t span = uint64_t{last} - first + 1;
  for (uint64_t tried = 0; tried < span; ++tried) {
    const uint32_t n = next < first || next > last ? first : next;
    next = n == last ? first : n + 1;
    if (!in_use(n)) return n;
  }
  return std::nullopt;
}

}  // namespace hcasim::transport
