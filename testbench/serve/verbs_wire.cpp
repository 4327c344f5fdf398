#include "testbench/serve/verbs_wire.hpp"

#include <cstring>

#include "models/transport/message_layout.hpp"

namespace hcasim::serve::verbs {

using transport::QpType;
using transport::WcOpcode;
using transport::WrOpcode;

std::optional<QpType> qp_type_from_ibv(uint32_t v) {
  switch (v) {
    case 2: return QpType::Rc;
    case 3: return QpType::Uc;
    case 4: return QpType::Ud;
    default: return std::nullopt;
  }
}

uint32_t qp_type_to_ibv(QpType t) { return t == QpType::Rc ? 2 : t == QpType::Uc ? 3 : 4; }

std::optional<WrOpcode> wr_opcode_from_ibv(uint32_t v) {
  switch (v) {
    case 0: return WrOpcode::RdmaWrite;
    case 1: return WrOpcode::RdmaWriteWithImm;
    case 2: return WrOpcode::Send;
    case 3: return WrOpcode::SendWithImm;
    case 4: return WrOpcode::RdmaRead;
    case 5: return WrOpcode::AtomicCmpSwp;
    case 6: return WrOpcode::AtomicFetchAdd;
    case 9: return WrOpcode::SendWithInv;
    default: return std::nullopt;
  }
}

uint32_t wc_opcode_to_ibv(WcOpcode o) {
  switch (o) {
    case WcOpcode::Send: return 0;
    case WcOpcode::RdmaWrite: return 1;
    case WcOpcode::RdmaRead: return 2;
    case WcOpcode::CompSwap: return 3;
    case WcOpcode::FetchAdd: return 4;
    case WcOpcode::Recv: return 128;
    case WcOpcode::RecvRdmaWithImm: return 129;
  }
  return 0;
}

std::optional<uint32_t> mtu_bytes_from_ibv(uint32_t v) {
  if (v < 1 || v > 5) return std::nullopt;
  return 128u << v;
}

uint32_t mtu_to_ibv(uint32_t bytes) {
  for (uint32_t v = 1; v <= 5; ++v)
    if (128u << v == bytes) return v;
  return 0;
}

std::string access_from_ibv(uint32_t ibv, uint32_t& model) {
  const uint32_t known = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                         transport::kRemoteAtomic;
  const uint32_t rest = ibv & ~kIbvAccessOptionalRange;
  if ((rest & ~known) != 0) {
    std::string names;
    const std::pair<uint32_t, const char*> flags[] = {
        {16, "MW_BIND"}, {32, "ZERO_BASED"}, {64, "ON_DEMAND"}, {128, "HUGETLB"}, {256, "FLUSH_GLOBAL"},
        {512, "FLUSH_PERSISTENT"}};
    for (const auto& [bit, name] : flags)
      if (rest & bit) names += std::string(names.empty() ? "" : ", ") + "IBV_ACCESS_" + name;
    if (names.empty()) names = "unknown bits";
    return "access flags the model lacks: " + names + " (accepted: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, "
           "REMOTE_ATOMIC and the optional-range flags)";
  }
  model = rest;
  return "";
}

std::string modify_mask_from_ibv(uint32_t ibv, uint32_t& model) {
  using namespace transport;
  const uint32_t known = kAttrState | kAttrCurState | kAttrAccessFlags | kAttrPkeyIndex | kAttrPort | kAttrQkey |
                         kAttrAv | kAttrPathMtu | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrRqPsn |
                         kAttrMaxQpRdAtomic | kAttrMinRnrTimer | kAttrSqPsn | kAttrMaxDestRdAtomic | kAttrDestQpn;
  const uint32_t other = ibv & ~known & ~kIbvQpCap;
  if (other != 0) {
    std::string names;
    const std::pair<uint32_t, const char*> bits[] = {{1u << 2, "EN_SQD_ASYNC_NOTIFY"}, {1u << 14, "ALT_PATH"},
                                                     {1u << 18, "PATH_MIG_STATE"},      {1u << 21, "RATE_LIMIT"}};
    for (const auto& [bit, name] : bits)
      if (other & bit) names += std::string(names.empty() ? "" : ", ") + "IBV_QP_" + name;
    if (names.empty()) names = "unknown bits";
    return "modify_qp attributes the model lacks: " + names;
  }
  model = ibv & known;
  return "";
}

std::string qp_attr_from_wire(const hv_qp_attr& w, uint32_t mask, transport::QpAttr& a) {
  a.qp_state = static_cast<transport::QpState>(w.qp_state);
  a.cur_qp_state = static_cast<transport::QpState>(w.cur_qp_state);
  if ((mask & transport::kAttrState) && w.qp_state > 6) return "qp_state " + std::to_string(w.qp_state);
  if (mask & transport::kAttrPathMtu) {
    const auto bytes = mtu_bytes_from_ibv(w.path_mtu);
    if (!bytes) return "path_mtu " + std::to_string(w.path_mtu) + ": accepted: IBV_MTU_256 (1) to IBV_MTU_4096 (5)";
    a.path_mtu = *bytes;
  }
  uint32_t access = 0;
  const std::string bad = access_from_ibv(w.qp_access_flags, access);
  if ((mask & transport::kAttrAccessFlags) && !bad.empty()) return bad;
  a.qp_access_flags = access;
  a.qkey = w.qkey;
  a.rq_psn = w.rq_psn;
  a.sq_psn = w.sq_psn;
  a.dest_qp_num = w.dest_qp_num;
  a.pkey_index = w.pkey_index;
  a.ah_attr.dlid = w.dlid;
  a.ah_attr.sl = w.sl;
  a.ah_attr.src_path_bits = w.src_path_bits;
  a.port_num = w.port_num;
  a.timeout = w.timeout;
  a.retry_cnt = w.retry_cnt;
  a.rnr_retry = w.rnr_retry;
  a.max_rd_atomic = w.max_rd_atomic;
  a.max_dest_rd_atomic = w.max_dest_rd_atomic;
  a.min_rnr_timer = w.min_rnr_timer;
  return "";
}

hv_qp_attr qp_attr_to_wire(const transport::QpAttr& a) {
  hv_qp_attr w{};
  w.qp_state = static_cast<uint32_t>(a.qp_state);
  w.cur_qp_state = static_cast<uint32_t>(a.qp_state);
  w.path_mtu = mtu_to_ibv(a.path_mtu);
  w.qkey = a.qkey;
  w.rq_psn = a.rq_psn;
  w.sq_psn = a.sq_psn;
  w.dest_qp_num = a.dest_qp_num;
  w.qp_access_flags = a.qp_access_flags;
  w.pkey_index = a.pkey_index;
  w.dlid = a.ah_attr.dlid;
  w.sl = a.ah_attr.sl;
  w.src_path_bits = a.ah_attr.src_path_bits;
  w.port_num = a.port_num;
  w.timeout = a.timeout;
  w.retry_cnt = a.retry_cnt;
  w.rnr_retry = a.rnr_retry;
  w.max_rd_atomic = a.max_rd_atomic;
  w.max_dest_rd_atomic = a.max_dest_rd_atomic;
  w.min_rnr_timer = a.min_rnr_timer;
  return w;
}

hv_wc wc_to_wire(const transport::WorkCompletion& wc) {
  hv_wc w{};
  w.wr_id = wc.wr_id;
  w.status = static_cast<uint32_t>(wc.status);
  w.opcode = wc_opcode_to_ibv(wc.opcode);
  w.vendor_err = wc.vendor_err;
  w.byte_len = wc.byte_len;
  w.imm_data = wc.with_inv ? wc.invalidated_rkey : wc.imm_data;
  w.qp_num = wc.qp_num;
  w.src_qp = wc.src_qp;
  w.wc_flags = (wc.with_imm ? kIbvWcWithImm : 0) | (wc.with_inv ? kIbvWcWithInv : 0);
  w.slid = wc.slid;
  w.sl = wc.sl;
  return w;
}

namespace {

// Reads successive items of a body; every read checks what is left.
class Reader {
 public:
  Reader(const uint8_t* p, std::size_t size) : p_(p), left_(size) {}
  template <typename T>
  bool get(T& out) {
    if (left_ < sizeof(T)) return false;
    std::memcpy(&out, p_, sizeof(T));
    p_ += sizeof(T);
    left_ -= sizeof(T);
    return true;
  }
  bool bytes(std::vector<uint8_t>& out, std::size_t n) {
    if (left_ < n) return false;
    out.assign(p_, p_ + n);
    p_ += n;
    left_ -= n;
    return true;
  }
  bool skip(std::size_t n) {
    if (left_ < n) return false;
    p_ += n;
    left_ -= n;
    return true;
  }
  std::size_t consumed(const uint8_t* start) const { return static_cast<std::size_t>(p_ - start); }

