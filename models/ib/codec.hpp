#pragma once
// Packet <-> exact wire bytes.
//
// Rules:
// - encode() writes LRH [GRH] BTH ext-headers payload pad ICRC VCRC for IBA packets
//   (LNH 2/3) and LRH payload pad VCRC for raw packets (LNH 0/1), big-endian header
//   fields at the bit positions of iba-facts 1, ICRC and VCRC as in crc.hpp. The
//   length fields are derived, not trusted: PktLen, PadCnt and GRH PayLen are
//   computed from payload_len (layout.hpp). Pad bytes and reserved bits are zero.
//   Payload bytes come from p.payload when it holds payload_len bytes, else zeros.
//   Field values wider than their wire field are truncated to it.
// - decode() accepts exactly one packet, LRH..VCRC, and rejects (never reading out
//   of bounds) a buffer shorter than its LRH or than PktLen says, trailing bytes,
//   PktLen below the minimum (6 IBA / 5 raw, iba-facts 1) or above the largest for a
//   4096-byte MTU (1055), a wrong VCRC, LVer != 0 (switches drop these: iba-facts 4),
//   a wrong ICRC, a GRH that is not IPv6/NxtHdr 0x1B or whose PayLen disagrees with
//   PktLen, TVer != 0, reserved opcodes, headers longer than PktLen allows, PadCnt
//   larger than the bytes after the headers, payload or pad on an opcode without
//   payload. Checks run in that order. On failure `out` is left unchanged.
// - Flow-control packets (iba-facts 2): 6 bytes, Op(4) FCTBS(12), VL(4) FCCL(12),
//   LPCRC(16, least-significant byte first; crc.hpp). Op 0 normal, 1 init, others
//   reserved and rejected.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/ib/packet.hpp"

namespace hcasim::ib {

constexpr uint8_t kLver = 0;            // iba-facts 1/4: LVer is 0; others dropped
constexpr uint8_t kTver = 0;            // iba-facts 1: BTH TVer = 0
constexpr uint8_t kGrhIpVer = 6;        // iba-facts 1: GRH IPVer
constexpr uint8_t kGrhNxtHdrIba = 0x1B; // iba-facts 1: GRH NxtHdr for IBA transport
constexpr uint8_t kFcpOpNormal = 0;     // iba-facts 2: FCP Op 0 normal
constexpr uint8_t kFcpOpInit = 1;       // iba-facts 2: FCP Op 1 init

enum class DecodeError : uint8_t {
  None,
  ShortBuffer,     // fewer bytes than the LRH, or than PktLen (or the FCP) needs
  BadPktLen,       // PktLen out of range, trailing bytes, or headers do not fit
  BadVcrc,
  BadIcrc,
  BadLver,         // LRH LVer != 0
  BadLnh,          // LNH 3 but GRH NxtHdr is not IBA transport (0x1B)
  BadGrh,          // GRH IPVer != 6 or PayLen disagrees with PktLen
  BadTver,         // BTH TVer != 0
  ReservedOpcode,  // BTH opcode reserved or not modelled (opcodes.hpp)
  BadPadCnt,       // PadCnt larger than the bytes after the headers, or on an opcode without payload
  BadLpcrc,        // flow-control packet CRC
  ReservedFcpOp,   // flow-control Op other than 0 or 1
};

const char* to_string(DecodeError e);

struct DecodeResult {
  bool ok = true;
  DecodeError error = DecodeError::None;
  std::string reason;  // one line for a log, empty when ok
};

// Wire bytes of p (data: LRH..VCRC; flow control: the 6-byte FCP) into out, which is
// resized; its capacity is reused, so a warm buffer does not allocate.
void encode(const Packet& p, std::vector<uint8_t>& out);

// Decodes one data packet. On success sets out.kind = Data, out.hdr (headers the
// opcode does not carry are defaulted), out.payload_len and out.payload (the bytes);
// out's model metadata is untouched.
DecodeResult decode(const uint8_t* data, size_t len, Packet& out);

// Recomputes the ICRC (IBA packets) and VCRC of an encoded data packet in place, e.g.
// after a test or fault injector edited header bytes. Uses the LNH in the bytes; does
// nothing if wire is shorter than an LRH plus the CRCs.
void reseal_crcs(std::vector<uint8_t>& wire);

// Flow-control packets.
void encode_fcp(const FlowControl& fc, uint8_t out[kFlowControlBytes]);
DecodeResult decode_fcp(const uint8_t* data, size_t len, FlowControl& out);

}  // namespace hcasim::ib
