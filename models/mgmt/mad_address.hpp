#pragma once
// Where a GMP (an SA MAD) comes from or goes to, as the SA server and the SA
// client see it, and what they hand to whoever transmits it. No SystemC.
//
// Rules:
// - The SystemC wrapper fills a MadAddress from an arriving packet's headers:
//   lid = LRH SLID, qpn = DETH source QP, sl = LRH SL, pkey = BTH P_Key,
//   qkey = DETH Q_Key. For a MAD to send, the same fields give the LRH DLID,
//   the BTH destination QP, the SL, the P_Key and the DETH Q_Key.
// - GMPs go to and from QP1, the GSI, with the well-known Q_Key 0x80010000
//   (ib/mad.hpp) unless redirected; those are the defaults.
// - An SA transaction is named by the requester's address (lid, qpn) and the
//   TID: two requesters may use the same TID (seeds/000 keys nothing else).

#include <cstdint>
#include <tuple>

#include "models/ib/mad.hpp"

namespace hcasim::mgmt {

constexpr uint16_t kDefaultPKey = 0xFFFF;  // IBA 10.9.1.2: the default full-member P_Key

struct MadAddress {
  uint16_t lid = 0;                 // SLID of an arriving MAD, DLID of one to send
  uint32_t qpn = ib::kQp1;          // source QP (arriving) / destination QP (sent); 24 bits
  uint8_t sl = 0;                   // LRH SL
  uint16_t pkey = kDefaultPKey;     // BTH P_Key
  uint32_t qkey = ib::kGsiQKey;     // DETH Q_Key

  friend bool operator==(const MadAddress& a, const MadAddress& b) {
    return a.lid == b.lid && a.qpn == b.qpn && a.sl == b.sl && a.pkey == b.pkey && a.qkey == b.qkey;
  }
  friend bool operator!=(const MadAddress& a, const MadAddress& b) { return !(a == b); }
};

// A MAD the server or the client wants sent: to `to`, not before `at_ps`
// (always >= the `now` of the call that produced it; this implementation
// gives exactly `now`, so the wrapper may send it at once).
struct SaSend {
  MadAddress to;
  ib::SaMad mad;
  uint64_t at_ps = 0;
};

// The key of a transaction: requester LID, requester QP, TID.
using SaTxnKey = std::tuple<uint16_t, uint32_t, uint64_t>;
inline SaTxnKey sa_txn_key(const MadAddress& requester, uint64_t tid) {
  return SaTxnKey{requester.lid, requester.qpn, tid};
}

}  // namespace hcasim::mgmt
