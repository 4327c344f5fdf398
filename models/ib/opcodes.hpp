#pragma once
// BTH opcodes and the extended transport headers each one carries.
//
// Rules (iba-facts 1, "Opcode values" and "Which opcodes carry which headers"):
// - opcode = transport prefix (bits 7:5) | operation (bits 4:0); RC 0x00, UC 0x20,
//   UD 0x60. RD (0x40), CNP (0x80) and the manufacturer range are not modelled and
//   report valid = false, as does every reserved value.
// - Extended headers follow the BTH in this wire order: DETH, FETH, RETH,
//   AtomicETH, AETH, AtomicAckETH, ImmDt, IETH (then the payload). The ExtHeader
//   bits are numbered in that order, so walking the mask from bit 0 upward visits
//   the headers in wire order. RDETH belongs to RD only and is not modelled.
// - FLUSH (0x1C) and ATOMIC_WRITE (0x1D) are IBA 1.5 additions (Annex A19, as
//   cited by the Linux rxe driver that implements them): FLUSH = FETH + RETH with
//   no payload; ATOMIC_WRITE = RETH + an 8-byte payload.

#include <cstdint>

namespace hcasim::ib {

namespace op {
constexpr uint8_t kRcPrefix = 0x00;   // iba-facts 1: transport prefix RC
constexpr uint8_t kUcPrefix = 0x20;   // UC
constexpr uint8_t kUdPrefix = 0x60;   // UD

// RC (iba-facts 1, [K] ib_pack.h values)
constexpr uint8_t kRcSendFirst = 0x00;
constexpr uint8_t kRcSendMiddle = 0x01;
constexpr uint8_t kRcSendLast = 0x02;
constexpr uint8_t kRcSendLastImm = 0x03;
constexpr uint8_t kRcSendOnly = 0x04;
constexpr uint8_t kRcSendOnlyImm = 0x05;
constexpr uint8_t kRcWriteFirst = 0x06;
constexpr uint8_t kRcWriteMiddle = 0x07;
constexpr uint8_t kRcWriteLast = 0x08;
constexpr uint8_t kRcWriteLastImm = 0x09;
constexpr uint8_t kRcWriteOnly = 0x0A;
constexpr uint8_t kRcWriteOnlyImm = 0x0B;
constexpr uint8_t kRcReadRequest = 0x0C;
constexpr uint8_t kRcReadRespFirst = 0x0D;
constexpr uint8_t kRcReadRespMiddle = 0x0E;
constexpr uint8_t kRcReadRespLast = 0x0F;
constexpr uint8_t kRcReadRespOnly = 0x10;
constexpr uint8_t kRcAck = 0x11;
constexpr uint8_t kRcAtomicAck = 0x12;
constexpr uint8_t kRcCmpSwap = 0x13;
constexpr uint8_t kRcFetchAdd = 0x14;
// 0x15 reserved
constexpr uint8_t kRcSendLastInv = 0x16;
constexpr uint8_t kRcSendOnlyInv = 0x17;
constexpr uint8_t kRcFlush = 0x1C;        // IBA 1.5 A19 (via rxe): FETH + RETH
constexpr uint8_t kRcAtomicWrite = 0x1D;  // IBA 1.5 A19 (via rxe): RETH + 8 B payload
// An RC response (READ response, ACK or NAK, atomic ACK), sent by the responder.
constexpr bool is_rc_response(uint8_t opcode) { return opcode >= kRcReadRespFirst && opcode <= kRcAtomicAck; }

// UC: SEND and RDMA WRITE only (0x20-0x2B)
constexpr uint8_t kUcSendFirst = 0x20;
constexpr uint8_t kUcSendMiddle = 0x21;
constexpr uint8_t kUcSendLast = 0x22;
constexpr uint8_t kUcSendLastImm = 0x23;
constexpr uint8_t kUcSendOnly = 0x24;
constexpr uint8_t kUcSendOnlyImm = 0x25;
constexpr uint8_t kUcWriteFirst = 0x26;
constexpr uint8_t kUcWriteMiddle = 0x27;
constexpr uint8_t kUcWriteLast = 0x28;
constexpr uint8_t kUcWriteLastImm = 0x29;
constexpr uint8_t kUcWriteOnly = 0x2A;
constexpr uint8_t kUcWriteOnlyImm = 0x2B;

// UD: SEND_ONLY only
constexpr uint8_t kUdSendOnly = 0x64;
constexpr uint8_t kUdSendOnlyImm = 0x65;

// Congestion Notification Packet (IBA Annex A10.3): LRH and BTH only, BTH BECN
// set, DestQP the QP whose packet carried the FECN (Linux hfi1 decodes opcode
// 0x80 as "CNP", LRH_BTH, 6 words; its return_cnp sets BECN).
constexpr uint8_t kCnp = 0x80;
}  // namespace op

constexpr unsigned kFethBytes = 4;            // IBA 1.5 A19 (via rxe): one 32-bit word
constexpr unsigned kAtomicWritePayloadBytes = 8;  // ATOMIC_WRITE carries 8 bytes

// Extended transport headers, one bit each, numbered in wire order. The enum sits in
// namespace ext so its enumerators do not hide the header structs of headers.hpp
// (struct Reth etc.); write ExtHeader::Reth or ext::Reth.
namespace ext {
enum ExtHeader : uint8_t {
  Deth = 1u << 0,
  Feth = 1u << 1,
  Reth = 1u << 2,
  AtomicEth = 1u << 3,
  Aeth = 1u << 4,
  AtomicAckEth = 1u << 5,
  ImmDt = 1u << 6,
  Ieth = 1u << 7,
};
}  // namespace ext
using ext::ExtHeader;

struct OpcodeInfo {
  const char* name;   // e.g. "RC_SEND_FIRST"; "RESERVED" for invalid opcodes
  bool valid;         // false: reserved or not modelled (RD, CNP, ...)
  uint8_t ext;        // ExtHeader bits, in wire order
  bool has_payload;   // true if the opcode may carry payload bytes
};

// Table lookup; never fails (invalid opcodes return an entry with valid = false).
const OpcodeInfo& opcode_info(uint8_t opcode);

// Bytes of the extended headers (after the BTH) that `opcode` carries; 0 if invalid.
unsigned ext_header_bytes(uint8_t opcode);

// Size on the wire of one extended header (a single ExtHeader bit).
unsigned ext_header_size(ExtHeader h);

}  // namespace hcasim::ib
