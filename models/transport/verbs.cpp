// Names of the verbs enums: the libibverbs enum names in lower case without
// their prefix (IBV_WC_LOC_LEN_ERR -> "loc_len_err"). Each table is indexed by
// the enum's value, so its order is the enum's order (verbs.hpp).
#include "models/transport/verbs.hpp"

#include <cstring>
#include <iterator>

#include "models/transport/message_layout.hpp"

namespace hcasim::transport {
namespace {

constexpr const char* kWcStatusNames[] = {
    "success",        "loc_len_err",     "loc_qp_op_err",    "loc_eec_op_err",    "loc_prot_err",
    "wr_flush_err",   "mw_bind_err",     "bad_resp_err",     "loc_access_err",    "rem_inv_req_err",
    "rem_access_err", "rem_op_err",      "retry_exc_err",    "rnr_retry_exc_err", "loc_rdd_viol_err",
    "rem_inv_rd_req_err", "rem_abort_err", "inv_eecn_err",   "inv_eec_state_err", "fatal_err",
    "resp_timeout_err", "general_err",
};
static_assert(std::size(kWcStatusNames) == static_cast<size_t>(WcStatus::GeneralErr) + 1);

constexpr const char* kQpStateNames[] = {"reset", "init", "rtr", "rts", "sqd", "sqe", "err"};
static_assert(std::size(kQpStateNames) == static_cast<size_t>(QpState::Err) + 1);

constexpr const char* kQpTypeNames[] = {"rc", "uc", "ud"};
static_assert(std::size(kQpTypeNames) == static_cast<size_t>(QpType::Ud) + 1);

constexpr const char* kWrOpcodeNames[] = {
    "send",      "send_with_imm",  "send_with_inv",    "rdma_write",
    "rdma_write_with_imm", "rdma_read", "atomic_cmp_swp", "atomic_fetch_add",
};
static_assert(std::size(kWrOpcodeNames) == static_cast<size_t>(WrOpcode::AtomicFetchAdd) + 1);

constexpr const char* kWcOpcodeNames[] = {"send", "rdma_write", "rdma_read", "comp_swap",
                                          "fetch_add", "recv", "recv_rdma_with_imm"};
static_assert(std::size(kWcOpcodeNames) == static_cast<size_t>(WcOpcode::RecvRdmaWithImm) + 1);

// A value outside the enum (only reachable by a cast) names itself "unknown".
template <typename E, size_t N>
const char* name_of(const char* const (&names)[N], E value) {
  auto i = static_cast<size_t>(value);
  return i < N ? names[i] : "unknown";
}

template <typename E, size_t N>
bool value_of(const char* const (&names)[N], const char* name, E& out) {
  if (name == nullptr) return false;
  for (size_t i = 0; i < N; ++i) {
    if (std::strcmp(names[i], name) == 0) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

const char* to_string(WcStatus s) { return name_of(kWcStatusNames, s); }
const char* to_string(QpState s) { return name_of(kQpStateNames, s); }
const char* to_string(QpType t) { return name_of(kQpTypeNames, t); }
const char* to_string(WrOpcode o) { return name_of(kWrOpcodeNames, o); }
const char* to_string(WcOpcode o) { return name_of(kWcOpcodeNames, o); }

bool parse(const char* name, WcStatus& out) { return value_of(kWcStatusNames, name, out); }
bool parse(const char* name, WrOpcode& out) { return value_of(kWrOpcodeNames, name, out); }

std::string queue_full_reason(const std::string& queue, std::size_t queued, uint32_t max_wr, std::size_t sges,
                              uint32_t max_sge) {
  if (queued >= max_wr) return queue + " queue full: max_" + queue + "_wr " + std::to_string(max_wr);
  if (sges > max_sge)
    return "sg_list has " + std::to_string(sges) + " entries: max_" + queue + "_sge " + std::to_string(max_sge);
  return "";
}

bool opcode_supported(QpType type, WrOpcode op) {
  switch (type) {
    case QpType::Rc: return true;
    case QpType::Uc: return !is_read_or_atomic(op) && op != WrOpcode::SendWithInv;
    case QpType::Ud: return op == WrOpcode::Send || op == WrOpcode::SendWithImm;
  }
  return false;
}

}  // namespace hcasim::transport
