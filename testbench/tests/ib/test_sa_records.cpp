// SA records: body sizes and offsets from OpenSM ib_types.h, the ComponentMask
// layouts (OpenSM IB_*_COMPMASK_* bit numbers), fields_match / copy_fields on
// big-endian bit runs, and the RID + body record buffers of seeds/000 and 003.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "models/ib/sa_record_types.hpp"
#include "models/ib/sa_records.hpp"

using namespace hcasim::ib;

namespace {

template <typename R>
std::vector<uint8_t> body_of(const R& r) {
  std::vector<uint8_t> b(R::kBytes + 4, 0xEE);
  r.encode(b.data());
  return b;
}

template <typename R>
void check_round_trip(const R& r) {
  const auto b = body_of(r);
  R d;
  d.decode(b.data());
  CHECK(body_of(d) == b);
}

PathRecord sample_path() {
  PathRecord p;
  p.service_id = 0x1000000000000001ull;
  for (unsigned i = 0; i < 16; ++i) {
    p.dgid[i] = static_cast<uint8_t>(0xD0 + i);
    p.sgid[i] = static_cast<uint8_t>(0x50 + i);
  }
  p.dlid = 0x0042;
  p.slid = 0x0017;
  p.raw_traffic = false;
  p.flow_label = 0xABCDE;
  p.hop_limit = 0xFF;
  p.tclass = 0x3C;
  p.reversible = true;
  p.numb_path = 0x7F;
  p.pkey = 0xFFFF;
  p.qos_class = 0xABC;
  p.sl = 5;
  p.mtu_selector = kSelectorExactly;
  p.mtu = 4;
  p.rate_selector = kSelectorExactly;
  p.rate = 3;
  p.pkt_life_selector = kSelectorExactly;
  p.pkt_life = 0x12;
  p.preference = 1;
  return p;
}

uint64_t bit(unsigned i) { return uint64_t{1} << i; }

}  // namespace

TEST_CASE("PathRecord fields sit at the iba-facts 6 offsets", "[sa_records]") {
  const auto b = body_of(sample_path());
  CHECK(b[0] == 0x10);
  CHECK(b[7] == 0x01);  // ServiceID
  CHECK(b[8] == 0xD0);
  CHECK(b[23] == 0xDF);  // DGID 8-23
  CHECK(b[24] == 0x50);
  CHECK(b[39] == 0x5F);  // SGID 24-39
  CHECK(b[40] == 0x00);
  CHECK(b[41] == 0x42);  // DLID
  CHECK(b[42] == 0x00);
  CHECK(b[43] == 0x17);  // SLID
  CHECK(b[44] == 0x0A);  // RawTraffic 0, reserved 3 bits, FlowLabel 19:16 = 0xA
  CHECK(b[45] == 0xBC);
  CHECK(b[46] == 0xDE);
  CHECK(b[47] == 0xFF);  // HopLimit
  CHECK(b[48] == 0x3C);  // TClass
  CHECK(b[49] == 0xFF);  // Reversible + NumbPath
  CHECK(b[50] == 0xFF);
  CHECK(b[51] == 0xFF);  // P_Key
  CHECK(b[52] == 0xAB);
  CHECK(b[53] == 0xC5);  // QoSClass (12) + SL (4)
  CHECK(b[54] == 0x84);  // MTUSelector 2 (exactly) + MTU 4 (2048)
  CHECK(b[55] == 0x83);  // RateSelector + Rate
  CHECK(b[56] == 0x92);  // PktLifeSelector + PacketLifeTime
  CHECK(b[57] == 0x01);  // Preference
  for (unsigned i = 58; i < 64; ++i) CHECK(b[i] == 0);
  CHECK(b[64] == 0xEE);
  PathRecord d;
  d.decode(b.data());
  CHECK(d.sl == 5);
  CHECK(d.qos_class == 0xABC);
  CHECK(d.flow_label == 0xABCDEu);
  CHECK(d.reversible);
  CHECK(d.numb_path == 0x7F);
  check_round_trip(sample_path());
  PathRecord raw;
  raw.raw_traffic = true;
  CHECK(body_of(raw)[44] == 0x80);
}

