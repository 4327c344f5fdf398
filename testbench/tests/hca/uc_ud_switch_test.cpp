// UC and UD end to end, and RC across a switch.
#include <catch2/catch.hpp>

#include "models/config/scenario.hpp"
#include "models/ib/opcodes.hpp"
#include "testbench/tests/hca/verbs_rig.hpp"

using namespace hcasim;
using namespace hcasim::test;
using transport::QpState;
using transport::WcStatus;
using transport::WrOpcode;

TEST_CASE("UD: Q_Key check and the 40-byte GRH space and a message over the MTU") {
  workloads::ConnectionParams params;
  params.type = transport::QpType::Ud;
  params.qkey = 0x1234;
  link::PortConfig port;
  port.mtu = 1024;
  Pair t(params, port);
  const WireLog& wire_a = t.rig.log(0);
  fill(t.a(), kSrc, 4096, 9);
  for (unsigned i = 0; i < 3; ++i) REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(i, kDst + i * 4096, 2048, t.mb.lkey)).empty());
  const auto ud = [&](uint64_t id, uint32_t len, uint32_t qkey) {
    transport::SendWr w = send_wr(id, WrOpcode::SendWithImm, kSrc, len, t.ma.lkey);
    w.ah.dlid = t.b().lid(0);
    w.remote_qpn = t.qb.qpn;
    w.remote_qkey = qkey;
    w.imm_data = 0xABCD0000u + static_cast<uint32_t>(id);
    return w;
  };
  REQUIRE(t.a().post_send(t.qa.qpn, ud(0, 1000, 0x1234)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, ud(1, 500, 0x9999)).empty());  // wrong Q_Key: dropped by B
  REQUIRE(t.a().post_send(t.qa.qpn, ud(2, 300, 0x1234)).empty());
  t.rig.run();
  CHECK(wire_a.with_opcode(ib::op::kUdSendOnlyImm).size() == 3);
  const auto ca = drain_cq(t.a(), t.qa.cq);
  REQUIRE(ca.size() == 3);  // UD completes once sent: nothing comes back
  for (const auto& c : ca) CHECK(c.status == WcStatus::Success);
  const auto cb = drain_cq(t.b(), t.qb.cq);
  REQUIRE(cb.size() == 2);
  CHECK(cb[0].byte_len == 1000 + 40);
  CHECK(cb[0].src_qp == t.qa.qpn);
  CHECK(cb[0].slid == t.a().lid(0));
  CHECK(cb[0].with_imm);
  CHECK(cb[0].imm_data == 0xABCD0000u);
  CHECK(cb[1].byte_len == 300 + 40);
  CHECK(bytes(t.b(), kDst + 40, 1000) == bytes(t.a(), kSrc, 1000));
  CHECK(bytes(t.b(), kDst + 4096 + 40, 300) == bytes(t.a(), kSrc, 300));
  CHECK(t.qp_b().stats.dropped == 1);

  // Over the MTU: a local length error and the send queue in error (SQE).
  REQUIRE(t.a().post_send(t.qa.qpn, ud(3, 2000, 0x1234)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, ud(4, 10, 0x1234)).empty());
  t.rig.run();
  const auto err = drain_cq(t.a(), t.qa.cq);
  REQUIRE(err.size() == 2);
  CHECK(err[0].status == WcStatus::LocLenErr);
  CHECK(err[1].status == WcStatus::WrFlushErr);
  CHECK(t.qp_a().state == QpState::Sqe);
}

TEST_CASE("UC: SEND and RDMA WRITE without acknowledgements") {
  workloads::ConnectionParams params;
  params.type = transport::QpType::Uc;
  params.mtu = 512;
  link::PortConfig port;
  port.mtu = 512;
  Pair t(params, port);
  const WireLog& wire_b = t.rig.log(1);
  fill(t.a(), kSrc, 8192, 4);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(50, kDst, 4096, t.mb.lkey)).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 3000, t.ma.lkey)).empty());
  transport::SendWr w = send_wr(1, WrOpcode::RdmaWrite, kSrc + 4096, 2000, t.ma.lkey);
  w.remote_addr = kDst + 0x10000;
  w.rkey = t.mb.rkey;
  REQUIRE(t.a().post_send(t.qa.qpn, w).empty());
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(2, WrOpcode::RdmaRead, kSrc, 8, t.ma.lkey)).size() > 0);  // no READ on UC
  t.rig.run();
  CHECK(wire_b.records.empty());  // B sends nothing back
  const auto ca = drain_cq(t.a(), t.qa.cq);
  REQUIRE(ca.size() == 2);
  CHECK(ca[0].status == WcStatus::Success);
  CHECK(ca[1].status == WcStatus::Success);
  const auto cb = drain_cq(t.b(), t.qb.cq);
  REQUIRE(cb.size() == 1);
  CHECK(cb[0].byte_len == 3000);
  CHECK(bytes(t.b(), kDst, 3000) == bytes(t.a(), kSrc, 3000));
  CHECK(bytes(t.b(), kDst + 0x10000, 2000) == bytes(t.a(), kSrc + 4096, 2000));
}

