#pragma once
// 24-bit packet sequence numbers (IBA 9.7; seed 002 "Some Definitions";
// iba-facts 5). PSNs wrap modulo 2^24; comparisons are made in a window of
// 2^23 on each side, as rxe's psn_compare does.

#include <cstdint>

namespace hcasim::transport {

constexpr uint32_t kPsnMask = 0xFFFFFF;  // seed 002: the PSN is a 24-bit number

constexpr uint32_t psn_add(uint32_t psn, uint32_t n) { return (psn + n) & kPsnMask; }
// a - b as a signed distance in (-2^23, 2^23]: > 0 when a is ahead of b.
constexpr int32_t psn_diff(uint32_t a, uint32_t b) {
  return static_cast<int32_t>(((a - b) & kPsnMask) << 8) >> 8;
}
constexpr bool psn_before(uint32_t a, uint32_t b) { return psn_diff(a, b) < 0; }

}  // namespace hcasim::transport
