#include "models/transport/qp_state.hpp"

#include <iterator>

#include "models/transport/psn.hpp"

namespace hcasim::transport {
namespace {

constexpr size_t kTypes = 3;  // indexed by QpType: RC, UC, UD

// One allowed transition: for each QP type whether it is allowed, and which
// attributes it requires and which it may take (verbs.c qp_state_table,
// restricted to the attributes the model has).
struct Transition {
  QpState from;
  QpState to;
  bool allowed[kTypes];
  uint32_t required[kTypes];
  uint32_t optional[kTypes];
};

constexpr uint32_t kInitRcUc = kAttrPkeyIndex | kAttrPort | kAttrAccessFlags;
constexpr uint32_t kInitUd = kAttrPkeyIndex | kAttrPort | kAttrQkey;
constexpr uint32_t kRtrUc = kAttrAv | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn;
constexpr uint32_t kRtrRc = kRtrUc | kAttrMaxDestRdAtomic | kAttrMinRnrTimer;
constexpr uint32_t kRtsRc = kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxQpRdAtomic;
// Optional attributes of RTR -> RTS, RTS -> RTS and SQD -> RTS.
constexpr uint32_t kToRtsOpt[kTypes] = {kAttrCurState | kAttrAccessFlags | kAttrMinRnrTimer,
                                        kAttrCurState | kAttrAccessFlags, kAttrCurState | kAttrQkey};

constexpr Transition kTable[] = {
    {QpState::Reset, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Reset, QpState::Init, {true, true, true}, {kInitRcUc, kInitRcUc, kInitUd}, {}},
    {QpState::Reset, QpState::Err, {true, true, true}, {}, {}},  // not in the Linux table: see header
    {QpState::Init, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Init, QpState::Err, {true, true, true}, {}, {}},
    {QpState::Init, QpState::Init, {true, true, true}, {}, {kInitRcUc, kInitRcUc, kInitUd}},
    {QpState::Init, QpState::Rtr, {true, true, true}, {kRtrRc, kRtrUc, 0},
     {kAttrAccessFlags | kAttrPkeyIndex, kAttrAccessFlags | kAttrPkeyIndex, kAttrPkeyIndex | kAttrQkey}},
    {QpState::Rtr, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Rtr, QpState::Err, {true, true, true}, {}, {}},
    {QpState::Rtr, QpState::Rts, {true, true, true}, {kRtsRc, kAttrSqPsn, kAttrSqPsn},
     {kToRtsOpt[0], kToRtsOpt[1], kToRtsOpt[2]}},
    {QpState::Rts, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Rts, QpState::Err, {true, true, true}, {}, {}},
    {QpState::Rts, QpState::Rts, {true, true, true}, {}, {kToRtsOpt[0], kToRtsOpt[1], kToRtsOpt[2]}},
    {QpState::Rts, QpState::Sqd, {true, true, true}, {}, {}},
    {QpState::Sqd, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Sqd, QpState::Err, {true, true, true}, {}, {}},
    {QpState::Sqd, QpState::Rts, {true, true, true}, {}, {kToRtsOpt[0], kToRtsOpt[1], kToRtsOpt[2]}},
    {QpState::Sqd, QpState::Sqd, {true, true, true}, {},
     {kAttrPort | kAttrAv | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxQpRdAtomic |
          kAttrMaxDestRdAtomic | kAttrAccessFlags | kAttrPkeyIndex | kAttrMinRnrTimer,
      kAttrAv | kAttrAccessFlags | kAttrPkeyIndex, kAttrPkeyIndex | kAttrQkey}},
    {QpState::Sqe, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Sqe, QpState::Err, {true, true, true}, {}, {}},
    {QpState::Sqe, QpState::Rts, {false, true, true}, {},
     {0, kAttrCurState | kAttrAccessFlags, kAttrCurState | kAttrQkey}},
    {QpState::Err, QpState::Reset, {true, true, true}, {}, {}},
    {QpState::Err, QpState::Err, {true, true, true}, {}, {}},
};

// Mask bits in the order reasons name them, with their QpAttr field names.
struct AttrBit {
  uint32_t bit;
  const char* name;
};
constexpr AttrBit kAttrBits[] = {
    {kAttrState, "qp_state"},
    {kAttrCurState, "cur_qp_state"},
    {kAttrAccessFlags, "qp_access_flags"},
    {kAttrPkeyIndex, "pkey_index"},
    {kAttrPort, "port_num"},
    {kAttrQkey, "qkey"},
    {kAttrAv, "ah_attr"},
    {kAttrPathMtu, "path_mtu"},
    {kAttrTimeout, "timeout"},
    {kAttrRetryCnt, "retry_cnt"},
    {kAttrRnrRetry, "rnr_retry"},
    {kAttrRqPsn, "rq_psn"},
    {kAttrMaxQpRdAtomic, "max_rd_atomic"},
    {kAttrMinRnrTimer, "min_rnr_timer"},
    {kAttrSqPsn, "sq_psn"},
    {kAttrMaxDestRdAtomic, "max_dest_rd_atomic"},
    {kAttrDestQpn, "dest_qp_num"},
};

constexpr uint32_t known_bits() {
  uint32_t m = 0;
  for (const auto& a : kAttrBits) m |= a.bit;
  return m;
}

const Transition* find(QpState from, QpState to) {
  for (const auto& t : kTable)
    if (t.from == from && t.to == to) return &t;
  return nullptr;
}

const char* upper(QpState s) {
  constexpr const char* kNames[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
  auto i = static_cast<size_t>(s);
  return i < std::size(kNames) ? kNames[i] : "UNKNOWN";
}

const char* a_type(QpType t) {
  switch (t) {
    case QpType::Rc: return "an RC QP";
    case QpType::Uc: return "a UC QP";
    case QpType::Ud: return "a UD QP";
  }
  return "a QP of unknown type";
}

std::string hex(uint32_t v) {
  constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

// The first range violation among the attributes in the mask, or "".
std::string check_ranges(const QpAttr& a, uint32_t mask) {
  auto bad = [](const char* name, const char* rule, uint64_t got) {
    return std::string(name) + " must be " + rule + " (got " + std::to_string(got) + ")";
  };
  if (mask & kAttrAccessFlags) {
    constexpr uint32_t kAllAccess = kLocalWrite | kRemoteWrite | kRemoteRead | kRemoteAtomic;
    if (a.qp_access_flags & ~kAllAccess)
      return "qp_access_flags has bits outside the Access flags (" + hex(a.qp_access_flags) + ")";
  }
  if ((mask & kAttrPort) && a.port_num == 0) return bad("port_num", ">= 1 (ports are 1-based)", 0);
  if ((mask & kAttrAv) && a.ah_attr.sl > 15) return bad("ah_attr.sl", "<= 15", a.ah_attr.sl);
  if (mask & kAttrPathMtu) {
    uint32_t m = a.path_mtu;
    if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
      return bad("path_mtu", "256, 512, 1024, 2048 or 4096", m);
  }
  if ((mask & kAttrTimeout) && a.timeout > 31) return bad("timeout", "<= 31", a.timeout);
  if ((mask & kAttrMinRnrTimer) && a.min_rnr_timer > 31) return bad("min_rnr_timer", "<= 31", a.min_rnr_timer);
  if ((mask & kAttrRetryCnt) && a.retry_cnt > 7) return bad("retry_cnt", "<= 7", a.retry_cnt);
  if ((mask & kAttrRnrRetry) && a.rnr_retry > 7) return bad("rnr_retry", "<= 7", a.rnr_retry);
  if ((mask & kAttrSqPsn) && a.sq_psn > kPsnMask) return bad("sq_psn", "<= 0xFFFFFF", a.sq_psn);
  if ((mask & kAttrRqPsn) && a.rq_psn > kPsnMask) return bad("rq_psn", "<= 0xFFFFFF", a.rq_psn);
  if ((mask & kAttrDestQpn) && a.dest_qp_num > 0xFFFFFF) return bad("dest_qp_num", "<= 0xFFFFFF", a.dest_qp_num);
  if ((mask & kAttrMaxQpRdAtomic) && a.max_rd_atomic > kMaxRdAtomic)
    return bad("max_rd_atomic", "<= 16 (the model's limit)", a.max_rd_atomic);
  if ((mask & kAttrMaxDestRdAtomic) && a.max_dest_rd_atomic > kMaxRdAtomic)
    return bad("max_dest_rd_atomic", "<= 16 (the model's limit)", a.max_dest_rd_atomic);
  return "";
}

}  // namespace

const char* attr_name(uint32_t mask_bit) {
  for (const auto& a : kAttrBits)
    if (a.bit == mask_bit) return a.name;
  return nullptr;
}

bool transition_allowed(QpType type, QpState from, QpState to) {
  auto ti = static_cast<size_t>(type);
  const Transition* t = find(from, to);
  return ti < kTypes && t != nullptr && t->allowed[ti];
}

std::string check_modify(QpType type, QpState current, const QpAttr& attr, uint32_t mask) {
  auto ti = static_cast<size_t>(type);
  if (ti >= kTypes) return "unknown QP type " + std::to_string(ti);

  if (uint32_t unknown = mask & ~known_bits()) {
    uint32_t lowest = unknown & (~unknown + 1);
    return "attribute mask bit " + hex(lowest) + " is not one the model supports";
  }

  QpState target = (mask & kAttrState) ? attr.qp_state : current;
  const Transition* t = find(current, target);
  std::string edge = std::string(upper(current)) + " -> " + upper(target);
  if (t == nullptr) {
    if (!(mask & kAttrState))
      return std::string("modify_qp without a state change is not allowed in ") + upper(current);
    return edge + " is not an allowed transition";
  }
  if (!t->allowed[ti]) return edge + " is not allowed on " + a_type(type);

  uint32_t given = mask & ~kAttrState;
  for (const auto& a : kAttrBits) {
    if ((t->required[ti] & a.bit) && !(given & a.bit)) return edge + " on " + a_type(type) + " needs " + a.name;
  }
  for (const auto& a : kAttrBits) {
    if ((given & a.bit) && !((t->required[ti] | t->optional[ti]) & a.bit))
      return edge + " on " + a_type(type) + " does not take " + a.name;
  }
  if ((mask & kAttrCurState) && attr.cur_qp_state != current)
    return std::string("cur_qp_state is ") + upper(attr.cur_qp_state) + " but the QP is in " + upper(current);
  return check_ranges(attr, mask);
}

}  // namespace hcasim::transport
