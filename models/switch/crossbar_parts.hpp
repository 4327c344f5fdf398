#pragma once
// Pieces both crossbars (crossbar_allocator.hpp, voq_crossbar.hpp) use: a
// cyclic scan of a bit set, and the short list of grants one event makes.
// Plain C++.

#include <array>
#include <cstdint>

namespace hcasim::sw {

// Calls f(i) for the set bits of `words` (`count` 64-bit words) from bit
// `start` on, cyclically (the bits below `start` last), until f returns true;
// returns whether one did.
template <class F>
bool scan_cyclic(const uint64_t* words, unsigned count, unsigned start, F&& f) {
  const unsigned first = start / 64;
  for (unsigned k = 0; k <= count; ++k) {
    const unsigned w = (first + k) % count;
    uint64_t b = words[w];
    if (k == 0) b &= ~uint64_t{0} << (start % 64);
    if (k == count) b &= (uint64_t{1} << (start % 64)) - 1;
    for (; b != 0; b &= b - 1)
      if (f(w * 64 + static_cast<unsigned>(__builtin_ctzll(b)))) return true;
  }
  return false;
}

// The grants of one event: a freed input and a freed output choose at most one each.
template <class G>
struct GrantList {
  std::array<G, 2> list{};
  unsigned count = 0;
  const G* begin() const { return list.data(); }
  const G* end() const { return list.data() + count; }
};

}  // namespace hcasim::sw
