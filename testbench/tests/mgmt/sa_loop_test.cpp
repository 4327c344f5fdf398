// SaClient and SaServer back to back (sa_loop.hpp). Numbers from seeds/000:
// 192-byte Admin Data Areas, Fragment Flag First 0x01 / Last 0x04 / Resend
// 0x08 / Ack 0x20 / KeepAlive 0x80 (Table 33-11), default window 64, at most
// 7 retries and 7 Resends; Response Timeout 2 x 4.096 us x 2^SubnetTimeout +
// 4.096 us x 2^RespTimeValue. seeds/003: Config add / delete / edit, window 64,
// ConfigResp with zero Admin Data, SLID checked against MasterSMLID.
// A PathRecord is 64 bytes (iba-facts 6) and travels as RID (4) + body.

#include <catch2/catch.hpp>

#include <algorithm>

#include "models/ib/be_bytes.hpp"
#include "models/ib/mad_attributes.hpp"
#include "testbench/tests/mgmt/sa_loop.hpp"

using namespace hcasim;
using namespace hcasim::mgmt;
using hcasim::mgmt::test::Fate;
using hcasim::mgmt::test::SaLoop;
using hcasim::mgmt::test::declare_tables;
using hcasim::mgmt::test::link_body;
using hcasim::mgmt::test::path_body;

namespace {

constexpr uint16_t kMaster = 1;

SaServerConfig server_cfg() {
  SaServerConfig c;
  c.master_sm_lid = kMaster;
  c.processing_ps = 2'000'000;
  c.per_record_ps = 0;
  c.packet_gap_ps = 100'000;
  return c;
}

bool is(const ib::SaMad& m, uint8_t method) { return m.hdr.method == method; }

void fill_paths(SaDatabase& db, unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    const auto b = path_body(static_cast<uint16_t>(i + 2), 1, static_cast<uint8_t>(i % 16));
    REQUIRE(db.add(ib::kAttrPathRecord, b.data(), b.size()) == SaDbStatus::Ok);
  }
}

// The records of a GetTable answer are RIDs 1..n, in order, with the bodies added.
void check_paths(const std::vector<uint8_t>& data, unsigned n) {
  ib::RecordReader rd(data.data(), data.size(), ib::PathRecord::kBytes, true);
  uint32_t rid = 0;
  const uint8_t* body = nullptr;
  unsigned i = 0;
  while (rd.next(rid, body)) {
    INFO("record " << i);
    REQUIRE(rid == i + 1);
    const auto want = path_body(static_cast<uint16_t>(i + 2), 1, static_cast<uint8_t>(i % 16));
    REQUIRE(std::equal(want.begin(), want.end(), body));
    ++i;
  }
  CHECK(rd.complete());
  CHECK(i == n);
}

SaCompletion only(SaClient& c) {
  auto v = c.take_completions();
  REQUIRE(v.size() == 1);
  return v[0];
}

}  // namespace

