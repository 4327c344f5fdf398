// The SA database (models/mgmt/sa_database.hpp) on a small hand-made record
// layout, so that these tests do not depend on the real SA record layouts:
// a 16-byte body with LID at bits 0-15 (mask bit 0), port at bits 16-23 (bit 1),
// reserved bits 24-27, SL at bits 28-31 (bit 2), reserved bits 32-63, a 32-bit
// value at bits 64-95 (bit 3) and reserved bits 96-127. Key: LID + port.
// SubnAdmConfig semantics from seeds/003.

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/mgmt/sa_database.hpp"

namespace {

using hcasim::ib::RecordLayout;
using hcasim::mgmt::SaDatabase;
using hcasim::mgmt::SaDbStatus;
using hcasim::mgmt::SaRecord;
using Bytes = std::vector<uint8_t>;

constexpr uint16_t kAttr = 0x0012;     // stands for PortInfoRecord
constexpr uint16_t kAttr2 = 0x0020;    // stands for LinkRecord
constexpr uint16_t kBody = 16;
constexpr uint64_t kMaskLid = 1u << 0;
constexpr uint64_t kMaskPort = 1u << 1;
constexpr uint64_t kMaskSl = 1u << 2;
constexpr uint64_t kMaskValue = 1u << 3;
constexpr uint64_t kKey = kMaskLid | kMaskPort;

RecordLayout test_layout() {
  RecordLayout l;
  l.attr_id = kAttr;
  l.name = "TestRecord";
  l.body_bytes = kBody;
  l.fields = {{0, "LID", 0, 16}, {1, "Port", 16, 8}, {2, "SL", 28, 4}, {3, "Value", 64, 32}};
  return l;
}

// A second, 8-byte table: a 16-bit from-LID (bit 0) and a 16-bit to-LID (bit 1).
RecordLayout link_layout() {
  RecordLayout l;
  l.attr_id = kAttr2;
  l.name = "TestLink";
  l.body_bytes = 8;
  l.fields = {{0, "FromLID", 0, 16}, {1, "ToLID", 16, 16}};
  return l;
}

// A body; `reserved` fills every reserved bit (reserved nibble of byte 3 and
// bytes 4-7 and 12-15) so tests can see that masked operations leave them.
Bytes body(uint16_t lid, uint8_t port, uint8_t sl = 0, uint32_t value = 0, uint8_t reserved = 0) {
  Bytes b(kBody, reserved);
  b[0] = uint8_t(lid >> 8);
  b[1] = uint8_t(lid);
  b[2] = port;
  b[3] = uint8_t((reserved & 0xF0) | (sl & 0x0F));
  b[8] = uint8_t(value >> 24);
  b[9] = uint8_t(value >> 16);
  b[10] = uint8_t(value >> 8);
  b[11] = uint8_t(value);
  return b;
}

SaDatabase make_db() {
  SaDatabase db;
  REQUIRE(db.declare_table(test_layout(), kKey) == SaDbStatus::Ok);
  return db;
}

std::vector<uint32_t> rids_of(const SaDatabase& db, uint16_t attr = kAttr) {
  std::vector<SaRecord> recs;
  REQUIRE(db.get_table(attr, 0, nullptr, 0, recs) == SaDbStatus::Ok);
  std::vector<uint32_t> r;
  for (const SaRecord& rec : recs) r.push_back(rec.rid);
  return r;
}

Bytes record_of(const SaDatabase& db, uint32_t rid) {
  SaRecord r;
  REQUIRE(db.get_by_rid(kAttr, rid, r) == SaDbStatus::Ok);
  return r.body;
}

SaDbStatus add(SaDatabase& db, const Bytes& b, uint32_t* rid = nullptr) {
  return db.add(kAttr, b.data(), b.size(), rid);
}

}  // namespace

