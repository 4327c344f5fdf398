#pragma once
// The verbs wire's bodies (testbench/verbs/hcasim_verbs_wire.h) in the
// model's terms: libibverbs' numbers to transport::verbs.hpp's and back, and
// the post requests parsed with their bounds checked. No sockets, no SystemC.
//
// Rules:
// - libibverbs' values (rdma-core 44's verbs.h, stable ABI): QP types RC 2,
//   UC 3, UD 4; WR opcodes RDMA_WRITE 0, RDMA_WRITE_WITH_IMM 1, SEND 2,
//   SEND_WITH_IMM 3, RDMA_READ 4, ATOMIC_CMP_AND_SWP 5, ATOMIC_FETCH_AND_ADD 6,
//   SEND_WITH_INV 9 (LOCAL_INV 7, BIND_MW 8 and the TSO/driver opcodes are
//   refused); WC opcodes SEND 0 ... FETCH_ADD 4, RECV 128,
//   RECV_RDMA_WITH_IMM 129; MTU 1..5 = 256..4096 bytes; send flags FENCE 1,
//   SIGNALED 2, SOLICITED 4, INLINE 8; WC flags WITH_IMM 2, WITH_INV 8. QP
//   states, WC statuses, access bits and the modify mask bits the model knows
//   are libibverbs' numbers already (verbs.hpp).
// - A modify mask with bits the model does not handle (alternate path, path
//   migration, rate limit, ...) is refused with their names, as is an access
//   flag the model lacks (memory windows, zero-based, on-demand paging);
//   IBV_ACCESS_OPTIONAL_RANGE flags (bits 20-29: relaxed ordering, ...) are
//   dropped as libibverbs allows providers to.
// - parse_post_send / parse_post_recv read a whole HV_POST_* body; on any
//   count or length past its end they return a reason and nothing.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/transport/verbs.hpp"
#include "testbench/verbs/hcasim_verbs_wire.h"

namespace hcasim::serve::verbs {

constexpr uint32_t kIbvSendSignaled = 2, kIbvSendSolicited = 4, kIbvSendInline = 8;
constexpr uint32_t kIbvWcWithImm = 2, kIbvWcWithInv = 8;
constexpr uint32_t kIbvAccessOptionalRange = 0x3ff00000;
constexpr uint32_t kIbvQpCap = 1u << 19;  // IBV_QP_CAP: query only

std::optional<transport::QpType> qp_type_from_ibv(uint32_t v);
uint32_t qp_type_to_ibv(transport::QpType t);
std::optional<transport::WrOpcode> wr_opcode_from_ibv(uint32_t v);
uint32_t wc_opcode_to_ibv(transport::WcOpcode o);
// 256..4096 bytes for IBV_MTU_256..IBV_MTU_4096; nullopt for another value.
std::optional<uint32_t> mtu_bytes_from_ibv(uint32_t v);
uint32_t mtu_to_ibv(uint32_t bytes);  // 0 for a size that is no IBV MTU

// The access bits the model takes ("" = fine), optional ones dropped.
std::string access_from_ibv(uint32_t ibv, uint32_t& model);
// The modify mask the model takes, or a reason naming the bits it does not.
std::string modify_mask_from_ibv(uint32_t ibv, uint32_t& model);
// The attributes of a modify request (path_mtu in bytes; an unknown MTU
// value with its mask bit set is a reason).
std::string qp_attr_from_wire(const hv_qp_attr& w, uint32_t model_mask, transport::QpAttr& out);
hv_qp_attr qp_attr_to_wire(const transport::QpAttr& a);

hv_wc wc_to_wire(const transport::WorkCompletion& wc);

struct PostedSends {
  uint32_t qpn = 0;
  std::vector<transport::SendWr> wrs;
};
struct PostedRecvs {
  uint32_t qpn = 0;
  std::vector<transport::RecvWr> wrs;
};
std::string parse_post_send(const uint8_t* body, std::size_t size, PostedSends& out);
std::string parse_post_recv(const uint8_t* body, std::size_t size, PostedRecvs& out);

}  // namespace hcasim::serve::verbs
