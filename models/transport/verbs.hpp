#pragma once
// The verbs-like vocabulary shared by the transport engines, the HCA's API and
// the workloads: QP types and states, work requests, work completions and the
// attributes of modify_qp. Names follow libibverbs, and so do the numeric
// values of WcStatus, QpState, Access and AttrMask (iba-facts 5), so a user who
// knows ibv_* reads these directly. QpType, WrOpcode and WcOpcode are the
// model's own numbering, and path_mtu is in bytes rather than IBV's enum. No
// SystemC here.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hcasim::transport {

enum class QpType : uint8_t { Rc, Uc, Ud };

// iba-facts 5: QP states 0 RESET ... 6 ERR.
enum class QpState : uint8_t { Reset, Init, Rtr, Rts, Sqd, Sqe, Err };

// iba-facts 5: IBV_WC status values, in order.
enum class WcStatus : uint8_t {
  Success,
  LocLenErr,
  LocQpOpErr,
  LocEecOpErr,
  LocProtErr,
  WrFlushErr,
  MwBindErr,
  BadRespErr,
  LocAccessErr,
  RemInvReqErr,
  RemAccessErr,
  RemOpErr,
  RetryExcErr,
  RnrRetryExcErr,
  LocRddViolErr,
  RemInvRdReqErr,
  RemAbortErr,
  InvEecnErr,
  InvEecStateErr,
  FatalErr,
  RespTimeoutErr,
  GeneralErr,
};

enum class WrOpcode : uint8_t {
  Send,
  SendWithImm,
  SendWithInv,
  RdmaWrite,
  RdmaWriteWithImm,
  RdmaRead,
  AtomicCmpSwp,
  AtomicFetchAdd,
};

// What a completion reports (IBV_WC_SEND ... IBV_WC_RECV_RDMA_WITH_IMM).
enum class WcOpcode : uint8_t { Send, RdmaWrite, RdmaRead, CompSwap, FetchAdd, Recv, RecvRdmaWithImm };

// Memory-region access flags (IBV_ACCESS_* values).
enum Access : uint32_t {
  kLocalWrite = 1,
  kRemoteWrite = 2,
  kRemoteRead = 4,
  kRemoteAtomic = 8,
};

// modify_qp attribute mask (IBV_QP_* values; the ones the model uses).
enum AttrMask : uint32_t {
  kAttrState = 1u << 0,
  kAttrCurState = 1u << 1,
  kAttrAccessFlags = 1u << 3,
  kAttrPkeyIndex = 1u << 4,
  kAttrPort = 1u << 5,
  kAttrQkey = 1u << 6,
  kAttrAv = 1u << 7,
  kAttrPathMtu = 1u << 8,
  kAttrTimeout = 1u << 9,
  kAttrRetryCnt = 1u << 10,
  kAttrRnrRetry = 1u << 11,
  kAttrRqPsn = 1u << 12,
  kAttrMaxQpRdAtomic = 1u << 13,
  kAttrMinRnrTimer = 1u << 15,
  kAttrSqPsn = 1u << 16,
  kAttrMaxDestRdAtomic = 1u << 17,
  kAttrDestQpn = 1u << 20,
};

// One scatter/gather element: bytes [addr, addr + length) of a region with lkey.
struct Sge {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint32_t lkey = 0;
};

// Where a packet goes: the address vector of a connected QP, or of one UD send.
struct AddressVector {
  uint16_t dlid = 0;
  uint8_t sl = 0;              // service level 0-15
  uint8_t src_path_bits = 0;   // added to the port's base LID (LMC)
};

struct SendWr {
  uint64_t wr_id = 0;
  WrOpcode opcode = WrOpcode::Send;
  std::vector<Sge> sg_list;     // gather list; for atomics one 8-byte element receives the original value
  bool signaled = true;         // a successful completion is reported (errors always are)
  bool solicited = false;       // BTH SE
  uint32_t imm_data = 0;        // SendWithImm / RdmaWriteWithImm: the immediate; SendWithInv: the R_Key to invalidate
  uint64_t remote_addr = 0;     // RDMA and atomics
  uint32_t rkey = 0;
  uint64_t compare_add = 0;     // CmpSwp: compare; FetchAdd: the addend
  uint64_t swap = 0;            // CmpSwp: the swap value
  bool send_inline = false;     // IBV_SEND_INLINE: the driver copies the gather list's bytes into the WQE
  // The bytes a WQE carries inline (the HCA's view): no gather list, no gather
  // read. Given to the driver with send_inline, the sg_list's total length of
  // them are what it copies (an application outside the model sends them).
  std::vector<uint8_t> inline_data;
  // UD only: where this message goes.
  AddressVector ah;
  uint32_t remote_qpn = 0;
  uint32_t remote_qkey = 0;
};

struct RecvWr {
  uint64_t wr_id = 0;
  std::vector<Sge> sg_list;
};

