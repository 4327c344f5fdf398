// The verbs wire's bodies (testbench/serve/verbs_wire.hpp): libibverbs'
// numbers (rdma-core 44's verbs.h, an ABI that does not change) to the
// model's, and the post requests the provider builds parsed back whole, with
// every truncation refused.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "testbench/serve/verbs_wire.hpp"

using namespace hcasim;
using namespace hcasim::serve::verbs;

namespace {

template <typename T>
void put(std::vector<uint8_t>& b, const T& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}

void pad8(std::vector<uint8_t>& b) {
  while (b.size() % 8 != 0) b.push_back(0);
}

}  // namespace

TEST_CASE("verbs wire: libibverbs' enum values map to the model's", "[serve][verbs]") {
  // verbs.h: IBV_QPT_RC 2, UC 3, UD 4; IBV_WR_RDMA_WRITE 0 ... SEND_WITH_INV 9.
  CHECK(qp_type_from_ibv(2) == transport::QpType::Rc);
  CHECK(qp_type_from_ibv(3) == transport::QpType::Uc);
  CHECK(qp_type_from_ibv(4) == transport::QpType::Ud);
  CHECK_FALSE(qp_type_from_ibv(9));  // IBV_QPT_XRC_SEND
  CHECK(wr_opcode_from_ibv(0) == transport::WrOpcode::RdmaWrite);
  CHECK(wr_opcode_from_ibv(2) == transport::WrOpcode::Send);
  CHECK(wr_opcode_from_ibv(4) == transport::WrOpcode::RdmaRead);
  CHECK(wr_opcode_from_ibv(6) == transport::WrOpcode::AtomicFetchAdd);
  CHECK(wr_opcode_from_ibv(9) == transport::WrOpcode::SendWithInv);
  CHECK_FALSE(wr_opcode_from_ibv(7));  // IBV_WR_LOCAL_INV
  CHECK(wc_opcode_to_ibv(transport::WcOpcode::Recv) == 128);
  CHECK(wc_opcode_to_ibv(transport::WcOpcode::RecvRdmaWithImm) == 129);
  CHECK(wc_opcode_to_ibv(transport::WcOpcode::FetchAdd) == 4);
  CHECK(mtu_bytes_from_ibv(1) == 256u);
  CHECK(mtu_bytes_from_ibv(5) == 4096u);
  CHECK_FALSE(mtu_bytes_from_ibv(6));
  CHECK(mtu_to_ibv(1024) == 3);
  CHECK(mtu_to_ibv(1000) == 0);
}

TEST_CASE("verbs wire: access flags and modify masks the model lacks are named, optional ones dropped",
          "[serve][verbs]") {
  uint32_t model = 0;
  CHECK(access_from_ibv(1 | 2 | 4 | (1u << 20), model).empty());  // + IBV_ACCESS_RELAXED_ORDERING
  CHECK(model == 7);
  CHECK(access_from_ibv(64, model).find("IBV_ACCESS_ON_DEMAND") != std::string::npos);
  CHECK(modify_mask_from_ibv(1 | (1u << 19), model).empty());  // STATE, and CAP (a query bit)
  CHECK(model == 1);
  CHECK(modify_mask_from_ibv(1 | (1u << 14), model).find("IBV_QP_ALT_PATH") != std::string::npos);
  transport::QpAttr a;
  hv_qp_attr w{};
  w.path_mtu = 7;
  CHECK(qp_attr_from_wire(w, transport::kAttrPathMtu, a).find("path_mtu 7") != std::string::npos);
  w.path_mtu = 3;
  w.dlid = 17;
  w.timeout = 14;
  CHECK(qp_attr_from_wire(w, transport::kAttrPathMtu | transport::kAttrAv, a).empty());
  CHECK(a.path_mtu == 1024);
  CHECK(a.ah_attr.dlid == 17);
  const hv_qp_attr back = qp_attr_to_wire(a);
  CHECK(back.path_mtu == 3);
  CHECK(back.dlid == 17);
  CHECK(back.timeout == 14);
}