TEST_CASE("RC across a switch: mixed operations complete with the right bytes") {
  const auto json = nlohmann::json::parse(R"({"topology": {"pattern": "single_switch", "hosts": 4},
                                              "port": {"mtu": 2048}})");
  const config::Scenario s = config::load_scenario(json);
  VerbsRig rig(config::route_fabric(s).spec);
  workloads::ConnectionParams params;
  params.mtu = 2048;
  params.psn_a = 0xFFFFF0;
  const auto [qa, qb] = workloads::connect(rig.driver(0), 0, rig.driver(3), 0, params);
  host::Driver& a = rig.driver(0);
  host::Driver& b = rig.driver(3);
  const uint32_t all = transport::kLocalWrite | transport::kRemoteWrite | transport::kRemoteRead |
                       transport::kRemoteAtomic;
  const hca::MemoryRegion ma = a.reg_mr(0, 1 << 26, all), mb = b.reg_mr(0, 1 << 26, all);
  fill(a, kSrc, 1 << 20, 1);
  fill(b, 0x2000000, 1 << 20, 2);
  REQUIRE(b.post_recv(qb.qpn, recv_wr(0, kDst, 1 << 20, mb.lkey)).empty());
  REQUIRE(a.post_send(qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 100000, ma.lkey)).empty());
  transport::SendWr w = send_wr(1, WrOpcode::RdmaWrite, kSrc, 70000, ma.lkey);
  w.remote_addr = 0x3000000;
  w.rkey = mb.rkey;
  REQUIRE(a.post_send(qa.qpn, w).empty());
  transport::SendWr r = send_wr(2, WrOpcode::RdmaRead, 0x1000000, 50000, ma.lkey);
  r.remote_addr = 0x2000000;
  r.rkey = mb.rkey;
  REQUIRE(a.post_send(qa.qpn, r).empty());
  transport::SendWr fa = send_wr(3, WrOpcode::AtomicFetchAdd, 0x1800000, 8, ma.lkey);
  fa.remote_addr = 0x3800000;
  fa.rkey = mb.rkey;
  fa.compare_add = 5;
  REQUIRE(a.post_send(qa.qpn, fa).empty());
  rig.run();
  REQUIRE(rig.checker().ok());
  const auto ca = drain_cq(a, qa.cq);
  REQUIRE(ca.size() == 4);
  for (const auto& c : ca) CHECK(c.status == WcStatus::Success);
  CHECK(bytes(b, kDst, 100000) == bytes(a, kSrc, 100000));
  CHECK(bytes(b, 0x3000000, 70000) == bytes(a, kSrc, 70000));
  CHECK(bytes(a, 0x1000000, 50000) == bytes(b, 0x2000000, 50000));
  CHECK(b.memory().read_u64(0x3800000) == 5);
  CHECK(a.memory().read_u64(0x1800000) == 0);
  CHECK(rig.fabric().switch_at(0).stats().forwarded > 0);
}

TEST_CASE("Verbs calls that libibverbs refuses come back with a reason") {
  link::PortConfig port;
  port.mtu = 1024;
  VerbsRig rig(config::back_to_back(port, port, link::LinkConfig{}));
  host::Driver& a = rig.driver(0);
  const uint32_t cq = a.create_cq(16);
  transport::QpInit init;
  init.send_cq = init.recv_cq = cq;
  init.max_send_wr = 1;
  const uint32_t qpn = a.create_qp(init);
  CHECK(qpn >= 2);  // QP0 and QP1 are management's
  CHECK(a.post_send(qpn, send_wr(0, WrOpcode::Send, 0, 8, 0)).find("RTS") != std::string::npos);
  transport::QpAttr attr;
  attr.qp_state = QpState::Rtr;
  CHECK(a.modify_qp(qpn, attr, transport::kAttrState).find("RTR") != std::string::npos);  // RESET -> RTR
  workloads::ConnectionParams p;
  p.mtu = 2048;  // larger than the port's
  workloads::QpEnd end{&a, 0, qpn, cq};
  CHECK_THROWS_WITH(workloads::bring_up(end, 9, 9, 0, 0, p), Catch::Contains("exceeds the MTU of port 1"));
  CHECK_THROWS(a.create_qp(transport::QpInit{transport::QpType::Rc, 5, 5}));
}

TEST_CASE("A full work queue refuses a WR and names the limit") {
  workloads::ConnectionParams params;
  params.max_send_wr = 1;
  params.max_recv_wr = 1;
  Pair t(params);
  REQUIRE(t.b().post_recv(t.qb.qpn, recv_wr(0, kDst, 64, t.mb.lkey)).empty());
  CHECK(t.b().post_recv(t.qb.qpn, recv_wr(1, kDst, 64, t.mb.lkey)) == "recv queue full: max_recv_wr 1");
  REQUIRE(t.a().post_send(t.qa.qpn, send_wr(0, WrOpcode::Send, kSrc, 64, t.ma.lkey)).empty());
  CHECK(t.a().post_send(t.qa.qpn, send_wr(1, WrOpcode::Send, kSrc, 64, t.ma.lkey)) == "send queue full: max_send_wr 1");
  t.rig.run();
  CHECK(statuses(drain_cq(t.a(), t.qa.cq)) == std::vector<WcStatus>{WcStatus::Success});
}
