#pragma once
// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014): the seeded streams of the model (fault injection,
// random cache replacement, adaptive routing's draws) and its fixed hashes.
//
// Rules:
// - splitmix64_mix(z) is the generator's output function, a bijection on 64
//   bits that every input bit changes about half of.
// - fnv1a(s) is the 64-bit FNV-1a hash of a name's bytes: the fixed hash
//   that gives each port or HCA a stream or hash key of its own.
// - SplitMix64{seed}.next() adds the golden-ratio increment to the state and
//   returns the output function of the sum: the same seed, the same stream.

#include <cstdint>
#include <string_view>

namespace hcasim::link {

constexpr uint64_t kSplitMixIncrement = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio, odd

constexpr uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

constexpr uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a's 64-bit offset basis and prime
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001B3ull;
  return h;
}

struct SplitMix64 {
  uint64_t state = 0;
  uint64_t next() { return splitmix64_mix(state += kSplitMixIncrement); }
  // A draw in 0 .. n - 1 (n >= 1), by the high bits' product (Lemire's
  // multiply-shift; bias below 2^-32 for n < 2^32).
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(((next() >> 32) * n) >> 32); }
};

}  // namespace hcasim::link