 private:
  const uint8_t* p_;
  std::size_t left_;
};

bool read_sges(Reader& r, uint32_t n, std::vector<transport::Sge>& out) {
  out.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    hv_sge g;
    if (!r.get(g)) return false;
    out[i] = {g.addr, g.length, g.lkey};
  }
  return true;
}

constexpr uint32_t kMaxSges = HV_MAX_PACKET / sizeof(hv_sge);

}  // namespace

std::string parse_post_send(const uint8_t* body, std::size_t size, PostedSends& out) {
  Reader r(body, size);
  hv_post head;
  if (!r.get(head)) return "post_send: short request";
  out.qpn = head.qpn;
  out.wrs.clear();
  for (uint32_t i = 0; i < head.count; ++i) {
    hv_send_wr s;
    if (!r.get(s) || s.num_sge > kMaxSges) return "post_send: WR " + std::to_string(i) + " runs past the request";
    const auto op = wr_opcode_from_ibv(s.opcode);
    if (!op) return "post_send: WR " + std::to_string(i) + ": opcode " + std::to_string(s.opcode) +
                    " is not supported (accepted: RDMA_WRITE[_WITH_IMM], SEND[_WITH_IMM|_WITH_INV], RDMA_READ, "
                    "ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD)";
    transport::SendWr w;
    w.wr_id = s.wr_id;
    w.opcode = *op;
    w.signaled = (s.send_flags & kIbvSendSignaled) != 0;
    w.solicited = (s.send_flags & kIbvSendSolicited) != 0;
    w.send_inline = (s.send_flags & kIbvSendInline) != 0;
    w.imm_data = s.imm_data;
    w.remote_addr = s.remote_addr;
    w.rkey = s.rkey;
    w.compare_add = s.compare_add;
    w.swap = s.swap;
    w.ah.dlid = s.dlid;
    w.ah.sl = s.sl;
    w.ah.src_path_bits = s.src_path_bits;
    w.remote_qpn = s.remote_qpn;
    w.remote_qkey = s.remote_qkey;
    const uint8_t* start = body;
    if (!read_sges(r, s.num_sge, w.sg_list) || (s.inline_bytes > 0 && !r.bytes(w.inline_data, s.inline_bytes)))
      return "post_send: WR " + std::to_string(i) + " runs past the request";
    if (s.inline_bytes > 0 && s.inline_bytes != transport::sg_length(w.sg_list))
      return "post_send: WR " + std::to_string(i) + ": inline bytes are not its gather list's length";
    const std::size_t at = r.consumed(start);
    if ((at & 7) != 0 && !r.skip(8 - (at & 7))) return "post_send: WR " + std::to_string(i) + " runs past the request";
    out.wrs.push_back(std::move(w));
  }
  return "";
}

std::string parse_post_recv(const uint8_t* body, std::size_t size, PostedRecvs& out) {
  Reader r(body, size);
  hv_post head;
  if (!r.get(head)) return "post_recv: short request";
  out.qpn = head.qpn;
  out.wrs.clear();
  for (uint32_t i = 0; i < head.count; ++i) {
    hv_recv_wr w;
    transport::RecvWr wr;
    if (!r.get(w) || w.num_sge > kMaxSges || !read_sges(r, w.num_sge, wr.sg_list))
      return "post_recv: WR " + std::to_string(i) + " runs past the request";
    wr.wr_id = w.wr_id;
    out.wrs.push_back(std::move(wr));
  }
  return "";
}

}  // namespace hcasim::serve::verbs
