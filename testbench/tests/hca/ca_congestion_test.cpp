// A CA port's congestion control (ca_congestion.hpp) against values worked
// out by hand: CCTI_Min 2, CCTI_Increase 4, a table of 21 entries {1, i}
// (CCTI_Limit 20: delay T x i / 2), CCTI_Timer 10 (a period of 10.24 us from
// time zero).
#include <catch2/catch.hpp>

#include <vector>

#include "models/hca/ca_congestion.hpp"
#include "models/ib/opcodes.hpp"

using namespace hcasim;

namespace {

hca::CaCongestionControl make(bool per_sl) {
  hca::CaCongestionControl cc;
  ib::CaCongestionSetting s;
  s.port_control = per_sl ? ib::kCaPortControlPerSl : 0;
  s.control_map = 0xFFFF;
  for (ib::CaCongestionEntry& e : s.entries) {
    e.ccti_increase = 4;
    e.ccti_min = 2;
    e.ccti_timer = 10;
    e.trigger_threshold = 10;
  }
  cc.set_setting(s);
  std::vector<ib::CctEntry> t;
  for (uint16_t i = 0; i <= 20; ++i) t.push_back({1, i});
  cc.set_table(t, 20);
  return cc;
}

constexpr uint64_t kPeriod = 10'240'000;  // ps

}  // namespace

TEST_CASE("CaCongestionControl: BECNs raise, the free-running timer lowers, the table delays", "[hca][cc]") {
  hca::CaCongestionControl cc = make(false);
  CHECK(cc.key_of(7, 3) == 7);
  CHECK(cc.ccti(7, 0, 0) == 2);                     // starts at CCTI_Min
  cc.becn(7, 0, 1'000'000);
  CHECK(cc.ccti(7, 0, 1'000'000) == 6);
  cc.becn(7, 0, 2'000'000);
  CHECK(cc.stats().trigger_events == 1);            // reached 10
  CHECK(cc.ccti(7, 0, kPeriod - 1) == 10);          // no expiry yet
  CHECK(cc.ccti(7, 0, kPeriod) == 9);               // the first expiry
  CHECK(cc.ccti(7, 0, 3 * kPeriod) == 7);           // two more
  CHECK(cc.ccti(7, 0, 1'000'000'000'000) == 2);     // never below CCTI_Min
  // Delay T x i / 2 at CCTI i: 1000 ps at CCTI 2, 5000 ps at CCTI 10.
  CHECK(cc.delay_ps(8, 0, 1000, 0) == 1000);
  cc.becn(8, 0, 0);
  cc.becn(8, 0, 0);
  CHECK(cc.delay_ps(8, 0, 1000, 0) == 5000);
  for (int i = 0; i < 5; ++i) cc.becn(8, 0, 0);
  CHECK(cc.ccti(8, 0, 0) == 20);                    // capped at CCTI_Limit
  REQUIRE(cc.state(8) != nullptr);
  CHECK(cc.state(8)->ccti_max == 20);
  CHECK(cc.state(8)->delayed_packets == 2);
  CHECK(cc.state(8)->delay_sum_ps == 6000);
  CHECK(cc.state(9) == nullptr);
}

TEST_CASE("CaCongestionControl: per SL one CCTI for the QPs of an SL - FECN answers by transport", "[hca][cc]") {
  hca::CaCongestionControl cc = make(true);
  CHECK(cc.key_of(99, 3) == 3);
  cc.becn(cc.key_of(99, 3), 3, 0);
  CHECK(cc.ccti(cc.key_of(42, 3), 3, 0) == 6);  // another QP of SL 3 shares it
  CHECK(cc.ccti(cc.key_of(42, 4), 4, 0) == 2);
  using hca::FecnAnswer;
  CHECK(hca::CaCongestionControl::fecn_answer(ib::op::kRcSendOnly) == FecnAnswer::AckBecn);
  CHECK(hca::CaCongestionControl::fecn_answer(ib::op::kUdSendOnly) == FecnAnswer::Cnp);
}

TEST_CASE("CaCongestionControl: FECN on an RC request is answered in its ACK - on UC and RC responses with a CNP",
          "[hca][cc]") {
  using hca::CaCongestionControl;
  using hca::FecnAnswer;
  // A10.2.2: BECN goes back in the ACK where there is one; UC has no ACK, and
  // the requester that receives a response has none to send.
  for (uint8_t op : {ib::op::kRcSendFirst, ib::op::kRcSendOnly, ib::op::kRcWriteOnly, ib::op::kRcReadRequest,
                     ib::op::kRcCmpSwap, ib::op::kRcFetchAdd})
    CHECK(CaCongestionControl::fecn_answer(op) == FecnAnswer::AckBecn);
  for (uint8_t op : {ib::op::kRcReadRespFirst, ib::op::kRcReadRespMiddle, ib::op::kRcReadRespLast,
                     ib::op::kRcReadRespOnly, ib::op::kRcAck, ib::op::kRcAtomicAck})
    CHECK(CaCongestionControl::fecn_answer(op) == FecnAnswer::Cnp);
  for (uint8_t op : {ib::op::kUcSendFirst, ib::op::kUcSendOnly, ib::op::kUcWriteFirst, ib::op::kUcWriteOnly})
    CHECK(CaCongestionControl::fecn_answer(op) == FecnAnswer::Cnp);
}

TEST_CASE("CaCongestionControl: as the transport engine's hooks a QP's delay is its key's CCT entry applied to T",
          "[hca][cc]") {
  hca::CaCongestionControl cc = make(false);
  transport::CongestionHooks& hooks = cc;
  // CCTI_Min 2: T x 2 / 2 = T; three BECNs take QP 5 to CCTI 14: T x 14 / 2.
  CHECK(hooks.injection_delay_ps(5, 0, 2000, 0) == 2000);
  for (int i = 0; i < 3; ++i) cc.becn(cc.key_of(5, 0), 0, 0);
  CHECK(hooks.injection_delay_ps(5, 0, 2000, 0) == 14000);
  CHECK(hooks.injection_delay_ps(6, 0, 2000, 0) == 2000);  // another QP keeps its own CCTI
  hooks.becn_sent();
  CHECK(cc.stats().becns_sent == 1);
}