TEST_CASE("SA database add assigns RIDs 1 to N in RID order", "[sadb]") {
  SaDatabase db = make_db();
  for (uint16_t i = 0; i < 5; ++i) {
    uint32_t rid = 0;
    REQUIRE(add(db, body(100 - i, 1, 0, i), &rid) == SaDbStatus::Ok);
    CHECK(rid == i + 1u);
  }
  CHECK(db.size(kAttr) == 5);
  CHECK(db.next_rid(kAttr) == 6);
  std::vector<SaRecord> recs;
  REQUIRE(db.get_table(kAttr, 0, nullptr, 0, recs) == SaDbStatus::Ok);
  REQUIRE(recs.size() == 5);
  for (uint32_t i = 0; i < 5; ++i) {
    CHECK(recs[i].rid == i + 1);
    CHECK(recs[i].body == body(uint16_t(100 - i), 1, 0, i));
  }
  // A RID is never reused: after deleting the last record the next add gets 6.
  Bytes tmpl = body(96, 1);
  REQUIRE(db.del(kAttr, kMaskLid, tmpl.data(), tmpl.size()) == SaDbStatus::Ok);
  uint32_t rid = 0;
  REQUIRE(add(db, body(7, 7), &rid) == SaDbStatus::Ok);
  CHECK(rid == 6);
  CHECK(rids_of(db) == std::vector<uint32_t>{1, 2, 3, 4, 6});
}

TEST_CASE("SA database get returns the one match or no records or too many records", "[sadb]") {
  SaDatabase db = make_db();
  REQUIRE(add(db, body(1, 1, 3, 0, 0x50)) == SaDbStatus::Ok);
  REQUIRE(add(db, body(1, 2, 4)) == SaDbStatus::Ok);
  REQUIRE(add(db, body(2, 1, 3)) == SaDbStatus::Ok);
  SaRecord r;
  Bytes t = body(1, 2);
  REQUIRE(db.get(kAttr, kMaskLid | kMaskPort, t.data(), t.size(), r) == SaDbStatus::Ok);
  CHECK(r.rid == 2);
  CHECK(r.body == body(1, 2, 4));
  t = body(3, 1);
  CHECK(db.get(kAttr, kMaskLid, t.data(), t.size(), r) == SaDbStatus::NoRecords);
  t = body(1, 9);
  CHECK(db.get(kAttr, kMaskLid, t.data(), t.size(), r) == SaDbStatus::TooManyRecords);
  // SL shares byte 3 with reserved bits: a template whose reserved bits differ
  // still matches on SL alone (field-exact masking), here RID 1 and 3 -> too many,
  // and SL 4 -> only RID 2.
  t = body(0, 0, 3, 0, 0xA5);
  CHECK(db.get(kAttr, kMaskSl, t.data(), t.size(), r) == SaDbStatus::TooManyRecords);
  t = body(0, 0, 4, 0, 0xFF);
  REQUIRE(db.get(kAttr, kMaskSl, t.data(), t.size(), r) == SaDbStatus::Ok);
  CHECK(r.rid == 2);
  // A template shorter than a body, an unknown table.
  CHECK(db.get(kAttr, kMaskLid, t.data(), kBody - 1, r) == SaDbStatus::BadLength);
  CHECK(db.get(0x0035, kMaskLid, t.data(), t.size(), r) == SaDbStatus::UnknownTable);
}

TEST_CASE("SA database get_table returns every match in RID order and encodes RID then body", "[sadb]") {
  SaDatabase db = make_db();
  for (uint16_t i = 0; i < 6; ++i) REQUIRE(add(db, body(i % 2 ? 2 : 1, uint8_t(i), 0, 0x1000 + i)) == SaDbStatus::Ok);
  Bytes t = body(1, 0);
  std::vector<SaRecord> recs;
  REQUIRE(db.get_table(kAttr, kMaskLid, t.data(), t.size(), recs) == SaDbStatus::Ok);
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].rid == 1);
  CHECK(recs[1].rid == 3);
  CHECK(recs[2].rid == 5);
  // No match is an empty table, not an error.
  t = body(9, 0);
  REQUIRE(db.get_table(kAttr, kMaskLid, t.data(), t.size(), recs) == SaDbStatus::Ok);
  CHECK(recs.empty());
  // Admin Data of a GetTable answer: per record a big-endian 4-byte RID, then the body.
  t = body(2, 0);
  Bytes out;
  size_t count = 0;
  REQUIRE(db.encode_table(kAttr, kMaskLid, t.data(), t.size(), out, &count) == SaDbStatus::Ok);
  CHECK(count == 3);
  REQUIRE(out.size() == 3 * (4 + kBody));
  const uint32_t want_rids[] = {2, 4, 6};
  for (size_t i = 0; i < 3; ++i) {
    const uint8_t* p = out.data() + i * (4 + kBody);
    CHECK(Bytes(p, p + 4) == Bytes{0, 0, 0, uint8_t(want_rids[i])});
    CHECK(Bytes(p + 4, p + 4 + kBody) == body(2, uint8_t(want_rids[i] - 1), 0, 0x1000 + want_rids[i] - 1));
  }
}

