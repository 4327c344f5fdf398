// seed 002's worked example ("Message Transfer Overview Example"): start PSN
// 201, then a 5-packet SEND, a 52-packet SEND, a 9-packet RDMA WRITE, an RDMA
// READ answered by 6 responses, a SEND-only and a compare-and-swap. Every
// request and response PSN is read back from the pcap with the stock tshark.
#include <catch2/catch.hpp>

#include <map>

#include "models/ib/opcodes.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"
#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/tshark_util.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::WrOpcode;

namespace {
constexpr uint32_t kMtu = 1024;
struct Row {
  uint16_t slid;
  uint8_t opcode;
  uint32_t psn;
};
}  // namespace

TEST_CASE("seed 002 worked example: every PSN as the text gives it") {
  REQUIRE(std::system("command -v tshark >/dev/null") == 0);
  const auto dir = scratch("rc-worked-example");
  const std::string pcap = (dir / "packets.pcap").string();
  link::PortConfig port;
  port.mtu = kMtu;
  VerbsRig rig(config::back_to_back(port, port, link::LinkConfig{}), pcap);
  host::Driver& a = rig.driver(0);
  host::Driver& b = rig.driver(1);
  workloads::ConnectionParams params;
  params.mtu = kMtu;
  params.psn_a = 201;  // seed 002: Start PSN 201 = the responder's first ePSN
  params.psn_b = 9000;
  const auto [qa, qb] = workloads::connect(a, 0, b, 0, params);

  const uint64_t src = 0x10000, dst = 0x200000, remote = 0x400000;
  const hca::MemoryRegion ma = a.reg_mr(0, 1 << 24, transport::kLocalWrite);
  const hca::MemoryRegion mb =
      b.reg_mr(0, 1 << 24, transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                               transport::kRemoteAtomic);
  fill(a, src, 1 << 20, 1);
  fill(b, remote, 1 << 20, 2);
  const uint32_t send0 = 4 * kMtu + 500;   // 5 packets
  const uint32_t send1 = 51 * kMtu + 100;  // 52 packets
  const uint32_t write = 8 * kMtu + 10;    // 9 packets
  const uint32_t read = 5 * kMtu + 7;      // 6 responses
  const uint32_t send4 = 200;              // SEND only
  for (uint64_t i = 0; i < 3; ++i) REQUIRE(b.post_recv(qb.qpn, recv_wr(100 + i, dst + i * 0x20000, 0x20000, mb.lkey)).empty());

  REQUIRE(a.post_send(qa.qpn, send_wr(0, WrOpcode::Send, src, send0, ma.lkey)).empty());
  REQUIRE(a.post_send(qa.qpn, send_wr(1, WrOpcode::Send, src + 0x10000, send1, ma.lkey)).empty());
  transport::SendWr w2 = send_wr(2, WrOpcode::RdmaWrite, src + 0x30000, write, ma.lkey);
  w2.remote_addr = remote + 0x80000;
  w2.rkey = mb.rkey;
  REQUIRE(a.post_send(qa.qpn, w2).empty());
  transport::SendWr w3 = send_wr(3, WrOpcode::RdmaRead, 0x800000, read, ma.lkey);
  w3.remote_addr = remote;
  w3.rkey = mb.rkey;
  REQUIRE(a.post_send(qa.qpn, w3).empty());
  REQUIRE(a.post_send(qa.qpn, send_wr(4, WrOpcode::Send, src + 0x40000, send4, ma.lkey)).empty());
  const uint64_t original = 0x1122334455667788ull;
  uint8_t word[8];
  for (unsigned i = 0; i < 8; ++i) word[i] = static_cast<uint8_t>(original >> (8 * i));
  b.memory().write(remote + 0x100000, word, 8);
  transport::SendWr w5 = send_wr(5, WrOpcode::AtomicCmpSwp, 0x900000, 8, ma.lkey);
  w5.remote_addr = remote + 0x100000;
  w5.rkey = mb.rkey;
  w5.compare_add = original;
  w5.swap = 0xCAFEF00DDEADBEEFull;
  REQUIRE(a.post_send(qa.qpn, w5).empty());

  rig.run();
  rig.close_pcap();
  REQUIRE(rig.checker().ok());

  // seed 002: nPSN = ePSN = 275 at the end.
  CHECK(a.hca().transport().find(qa.qpn)->npsn == 275);
  CHECK(b.hca().transport().find(qb.qpn)->epsn == 275);

  // Completions: six on the requester in order, three receives on the responder.
  const auto ca = drain_cq(a, qa.cq);
  REQUIRE(ca.size() == 6);
  for (unsigned i = 0; i < 6; ++i) {
    CHECK(ca[i].wr_id == i);
    CHECK(ca[i].status == transport::WcStatus::Success);
  }
  const auto cb = drain_cq(b, qb.cq);
  REQUIRE(cb.size() == 3);
  CHECK(cb[0].byte_len == send0);
  CHECK(cb[1].byte_len == send1);
  CHECK(cb[2].byte_len == send4);

  // Bytes landed where they should.
  CHECK(bytes(b, dst, send0) == bytes(a, src, send0));
  CHECK(bytes(b, dst + 0x20000, send1) == bytes(a, src + 0x10000, send1));
  CHECK(bytes(b, remote + 0x80000, write) == bytes(a, src + 0x30000, write));
  CHECK(bytes(a, 0x800000, read) == bytes(b, remote, read));
  CHECK(bytes(b, dst + 0x40000, send4) == bytes(a, src + 0x40000, send4));
  uint8_t got[8];
  a.memory().read(0x900000, got, 8);
  uint64_t returned = 0, now_there = 0;
  b.memory().read(remote + 0x100000, word, 8);
  for (unsigned i = 0; i < 8; ++i) {
    returned |= uint64_t{got[i]} << (8 * i);
    now_there |= uint64_t{word[i]} << (8 * i);
  }
  CHECK(returned == original);
  CHECK(now_there == 0xCAFEF00DDEADBEEFull);

  // The wire, as tshark reads it.
  std::vector<Row> requests, responses;
  for (const auto& r : tshark_fields(pcap, {"infiniband.lrh.slid", "infiniband.bth.opcode", "infiniband.bth.psn"})) {
    if (r[1].empty()) continue;  // a flow-control packet
    const Row row{static_cast<uint16_t>(std::stoul(r[0], nullptr, 0)), static_cast<uint8_t>(std::stoul(r[1], nullptr, 0)),
                  static_cast<uint32_t>(std::stoul(r[2], nullptr, 0))};
    (row.slid == a.lid(0) ? requests : responses).push_back(row);
  }
  std::vector<std::pair<uint8_t, uint32_t>> expect;
  const auto message = [&](uint8_t first, uint8_t middle, uint8_t last, uint32_t from, uint32_t n) {
    expect.emplace_back(first, from);
    for (uint32_t k = 1; k + 1 < n; ++k) expect.emplace_back(middle, from + k);
    expect.emplace_back(last, from + n - 1);
  };
  using namespace ib::op;
  message(kRcSendFirst, kRcSendMiddle, kRcSendLast, 201, 5);      // 201-205
  message(kRcSendFirst, kRcSendMiddle, kRcSendLast, 206, 52);     // 206-257
  message(kRcWriteFirst, kRcWriteMiddle, kRcWriteLast, 258, 9);   // 258-266
  expect.emplace_back(kRcReadRequest, 267);
  expect.emplace_back(kRcSendOnly, 273);
  expect.emplace_back(kRcCmpSwap, 274);
  REQUIRE(requests.size() == expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i) {
    INFO("request " << i);
    CHECK(requests[i].opcode == expect[i].first);
    CHECK(requests[i].psn == expect[i].second);
  }
  // Responses: an ACK per SEND / WRITE packet with its PSN (no coalescing),
  // READ responses 267-272, the ACK of 273 and the atomic ACK of 274.
  std::vector<std::pair<uint8_t, uint32_t>> want;
  for (uint32_t psn = 201; psn <= 266; ++psn) want.emplace_back(kRcAck, psn);
  message(kRcReadRespFirst, kRcReadRespMiddle, kRcReadRespLast, 267, 6);
  want.insert(want.end(), expect.end() - 6, expect.end());
  expect.erase(expect.end() - 6, expect.end());
  want.emplace_back(kRcAck, 273);
  want.emplace_back(kRcAtomicAck, 274);
  REQUIRE(responses.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("response " << i);
    CHECK(responses[i].opcode == want[i].first);
    CHECK(responses[i].psn == want[i].second);
  }
}
