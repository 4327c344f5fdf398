// SaClient driven directly. Numbers from seeds/000: Response Timeout =
// 2 x 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue, Segment
// Timeout = 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue, at most
// 7 retries; a KeepAlive re-arms the timer to the Segment Timeout; Window 64.

#include <catch2/catch.hpp>

#include "models/mgmt/sa_client.hpp"

using namespace hcasim;
using namespace hcasim::mgmt;

TEST_CASE("SA client builds requests with distinct TIDs and the window", "[sa_client]") {
  SaClientConfig c;
  c.sa.lid = 3;
  c.tid_base = 0x500000000ull;
  SaClient cl(c);
  std::vector<SaSend> out;
  const uint64_t t1 = cl.get_table(ib::kAttrPathRecord, 1u << 4, std::vector<uint8_t>(64, 0), 0, out);
  const uint64_t t2 = cl.get_bulk(0, out);
  REQUIRE(out.size() == 2);
  CHECK(t1 != t2);
  CHECK(t1 > c.tid_base);
  CHECK(out[0].to.lid == 3);
  CHECK(out[0].to.qpn == 1);
  CHECK(out[0].mad.hdr.mgmt_class == 0x03);
  CHECK(out[0].mad.hdr.method == 0x12);
  CHECK(out[0].mad.window == 64);
  CHECK(out[0].mad.component_mask == (1u << 4));
  CHECK(out[1].mad.hdr.method == 0x14);
  CHECK(cl.active() == 2);
}

TEST_CASE("SA client retries at the Response Timeout then times out", "[sa_client]") {
  struct Pair {
    uint8_t st, rtv;
    uint64_t rt;
  };
  for (const Pair p : {Pair{0, 0, 12'288'000}, Pair{2, 5, 2 * 16'384'000 + 131'072'000ull},
                       Pair{8, 8, 3 * 1'048'576'000ull}}) {
    SaClientConfig c;
    c.subnet_timeout = p.st;
    c.resp_time_value = p.rtv;
    SaClient cl(c);
    CHECK(cl.timeouts().response_ps == p.rt);
    std::vector<SaSend> out;
    cl.get(ib::kAttrPathRecord, 0, {}, 1000, out);
    for (unsigned k = 1; k <= 7; ++k) {
      REQUIRE(cl.deadline_ps() == 1000 + k * p.rt);
      out.clear();
      cl.on_timer(cl.deadline_ps(), out);
      REQUIRE(out.size() == 1);
      CHECK(out[0].mad.hdr.method == 0x01);
    }
    CHECK(cl.completions().empty());
    out.clear();
    cl.on_timer(1000 + 8 * p.rt, out);
    CHECK(out.empty());
    const auto done = cl.take_completions();
    REQUIRE(done.size() == 1);
    CHECK(done[0].result == SaResult::Timeout);
    CHECK(done[0].stats.request_retries == 7);
  }
}

TEST_CASE("SA client KeepAlive re-arms the timer to the Segment Timeout", "[sa_client]") {
  SaClientConfig c;
  c.subnet_timeout = 1;  // Response 2 x 8.192 + 4.096 = 20.48 us, Segment 12.288 us
  SaClient cl(c);
  std::vector<SaSend> out;
  const uint64_t tid = cl.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
  CHECK(cl.deadline_ps() == 20'480'000);
  ib::SaMad ka;
  ka.hdr.mgmt_class = ib::kClassSubnAdm;
  ka.hdr.method = 0x92;
  ka.hdr.tid = tid;
  ka.fragment_flag = 0x80;
  out.clear();
  cl.on_mad(ka, MadAddress{}, 15'000'000, out);
  CHECK(out.empty());
  CHECK(cl.deadline_ps() == 15'000'000 + 12'288'000);
}

TEST_CASE("SA client completes with the MAD status of an error answer", "[sa_client]") {
  SaClient cl(SaClientConfig{});
  std::vector<SaSend> out;
  const uint64_t tid = cl.get(ib::kAttrPathRecord, 0, {}, 0, out);
  ib::SaMad r;
  r.hdr.mgmt_class = ib::kClassSubnAdm;
  r.hdr.method = 0x81;
  r.hdr.tid = tid;
  r.hdr.status = ib::kSaStatusNoRecords;
  cl.on_mad(r, MadAddress{}, 100, out);
  const auto done = cl.take_completions();
  REQUIRE(done.size() == 1);
  CHECK(done[0].tid == tid);
  CHECK(done[0].result == SaResult::Status);
  CHECK(done[0].status == 0x0300);
  CHECK(cl.active() == 0);
}

TEST_CASE("SA client Config of 100 packets stops at 64 until the Ack", "[sa_client]") {
  SaClientConfig c;
  c.packet_gap_ps = 0;
  SaClient cl(c);
  std::vector<SaSend> out;
  const uint64_t tid = cl.config(ib::EditModifier::Add, ib::kAttrPathRecord,
                                 std::vector<uint8_t>(100 * 192, 0xAB), 0, 0, 0, 0, out);
  REQUIRE(out.size() == 64);  // seeds/000: 64 packets before the first Ack
  CHECK(out[0].mad.fragment_flag == 0x01);
  CHECK(out[0].mad.payload_length == 19'200u);
  CHECK(out[0].mad.edit_modifier == static_cast<uint8_t>(ib::EditModifier::Add));
  CHECK(out[63].mad.segment == 64);
  ib::SaMad ack;
  ack.hdr.mgmt_class = ib::kClassSubnAdm;
  ack.hdr.method = 0x96;
  ack.hdr.tid = tid;
  ack.fragment_flag = 0x20;
  ack.segment = 64;
  ack.window = 10;  // below 64: 64 is used
  out.clear();
  cl.on_mad(ack, MadAddress{}, 1000, out);
  REQUIRE(out.size() == 36);
  CHECK(out[35].mad.segment == 100);
  CHECK(out[35].mad.fragment_flag == 0x04);
  ib::SaMad resp = ack;
  resp.fragment_flag = 0;
  resp.segment = 0;
  out.clear();
  cl.on_mad(resp, MadAddress{}, 2000, out);
  const auto done = cl.take_completions();
  REQUIRE(done.size() == 1);
  CHECK(done[0].result == SaResult::Ok);
}
