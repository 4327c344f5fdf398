#pragma once
// Big-endian loads and stores for the management formats (MADs, SMP attributes,
// SA records): every multi-byte field there is big-endian (iba-facts 6). Plain
// byte arithmetic, so alignment and host byte order do not matter.

#include <cstdint>

namespace hcasim::ib {

inline void put_be16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
inline void put_be24(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 16);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v);
}
inline void put_be32(uint8_t* p, uint32_t v) {
  put_be16(p, static_cast<uint16_t>(v >> 16));
  put_be16(p + 2, static_cast<uint16_t>(v));
}
inline void put_be64(uint8_t* p, uint64_t v) {
  put_be32(p, static_cast<uint32_t>(v >> 32));
  put_be32(p + 4, static_cast<uint32_t>(v));
}

inline uint16_t get_be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t get_be24(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 16) | (static_cast<uint32_t>(p[1]) << 8) | p[2];
}
inline uint32_t get_be32(const uint8_t* p) {
  return (static_cast<uint32_t>(get_be16(p)) << 16) | get_be16(p + 2);
}
inline uint64_t get_be64(const uint8_t* p) {
  return (static_cast<uint64_t>(get_be32(p)) << 32) | get_be32(p + 4);
}

}  // namespace hcasim::ib
