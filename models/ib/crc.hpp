#pragma once
// The three link/transport CRCs of IBA packets.
//
// Rules (iba-facts 1 "ICRC" / "VCRC", 2 "Flow control packet"; test vectors there):
// - ICRC: reflected CRC-32 (poly 0x04C11DB7, reflected 0xEDB88320), init 0xFFFFFFFF,
//   final XOR 0xFFFFFFFF, over the LRH start up to the ICRC, pad included, with the
//   variant fields replaced by 1s:
//     LNH 2: LRH byte 0 high nibble (VL), BTH byte 4 (Resv8a);
//     LNH 3: all 8 LRH bytes, GRH TClass, FlowLabel, HopLmt, BTH byte 4.
//   Sent least-significant byte first (the [MPGA] vector 0x5AB72596 is stored as
//   96 25 B7 5A).
// - VCRC: reflected CRC-16 (poly 0x100B, reflected 0xD008), init 0xFFFF, final XOR
//   0xFFFF, over every byte from the LRH through the ICRC. Its byte order is not
//   confirmed by a source; the model sends it least-significant byte first, like the
//   ICRC. With that order the CRC-16 over a whole packet including its VCRC is the
//   constant 0xAA90 (kVcrcResidue), which the tests check.
// - LPCRC (flow-control packets): the model computes the same CRC-16 as the VCRC over
//   the first 4 bytes of the FCP and sends it least-significant byte first. No
//   source retrieved states the LPCRC polynomial; this is the model's choice.

#include <cstddef>
#include <cstdint>

namespace hcasim::ib {

constexpr uint32_t kCrc32Poly = 0xEDB88320u;   // iba-facts 1: reflected 0x04C11DB7
constexpr uint32_t kCrc32Init = 0xFFFFFFFFu;   // init and final XOR
constexpr uint16_t kCrc16Poly = 0xD008u;       // iba-facts 1: reflected 0x100B
constexpr uint16_t kCrc16Init = 0xFFFFu;       // init and final XOR
constexpr uint16_t kVcrcResidue = 0xAA90u;     // iba-facts "Test vectors"

// Raw register updates (no init, no final XOR), for streaming.
uint32_t crc32_update(uint32_t reg, const uint8_t* data, size_t len);
uint16_t crc16_update(uint16_t reg, const uint8_t* data, size_t len);

// Complete CRCs: init, update, final XOR.
uint32_t crc32_iba(const uint8_t* data, size_t len);
uint16_t crc16_iba(const uint8_t* data, size_t len);

// ICRC of an IBA packet (LNH 2 or 3, read from byte 1) whose first len_before_icrc
// bytes run from the LRH to just before the ICRC. Masks are applied to a copy, never
// to pkt. Raw packets (LNH 0/1) carry no ICRC; for them this returns 0.
uint32_t compute_icrc(const uint8_t* pkt, size_t len_before_icrc);

// VCRC over the len bytes LRH..ICRC.
uint16_t compute_vcrc(const uint8_t* pkt, size_t len);

// LPCRC over the first 4 bytes of a flow-control packet.
uint16_t compute_lpcrc(const uint8_t* fcp4);

// Little-endian stores/loads used for the CRC fields on the wire.
inline void store_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_le16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
inline uint16_t load_le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}

}  // namespace hcasim::ib
