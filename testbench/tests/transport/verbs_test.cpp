// Verbs vocabulary: numeric values equal libibverbs' (iba-facts 5) and every
// name round-trips.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "models/transport/verbs.hpp"

using namespace hcasim::transport;

TEST_CASE("WcStatus values are the IBV_WC status values") {
  // iba-facts 5: IBV_WC_SUCCESS = 0 ... IBV_WC_GENERAL_ERR = 21, in this order.
  CHECK(static_cast<int>(WcStatus::Success) == 0);
  CHECK(static_cast<int>(WcStatus::LocLenErr) == 1);
  CHECK(static_cast<int>(WcStatus::LocQpOpErr) == 2);
  CHECK(static_cast<int>(WcStatus::LocEecOpErr) == 3);
  CHECK(static_cast<int>(WcStatus::LocProtErr) == 4);
  CHECK(static_cast<int>(WcStatus::WrFlushErr) == 5);
  CHECK(static_cast<int>(WcStatus::MwBindErr) == 6);
  CHECK(static_cast<int>(WcStatus::BadRespErr) == 7);
  CHECK(static_cast<int>(WcStatus::LocAccessErr) == 8);
  CHECK(static_cast<int>(WcStatus::RemInvReqErr) == 9);
  CHECK(static_cast<int>(WcStatus::RemAccessErr) == 10);
  CHECK(static_cast<int>(WcStatus::RemOpErr) == 11);
  CHECK(static_cast<int>(WcStatus::RetryExcErr) == 12);
  CHECK(static_cast<int>(WcStatus::RnrRetryExcErr) == 13);
  CHECK(static_cast<int>(WcStatus::LocRddViolErr) == 14);
  CHECK(static_cast<int>(WcStatus::RemInvRdReqErr) == 15);
  CHECK(static_cast<int>(WcStatus::RemAbortErr) == 16);
  CHECK(static_cast<int>(WcStatus::InvEecnErr) == 17);
  CHECK(static_cast<int>(WcStatus::InvEecStateErr) == 18);
  CHECK(static_cast<int>(WcStatus::FatalErr) == 19);
  CHECK(static_cast<int>(WcStatus::RespTimeoutErr) == 20);
  CHECK(static_cast<int>(WcStatus::GeneralErr) == 21);
}

TEST_CASE("QpState values are the IBV_QPS values") {
  CHECK(static_cast<int>(QpState::Reset) == 0);
  CHECK(static_cast<int>(QpState::Init) == 1);
  CHECK(static_cast<int>(QpState::Rtr) == 2);
  CHECK(static_cast<int>(QpState::Rts) == 3);
  CHECK(static_cast<int>(QpState::Sqd) == 4);
  CHECK(static_cast<int>(QpState::Sqe) == 5);
  CHECK(static_cast<int>(QpState::Err) == 6);
}

TEST_CASE("Access and attribute mask bits are the IBV_ACCESS and IBV_QP values") {
  CHECK(kLocalWrite == 1);
  CHECK(kRemoteWrite == 2);
  CHECK(kRemoteRead == 4);
  CHECK(kRemoteAtomic == 8);
  CHECK(kAttrState == 1);
  CHECK(kAttrCurState == 2);
  CHECK(kAttrAccessFlags == 8);
  CHECK(kAttrPkeyIndex == 16);
  CHECK(kAttrPort == 32);
  CHECK(kAttrQkey == 64);
  CHECK(kAttrAv == 128);
  CHECK(kAttrPathMtu == 256);
  CHECK(kAttrTimeout == 512);
  CHECK(kAttrRetryCnt == 1024);
  CHECK(kAttrRnrRetry == 2048);
  CHECK(kAttrRqPsn == 4096);
  CHECK(kAttrMaxQpRdAtomic == 8192);
  CHECK(kAttrMinRnrTimer == 32768);
  CHECK(kAttrSqPsn == 65536);
  CHECK(kAttrMaxDestRdAtomic == 131072);
  CHECK(kAttrDestQpn == 1048576);
}

TEST_CASE("WcStatus names are the lower-case IBV names and round-trip") {
  const char* names[] = {"success",        "loc_len_err",       "loc_qp_op_err",      "loc_eec_op_err",
                         "loc_prot_err",   "wr_flush_err",      "mw_bind_err",        "bad_resp_err",
                         "loc_access_err", "rem_inv_req_err",   "rem_access_err",     "rem_op_err",
                         "retry_exc_err",  "rnr_retry_exc_err", "loc_rdd_viol_err",   "rem_inv_rd_req_err",
                         "rem_abort_err",  "inv_eecn_err",      "inv_eec_state_err",  "fatal_err",
                         "resp_timeout_err", "general_err"};
  for (int i = 0; i <= static_cast<int>(WcStatus::GeneralErr); ++i) {
    auto s = static_cast<WcStatus>(i);
    CHECK(std::string(to_string(s)) == names[i]);
    WcStatus back = WcStatus::GeneralErr;
    REQUIRE(parse(names[i], back));
    CHECK(back == s);
  }
}

TEST_CASE("WrOpcode names round-trip") {
  const char* names[] = {"send",      "send_with_imm",  "send_with_inv",   "rdma_write",
                         "rdma_write_with_imm", "rdma_read", "atomic_cmp_swp", "atomic_fetch_add"};
  for (int i = 0; i <= static_cast<int>(WrOpcode::AtomicFetchAdd); ++i) {
    auto o = static_cast<WrOpcode>(i);
    CHECK(std::string(to_string(o)) == names[i]);
    WrOpcode back = WrOpcode::AtomicFetchAdd;
    REQUIRE(parse(names[i], back));
    CHECK(back == o);
  }
}

TEST_CASE("QpState QpType and WcOpcode names") {
  const char* states[] = {"reset", "init", "rtr", "rts", "sqd", "sqe", "err"};
  for (int i = 0; i <= static_cast<int>(QpState::Err); ++i)
    CHECK(std::string(to_string(static_cast<QpState>(i))) == states[i]);
  CHECK(std::string(to_string(QpType::Rc)) == "rc");
  CHECK(std::string(to_string(QpType::Uc)) == "uc");
  CHECK(std::string(to_string(QpType::Ud)) == "ud");
  const char* wc[] = {"send", "rdma_write", "rdma_read", "comp_swap", "fetch_add", "recv", "recv_rdma_with_imm"};
  for (int i = 0; i <= static_cast<int>(WcOpcode::RecvRdmaWithImm); ++i)
    CHECK(std::string(to_string(static_cast<WcOpcode>(i))) == wc[i]);
}

TEST_CASE("unknown names do not parse and leave the output alone") {
  WcStatus s = WcStatus::FatalErr;
  CHECK_FALSE(parse("SUCCESS", s));  // names are lower case
  CHECK_FALSE(parse("", s));
  CHECK_FALSE(parse(nullptr, s));
  CHECK(s == WcStatus::FatalErr);
  WrOpcode o = WrOpcode::RdmaRead;
  CHECK_FALSE(parse("rdma_wr", o));
  CHECK(o == WrOpcode::RdmaRead);
}

TEST_CASE("a value outside an enum names itself unknown") {
  CHECK(std::string(to_string(static_cast<WcStatus>(99))) == "unknown");
  CHECK(std::string(to_string(static_cast<QpState>(7))) == "unknown");
}