TEST_CASE("verbs wire: a post_send list with gather lists and inline bytes parses back whole", "[serve][verbs]") {
  std::vector<uint8_t> b;
  put(b, hv_post{5, 2});
  hv_send_wr s{};
  s.wr_id = 11;
  s.opcode = 0;  // RDMA_WRITE
  s.send_flags = kIbvSendSignaled;
  s.remote_addr = 0x1000;
  s.rkey = 0x180;
  s.num_sge = 2;
  put(b, s);
  put(b, hv_sge{0x2000, 64, 0x100});
  put(b, hv_sge{0x3000, 32, 0x100});
  pad8(b);
  hv_send_wr t{};
  t.wr_id = 12;
  t.opcode = 2;  // SEND
  t.send_flags = kIbvSendInline | kIbvSendSolicited;
  t.num_sge = 1;
  t.inline_bytes = 5;
  t.dlid = 9;
  t.sl = 3;
  put(b, t);
  put(b, hv_sge{0x4000, 5, 0});
  for (uint8_t c : {'h', 'e', 'l', 'l', 'o'}) b.push_back(c);
  pad8(b);
  PostedSends p;
  REQUIRE(parse_post_send(b.data(), b.size(), p).empty());
  CHECK(p.qpn == 5);
  REQUIRE(p.wrs.size() == 2);
  CHECK(p.wrs[0].wr_id == 11);
  CHECK(p.wrs[0].opcode == transport::WrOpcode::RdmaWrite);
  CHECK(p.wrs[0].signaled);
  CHECK(p.wrs[0].sg_list.size() == 2);
  CHECK(p.wrs[0].sg_list[1].addr == 0x3000);
  CHECK(p.wrs[0].rkey == 0x180);
  CHECK(p.wrs[1].send_inline);
  CHECK(p.wrs[1].solicited);
  CHECK_FALSE(p.wrs[1].signaled);
  CHECK(p.wrs[1].inline_data == std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o'});
  CHECK(p.wrs[1].ah.dlid == 9);
  CHECK(p.wrs[1].ah.sl == 3);
  // Every truncation is refused, and so is a count past the body.
  for (std::size_t cut = 0; cut < b.size(); cut += 4) {
    PostedSends q;
    CHECK_FALSE(parse_post_send(b.data(), cut, q).empty());
  }
  std::vector<uint8_t> lying = b;
  lying[4] = 3;  // three WRs announced, two given
  PostedSends q;
  CHECK_FALSE(parse_post_send(lying.data(), lying.size(), q).empty());
}

TEST_CASE("verbs wire: post_recv parses its scatter lists and refuses a short body", "[serve][verbs]") {
  std::vector<uint8_t> b;
  put(b, hv_post{8, 1});
  put(b, hv_recv_wr{42, 1, 0});
  put(b, hv_sge{0x5000, 4136, 0x200});
  PostedRecvs p;
  REQUIRE(parse_post_recv(b.data(), b.size(), p).empty());
  REQUIRE(p.wrs.size() == 1);
  CHECK(p.wrs[0].wr_id == 42);
  CHECK(p.wrs[0].sg_list[0].length == 4136);
  CHECK_FALSE(parse_post_recv(b.data(), b.size() - 1, p).empty());
}

TEST_CASE("verbs wire: a completion goes out in libibverbs' terms", "[serve][verbs]") {
  transport::WorkCompletion wc;
  wc.wr_id = 3;
  wc.status = transport::WcStatus::RemAccessErr;
  wc.opcode = transport::WcOpcode::RecvRdmaWithImm;
  wc.with_imm = true;
  wc.imm_data = 0x01020304;
  wc.byte_len = 77;
  const hv_wc w = wc_to_wire(wc);
  CHECK(w.status == 10);  // IBV_WC_REM_ACCESS_ERR
  CHECK(w.opcode == 129);
  CHECK(w.wc_flags == kIbvWcWithImm);
  CHECK(w.imm_data == 0x01020304);
  CHECK(w.byte_len == 77);
}