TEST_CASE("NodeRecord is LID reserved NodeInfo NodeDescription and pad in 112 bytes", "[sa_records]") {
  NodeRecord r;
  r.lid = 0x00C1;
  r.node_info.node_type = kNodeTypeCa;
  r.node_info.num_ports = 2;
  r.node_info.node_guid = 0x0002C90300000001ull;
  r.node_info.vendor_id = 0x0002C9;
  r.node_desc.text = "hca-1";
  const auto b = body_of(r);
  CHECK(NodeRecord::kBytes == 112);
  CHECK(b[0] == 0x00);
  CHECK(b[1] == 0xC1);
  CHECK(b[2] == 0);
  CHECK(b[3] == 0);
  CHECK(b[4] == 1);   // NodeInfo.BaseVersion at 4
  CHECK(b[6] == 1);   // NodeType at 4 + 2
  CHECK(b[7] == 2);   // NumPorts
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x02);
  CHECK(b[23] == 0x01);  // NodeGUID at 4 + 12
  CHECK(b[43] == 0xC9);  // VendorID ends at 4 + 39
  CHECK(b[44] == 'h');   // NodeDescription at 44
  CHECK(b[48] == '1');
  for (unsigned i = 108; i < 112; ++i) CHECK(b[i] == 0);
  CHECK(b[112] == 0xEE);
  check_round_trip(r);
}

TEST_CASE("PortInfoRecord LinkRecord SL2VLRecord and VLArbRecord put their keys first", "[sa_records]") {
  PortInfoRecord pir;
  pir.end_port_lid = 0x0203;
  pir.port_num = 9;
  pir.options = 0;
  pir.port_info.lid = 0x0203;
  pir.port_info.port_state = kPortStateActive;
  pir.port_info.lmc = 2;
  auto b = body_of(pir);
  CHECK(PortInfoRecord::kBytes == 72);
  CHECK(b[0] == 0x02);
  CHECK(b[1] == 0x03);
  CHECK(b[2] == 9);
  CHECK(b[4 + 16] == 0x02);
  CHECK(b[4 + 17] == 0x03);  // PortInfo.LID at 4 + 16
  CHECK(b[4 + 32] == 0x04);  // PortState
  CHECK(b[4 + 34] == 0x02);  // LMC
  CHECK(b[72] == 0xEE);
  check_round_trip(pir);

  LinkRecord lr;
  lr.from_lid = 0x0010;
  lr.from_port = 3;
  lr.to_port = 4;
  lr.to_lid = 0x0020;
  b = body_of(lr);
  CHECK(LinkRecord::kBytes == 8);
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 9) ==
        std::vector<uint8_t>{0x00, 0x10, 3, 4, 0x00, 0x20, 0, 0, 0xEE});
  check_round_trip(lr);

  Sl2VlRecord sr;
  sr.lid = 0x0101;
  sr.in_port = 2;
  sr.out_port = 5;
  for (unsigned sl = 0; sl < kNumSls; ++sl) sr.table.vl[sl] = static_cast<uint8_t>(15 - sl);
  b = body_of(sr);
  CHECK(Sl2VlRecord::kBytes == 16);
  CHECK(b[0] == 0x01);
  CHECK(b[2] == 2);
  CHECK(b[3] == 5);
  for (unsigned i = 4; i < 8; ++i) CHECK(b[i] == 0);
  CHECK(b[8] == 0xFE);  // SL0 -> VL15 high nibble, SL1 -> VL14
  CHECK(b[15] == 0x10);
  CHECK(b[16] == 0xEE);
  check_round_trip(sr);

  VlArbRecord vr;
  vr.lid = 0x0102;
  vr.out_port = 7;
  vr.block = static_cast<uint8_t>(kVlArbHighFirst);
  vr.table.entry[0] = VlArbEntry{0, 4};
  vr.table.entry[31] = VlArbEntry{14, 255};
  b = body_of(vr);
  CHECK(VlArbRecord::kBytes == 72);
  CHECK(b[2] == 7);
  CHECK(b[3] == 3);
  for (unsigned i = 4; i < 8; ++i) CHECK(b[i] == 0);
  CHECK(b[9] == 4);
  CHECK(b[8 + 62] == 14);
  CHECK(b[8 + 63] == 255);
  check_round_trip(vr);
}

