#pragma once
// A connection manager for a platform of one's own (testbench/examples/embed_hca.cpp, and the
// MMIO fuzz harness): brings two RC QPs, one on each of two HCAs, from RESET through INIT and
// RTR to RTS with modify_qp, the HCA's command interface.
// Each transition gets the attributes libibverbs requires of it (iba-facts 5), as
// testbench/workloads/connection.cpp gives them. Their values are QpAttr's defaults (port 1, P_Key
// index 0, path MTU 4096, start PSNs 0, timeout 14, 7 retries and RNR retries, RNR timer code 0,
// one READ or atomic outstanding each way) but for the access flags, local and remote write (all
// an RDMA WRITE needs), and the address: each QP names the other HCA's port 1 (its LID) and QP.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/hca/hca.hpp"

namespace hcasim::hca {

// One QP to RTS; throws std::runtime_error naming the QP, the state and modify_qp's reason if a
// transition is refused.
inline void rc_to_rts(Hca& hca, uint32_t qpn, uint16_t peer_lid, uint32_t peer_qpn) {
  namespace t = transport;
  t::QpAttr a;
  a.ah_attr.dlid = peer_lid;
  a.dest_qp_num = peer_qpn;
  a.qp_access_flags = t::kLocalWrite | t::kRemoteWrite;
  const std::pair<t::QpState, uint32_t> steps[] = {
      {t::QpState::Init, t::kAttrPkeyIndex | t::kAttrPort | t::kAttrAccessFlags},
      {t::QpState::Rtr, t::kAttrAv | t::kAttrPathMtu | t::kAttrDestQpn | t::kAttrRqPsn | t::kAttrMaxDestRdAtomic |
                            t::kAttrMinRnrTimer},
      {t::QpState::Rts,
       t::kAttrSqPsn | t::kAttrTimeout | t::kAttrRetryCnt | t::kAttrRnrRetry | t::kAttrMaxQpRdAtomic},
  };
  for (const auto& [state, mask] : steps) {
    a.qp_state = state;
    const std::string why = hca.modify_qp(qpn, a, t::kAttrState | mask);
    if (!why.empty())
      throw std::runtime_error("modify_qp of QP " + std::to_string(qpn) + " to " + t::to_string(state) + ": " + why);
  }
}

// QP qpn_a of HCA a and QP qpn_b of HCA b, connected to each other.
inline void connect_rc(Hca& a, uint32_t qpn_a, Hca& b, uint32_t qpn_b) {
  rc_to_rts(a, qpn_a, b.lid(0), qpn_b);
  rc_to_rts(b, qpn_b, a.lid(0), qpn_a);
}

}  // namespace hcasim::hca
