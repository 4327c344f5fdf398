#pragma once
// Sizes and lengths of a packet on the wire, from its headers and payload length.
//
// Rules (iba-facts 1):
// - An IBA transport packet (LNH 2 or 3) is LRH [GRH if LNH = 3] BTH ext-headers
//   payload pad ICRC VCRC. PadCnt = (4 - payload) & 3 pad bytes (zero) bring
//   payload + pad to a whole number of 4-byte words.
// - PktLen (LRH, 11 bits) counts 4-byte words from the start of the LRH through
//   the ICRC; the VCRC is not counted. GRH PayLen counts bytes from the BTH through
//   the ICRC.
// - Raw packets (LNH 0 raw, LNH 1 IPv6) carry no BTH and no ICRC: LRH, then the raw
//   payload (its raw/IPv6 header included), then the VCRC. They have no PadCnt
//   field, so the model's choice is that a raw payload is padded with zero bytes to
//   a whole word and PktLen counts LRH + padded payload; a decoder sees the padded
//   length as the payload length.
// - Minimum PktLen 6 words for IBA packets, 5 for raw ([SH] ch21); maximum for an
//   MTU = (MTU + 126 - 2) / 4, 126 being the largest headers + ICRC + VCRC.

#include <cstdint>

#include "models/ib/headers.hpp"

namespace hcasim::ib {

constexpr uint16_t kMinPktLenIba = 6;    // iba-facts 1: minimum PktLen, IBA transport
constexpr uint16_t kMinPktLenRaw = 5;    // iba-facts 1: minimum PktLen, raw
constexpr unsigned kMaxHeaderOverhead = 126;  // iba-facts 1: max headers + ICRC + VCRC
constexpr uint16_t kPktLenMask = 0x7FF;  // iba-facts 1: PktLen is 11 bits

// True for LNH 2 and 3 (a BTH follows); false for raw packets.
constexpr bool is_iba_transport(Lnh lnh) {
  return lnh == Lnh::IbaLocal || lnh == Lnh::IbaGlobal;
}

// Pad bytes after a payload of payload_len bytes: (4 - len) & 3.
constexpr uint8_t pad_count(uint32_t payload_len) {
  return static_cast<uint8_t>((4u - (payload_len & 3u)) & 3u);
}

// Largest PktLen (words) a port with this MTU (bytes) may send: (MTU + 126 - 2) / 4.
constexpr uint16_t max_pkt_len_words(uint32_t mtu_bytes) {
  return static_cast<uint16_t>((mtu_bytes + kMaxHeaderOverhead - 2) / 4);
}

// Bytes of all headers before the payload: LRH [+ GRH] + BTH + extended headers for
// IBA packets (the extended headers follow from bth.opcode); just the LRH for raw.
unsigned header_bytes(const Headers& h);

// LRH PktLen: words from the LRH start through the ICRC (raw: through the padded
// payload).
uint16_t pkt_len_words(const Headers& h, uint32_t payload_len);

// GRH PayLen: bytes from the BTH through the ICRC.
uint16_t grh_pay_len(const Headers& h, uint32_t payload_len);

// Bytes on the wire, LRH through VCRC, pad included.
uint32_t packet_wire_bytes(const Headers& h, uint32_t payload_len);

}  // namespace hcasim::ib
