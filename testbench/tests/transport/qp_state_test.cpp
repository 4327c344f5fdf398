// modify_qp checks: the transitions and attributes of the Linux qp_state_table
// (drivers/infiniband/core/verbs.c; iba-facts 5) for RC, UC and UD.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/transport/qp_state.hpp"

using namespace hcasim::transport;

namespace {

constexpr QpType kTypes[] = {QpType::Rc, QpType::Uc, QpType::Ud};
constexpr QpState kStates[] = {QpState::Reset, QpState::Init, QpState::Rtr, QpState::Rts,
                               QpState::Sqd,   QpState::Sqe,  QpState::Err};

struct Edge {
  QpState from;
  QpState to;
};
// The allowed transitions, written out from the table independently of the model.
const std::vector<Edge> kAllowed = {
    {QpState::Reset, QpState::Reset}, {QpState::Reset, QpState::Init}, {QpState::Reset, QpState::Err},
    {QpState::Init, QpState::Reset},  {QpState::Init, QpState::Err},   {QpState::Init, QpState::Init},
    {QpState::Init, QpState::Rtr},    {QpState::Rtr, QpState::Reset},  {QpState::Rtr, QpState::Err},
    {QpState::Rtr, QpState::Rts},     {QpState::Rts, QpState::Reset},  {QpState::Rts, QpState::Err},
    {QpState::Rts, QpState::Rts},     {QpState::Rts, QpState::Sqd},    {QpState::Sqd, QpState::Reset},
    {QpState::Sqd, QpState::Err},     {QpState::Sqd, QpState::Rts},    {QpState::Sqd, QpState::Sqd},
    {QpState::Sqe, QpState::Reset},   {QpState::Sqe, QpState::Err},    {QpState::Sqe, QpState::Rts},
    {QpState::Err, QpState::Reset},   {QpState::Err, QpState::Err},
};

bool allowed(QpType t, QpState from, QpState to) {
  if (t == QpType::Rc && from == QpState::Sqe && to == QpState::Rts) return false;
  for (const auto& e : kAllowed)
    if (e.from == from && e.to == to) return true;
  return false;
}

// Required attributes as the table gives them.
uint32_t required(QpType t, QpState from, QpState to) {
  if (from == QpState::Reset && to == QpState::Init)
    return t == QpType::Ud ? kAttrPkeyIndex | kAttrPort | kAttrQkey : kAttrPkeyIndex | kAttrPort | kAttrAccessFlags;
  if (from == QpState::Init && to == QpState::Rtr) {
    uint32_t uc = kAttrAv | kAttrPathMtu | kAttrDestQpn | kAttrRqPsn;
    if (t == QpType::Rc) return uc | kAttrMaxDestRdAtomic | kAttrMinRnrTimer;
    return t == QpType::Uc ? uc : 0;
  }
  if (from == QpState::Rtr && to == QpState::Rts)
    return t == QpType::Rc ? kAttrSqPsn | kAttrTimeout | kAttrRetryCnt | kAttrRnrRetry | kAttrMaxQpRdAtomic
                           : kAttrSqPsn;
  return 0;
}

std::string check(QpType t, QpState from, QpState to, uint32_t extra_mask) {
  QpAttr a;  // the defaults are in range
  a.qp_state = to;
  return check_modify(t, from, a, kAttrState | extra_mask);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("every allowed transition passes with its required attributes") {
  for (QpType t : kTypes)
    for (QpState from : kStates)
      for (QpState to : kStates) {
        if (!allowed(t, from, to)) continue;
        INFO(to_string(t) << " " << to_string(from) << " -> " << to_string(to));
        CHECK(check(t, from, to, required(t, from, to)) == "");
        CHECK(transition_allowed(t, from, to));
      }
}

TEST_CASE("every transition outside the table is refused naming it") {
  for (QpType t : kTypes)
    for (QpState from : kStates)
      for (QpState to : kStates) {
        if (allowed(t, from, to)) continue;
        INFO(to_string(t) << " " << to_string(from) << " -> " << to_string(to));
        std::string why = check(t, from, to, 0);
        CHECK_FALSE(why.empty());
        CHECK(contains(why, " -> "));
        CHECK_FALSE(transition_allowed(t, from, to));
      }
  CHECK(check(QpType::Rc, QpState::Rtr, QpState::Sqd, 0) == "RTR -> SQD is not an allowed transition");
  CHECK(check(QpType::Ud, QpState::Reset, QpState::Rts, 0) == "RESET -> RTS is not an allowed transition");
  CHECK(check(QpType::Uc, QpState::Err, QpState::Init, 0) == "ERR -> INIT is not an allowed transition");
}

TEST_CASE("SQE to RTS is refused on an RC QP only") {
  CHECK(check(QpType::Rc, QpState::Sqe, QpState::Rts, 0) == "SQE -> RTS is not allowed on an RC QP");
  CHECK(check(QpType::Uc, QpState::Sqe, QpState::Rts, 0) == "");
  CHECK(check(QpType::Ud, QpState::Sqe, QpState::Rts, 0) == "");
}

TEST_CASE("each missing required attribute is named") {
  const Edge with_requirements[] = {
      {QpState::Reset, QpState::Init}, {QpState::Init, QpState::Rtr}, {QpState::Rtr, QpState::Rts}};
  int cases = 0;
  for (QpType t : kTypes)
    for (const auto& e : with_requirements) {
      uint32_t req = required(t, e.from, e.to);
      for (uint32_t bit = 1; bit != 0; bit <<= 1) {
        if (!(req & bit)) continue;
        INFO(to_string(t) << " " << to_string(e.from) << " -> " << to_string(e.to) << " without "
                          << attr_name(bit));
        std::string why = check(t, e.from, e.to, req & ~bit);
        CHECK(contains(why, std::string("needs ") + attr_name(bit)));
        ++cases;
      }
    }
  CHECK(cases == 3 + 3 + 3 + 6 + 4 + 0 + 5 + 1 + 1);
  CHECK(check(QpType::Rc, QpState::Init, QpState::Rtr, required(QpType::Rc, QpState::Init, QpState::Rtr) & ~kAttrDestQpn) ==
        "INIT -> RTR on an RC QP needs dest_qp_num");
}

TEST_CASE("an attribute the transition does not take is refused by name") {
  CHECK(check(QpType::Ud, QpState::Init, QpState::Rtr, kAttrPathMtu) == "INIT -> RTR on a UD QP does not take path_mtu");
  CHECK(check(QpType::Rc, QpState::Reset, QpState::Init, required(QpType::Rc, QpState::Reset, QpState::Init) | kAttrQkey) ==
        "RESET -> INIT on an RC QP does not take qkey");
  CHECK(contains(check(QpType::Ud, QpState::Reset, QpState::Init,
                       required(QpType::Ud, QpState::Reset, QpState::Init) | kAttrAccessFlags),
                 "does not take qp_access_flags"));
  CHECK(contains(check(QpType::Rc, QpState::Rts, QpState::Sqd, kAttrTimeout), "does not take timeout"));
  CHECK(contains(check(QpType::Uc, QpState::Rtr, QpState::Rts, kAttrSqPsn | kAttrMinRnrTimer),
                 "does not take min_rnr_timer"));
  CHECK(contains(check(QpType::Rc, QpState::Rts, QpState::Err, kAttrSqPsn), "RTS -> ERR on an RC QP does not take sq_psn"));
  // Optional attributes pass.
  CHECK(check(QpType::Rc, QpState::Rtr, QpState::Rts,
              required(QpType::Rc, QpState::Rtr, QpState::Rts) | kAttrMinRnrTimer | kAttrAccessFlags) == "");
  CHECK(check(QpType::Ud, QpState::Init, QpState::Rtr, kAttrQkey | kAttrPkeyIndex) == "");
  CHECK(check(QpType::Rc, QpState::Sqd, QpState::Sqd, kAttrAv | kAttrTimeout | kAttrPort) == "");
}

TEST_CASE("an attribute change without a transition follows the table") {
  QpAttr a;
  CHECK(check_modify(QpType::Rc, QpState::Rts, a, kAttrMinRnrTimer) == "");
  CHECK(check_modify(QpType::Rc, QpState::Init, a, kAttrPkeyIndex | kAttrAccessFlags) == "");
  CHECK(check_modify(QpType::Ud, QpState::Sqd, a, kAttrQkey) == "");
  CHECK(check_modify(QpType::Rc, QpState::Rtr, a, kAttrMinRnrTimer) ==
        "modify_qp without a state change is not allowed in RTR");
  CHECK(contains(check_modify(QpType::Ud, QpState::Sqe, a, kAttrQkey), "not allowed in SQE"));
  CHECK(contains(check_modify(QpType::Uc, QpState::Rts, a, kAttrTimeout), "does not take timeout"));
  CHECK(contains(check_modify(QpType::Rc, QpState::Err, a, kAttrQkey), "does not take qkey"));
}

TEST_CASE("cur_qp_state must equal the current state where it is taken") {
  QpAttr a;
  a.qp_state = QpState::Rts;
  a.cur_qp_state = QpState::Rts;
  CHECK(check_modify(QpType::Ud, QpState::Rts, a, kAttrState | kAttrCurState) == "");
  a.cur_qp_state = QpState::Sqd;
  CHECK(check_modify(QpType::Ud, QpState::Rts, a, kAttrState | kAttrCurState) ==
        "cur_qp_state is SQD but the QP is in RTS");
  a.qp_state = QpState::Init;
  a.cur_qp_state = QpState::Reset;
  CHECK(contains(check_modify(QpType::Rc, QpState::Reset, a,
                              kAttrState | kAttrCurState | required(QpType::Rc, QpState::Reset, QpState::Init)),
                 "does not take cur_qp_state"));
}

TEST_CASE("attributes out of range are refused by name") {
  struct Case {
    uint32_t bit;
    void (*set)(QpAttr&);
    const char* name;
  };
  const Case cases[] = {
      {kAttrPathMtu, [](QpAttr& a) { a.path_mtu = 1500; }, "path_mtu"},
      {kAttrPathMtu, [](QpAttr& a) { a.path_mtu = 8192; }, "path_mtu"},
      {kAttrMinRnrTimer, [](QpAttr& a) { a.min_rnr_timer = 32; }, "min_rnr_timer"},
      {kAttrRqPsn, [](QpAttr& a) { a.rq_psn = 0x1000000; }, "rq_psn"},
      {kAttrDestQpn, [](QpAttr& a) { a.dest_qp_num = 0x1000000; }, "dest_qp_num"},
      {kAttrAv, [](QpAttr& a) { a.ah_attr.sl = 16; }, "ah_attr.sl"},
      {kAttrMaxDestRdAtomic, [](QpAttr& a) { a.max_dest_rd_atomic = 17; }, "max_dest_rd_atomic"},
      {kAttrAccessFlags, [](QpAttr& a) { a.qp_access_flags = 16; }, "qp_access_flags"},
  };
  uint32_t to_rtr = required(QpType::Rc, QpState::Init, QpState::Rtr) | kAttrAccessFlags;
  for (const auto& c : cases) {
    INFO(c.name);
    QpAttr a;
    a.qp_state = QpState::Rtr;
    c.set(a);
    CHECK(contains(check_modify(QpType::Rc, QpState::Init, a, kAttrState | to_rtr), c.name));
  }
  const Case to_rts[] = {
      {kAttrTimeout, [](QpAttr& a) { a.timeout = 32; }, "timeout"},
      {kAttrRetryCnt, [](QpAttr& a) { a.retry_cnt = 8; }, "retry_cnt"},
      {kAttrRnrRetry, [](QpAttr& a) { a.rnr_retry = 8; }, "rnr_retry"},
      {kAttrSqPsn, [](QpAttr& a) { a.sq_psn = 0x1000000; }, "sq_psn"},
      {kAttrMaxQpRdAtomic, [](QpAttr& a) { a.max_rd_atomic = 17; }, "max_rd_atomic"},
  };
  for (const auto& c : to_rts) {
    INFO(c.name);
    QpAttr a;
    a.qp_state = QpState::Rts;
    c.set(a);
    CHECK(contains(check_modify(QpType::Rc, QpState::Rtr, a, kAttrState | required(QpType::Rc, QpState::Rtr, QpState::Rts)),
                   c.name));
  }
  QpAttr a;
  a.qp_state = QpState::Init;
  a.port_num = 0;
  CHECK(contains(check_modify(QpType::Ud, QpState::Reset, a, kAttrState | required(QpType::Ud, QpState::Reset, QpState::Init)),
                 "port_num"));
}

TEST_CASE("limits at the edge of their range pass") {
  QpAttr a;
  a.qp_state = QpState::Rtr;
  a.path_mtu = 256;
  a.min_rnr_timer = 31;
  a.rq_psn = 0xFFFFFF;
  a.dest_qp_num = 0xFFFFFF;
  a.ah_attr.sl = 15;
  a.max_dest_rd_atomic = kMaxRdAtomic;
  CHECK(check_modify(QpType::Rc, QpState::Init, a, kAttrState | required(QpType::Rc, QpState::Init, QpState::Rtr)) == "");
  // A value out of range in an attribute not in the mask is not looked at.
  a.timeout = 200;
  CHECK(check_modify(QpType::Rc, QpState::Init, a, kAttrState | required(QpType::Rc, QpState::Init, QpState::Rtr)) == "");
}

TEST_CASE("mask bits the model does not have are refused") {
  QpAttr a;
  constexpr uint32_t kAltPath = 1u << 14;  // IBV_QP_ALT_PATH
  CHECK(check_modify(QpType::Rc, QpState::Rts, a, kAltPath) == "attribute mask bit 0x4000 is not one the model supports");
  CHECK(attr_name(kAltPath) == nullptr);
  CHECK(std::string(attr_name(kAttrDestQpn)) == "dest_qp_num");
}
