// SaServer driven directly with hand-made MADs. Numbers from seeds/000 (Fragment
// Flag bits, 192-byte areas, Invalid Attribute for a Resend of data no longer
// held, Segment Timeout 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue)
// and seeds/003 (Config only from MasterSMLID).

#include <catch2/catch.hpp>

#include "models/ib/be_bytes.hpp"
#include "models/ib/mad_attributes.hpp"
#include "testbench/tests/mgmt/sa_loop.hpp"

using namespace hcasim;
using namespace hcasim::mgmt;
using hcasim::mgmt::test::declare_tables;
using hcasim::mgmt::test::path_body;

namespace {

ib::SaMad request(uint8_t method, uint16_t attr, uint64_t tid) {
  ib::SaMad m;
  m.hdr.mgmt_class = ib::kClassSubnAdm;
  m.hdr.method = method;
  m.hdr.tid = tid;
  m.hdr.attr_id = attr;
  return m;
}

MadAddress at(uint16_t lid) {
  MadAddress a;
  a.lid = lid;
  return a;
}

SaServerConfig quick() {
  SaServerConfig c;
  c.processing_ps = 0;
  c.per_record_ps = 0;
  c.packet_gap_ps = 0;
  c.master_sm_lid = 1;
  return c;
}

void fill(SaDatabase& db, unsigned n) {
  declare_tables(db);
  for (unsigned i = 0; i < n; ++i) {
    const auto b = path_body(static_cast<uint16_t>(i + 2));
    db.add(ib::kAttrPathRecord, b.data(), b.size());
  }
}

}  // namespace

TEST_CASE("SA server answers Get with GetResp and the SA statuses", "[sa_server]") {
  SaDatabase db;
  fill(db, 4);
  SaServer sa(db, quick());
  std::vector<SaSend> out;
  ib::SaMad g = request(ib::kMethodGet, ib::kAttrPathRecord, 1);
  g.component_mask = 1u << 4;  // DLID
  auto b = path_body(3);
  std::copy(b.begin(), b.end(), g.data.begin());
  sa.on_request(g, at(5), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].to.lid == 5);
  CHECK(out[0].mad.hdr.method == 0x81);
  CHECK(out[0].mad.hdr.tid == 1);
  CHECK(out[0].mad.hdr.status == 0);
  CHECK(out[0].mad.segment == 0);        // a single-packet response
  CHECK(out[0].mad.fragment_flag == 0);
  CHECK(out[0].mad.payload_length == 68u);
  CHECK(ib::get_be32(out[0].mad.data.data()) == 2u);  // RID of DLID 3

  out.clear();
  b = path_body(77);
  std::copy(b.begin(), b.end(), g.data.begin());
  g.hdr.tid = 2;
  sa.on_request(g, at(5), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.status == 0x0300);  // no records

  out.clear();
  g.component_mask = 0;  // every record matches
  g.hdr.tid = 3;
  sa.on_request(g, at(5), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.status == 0x0400);  // too many records
}

TEST_CASE("SA server ClassPortInfo carries RespTimeValue", "[sa_server]") {
  SaDatabase db;
  fill(db, 0);
  SaServerConfig c = quick();
  c.resp_time_value = 17;
  SaServer sa(db, c);
  std::vector<SaSend> out;
  sa.on_request(request(ib::kMethodGet, ib::kAttrClassPortInfo, 9), at(5), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.method == 0x81);
  CHECK(out[0].mad.hdr.attr_id == 0x0001);
  // Bytes 4-7: CapabilityMask2 (27 bits) and RespTimeValue (5 bits).
  CHECK((ib::get_be32(out[0].mad.data.data() + 4) & 0x1F) == 17u);
}

