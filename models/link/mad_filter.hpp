#pragma once
// The MAD filters of a targeted fault rule (fault_injector.hpp), as plain
// logic: which management packets a rule picks out by the fields of the MAD
// its payload carries.
//
// Rules:
// - A packet carries a MAD when it is a UD packet (BTH opcode 0x60-0x7F) to
//   QP0 or QP1 (iba-facts 6: SMI and GSI) whose payload holds at least 256
//   real bytes (Packet::payload; MADs always fill them). Any other packet
//   matches no MAD filter, so a rule with one never picks it.
// - Fields read (iba-facts 6 common header): MgmtClass byte 1, Method byte 3
//   (R bit included), AttributeID bytes 16-17. SA fields (class 0x03, IBA 1.0
//   layout of seeds/000): Segment Number bytes 40-43, Fragment Flag byte 48.
//   A packet that is not an SA MAD matches no SA filter.
// - sa_flags: the Fragment Flag has all these bits; sa_flags_clear: it has
//   none of them. Both given: both hold; sa_flags = F with sa_flags_clear =
//   ~F asks for exactly F (0 with 0xFF: a single-packet MAD).
// - Kinds, sugar over the fields: smp = class 0x01 or 0x81; sa = class 0x03;
//   sa_data = an SA MAD with none of Resend, Ack, KeepAlive (a data segment
//   or a single-packet MAD, seeds/000 Table 33-11); sa_ack, sa_resend,
//   sa_keepalive = an SA MAD with that bit; mad = any MAD.
// - A filter left empty matches any packet; all the filters given must match.

#include <cstdint>
#include <optional>

#include "models/ib/packet.hpp"

namespace hcasim::link {

enum class MadKind : uint8_t { Any, Mad, Smp, Sa, SaData, SaAck, SaResend, SaKeepAlive };

struct MadFilter {
  MadKind kind = MadKind::Any;
  std::optional<uint8_t> mgmt_class;     // MgmtClass; empty = any
  std::optional<uint8_t> method;         // Method, R bit included (0x81 = GetResp); empty = any
  std::optional<uint16_t> attribute;     // AttributeID; empty = any
  std::optional<uint32_t> sa_segment;    // SA Segment Number; empty = any
  std::optional<uint8_t> sa_flags;       // SA Fragment Flag bits that must all be set; empty = any
  std::optional<uint8_t> sa_flags_clear; // SA Fragment Flag bits that must all be clear; empty = any

  // Whether any filter is given (a rule without one never reads the payload).
  bool given() const {
    return kind != MadKind::Any || mgmt_class || method || attribute || sa_segment || sa_flags || sa_flags_clear;
  }
  bool matches(const ib::Packet& p) const;
  bool operator==(const MadFilter& o) const;
};

// The 256 bytes of the MAD the packet carries (see the rules), or nullptr.
const uint8_t* mad_of(const ib::Packet& p);

}  // namespace hcasim::link