TEST_CASE("Every SA record layout has unique mask bits and fields inside its body", "[sa_records]") {
  for (uint16_t id : {kAttrNodeRecord, kAttrPortInfoRecord, kAttrLinkRecord, kAttrPathRecord, kAttrSl2VlRecord,
                      kAttrVlArbRecord}) {
    const RecordLayout* l = sa_record_layout(id);
    REQUIRE(l != nullptr);
    INFO(l->name);
    CHECK(l->attr_id == id);
    std::set<unsigned> bits;
    std::vector<bool> used(8u * l->body_bytes, false);
    for (const RecordField& f : l->fields) {
      INFO(f.name);
      CHECK(f.bit < 64);
      CHECK(bits.insert(f.bit).second);
      CHECK(f.bit_width > 0);
      CHECK(f.bit_offset + f.bit_width <= 8u * l->body_bytes);
      for (unsigned i = f.bit_offset; i < unsigned(f.bit_offset) + f.bit_width && i < used.size(); ++i) {
        CHECK_FALSE(used[i]);  // fields do not overlap
        used[i] = true;
      }
    }
  }
  CHECK(sa_record_layout(0x0031) == nullptr);  // ServiceRecord: not modelled
}

TEST_CASE("SA record layouts use OpenSM's ComponentMask bit numbers", "[sa_records]") {
  const RecordLayout& pr = *sa_record_layout(kAttrPathRecord);
  CHECK(find_field(pr, "DGID")->bit == 2);
  CHECK(find_field(pr, "DLID")->bit == 4);
  CHECK(find_field(pr, "SLID")->bit == 5);
  CHECK(find_field(pr, "P_Key")->bit == 13);
  CHECK(find_field(pr, "SL")->bit == 15);
  CHECK(find_field(pr, "PacketLifeTime")->bit == 21);
  const RecordLayout& nr = *sa_record_layout(kAttrNodeRecord);
  CHECK(find_field(nr, "LID")->bit == 0);
  CHECK(find_field(nr, "NodeType")->bit == 4);
  CHECK(find_field(nr, "NodeGUID")->bit == 7);
  CHECK(find_field(nr, "NodeDescription")->bit == 14);
  const RecordLayout& pir = *sa_record_layout(kAttrPortInfoRecord);
  CHECK(find_field(pir, "EndPortLID")->bit == 0);
  CHECK(find_field(pir, "PortNum")->bit == 1);
  CHECK(find_field(pir, "LID")->bit == 5);
  CHECK(find_field(pir, "PortState")->bit == 15);
  CHECK(find_field(pir, "LMC")->bit == 20);
  CHECK(find_field(pir, "CapabilityMask2")->bit == 53);
  CHECK(find_field(pir, "LinkSpeedExtEnabled")->bit == 57);
  const RecordLayout& lr = *sa_record_layout(kAttrLinkRecord);
  CHECK(find_field(lr, "ToLID")->bit == 3);
  CHECK(find_field(*sa_record_layout(kAttrSl2VlRecord), "OutputPortNum")->bit == 2);
  CHECK(find_field(*sa_record_layout(kAttrVlArbRecord), "BlockNumber")->bit == 2);

  // The value a field selects, read from the encoded body.
  PortInfoRecord r;
  r.port_info.lmc = 3;
  r.port_info.port_state = kPortStateInit;
  r.port_info.lid = 0x0BAD;
  const auto b = body_of(r);
  CHECK(field_value(*find_field(pir, "LMC"), b.data()) == 3);
  CHECK(field_value(*find_field(pir, "PortState"), b.data()) == kPortStateInit);
  CHECK(field_value(*find_field(pir, "LID"), b.data()) == 0x0BAD);
}

TEST_CASE("fields_match compares only the PathRecord fields the mask selects", "[sa_records]") {
  const RecordLayout& l = *sa_record_layout(kAttrPathRecord);
  PathRecord a = sample_path();
  PathRecord q;  // a query: only DLID and SL filled in
  q.dlid = a.dlid;
  q.sl = a.sl;
  const auto ab = body_of(a);
  auto qb = body_of(q);
  const uint64_t dlid = bit(4), sl = bit(15), slid = bit(5), qos = bit(14);
  CHECK(fields_match(l, 0, ab.data(), qb.data()));
  CHECK(fields_match(l, dlid, ab.data(), qb.data()));
  CHECK(fields_match(l, sl, ab.data(), qb.data()));
  CHECK(fields_match(l, dlid | sl, ab.data(), qb.data()));
  CHECK_FALSE(fields_match(l, dlid | sl | slid, ab.data(), qb.data()));
  // SL shares byte 53 with QoSClass: the QoSClass bits differ, SL still matches.
  CHECK_FALSE(fields_match(l, qos, ab.data(), qb.data()));
  q.sl = 6;
  qb = body_of(q);
  CHECK_FALSE(fields_match(l, sl, ab.data(), qb.data()));
  CHECK(fields_match(l, dlid, ab.data(), qb.data()));
}

