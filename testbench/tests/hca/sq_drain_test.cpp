// SQD: the message in progress finishes, no new one starts, the QP raises
// IBV_EVENT_SQ_DRAINED once everything sent is acknowledged, and back in RTS
// the waiting WQEs go out.
#include <catch2/catch.hpp>

#include <algorithm>

#include "models/ib/opcodes.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::QpState;
using transport::WcStatus;
using transport::WrOpcode;

namespace {
constexpr uint32_t kMessage = 5 * 4096;  // five packets at the 4 KiB path MTU

long drained_events(host::Driver& d) {
  const hca::Hca& h = d.hca();
  return std::count_if(h.async_events().begin(), h.async_events().end(),
                       [](const auto& e) { return e.second == "IBV_EVENT_SQ_DRAINED"; });
}
}  // namespace

TEST_CASE("SQD finishes the message in progress then raises sq_drained and RTS resumes the rest") {
  Pair t;
  fill(t.a(), kSrc, 3 * kMessage, 5);
  for (uint64_t i = 0; i < 3; ++i) {
    transport::SendWr w = send_wr(i, WrOpcode::RdmaWrite, kSrc + i * kMessage, kMessage, t.ma.lkey);
    w.remote_addr = kDst + i * kMessage;
    w.rkey = t.mb.rkey;
    REQUIRE(t.a().post_send(t.qa.qpn, w).empty());
  }
  // The first WRITE's first packet is already with an engine: the message has started.
  t.rig.start();
  transport::QpAttr attr;
  attr.qp_state = QpState::Sqd;
  REQUIRE(t.a().modify_qp(t.qa.qpn, attr, transport::kAttrState).empty());
  CHECK(drained_events(t.a()) == 0);
  const WireLog& wire = t.rig.log(0);
  t.rig.run();

  const auto first = drain_cq(t.a(), t.qa.cq);
  REQUIRE(first.size() == 1);  // only the message under way when SQD came
  CHECK(first[0].wr_id == 0);
  CHECK(first[0].status == WcStatus::Success);
  CHECK(wire.with_opcode(ib::op::kRcWriteFirst).size() == 1);
  CHECK(wire.with_opcode(ib::op::kRcWriteLast).size() == 1);
  CHECK(drained_events(t.a()) == 1);
  CHECK(bytes(t.b(), kDst, kMessage) == bytes(t.a(), kSrc, kMessage));
  CHECK(bytes(t.b(), kDst + kMessage, 1) == std::vector<uint8_t>{0});  // the second has not started

  attr.qp_state = QpState::Rts;
  REQUIRE(t.a().modify_qp(t.qa.qpn, attr, transport::kAttrState).empty());
  t.rig.run();
  const auto rest = drain_cq(t.a(), t.qa.cq);
  REQUIRE(rest.size() == 2);
  CHECK(rest[0].wr_id == 1);
  CHECK(rest[1].wr_id == 2);
  for (const auto& c : rest) CHECK(c.status == WcStatus::Success);
  CHECK(bytes(t.b(), kDst, 3 * kMessage) == bytes(t.a(), kSrc, 3 * kMessage));
  CHECK(drained_events(t.a()) == 1);  // once per entry into SQD

  // An idle QP moved to SQD is drained at once.
  attr.qp_state = QpState::Sqd;
  REQUIRE(t.a().modify_qp(t.qa.qpn, attr, transport::kAttrState).empty());
  CHECK(drained_events(t.a()) == 2);
  CHECK(t.rig.checker().ok());
}