TEST_CASE("GetTable of 1000 PathRecords follows the multi-packet response protocol", "[sa_loop]") {
  SaDatabase db;
  declare_tables(db);
  fill_paths(db, 1000);
  SaLoop loop(db, server_cfg(), SaClientConfig{});
  std::vector<SaSend> out;
  loop.client.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mad.hdr.method == 0x12);
  CHECK(out[0].mad.window == 64);
  CHECK(out[0].mad.fragment_flag == 0);  // step 1: a single-packet request
  CHECK(out[0].mad.segment == 0);
  loop.from_client(out);
  loop.run();

  const SaCompletion c = only(loop.client);
  REQUIRE(c.result == SaResult::Ok);
  CHECK(c.records == 1000);
  CHECK(c.data.size() == 68'000u);  // 1000 x (4 + 64)
  check_paths(c.data, 1000);

  // 68,000 bytes = 354 full 192-byte areas + 32 bytes: 355 segments.
  const auto data = loop.sent(false, [](const ib::SaMad& m) { return is(m, 0x92); });
  REQUIRE(data.size() == 355);
  for (uint32_t i = 0; i < 355; ++i) {
    const ib::SaMad& m = data[i].mad;
    INFO("segment " << i + 1);
    CHECK(m.segment == i + 1);
    CHECK(m.window == 64);
    CHECK(m.hdr.status == 0);
    if (i == 0) {
      CHECK(m.fragment_flag == 0x01);
      CHECK(m.payload_length == 68'000u);
    } else if (i == 354) {
      CHECK(m.fragment_flag == 0x04);
      CHECK(m.payload_length == 32u);
    } else {
      CHECK(m.fragment_flag == 0);
      CHECK(m.payload_length == 0u);
    }
    if (i > 0) CHECK(data[i].t_ps >= data[i - 1].t_ps + 100'000);  // paced
  }
  // Steps 7 and 10: Acks at 64, 128, 192, 256, 320 and after Last (355).
  const auto acks = loop.sent(true, [](const ib::SaMad& m) { return m.fragment_flag == 0x20; });
  std::vector<uint32_t> ack_segs;
  for (const auto& a : acks) ack_segs.push_back(a.mad.segment);
  CHECK(ack_segs == std::vector<uint32_t>{64, 128, 192, 256, 320, 355});
  // Step 6/8: segment 65 goes only after the Ack of 64 reached the SA.
  CHECK(data[64].t_ps >= acks[0].t_ps + loop.latency_ps);
  CHECK(loop.server.totals().completed == 1);
  CHECK(loop.server.active() == 0);
}

TEST_CASE("A dropped segment is recovered by a Resend with bit 3", "[sa_loop]") {
  SaDatabase db;
  declare_tables(db);
  fill_paths(db, 1000);
  SaLoop loop(db, server_cfg(), SaClientConfig{});
  loop.fate = [](const ib::SaMad& m, bool to_server, unsigned copy) {
    Fate f;
    f.drop = !to_server && m.segment == 100 && m.fragment_flag == 0 && copy == 0;
    return f;
  };
  std::vector<SaSend> out;
  loop.client.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
  loop.from_client(out);
  loop.run();
  const SaCompletion c = only(loop.client);
  REQUIRE(c.result == SaResult::Ok);
  check_paths(c.data, 1000);
  const auto resends = loop.sent(true, [](const ib::SaMad& m) { return m.fragment_flag & 0x08; });
  REQUIRE(resends.size() == 1);
  CHECK(resends[0].mad.fragment_flag == 0x08);
  CHECK(resends[0].mad.segment == 100);
  CHECK(c.stats.mp.resends_sent == 1);
}

TEST_CASE("A segment lost every time ends the client after at most 7 Resends", "[sa_loop]") {
  SaDatabase db;
  declare_tables(db);
  fill_paths(db, 1000);
  SaLoop loop(db, server_cfg(), SaClientConfig{});
  loop.fate = [](const ib::SaMad& m, bool to_server, unsigned) {
    Fate f;
    f.drop = !to_server && m.segment == 100 && m.hdr.method == 0x92;
    return f;
  };
  std::vector<SaSend> out;
  loop.client.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
  loop.from_client(out);
  loop.run();
  const SaCompletion c = only(loop.client);
  CHECK(c.result == SaResult::Failed);
  const auto resends = loop.sent(true, [](const ib::SaMad& m) { return m.fragment_flag & 0x08; });
  CHECK(resends.size() <= 7);
  CHECK(resends.size() >= 1);
  for (const auto& r : resends) CHECK(r.mad.segment == 100);
}

TEST_CASE("A slow SA with KeepAlives keeps the client waiting", "[sa_loop]") {
  SaDatabase db;
  declare_tables(db);
  fill_paths(db, 10);
  SaServerConfig sc = server_cfg();
  sc.processing_ps = 100'000'000;  // 100 us, Response Timeout 12.288 us
  sc.keepalives = true;
  SaLoop loop(db, sc, SaClientConfig{});
  std::vector<SaSend> out;
  loop.client.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
  loop.from_client(out);
  loop.run();
  const SaCompletion c = only(loop.client);
  REQUIRE(c.result == SaResult::Ok);
  CHECK(c.records == 10);
  CHECK(c.stats.request_retries == 0);
  const auto ka = loop.sent(false, [](const ib::SaMad& m) { return m.fragment_flag == 0x80; });
  CHECK(ka.size() >= 10);  // 100 us of processing, one at least every 8.192 us
  for (size_t i = 1; i < ka.size(); ++i) CHECK(ka[i].t_ps - ka[i - 1].t_ps < 8'192'000);
  CHECK(c.stats.keepalives == ka.size());
  // Only the one request went.
  CHECK(loop.sent(true, [](const ib::SaMad& m) { return is(m, 0x12) && m.fragment_flag == 0; }).size() == 1);
}

TEST_CASE("A slow SA without KeepAlives: retries at the Response Timeout then failure", "[sa_loop]") {
  struct Pair {
    uint8_t subnet_timeout, resp_time_value;
    uint64_t rt_ps;  // seeds/000 formula
  };
  const Pair pairs[] = {{0, 0, 12'288'000}, {1, 3, 2 * 8'192'000 + 32'768'000}, {4, 2, 2 * 65'536'000 + 16'384'000}};
  for (const Pair& pr : pairs) {
    INFO("SubnetTimeout " << int(pr.subnet_timeout) << " RespTimeValue " << int(pr.resp_time_value));
    SaDatabase db;
    declare_tables(db);
    fill_paths(db, 10);
    SaServerConfig sc = server_cfg();
    sc.keepalives = false;
    sc.processing_ps = 20 * pr.rt_ps;  // far longer than 8 Response Timeouts... of one request
    sc.subnet_timeout = pr.subnet_timeout;
    sc.resp_time_value = pr.resp_time_value;
    SaClientConfig cc;
    cc.subnet_timeout = pr.subnet_timeout;
    cc.resp_time_value = pr.resp_time_value;
    SaLoop loop(db, sc, cc);
    std::vector<SaSend> out;
    loop.client.get_table(ib::kAttrPathRecord, 0, {}, 0, out);
    loop.from_client(out);
    loop.run(20 * pr.rt_ps);
    const auto reqs = loop.sent(true, [](const ib::SaMad& m) { return is(m, 0x12) && m.fragment_flag == 0; });
    REQUIRE(reqs.size() == 8);  // the request and 7 retries
    for (size_t k = 0; k < reqs.size(); ++k) {
      CHECK(reqs[k].t_ps == k * pr.rt_ps);
      CHECK(reqs[k].mad.hdr.tid == reqs[0].mad.hdr.tid);
    }
    const SaCompletion c = only(loop.client);
    CHECK(c.result == SaResult::Timeout);
    CHECK(c.stats.end_ps == 8 * pr.rt_ps);
    CHECK(c.stats.request_retries == 7);
  }
}

namespace {

// 300 PathRecords without RIDs: 19,200 bytes = 100 Config packets.
std::vector<uint8_t> add_stream(unsigned n, uint16_t first_dlid) {
  std::vector<uint8_t> v;
  for (unsigned i = 0; i < n; ++i) {
    const auto b = path_body(static_cast<uint16_t>(first_dlid + i), 7, 3);
    ib::append_record(v, b.data(), b.size());
  }
  return v;
}

void run_config(SaLoop& loop, ib::EditModifier op, const std::vector<uint8_t>& recs, uint32_t start,
                uint32_t end, uint64_t mask) {
  std::vector<SaSend> out;
  loop.client.config(op, ib::kAttrPathRecord, recs, start, end, mask, loop.now, out);
  loop.from_client(out);
  loop.run();
}

}  // namespace

TEST_CASE("Config add edit and delete of 100 packets pauses at window 64 and matches a reference", "[sa_loop]") {
  SaDatabase db, ref;
  declare_tables(db);
  declare_tables(ref);
  fill_paths(db, 20);
  fill_paths(ref, 20);
  SaLoop loop(db, server_cfg(), SaClientConfig{}, kMaster);

  // Add 300 records: 100 packets.
  const auto adds = add_stream(300, 1000);
  run_config(loop, ib::EditModifier::Add, adds, 0, 0, 0);
  REQUIRE(ref.config_add(ib::kAttrPathRecord, adds.data(), adds.size()) == SaDbStatus::Ok);
  {
    const SaCompletion c = only(loop.client);
    REQUIRE(c.result == SaResult::Ok);
    CHECK(c.status == 0);
    const auto pkts = loop.sent(true, [](const ib::SaMad& m) { return is(m, 0x16); });
    REQUIRE(pkts.size() == 100);
    CHECK(pkts[0].mad.segment == 1);
    CHECK(pkts[0].mad.fragment_flag == 0x01);
    CHECK(pkts[0].mad.payload_length == 19'200u);
    CHECK(pkts[99].mad.fragment_flag == 0x04);
    const auto acks = loop.sent(false, [](const ib::SaMad& m) { return m.fragment_flag == 0x20; });
    REQUIRE(acks.size() == 2);
    CHECK(acks[0].mad.segment == 64);
    CHECK(acks[0].mad.window == 64);
    CHECK(acks[1].mad.segment == 100);
    // The 65th packet waits for the Ack of 64 (sent, then one latency on the wire).
    CHECK(pkts[64].t_ps >= acks[0].t_ps + loop.latency_ps);
    CHECK(pkts[63].t_ps < acks[0].t_ps);
    const auto resp = loop.sent(false, [](const ib::SaMad& m) { return is(m, 0x96) && m.fragment_flag == 0; });
    REQUIRE(resp.size() == 1);
    CHECK(resp[0].mad.payload_length == 0u);
    CHECK(std::all_of(resp[0].mad.data.begin(), resp[0].mad.data.end(), [](uint8_t b) { return b == 0; }));
  }
  CHECK(db == ref);

  // Edit the SL (bit 15) of RIDs 10..250.
  std::vector<uint8_t> content = path_body(0, 0, 9);
  const uint64_t sl_mask = 1ull << 15;
  run_config(loop, ib::EditModifier::Edit, content, 10, 250, sl_mask);
  REQUIRE(ref.config_edit(ib::kAttrPathRecord, 10, 250, sl_mask, content.data(), content.size()) == SaDbStatus::Ok);
  CHECK(only(loop.client).result == SaResult::Ok);
  CHECK(db == ref);

  // Delete RIDs 5..280 (276 records of 68 bytes: 98 packets).
  std::vector<uint8_t> dels;
  std::vector<SaRecord> all;
  REQUIRE(ref.get_table(ib::kAttrPathRecord, 0, nullptr, 0, all) == SaDbStatus::Ok);
  for (const auto& r : all)
    if (r.rid >= 5 && r.rid <= 280) append_sa_record(dels, r.rid, r.body.data(), r.body.size());
  REQUIRE(dels.size() > 64 * 192);
  run_config(loop, ib::EditModifier::Delete, dels, 0, 0, 0);
  REQUIRE(ref.config_delete(ib::kAttrPathRecord, dels.data(), dels.size()) == SaDbStatus::Ok);
  CHECK(only(loop.client).result == SaResult::Ok);
  CHECK(first_difference(db, ref) == "");
  CHECK(db.size(ib::kAttrPathRecord) == 320 - 276);
}

TEST_CASE("Config from a LID other than MasterSMLID is refused and changes nothing", "[sa_loop]") {
  SaDatabase db, before;
  declare_tables(db);
  declare_tables(before);
  fill_paths(db, 20);
  fill_paths(before, 20);
  SaLoop loop(db, server_cfg(), SaClientConfig{}, 9);  // client LID 9, master is 1
  run_config(loop, ib::EditModifier::Add, add_stream(300, 1000), 0, 0, 0);
  const SaCompletion c = only(loop.client);
  CHECK(c.result == SaResult::Status);
  CHECK(c.status == 0x0700);  // ERR_REQ_DENIED
  CHECK(db == before);
  CHECK(loop.server.totals().refused_configs == 1);
  // No Acks: the SA does not accept the stream.
  CHECK(loop.sent(false, [](const ib::SaMad& m) { return m.fragment_flag == 0x20; }).empty());
}

TEST_CASE("GetBulk while the database grows mid-transfer delivers the final contents", "[sa_loop]") {
  for (const bool grow_first_table : {false, true}) {
    INFO("grow the " << (grow_first_table ? "first (PathRecord, header already sent)" : "last (LinkRecord)")
                     << " table");
    SaDatabase db;
    declare_tables(db);
    fill_paths(db, 500);
    for (uint16_t i = 0; i < 5; ++i) {
      const auto b = link_body(i, i + 1);
      db.add(ib::kAttrLinkRecord, b.data(), b.size());
    }
    SaLoop loop(db, server_cfg(), SaClientConfig{});
    std::vector<SaSend> out;
    loop.client.get_bulk(0, out);
    loop.from_client(out);
    unsigned grown = 0;
    loop.run(100'000'000'000'000ull, [&](SaLoop& l) {
      // After segment 30 of the first transfer, add 40 records, one per event.
      const auto segs = l.sent(false, [](const ib::SaMad& m) { return is(m, 0x94) && m.segment >= 30; });
      if (!segs.empty() && grown < 40) {
        if (grow_first_table) {
          const auto b = path_body(static_cast<uint16_t>(5000 + grown));
          db.add(ib::kAttrPathRecord, b.data(), b.size());
        } else {
          const auto b = link_body(static_cast<uint16_t>(100 + grown), 7);
          db.add(ib::kAttrLinkRecord, b.data(), b.size());
        }
        ++grown;
      }
    });
    REQUIRE(grown == 40);
    const SaCompletion c = only(loop.client);
    REQUIRE(c.result == SaResult::Ok);
    CHECK(c.data == db.get_bulk());
    CHECK(c.records == 545);
    if (grow_first_table) CHECK(loop.server.totals().bulk_restarts >= 1);
    else CHECK(loop.server.totals().bulk_tail_replaced >= 1);
  }
}

TEST_CASE("Get with no match gives the no-records status and ClassPortInfo the RespTimeValue", "[sa_loop]") {
  SaDatabase db;
  declare_tables(db);
  fill_paths(db, 5);
  SaServerConfig sc = server_cfg();
  sc.resp_time_value = 9;
  SaLoop loop(db, sc, SaClientConfig{});
  std::vector<SaSend> out;
  loop.client.get(ib::kAttrPathRecord, 1u << 4, path_body(999), 0, out);  // DLID 999: none
  loop.from_client(out);
  loop.run();
  SaCompletion c = only(loop.client);
  CHECK(c.result == SaResult::Status);
  CHECK(c.status == 0x0300);  // ERR_NO_RECORDS
  out.clear();
  loop.client.get(ib::kAttrPathRecord, 1u << 4, path_body(4), loop.now, out);  // DLID 4: RID 3
  loop.from_client(out);
  loop.run();
  c = only(loop.client);
  REQUIRE(c.result == SaResult::Ok);
  REQUIRE(c.records == 1);
  CHECK(ib::get_be32(c.data.data()) == 3u);
  out.clear();
  loop.client.class_port_info(loop.now, out);
  loop.from_client(out);
  loop.run();
  c = only(loop.client);
  REQUIRE(c.result == SaResult::Ok);
  ib::ClassPortInfo cpi;
  cpi.decode(c.data.data());
  CHECK(cpi.resp_time_value == 9);
  CHECK(loop.client.config().resp_time_value == 9);  // learned
  CHECK(loop.client.timeouts().response_ps == 2 * 4'096'000 + 4'096'000ull * 512);
}