TEST_CASE("copy_fields writes the selected PathRecord bits and leaves the rest", "[sa_records]") {
  const RecordLayout& l = *sa_record_layout(kAttrPathRecord);
  const PathRecord orig = sample_path();
  PathRecord edit;  // seeds/003 Edit: new SL and DLID, every other field zero
  edit.sl = 0xE;
  edit.dlid = 0x0999;
  const auto from = body_of(edit);
  auto to = body_of(orig);
  copy_fields(l, bit(15) | bit(4), from.data(), to.data());
  PathRecord d;
  d.decode(to.data());
  CHECK(d.sl == 0xE);
  CHECK(d.dlid == 0x0999);
  CHECK(d.qos_class == orig.qos_class);  // same byte as SL, not selected
  CHECK(d.slid == orig.slid);
  CHECK(d.sgid == orig.sgid);
  CHECK(d.pkey == orig.pkey);
  CHECK(to[64] == 0xEE);
  CHECK(fields_match(l, bit(15) | bit(4), from.data(), to.data()));
  auto untouched = body_of(orig);
  copy_fields(l, 0, from.data(), untouched.data());
  CHECK(untouched == body_of(orig));
}

TEST_CASE("Records with RIDs and without round trip through a contiguous buffer", "[sa_records]") {
  std::vector<LinkRecord> recs(30);  // 30 x 12 bytes = 360: spans two 192-byte Admin Data Areas
  for (unsigned i = 0; i < recs.size(); ++i) {
    recs[i].from_lid = static_cast<uint16_t>(0x100 + i);
    recs[i].from_port = static_cast<uint8_t>(i);
    recs[i].to_port = static_cast<uint8_t>(i + 1);
    recs[i].to_lid = static_cast<uint16_t>(0x200 + i);
  }
  std::vector<uint8_t> with_rid, no_rid;
  for (unsigned i = 0; i < recs.size(); ++i) {
    uint8_t body[LinkRecord::kBytes];
    recs[i].encode(body);
    append_record(with_rid, 0xA0000000u + i, body, sizeof body);
    append_record(no_rid, body, sizeof body);
  }
  REQUIRE(with_rid.size() == 30u * (kRidBytes + LinkRecord::kBytes));
  REQUIRE(no_rid.size() == 30u * LinkRecord::kBytes);
  // RID big-endian, then the body.
  CHECK(with_rid[0] == 0xA0);
  CHECK(with_rid[3] == 0x00);
  CHECK(with_rid[4] == 0x01);
  CHECK(with_rid[5] == 0x00);  // FromLID of record 0
  CHECK(with_rid[12 + 3] == 0x01);  // RID of record 1
  CHECK(no_rid[8] == 0x01);
  CHECK(no_rid[9] == 0x01);  // FromLID of record 1

  RecordReader r(with_rid.data(), with_rid.size(), LinkRecord::kBytes, true);
  uint32_t rid = 0;
  const uint8_t* body = nullptr;
  unsigned n = 0;
  while (r.next(rid, body)) {
    LinkRecord d;
    d.decode(body);
    CHECK(rid == 0xA0000000u + n);
    CHECK(d.from_lid == recs[n].from_lid);
    CHECK(d.to_lid == recs[n].to_lid);
    ++n;
  }
  CHECK(n == 30);
  CHECK(r.complete());

  RecordReader nr(no_rid.data(), no_rid.size() - 3, LinkRecord::kBytes, false);  // last record cut short
  n = 0;
  while (nr.next(rid, body)) {
    CHECK(rid == 0);
    LinkRecord d;
    d.decode(body);
    CHECK(d.from_port == recs[n].from_port);
    ++n;
  }
  CHECK(n == 29);
  CHECK_FALSE(nr.complete());
  CHECK(nr.remaining() == LinkRecord::kBytes - 3);
}