TEST_CASE("SA server answers a Resend of acknowledged data with Invalid Attribute", "[sa_server]") {
  SaDatabase db;
  fill(db, 10);  // 680 bytes: 4 segments
  SaServer sa(db, quick());
  std::vector<SaSend> out;
  sa.on_request(request(ib::kMethodGetTable, ib::kAttrPathRecord, 4), at(5), 0, out);
  REQUIRE(out.size() == 4);
  CHECK(out[3].mad.fragment_flag == 0x04);
  CHECK(out[3].mad.payload_length == 680u - 3 * 192);
  ib::SaMad ack = request(ib::kMethodGetTable, ib::kAttrPathRecord, 4);
  ack.fragment_flag = 0x20;
  ack.segment = 4;
  out.clear();
  sa.on_request(ack, at(5), 10, out);
  CHECK(out.empty());
  CHECK(sa.active() == 0);
  ib::SaMad rs = ack;
  rs.fragment_flag = 0x08;
  rs.segment = 2;
  sa.on_request(rs, at(5), 20, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.status == 0x001C);  // Invalid Attribute, IBA 13.4.7 code 7
  CHECK(out[0].mad.hdr.method == 0x92);
  // A Resend for a transaction the SA never saw: the same.
  out.clear();
  rs.hdr.tid = 99;
  sa.on_request(rs, at(5), 30, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.status == 0x001C);
}

TEST_CASE("SA server KeepAlives go below the Segment Timeout until the answer is ready", "[sa_server]") {
  SaDatabase db;
  fill(db, 3);
  SaServerConfig c = quick();
  c.processing_ps = 50'000'000;  // 50 us
  c.subnet_timeout = 1;          // Segment Timeout 8.192 + 4.096 = 12.288 us
  SaServer sa(db, c);
  CHECK(sa.segment_timeout_ps() == 12'288'000);
  std::vector<SaSend> out;
  sa.on_request(request(ib::kMethodGetTable, ib::kAttrPathRecord, 1), at(5), 0, out);
  CHECK(out.empty());
  std::vector<uint64_t> ka;
  uint64_t answer = 0;
  while (sa.deadline_ps() != kMpNever && answer == 0) {
    const uint64_t t = sa.deadline_ps();
    out.clear();
    sa.on_timer(t, out);
    for (const auto& s : out) {
      if (s.mad.fragment_flag == 0x80) ka.push_back(t);
      else answer = t;
    }
  }
  CHECK(answer == 50'000'000);
  REQUIRE(ka.size() >= 4);
  CHECK(ka.front() < 12'288'000);
  for (size_t i = 1; i < ka.size(); ++i) CHECK(ka[i] - ka[i - 1] < 12'288'000);
  CHECK(ka.back() < answer);
}

TEST_CASE("SA server refuses a Config from a non-master LID", "[sa_server]") {
  SaDatabase db, ref;
  fill(db, 3);
  fill(ref, 3);
  SaServer sa(db, quick());
  ib::SaMad cfg = request(ib::kMethodConfig, ib::kAttrPathRecord, 7);
  cfg.edit_modifier = static_cast<uint8_t>(ib::EditModifier::Add);
  const auto b = path_body(500);
  std::copy(b.begin(), b.end(), cfg.data.begin());
  cfg.payload_length = 64;
  std::vector<SaSend> out;
  sa.on_request(cfg, at(2), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.method == 0x96);
  CHECK(out[0].mad.hdr.status == 0x0700);
  CHECK(db == ref);
  // From the master, the same single-packet Config is applied.
  out.clear();
  sa.on_request(cfg, at(1), 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.status == 0);
  CHECK(db.size(ib::kAttrPathRecord) == 4);
}

TEST_CASE("SA server answers a repeated Set again without applying it twice", "[sa_server]") {
  SaDatabase db;
  fill(db, 3);
  SaServer sa(db, quick());
  ib::SaMad del = request(ib::kMethodDelete, ib::kAttrPathRecord, 11);
  del.component_mask = 1u << 4;
  const auto b = path_body(3);
  std::copy(b.begin(), b.end(), del.data.begin());
  std::vector<SaSend> out;
  sa.on_request(del, at(5), 0, out);
  sa.on_request(del, at(5), 5, out);  // the requester retried
  REQUIRE(out.size() == 2);
  CHECK(out[0].mad.hdr.method == 0x95);
  CHECK(out[0].mad.hdr.status == 0);
  CHECK(out[1].mad.hdr.status == 0);  // the same answer, not "no records"
  CHECK(db.size(ib::kAttrPathRecord) == 2);
  // The same TID from another requester is another transaction.
  out.clear();
  sa.on_request(del, at(6), 5, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].to.lid == 6);
  CHECK(out[0].mad.hdr.status == 0x0300);
}