TEST_CASE("SA database set replaces the record whose key fields match", "[sadb]") {
  SaDatabase db = make_db();
  uint32_t rid = 0;
  Bytes a = body(1, 1, 3, 10);
  REQUIRE(db.set(kAttr, a.data(), a.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 1);
  Bytes b = body(1, 2, 3, 11);
  REQUIRE(db.set(kAttr, b.data(), b.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 2);
  // Same LID and port as RID 1, other SL and value: replaced in place.
  Bytes a2 = body(1, 1, 5, 20);
  REQUIRE(db.set(kAttr, a2.data(), a2.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 1);
  CHECK(db.size(kAttr) == 2);
  CHECK(db.next_rid(kAttr) == 3);
  CHECK(record_of(db, 1) == a2);
  CHECK(record_of(db, 2) == b);
  // Two records with the key (added without set): set cannot tell which.
  REQUIRE(add(db, body(1, 2, 0, 99)) == SaDbStatus::Ok);
  const SaDatabase before = db;
  CHECK(db.set(kAttr, b.data(), b.size()) == SaDbStatus::TooManyRecords);
  CHECK(db == before);
}

TEST_CASE("SA database set finds records added before its first set and records a GetBulk loaded", "[sadb]") {
  // The key index is made at a table's first set (a table only added to keeps none): a set
  // after adds, deletes and a load must still find the one record of its key.
  SaDatabase db = make_db();
  for (uint16_t lid = 1; lid <= 5; ++lid) REQUIRE(add(db, body(lid, 1, 0, lid)) == SaDbStatus::Ok);
  const Bytes gone = body(2, 1);
  REQUIRE(db.del(kAttr, kMaskLid, gone.data(), gone.size()) == SaDbStatus::Ok);
  uint32_t rid = 0;
  const Bytes four = body(4, 1, 7, 40);
  REQUIRE(db.set(kAttr, four.data(), four.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 4);
  CHECK(record_of(db, 4) == four);
  const Bytes two = body(2, 1, 0, 20);  // deleted: added anew
  REQUIRE(db.set(kAttr, two.data(), two.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 6);
  // Adds after the first set are found by the next one.
  REQUIRE(add(db, body(8, 1, 0, 8)) == SaDbStatus::Ok);
  const Bytes eight = body(8, 1, 3, 80);
  REQUIRE(db.set(kAttr, eight.data(), eight.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 7);
  CHECK(db.size(kAttr) == 6);
  // A standby loaded from the stream replaces in place as the master does.
  SaDatabase standby = make_db();
  const Bytes bulk = db.get_bulk();
  REQUIRE(standby.load_bulk(bulk.data(), bulk.size()) == SaDbStatus::Ok);
  const Bytes five = body(5, 1, 1, 50);
  uint32_t rm = 0, rs = 0;
  REQUIRE(db.set(kAttr, five.data(), five.size(), &rm) == SaDbStatus::Ok);
  REQUIRE(standby.set(kAttr, five.data(), five.size(), &rs) == SaDbStatus::Ok);
  CHECK(rm == 5);
  CHECK(rs == 5);
  CHECK(db == standby);
  CHECK(db.bodies(kAttr)->size() == 6 * four.size());
  CHECK(db.bodies(0x7777) == nullptr);
}

TEST_CASE("SA database delete removes every record the mask matches", "[sadb]") {
  SaDatabase db = make_db();
  REQUIRE(add(db, body(1, 1)) == SaDbStatus::Ok);
  REQUIRE(add(db, body(2, 1)) == SaDbStatus::Ok);
  REQUIRE(add(db, body(1, 2)) == SaDbStatus::Ok);
  REQUIRE(add(db, body(3, 1)) == SaDbStatus::Ok);
  Bytes t = body(1, 0);
  size_t n = 0;
  REQUIRE(db.del(kAttr, kMaskLid, t.data(), t.size(), &n) == SaDbStatus::Ok);
  CHECK(n == 2);
  CHECK(rids_of(db) == std::vector<uint32_t>{2, 4});
  const uint64_t changes = db.change_count();
  CHECK(db.del(kAttr, kMaskLid, t.data(), t.size()) == SaDbStatus::NoRecords);
  CHECK(db.change_count() == changes);
  // After the deletes, set still finds the remaining keys (the key index follows).
  uint32_t rid = 0;
  Bytes k = body(3, 1, 9);
  REQUIRE(db.set(kAttr, k.data(), k.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 4);
  // Mask 0 matches all.
  REQUIRE(db.del(kAttr, 0, nullptr, 0, &n) == SaDbStatus::Ok);
  CHECK(n == 2);
  CHECK(db.size(kAttr) == 0);
}

TEST_CASE("SA database config add of 1000 records numbers them 1 to 1000", "[sadb]") {
  SaDatabase db = make_db();
  Bytes data;  // seeds/003 Add: records without a RID
  for (uint32_t i = 0; i < 1000; ++i) {
    const Bytes b = body(uint16_t(i + 1), uint8_t(i % 37), uint8_t(i % 16), i * 7);
    data.insert(data.end(), b.begin(), b.end());
  }
  REQUIRE(db.config_add(kAttr, data.data(), data.size()) == SaDbStatus::Ok);
  REQUIRE(db.size(kAttr) == 1000);
  std::vector<SaRecord> recs;
  REQUIRE(db.get_table(kAttr, 0, nullptr, 0, recs) == SaDbStatus::Ok);
  for (uint32_t i = 0; i < 1000; ++i) {
    CHECK(recs[i].rid == i + 1);
    CHECK(recs[i].body == body(uint16_t(i + 1), uint8_t(i % 37), uint8_t(i % 16), i * 7));
  }
  // Not a whole number of records: refused, nothing added.
  const SaDatabase before = db;
  CHECK(db.config_add(kAttr, data.data(), kBody + 1) == SaDbStatus::BadLength);
  CHECK(db.config_add(0x0035, data.data(), kBody) == SaDbStatus::UnknownTable);
  CHECK(db == before);
}

TEST_CASE("SA database config delete by RID list is all or nothing", "[sadb]") {
  SaDatabase db = make_db();
  for (uint16_t i = 1; i <= 10; ++i) REQUIRE(add(db, body(i, 1)) == SaDbStatus::Ok);
  // seeds/003 Delete: each record travels with its RID.
  Bytes data;
  for (uint32_t rid : {2u, 5u, 9u}) {
    const Bytes b = body(uint16_t(rid), 1);
    hcasim::mgmt::append_sa_record(data, rid, b.data(), b.size());
  }
  REQUIRE(db.config_delete(kAttr, data.data(), data.size()) == SaDbStatus::Ok);
  CHECK(rids_of(db) == std::vector<uint32_t>{1, 3, 4, 6, 7, 8, 10});
  // RID 42 does not exist: an error, and RIDs 1 and 3 stay.
  data.clear();
  for (uint32_t rid : {1u, 42u, 3u}) {
    const Bytes b = body(uint16_t(rid), 1);
    hcasim::mgmt::append_sa_record(data, rid, b.data(), b.size());
  }
  const SaDatabase before = db;
  const uint64_t changes = db.change_count();
  CHECK(db.config_delete(kAttr, data.data(), data.size()) == SaDbStatus::UnknownRid);
  CHECK(db == before);
  CHECK(db.change_count() == changes);
  CHECK(rids_of(db) == std::vector<uint32_t>{1, 3, 4, 6, 7, 8, 10});
  CHECK(db.config_delete(kAttr, data.data(), data.size() - 1) == SaDbStatus::BadLength);
}

TEST_CASE("SA database config edit changes only the masked fields of the records in the RID range", "[sadb]") {
  SaDatabase db = make_db();
  for (uint16_t i = 1; i <= 6; ++i) REQUIRE(add(db, body(i, uint8_t(i), 1, 100 + i, 0xA0)) == SaDbStatus::Ok);
  // seeds/003 Edit: content holds the new SL; the fields not selected are zero.
  const Bytes content = body(0, 0, 7, 0);
  REQUIRE(db.config_edit(kAttr, 2, 4, kMaskSl, content.data(), content.size()) == SaDbStatus::Ok);
  for (uint16_t i = 1; i <= 6; ++i) {
    const uint8_t sl = (i >= 2 && i <= 4) ? 7 : 1;
    CHECK(record_of(db, i) == body(i, uint8_t(i), sl, 100 + i, 0xA0));  // reserved bits kept
  }
  // AttributeModifier 0 and End RID FFFFFFFFh: every record of the table.
  const Bytes value = body(0, 0, 0, 0xDEADBEEF);
  REQUIRE(db.config_edit(kAttr, 0, 0xFFFFFFFFu, kMaskValue, value.data(), value.size()) == SaDbStatus::Ok);
  for (uint16_t i = 1; i <= 6; ++i) {
    const uint8_t sl = (i >= 2 && i <= 4) ? 7 : 1;
    CHECK(record_of(db, i) == body(i, uint8_t(i), sl, 0xDEADBEEF, 0xA0));
  }
  // Start after end, a range without records, a short content: refused, unchanged.
  const SaDatabase before = db;
  CHECK(db.config_edit(kAttr, 5, 4, kMaskSl, content.data(), content.size()) == SaDbStatus::BadRange);
  CHECK(db.config_edit(kAttr, 7, 100, kMaskSl, content.data(), content.size()) == SaDbStatus::NoRecords);
  CHECK(db.config_edit(kAttr, 1, 1, kMaskSl, content.data(), kBody - 1) == SaDbStatus::BadLength);
  CHECK(db == before);
  // An edit of a key field: set then finds the record by its new key.
  const Bytes lid = body(500, 0);
  REQUIRE(db.config_edit(kAttr, 3, 3, kMaskLid, lid.data(), lid.size()) == SaDbStatus::Ok);
  uint32_t rid = 0;
  const Bytes k = body(500, 3, 2, 2);
  REQUIRE(db.set(kAttr, k.data(), k.size(), &rid) == SaDbStatus::Ok);
  CHECK(rid == 3);
  CHECK(db.size(kAttr) == 6);
}

TEST_CASE("SA database master and standby fed the same changes compare equal", "[sadb]") {
  SaDatabase master = make_db();
  SaDatabase standby = make_db();
  // The master fills its table; the standby gets the same records by Config Add.
  Bytes data;
  for (uint16_t i = 1; i <= 4; ++i) {
    const Bytes b = body(i, 1, uint8_t(i), i);
    REQUIRE(master.set(kAttr, b.data(), b.size()) == SaDbStatus::Ok);
    data.insert(data.end(), b.begin(), b.end());
  }
  REQUIRE(standby.config_add(kAttr, data.data(), data.size()) == SaDbStatus::Ok);
  CHECK(hcasim::mgmt::first_difference(master, standby).empty());
  CHECK(master == standby);
  // The master deletes LID 2 (RID 2); the standby by Config Delete of RID 2.
  Bytes t = body(2, 0);
  REQUIRE(master.del(kAttr, kMaskLid, t.data(), t.size()) == SaDbStatus::Ok);
  data.clear();
  hcasim::mgmt::append_sa_record(data, 2, t.data(), t.size());
  REQUIRE(standby.config_delete(kAttr, data.data(), data.size()) == SaDbStatus::Ok);
  // The master replaces RID 1; the standby by a Config Edit of [1, 1] with every field.
  const Bytes n = body(1, 1, 9, 77);
  REQUIRE(master.set(kAttr, n.data(), n.size()) == SaDbStatus::Ok);
  REQUIRE(standby.config_edit(kAttr, 1, 1, kMaskLid | kMaskPort | kMaskSl | kMaskValue, n.data(), n.size()) ==
          SaDbStatus::Ok);
  CHECK(master == standby);
  CHECK(master.dump() == standby.dump());
  // One more edit on the standby only: they differ, and the difference names RID 4.
  const Bytes v = body(0, 0, 0, 5);
  REQUIRE(standby.config_edit(kAttr, 4, 4, kMaskValue, v.data(), v.size()) == SaDbStatus::Ok);
  CHECK(master != standby);
  CHECK(hcasim::mgmt::first_difference(master, standby).find("RID 4") != std::string::npos);
  // Same records but a different next RID also differ (later adds would diverge).
  SaDatabase a = make_db();
  SaDatabase b = make_db();
  REQUIRE(add(a, body(1, 1)) == SaDbStatus::Ok);
  REQUIRE(add(b, body(1, 1)) == SaDbStatus::Ok);
  REQUIRE(add(b, body(2, 1)) == SaDbStatus::Ok);
  const Bytes two = body(2, 0);
  REQUIRE(b.del(kAttr, kMaskLid, two.data(), two.size()) == SaDbStatus::Ok);
  CHECK(a != b);
}

TEST_CASE("SA database change counter moves on every change and only then", "[sadb]") {
  SaDatabase db = make_db();
  uint64_t c = db.change_count();
  auto moved = [&](bool expect) {
    const uint64_t now = db.change_count();
    CHECK(now == c + (expect ? 1 : 0));
    c = now;
  };
  const Bytes a = body(1, 1), b = body(2, 1), a2 = body(1, 1, 4);
  REQUIRE(add(db, a) == SaDbStatus::Ok);
  moved(true);
  REQUIRE(db.set(kAttr, b.data(), b.size()) == SaDbStatus::Ok);  // add by set
  moved(true);
  REQUIRE(db.set(kAttr, a2.data(), a2.size()) == SaDbStatus::Ok);  // replace by set
  moved(true);
  SaRecord r;
  std::vector<SaRecord> recs;
  REQUIRE(db.get(kAttr, kKey, a.data(), a.size(), r) == SaDbStatus::Ok);
  REQUIRE(db.get_table(kAttr, 0, nullptr, 0, recs) == SaDbStatus::Ok);
  (void)db.get_bulk();
  moved(false);
  REQUIRE(db.config_add(kAttr, a.data(), a.size()) == SaDbStatus::Ok);
  moved(true);
  REQUIRE(db.config_edit(kAttr, 0, 0xFFFFFFFFu, kMaskValue, b.data(), b.size()) == SaDbStatus::Ok);
  moved(true);
  Bytes d;
  hcasim::mgmt::append_sa_record(d, 3, a.data(), a.size());
  REQUIRE(db.config_delete(kAttr, d.data(), d.size()) == SaDbStatus::Ok);
  moved(true);
  CHECK(db.config_delete(kAttr, d.data(), d.size()) == SaDbStatus::UnknownRid);
  moved(false);
  REQUIRE(db.del(kAttr, kMaskLid, b.data(), b.size()) == SaDbStatus::Ok);
  moved(true);
  const Bytes bulk = db.get_bulk();
  REQUIRE(db.load_bulk(bulk.data(), bulk.size()) == SaDbStatus::Ok);
  moved(true);
}

TEST_CASE("SA database GetBulk stream holds every table and loads into a standby", "[sadb]") {
  SaDatabase master = make_db();
  REQUIRE(master.declare_table(link_layout(), 0x3) == SaDbStatus::Ok);
  for (uint16_t i = 1; i <= 3; ++i) REQUIRE(add(master, body(i, 1, 0, i)) == SaDbStatus::Ok);
  const Bytes t = body(3, 0);
  REQUIRE(master.del(kAttr, kMaskLid, t.data(), t.size()) == SaDbStatus::Ok);  // next RID stays 4
  const Bytes link = {0x00, 0x01, 0x00, 0x02, 0xAB, 0xCD, 0xEF, 0x01};
  REQUIRE(master.add(kAttr2, link.data(), link.size()) == SaDbStatus::Ok);

  const Bytes bulk = master.get_bulk();
  // Model's layout (sa_database.hpp): per table AttributeID, body bytes, count,
  // next RID, then the records as RID + body; tables in attribute order.
  REQUIRE(bulk.size() == (12 + 2 * (4 + 16)) + (12 + 1 * (4 + 8)));
  CHECK(Bytes(bulk.begin(), bulk.begin() + 12) == Bytes{0x00, 0x12, 0x00, 16, 0, 0, 0, 2, 0, 0, 0, 4});
  CHECK(Bytes(bulk.begin() + 12, bulk.begin() + 16) == Bytes{0, 0, 0, 1});
  CHECK(Bytes(bulk.begin() + 16, bulk.begin() + 32) == body(1, 1, 0, 1));
  CHECK(Bytes(bulk.begin() + 32, bulk.begin() + 36) == Bytes{0, 0, 0, 2});
  const size_t l = 12 + 2 * 20;
  CHECK(Bytes(bulk.begin() + l, bulk.begin() + l + 12) == Bytes{0x00, 0x20, 0x00, 8, 0, 0, 0, 1, 0, 0, 0, 2});
  CHECK(Bytes(bulk.begin() + l + 16, bulk.end()) == link);

  SaDatabase standby = make_db();
  REQUIRE(standby.declare_table(link_layout(), 0x3) == SaDbStatus::Ok);
  REQUIRE(add(standby, body(9, 9)) == SaDbStatus::Ok);  // replaced by the load
  REQUIRE(standby.load_bulk(bulk.data(), bulk.size()) == SaDbStatus::Ok);
  CHECK(hcasim::mgmt::first_difference(master, standby).empty());
  // Both number the next add 4.
  uint32_t rm = 0, rs = 0;
  REQUIRE(add(master, body(5, 5), &rm) == SaDbStatus::Ok);
  REQUIRE(add(standby, body(5, 5), &rs) == SaDbStatus::Ok);
  CHECK(rm == 4);
  CHECK(rs == 4);
  CHECK(master == standby);
  // A truncated stream, or one naming an undeclared table, changes nothing.
  const SaDatabase before = standby;
  CHECK(standby.load_bulk(bulk.data(), bulk.size() - 1) == SaDbStatus::BadLength);
  SaDatabase only_one = make_db();
  CHECK(only_one.load_bulk(bulk.data(), bulk.size()) == SaDbStatus::UnknownTable);
  CHECK(standby == before);
}

TEST_CASE("SA database set of 100000 distinct keys stays linear", "[sadb]") {
  // With a per-set scan of the table this would be 5e9 record compares.
  SaDatabase db = make_db();
  for (uint32_t i = 0; i < 100000; ++i) {
    const Bytes b = body(uint16_t(i / 4 + 1), uint8_t(i % 4 + 1), 0, i);
    REQUIRE(db.set(kAttr, b.data(), b.size()) == SaDbStatus::Ok);
  }
  CHECK(db.size(kAttr) == 100000);
  SaRecord r;
  const Bytes t = body(12345, 3);
  REQUIRE(db.get(kAttr, kKey, t.data(), t.size(), r) == SaDbStatus::Ok);
  CHECK(r.rid == (12345 - 1) * 4 + 3);
}

TEST_CASE("SA database declare_table refuses a bad layout or a second declaration", "[sadb]") {
  SaDatabase db = make_db();
  CHECK(db.declare_table(test_layout(), kKey) == SaDbStatus::TableExists);
  RecordLayout bad = link_layout();
  bad.fields.push_back({2, "Beyond", 60, 8});  // bits 60-67 of a 64-bit body
  CHECK(db.declare_table(bad, 0) == SaDbStatus::BadLayout);
  CHECK_FALSE(db.has_table(kAttr2));
}

TEST_CASE("SA database statuses map to the MAD status values", "[sadb]") {
  using hcasim::mgmt::to_mad_status;
  // IBA 15.2.5.1.1: SA status in bits 15:8, ERR_NO_RECORDS 3, ERR_REQ_TOO_MANY_RECORDS 4,
  // ERR_REQ_INVALID 2, ERR_NO_RESOURCES 1; IBA 13.4.7: unsupported method/attribute 3 in bits 4:2.
  CHECK(to_mad_status(SaDbStatus::Ok) == 0x0000);
  CHECK(to_mad_status(SaDbStatus::NoRecords) == 0x0300);
  CHECK(to_mad_status(SaDbStatus::TooManyRecords) == 0x0400);
  CHECK(to_mad_status(SaDbStatus::BadLength) == 0x0200);
  CHECK(to_mad_status(SaDbStatus::UnknownRid) == 0x0200);
  CHECK(to_mad_status(SaDbStatus::NoResources) == 0x0100);
  CHECK(to_mad_status(SaDbStatus::UnknownTable) == 0x000C);
  CHECK(to_mad_status(SaDbStatus::BadRange) == 0x001C);
}
