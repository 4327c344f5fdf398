#pragma once
// The two P_Key traps as Notices (notice.hpp): Trap 257, Bad P_Key, from a CA
// port that dropped a packet, and Trap 259, Bad P_Key at a switch external
// port. No SystemC.
//
// Rules (DataDetails offsets, i.e. attribute byte - 10; OpenSM ib_types.h
// ntc_257_258 and ntc_259; multi-byte fields big-endian):
// - 257: type security (2), producer CA (1). 2-3 LID1 (the packet's SLID),
//   4-5 LID2 (its DLID), 6-9 Key (the packet's P_Key in bits 15:0),
//   10-13 SL (bits 31:28) and QP1 (23:0, the sender's QP, 0 when the packet
//   carries no DETH), 14-17 QP2 (23:0, the destination QP), 18-33 GID1,
//   34-49 GID2 (no GRH in the model: zero).
// - 259: type security (2), producer switch (2). 0-1 DataValid (zero: the
//   model does not say which fields are valid), 2-3 LID1, 4-5 LID2, 6-7 P_Key,
//   8-11 SL (31:28) and QP1 (23:0), 12-15 QP2 (23:0), 16-31 GID1, 32-47 GID2,
//   48-49 the switch's LID, 50 the port number that dropped the packet.

#include <cstdint>

#include "models/ib/notice.hpp"

namespace hcasim::ib {

constexpr uint16_t kTrapBadPkey = 257;         // OpenSM: Bad P_Key (CA)
constexpr uint16_t kTrapSwitchBadPkey = 259;   // OpenSM: P_Key violation at a switch external port

// What a P_Key trap says about the dropped packet.
struct PkeyViolation {
  uint16_t lid1 = 0;        // the packet's SLID
  uint16_t lid2 = 0;        // the packet's DLID
  uint16_t pkey = 0;        // its BTH P_Key
  uint8_t sl = 0;           // its LRH SL
  uint32_t qp1 = 0;         // its DETH source QP (0 without DETH)
  uint32_t qp2 = 0;         // its BTH destination QP
  uint16_t switch_lid = 0;  // 259 only
  uint8_t port = 0;         // 259 only: the switch port that dropped it
};

// Trap 257 (switch = false) or 259 (switch = true) issued by `issuer_lid`.
Notice pkey_trap_notice(bool at_switch, uint16_t issuer_lid, const PkeyViolation& v);
// The violation a Trap 257 or 259 Notice describes (by its TrapNumber).
PkeyViolation pkey_trap_details(const Notice& n);

}  // namespace hcasim::ib
