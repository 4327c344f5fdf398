// Congestion control of transport QPs (transport/congestion_hooks.hpp) on two
// back-to-back HCAs, against values worked out by hand. Each table entry i is
// {CCT_Shift 2, multiplier i}: at CCTI k the delay after a packet of link
// time T is T x k / 4 (IBA A10.2.2), so a QP's request packets start
// T + T x k / 4 apart. CCTI_Timer 0: the CCTIs stay where the test puts them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "models/ib/opcodes.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::WrOpcode;

namespace {

constexpr uint32_t kMtu = 4096;
constexpr uint32_t kShift = 2;
// LRH 8 + BTH 12 + payload + ICRC 4 + VCRC 2: a middle WRITE packet or READ response.
constexpr uint32_t kMiddleBytes = 8 + 12 + kMtu + 4 + 2;

hca::CaCongestionControl& control_on(host::Driver& h) {
  hca::CaCongestionControl& cc = h.hca().congestion_control(0);
  ib::CaCongestionSetting s;
  s.control_map = 0xFFFF;
  for (ib::CaCongestionEntry& e : s.entries) {
    e.ccti_increase = 1;
    e.ccti_min = 0;
    e.ccti_timer = 0;
  }
  cc.set_setting(s);
  std::vector<ib::CctEntry> t;
  for (uint16_t i = 0; i <= 20; ++i) t.push_back({kShift, i});
  cc.set_table(t, 20);
  return cc;
}

void raise(hca::CaCongestionControl& cc, uint32_t qpn, unsigned becns) {
  for (unsigned i = 0; i < becns; ++i) cc.becn(cc.key_of(qpn, 0), 0, 0);
}

// Transmit-time gaps between consecutive records.
std::vector<uint64_t> gaps(const std::vector<WireRecord>& r) {
  std::vector<uint64_t> g;
  for (std::size_t i = 1; i < r.size(); ++i) g.push_back(r[i].time_ps - r[i - 1].time_ps);
  return g;
}

}  // namespace

TEST_CASE("RC WRITE at CCTI 8: request packets start T x (1 + 8 / 4) apart", "[hca][cc]") {
  Pair pair;
  hca::CaCongestionControl& cc = control_on(pair.a());
  raise(cc, pair.qa.qpn, 8);
  const WireLog& log = pair.rig.log(0);
  constexpr uint32_t kPackets = 8;
  fill(pair.a(), kSrc, kPackets * kMtu, 1);
  transport::SendWr w = send_wr(1, WrOpcode::RdmaWrite, kSrc, kPackets * kMtu, pair.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = pair.mb.rkey;
  REQUIRE(pair.a().post_send(pair.qa.qpn, w).empty());
  pair.rig.run();

  std::vector<WireRecord> requests;
  for (uint8_t op : {ib::op::kRcWriteFirst, ib::op::kRcWriteMiddle, ib::op::kRcWriteLast})
    for (const WireRecord& r : log.with_opcode(op)) requests.push_back(r);
  std::sort(requests.begin(), requests.end(), [](auto& x, auto& y) { return x.time_ps < y.time_ps; });
  REQUIRE(requests.size() == kPackets);
  const uint64_t t = pair.a().hca().port(0).timing().serialization_ps(kMiddleBytes);
  const std::vector<uint64_t> g = gaps(requests);
  // From the second packet on (the first also parses the WQE) every gap is a
  // middle packet's T plus its delay T x 8 / 4.
  for (std::size_t i = 1; i < g.size(); ++i) {
    INFO("gap " << i << ": " << g[i] << " ps, T " << t << " ps");
    CHECK(g[i] == t + t * 8 / (1u << kShift));
  }
  CHECK(bytes(pair.b(), kDst, kPackets * kMtu) == bytes(pair.a(), kSrc, kPackets * kMtu));
  const hca::CctiState* s = cc.state(cc.key_of(pair.qa.qpn, 0));
  REQUIRE(s != nullptr);
  CHECK(s->delayed_packets == kPackets);
  CHECK(pair.b().hca().congestion(0) == nullptr);
}

TEST_CASE("RC WRITE with control on at CCTI 0 goes at the link's pace", "[hca][cc]") {
  Pair pair;
  hca::CaCongestionControl& cc = control_on(pair.a());
  const WireLog& log = pair.rig.log(0);
  transport::SendWr w = send_wr(1, WrOpcode::RdmaWrite, kSrc, 8 * kMtu, pair.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = pair.mb.rkey;
  REQUIRE(pair.a().post_send(pair.qa.qpn, w).empty());
  pair.rig.run();
  const std::vector<uint64_t> g = gaps(log.with_opcode(ib::op::kRcWriteMiddle));
  REQUIRE(g.size() == 5);
  const uint64_t t = pair.a().hca().port(0).timing().serialization_ps(kMiddleBytes);
  for (uint64_t gap : g) CHECK(gap < 2 * t);  // entry 0 delays by 0: back to back (a credit packet may come between)
  CHECK(cc.state(cc.key_of(pair.qa.qpn, 0))->delay_sum_ps == 0);
}

TEST_CASE("READ responses are not delayed by the responder QP's CCTI", "[hca][cc]") {
  Pair pair;
  hca::CaCongestionControl& cc = control_on(pair.b());
  raise(cc, pair.qb.qpn, 20);  // a request of B's QP would wait T x 5
  const WireLog& log = pair.rig.log(1);
  constexpr uint32_t kPackets = 8;
  fill(pair.b(), kDst, kPackets * kMtu, 2);
  transport::SendWr w = send_wr(1, WrOpcode::RdmaRead, kSrc, kPackets * kMtu, pair.ma.lkey);
  w.remote_addr = kDst;
  w.rkey = pair.mb.rkey;
  REQUIRE(pair.a().post_send(pair.qa.qpn, w).empty());
  pair.rig.run();
  const std::vector<uint64_t> g = gaps(log.with_opcode(ib::op::kRcReadRespMiddle));
  REQUIRE(g.size() == kPackets - 3);
  const uint64_t t = pair.b().hca().port(0).timing().serialization_ps(kMiddleBytes);
  for (uint64_t gap : g) CHECK(gap < 2 * t);  // delayed, each would be 6T
  CHECK(bytes(pair.a(), kSrc, kPackets * kMtu) == bytes(pair.b(), kDst, kPackets * kMtu));
  CHECK(cc.stats().becns_sent == 0);
}