// Model tracing, in no verbs structure: when a send WR passed each stage of
// its trip, for its latency in parts (docs/latency-parts.md). 0: not passed
// (or not known: a WR posted without the HCA's front end has no MMIO times).
struct WrTimes {
  uint64_t mmio_ps = 0;           // its doorbell or BlueFlame write left the CPU
  uint64_t at_hca_ps = 0;         // that write reached the HCA
  uint64_t on_chip_ps = 0;        // its WQE was on chip: taken from the BlueFlame write, or read from the ring
  uint64_t built_ps = 0;          // a transmit unit finished its last request packet
  uint64_t sent_ps = 0;           // that packet went to the port (its gathered data there, room in the port)
  uint64_t at_responder_ps = 0;   // the request the answer covers reached the responder's QP
  uint64_t response_ps = 0;       // the answer (ACK, READ data, atomic ACK) went to the responder's port
  uint64_t response_in_ps = 0;    // the answer reached this QP
  uint64_t cqe_ps = 0;            // its CQE was visible in host memory (the driver's poll_cq fills it)
};

struct WorkCompletion {
  uint64_t wr_id = 0;
  WcStatus status = WcStatus::Success;
  WcOpcode opcode = WcOpcode::Send;
  uint32_t byte_len = 0;          // receive: bytes placed (UD: including the 40-byte GRH space)
  uint32_t qp_num = 0;
  uint32_t src_qp = 0;            // UD receive: the sender's QP
  uint16_t slid = 0;              // receive: the sender's LID
  uint8_t sl = 0;
  bool with_imm = false;
  uint32_t imm_data = 0;
  bool with_inv = false;
  uint32_t invalidated_rkey = 0;
  uint32_t vendor_err = 0;        // the model's detail code for an error status (0 = none)
  bool solicited = false;         // model: a receive of a message with the solicited event bit (for CQ arming)
  uint64_t time_ps = 0;           // simulated time the completion was made
  WrTimes times;                  // model: a send completion's stages; a receive's at_responder_ps (its last packet in) and cqe_ps
};

// Attributes of modify_qp; the mask says which are given.
struct QpAttr {
  QpState qp_state = QpState::Reset;
  QpState cur_qp_state = QpState::Reset;
  uint32_t qp_access_flags = 0;   // Access bits the responder allows (RC, UC)
  uint16_t pkey_index = 0;
  uint8_t port_num = 1;           // 1-based, as in verbs
  uint32_t qkey = 0;              // UD
  AddressVector ah_attr;          // RC, UC: the remote port
  uint32_t path_mtu = 4096;       // bytes: 256, 512, 1024, 2048, 4096
  uint8_t timeout = 14;           // Local ACK timeout: Ttr = 4.096 us x 2^timeout; 0 = no timer
  uint8_t retry_cnt = 7;          // 3 bits
  uint8_t rnr_retry = 7;          // 3 bits; 7 = infinite
  uint32_t rq_psn = 0;            // 24 bits: the responder's first ePSN
  uint8_t max_rd_atomic = 1;      // reads and atomics this QP may have outstanding as requester
  uint8_t min_rnr_timer = 0;      // 5-bit RNR NAK timer code this QP's responder returns
  uint32_t sq_psn = 0;            // 24 bits: the requester's start PSN
  uint8_t max_dest_rd_atomic = 1; // reads and atomics this QP's responder keeps (0 = none accepted)
  uint32_t dest_qp_num = 0;       // RC, UC: the remote QP
};

// Capacities fixed at create_qp.
struct QpInit {
  QpType type = QpType::Rc;
  uint32_t send_cq = 0;
  uint32_t recv_cq = 0;
  uint32_t max_send_wr = 128;
  uint32_t max_recv_wr = 128;
  uint32_t max_send_sge = 4;
  uint32_t max_recv_sge = 4;
  uint32_t weight = 1;            // model: packets per turn under weighted_round_robin with weights "qp"
  // RC: out-of-order data placement (mlx5dv's MLX5DV_QP_CREATE_OOO_DP, set on
  // both ends): packets ahead of the expected PSN are taken, not NAKed
  // (responder.hpp, requester.hpp).
  bool out_of_order = false;
};

// Why a work queue cannot take one more WR ("" when it can): it holds max_wr
// already, or the WR has more scatter/gather entries than max_sge. queue is
// "send" or "recv", as in the QpInit field names.
std::string queue_full_reason(const std::string& queue, std::size_t queued, uint32_t max_wr, std::size_t sges,
                              uint32_t max_sge);
// Whether a QP of this type takes this opcode (UC: no READ, atomics or send
// with invalidate; UD: sends only).
bool opcode_supported(QpType type, WrOpcode op);

// Lower-case IBV names without the prefix: "success", "loc_len_err", ...
const char* to_string(WcStatus s);
const char* to_string(QpState s);      // "reset", "init", "rtr", "rts", "sqd", "sqe", "err"
const char* to_string(QpType t);       // "rc", "uc", "ud"
const char* to_string(WrOpcode o);     // "send", "send_with_imm", ... "atomic_fetch_add"
const char* to_string(WcOpcode o);     // "send", "rdma_write", ... "recv_rdma_with_imm"
// The reverse of to_string; false when the name is unknown.
bool parse(const char* name, WcStatus& out);
bool parse(const char* name, WrOpcode& out);

}  // namespace hcasim::transport
