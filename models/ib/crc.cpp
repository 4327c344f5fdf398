#include "models/ib/crc.hpp"

#include <array>

#include "models/ib/headers.hpp"

namespace hcasim::ib {
namespace {

template <typename T>
constexpr std::array<T, 256> make_reflected_table(T poly) {
  std::array<T, 256> t{};
  for (unsigned i = 0; i < 256; ++i) {
    T c = static_cast<T>(i);
    for (int b = 0; b < 8; ++b) c = (c & 1u) ? static_cast<T>((c >> 1) ^ poly) : static_cast<T>(c >> 1);
    t[i] = c;
  }
  return t;
}

constexpr auto kCrc32Table = make_reflected_table<uint32_t>(kCrc32Poly);
constexpr auto kCrc16Table = make_reflected_table<uint16_t>(kCrc16Poly);
static_assert(kCrc16Table[1] == 0x1BA1 && kCrc16Table[128] == 0xD008,
              "iba-facts 1: VCRC table[1] = 0x1BA1, table[128] = 0xD008");

inline uint32_t step32(uint32_t reg, uint8_t byte) {
  return (reg >> 8) ^ kCrc32Table[(reg ^ byte) & 0xFFu];
}

// Offsets of the masked (variant) fields, iba-facts 1 "ICRC".
constexpr size_t kBthResv8a = 4;           // BTH byte 4
constexpr size_t kGrhTclassHi = 0;         // low nibble: TClass high nibble
constexpr size_t kGrhTclassLoFlow = 1;     // TClass low nibble + FlowLabel high nibble
constexpr size_t kGrhHopLmt = 7;

// The byte at index i as the ICRC sees it (variant fields replaced by 1s).
uint8_t icrc_masked(const uint8_t* pkt, size_t i, bool global) {
  const uint8_t b = pkt[i];
  if (!global) {
    if (i == 0) return static_cast<uint8_t>(b | 0xF0u);            // VL
    if (i == kLrhBytes + kBthResv8a) return 0xFF;
    return b;
  }
  if (i < kLrhBytes) return 0xFF;                                     // whole LRH
  const size_t g = i - kLrhBytes;
  if (g == kGrhTclassHi) return static_cast<uint8_t>(b | 0x0Fu);
  if (g == kGrhTclassLoFlow || g == 2 || g == 3) return 0xFF;        // TClass + FlowLabel
  if (g == kGrhHopLmt) return 0xFF;
  if (i == kLrhBytes + kGrhBytes + kBthResv8a) return 0xFF;
  return b;
}

}  // namespace

uint32_t crc32_update(uint32_t reg, const uint8_t* data, size_t len) {
  for (size_t i = 0; i < len; ++i) reg = step32(reg, data[i]);
  return reg;
}

uint16_t crc16_update(uint16_t reg, const uint8_t* data, size_t len) {
  for (size_t i = 0; i < len; ++i) {
    reg = static_cast<uint16_t>((reg >> 8) ^ kCrc16Table[(reg ^ data[i]) & 0xFFu]);
  }
  return reg;
}

uint32_t crc32_iba(const uint8_t* data, size_t len) {
  return crc32_update(kCrc32Init, data, len) ^ kCrc32Init;
}

uint16_t crc16_iba(const uint8_t* data, size_t len) {
  return static_cast<uint16_t>(crc16_update(kCrc16Init, data, len) ^ kCrc16Init);
}

uint32_t compute_icrc(const uint8_t* pkt, size_t len_before_icrc) {
  if (len_before_icrc < 2) return 0;
  const auto lnh = static_cast<Lnh>(pkt[1] & 0x3u);
  if (lnh != Lnh::IbaLocal && lnh != Lnh::IbaGlobal) return 0;
  const bool global = lnh == Lnh::IbaGlobal;
  // Masked bytes all lie within LRH [+ GRH] + the first 5 BTH bytes.
  const size_t masked_end = kLrhBytes + (global ? kGrhBytes : 0) + kBthResv8a + 1;
  const size_t head = len_before_icrc < masked_end ? len_before_icrc : masked_end;
  uint32_t reg = kCrc32Init;
  for (size_t i = 0; i < head; ++i) reg = step32(reg, icrc_masked(pkt, i, global));
  reg = crc32_update(reg, pkt + head, len_before_icrc - head);
  return reg ^ kCrc32Init;
}

uint16_t compute_vcrc(const uint8_t* pkt, size_t len) { return crc16_iba(pkt, len); }

uint16_t compute_lpcrc(const uint8_t* fcp4) { return crc16_iba(fcp4, 4); }

}  // namespace hcasim::ib
