#pragma once
// May a modify_qp proceed? The QP state machine and the attributes each
// transition takes, as one pure function the HCA calls before it changes a QP.
//
// Rules (Linux drivers/infiniband/core/verbs.c qp_state_table and
// ib_modify_qp_is_ok, the table libibverbs users meet; iba-facts 5):
// - The target state is attr.qp_state when the mask has kAttrState, else the
//   current state: an attribute change without a transition is a
//   "current -> current" transition and is allowed only where the table has
//   one (RESET, INIT, RTS, SQD, ERR; not RTR or SQE).
// - Allowed transitions: RESET -> RESET, INIT, ERR; INIT -> RESET, ERR, INIT,
//   RTR; RTR -> RESET, ERR, RTS; RTS -> RESET, ERR, RTS, SQD; SQD -> RESET,
//   ERR, RTS, SQD; SQE -> RESET, ERR, RTS (UC and UD only: SQE is a state of
//   UC and UD QPs; an RC send error takes the QP to ERR); ERR -> RESET, ERR.
//   RESET -> ERR follows iba-facts 5 ("any state -> RESET or ERR"); the Linux
//   table refuses it, so code written against Linux never asks for it.
// - Each transition and QP type has required attributes (all must be in the
//   mask) and optional ones; any other attribute in the mask is refused.
//   Attributes the model does not have (alternate path, path migration, SQD
//   async notify, capabilities) are refused as unknown mask bits.
// - kAttrCurState, where the table allows it, must equal the current state.
// - Ranges (of attributes in the mask only): path_mtu 256/512/1024/2048/4096
//   bytes; timeout and min_rnr_timer 5 bits; retry_cnt and rnr_retry 3 bits;
//   sq_psn, rq_psn and dest_qp_num 24 bits; ah_attr.sl 4 bits; port_num >= 1;
//   qp_access_flags only Access bits; max_rd_atomic and max_dest_rd_atomic
//   <= kMaxRdAtomic.

#include <cstdint>
#include <string>

#include "models/transport/verbs.hpp"

namespace hcasim::transport {

// The model's limit on reads and atomics outstanding per QP, each direction.
// Not an IBA number: rxe allows 128 (iba-facts 5); 16 matches common HCAs and
// bounds the per-QP responder resources the engines keep.
constexpr uint8_t kMaxRdAtomic = 16;

// "" when modify_qp may proceed; otherwise one line naming the attribute or
// the transition at fault, e.g. "INIT -> RTR on an RC QP needs dest_qp_num".
std::string check_modify(QpType type, QpState current, const QpAttr& attr, uint32_t mask);

// Whether the table has from -> to for this QP type (attributes aside).
bool transition_allowed(QpType type, QpState from, QpState to);

// The QpAttr field a mask bit stands for ("dest_qp_num" for kAttrDestQpn);
// nullptr for a bit the model does not know.
const char* attr_name(uint32_t mask_bit);

}  // namespace hcasim::transport
