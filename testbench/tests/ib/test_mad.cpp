// MAD encode/decode: every header field at the byte offset of iba-facts 6 (common
// header, LID-routed and directed-route SMP) and seeds/000 / [SH] Table 33-1 (the
// IBA 1.0 SA layout), round trips, and decode refusing a wrong version or class.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "models/ib/mad.hpp"

using namespace hcasim::ib;

namespace {

using Bytes = std::array<uint8_t, kMadBytes>;

MadHeader sample_header(uint8_t cls) {
  MadHeader h;
  h.mgmt_class = cls;
  h.class_version = 1;
  h.method = kMethodGetResp;
  h.status = 0x001C;  // Invalid attribute (7 << 2)
  h.class_specific = 0;
  h.tid = 0x0102030405060708ull;
  h.attr_id = 0x0015;
  h.attr_mod = 0xA1B2C3D4;
  return h;
}

Smp sample_dr_smp() {
  Smp m;
  m.hdr = sample_header(kClassSubnDr);
  m.hdr.status = 0x0004;
  m.direction = true;
  m.hop_ptr = 2;
  m.hop_cnt = 3;
  m.m_key = 0x1122334455667788ull;
  m.dr_slid = 0x0011;
  m.dr_dlid = 0x0022;
  for (unsigned i = 0; i < kSmpDataBytes; ++i) m.data[i] = static_cast<uint8_t>(0x80 + i);
  for (unsigned i = 0; i < kSmpMaxHops; ++i) {
    m.initial_path[i] = static_cast<uint8_t>(i + 1);
    m.return_path[i] = static_cast<uint8_t>(0xC0 | i);
  }
  return m;
}

void check_zero(const Bytes& b, unsigned from, unsigned to) {
  for (unsigned i = from; i < to; ++i) {
    INFO("byte " << i);
    CHECK(b[i] == 0);
  }
}

}  // namespace

TEST_CASE("MAD common header fields sit at bytes 0-23 big-endian", "[mad]") {
  Bytes b{};
  b.fill(0xEE);
  encode(sample_header(kClassSubnAdm), b.data());
  CHECK(b[0] == 1);     // BaseVersion
  CHECK(b[1] == 0x03);  // MgmtClass
  CHECK(b[2] == 1);     // ClassVersion
  CHECK(b[3] == 0x81);  // R bit + Method
  CHECK(b[4] == 0x00);
  CHECK(b[5] == 0x1C);  // Status
  CHECK(b[6] == 0x00);
  CHECK(b[7] == 0x00);  // ClassSpecific
  for (unsigned i = 0; i < 8; ++i) CHECK(b[8 + i] == i + 1);  // TID
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x15);  // AttributeID
  check_zero(b, 18, 20);  // reserved
  CHECK(b[20] == 0xA1);
  CHECK(b[21] == 0xB2);
  CHECK(b[22] == 0xC3);
  CHECK(b[23] == 0xD4);  // AttributeModifier
  check_zero(b, 24, kMadBytes);
  MadHeader h;
  REQUIRE(decode(b.data(), h));
  CHECK(h.tid == 0x0102030405060708ull);
  CHECK(h.attr_mod == 0xA1B2C3D4);
  CHECK(h.status == 0x001C);
}

TEST_CASE("LID-routed SMP puts M_Key at 24 and data at 64 and leaves 32-63 and 128-255 zero", "[mad]") {
  Smp m = sample_dr_smp();
  m.hdr.mgmt_class = kClassSubnLid;  // DR fields set in the struct must not reach the wire
  m.hdr.class_specific = 0;
  Bytes b{};
  b.fill(0xEE);
  encode(m, b.data());
  CHECK(b[1] == 0x01);
  CHECK(b[4] == 0x00);
  CHECK(b[5] == 0x04);  // no D bit on a LID-routed SMP
  CHECK(b[6] == 0);
  CHECK(b[7] == 0);
  CHECK(b[24] == 0x11);
  CHECK(b[31] == 0x88);
  check_zero(b, 32, 64);
  for (unsigned i = 0; i < kSmpDataBytes; ++i) CHECK(b[64 + i] == 0x80 + i);
  check_zero(b, 128, kMadBytes);

  Smp d;
  REQUIRE(decode(b.data(), d));
  CHECK_FALSE(d.directed());
  CHECK(d.m_key == 0x1122334455667788ull);
  CHECK(d.data == m.data);
  CHECK(d.hop_cnt == 0);
  CHECK(d.initial_path == std::array<uint8_t, kSmpMaxHops>{});
}

TEST_CASE("Directed-route SMP D bit hop fields DrSLID DrDLID and paths sit at their offsets", "[mad]") {
  const Smp m = sample_dr_smp();
  Bytes b{};
  b.fill(0xEE);
  encode(m, b.data());
  CHECK(b[1] == 0x81);
  CHECK(b[4] == 0x80);  // D bit = Status bit 15
  CHECK(b[5] == 0x04);  // the rest of the status
  CHECK(b[6] == 2);     // HopPointer
  CHECK(b[7] == 3);     // HopCount
  CHECK(b[32] == 0x00);
  CHECK(b[33] == 0x11);  // DrSLID
  CHECK(b[34] == 0x00);
  CHECK(b[35] == 0x22);  // DrDLID
  check_zero(b, 36, 64);
  CHECK(b[64] == 0x80);
  CHECK(b[127] == 0x80 + 63);
  CHECK(b[128] == 1);
  CHECK(b[129] == 2);    // InitialPath[1]
  CHECK(b[191] == 64);
  CHECK(b[192] == 0xC0);
  CHECK(b[194] == 0xC2);  // ReturnPath[2]
  CHECK(b[255] == 0xFF);

  Smp d;
  REQUIRE(decode(b.data(), d));
  CHECK(d.directed());
  CHECK(d.direction);
  CHECK(d.hdr.status == 0x0004);
  CHECK(d.hop_ptr == 2);
  CHECK(d.hop_cnt == 3);
  CHECK(d.dr_slid == 0x0011);
  CHECK(d.dr_dlid == 0x0022);
  CHECK(d.initial_path == m.initial_path);
  CHECK(d.return_path == m.return_path);
  Bytes again{};
  encode(d, again.data());
  CHECK(again == b);
}

TEST_CASE("DR SMP outbound has the D bit clear", "[mad]") {
  Smp m = sample_dr_smp();
  m.direction = false;
  m.hdr.status = 0x8000;  // a stray bit 15 in hdr.status is not the D bit
  Bytes b{};
  encode(m, b.data());
  CHECK(b[4] == 0x00);
  Smp d;
  REQUIRE(decode(b.data(), d));
  CHECK_FALSE(d.direction);
}

TEST_CASE("SA MAD IBA 1.0 fields sit at bytes 24-63 and the Admin Data Area at 64", "[mad]") {
  SaMad m;
  m.hdr = sample_header(kClassSubnAdm);
  m.hdr.method = kMethodConfig;
  m.sa_key = 0xA0A1A2A3A4A5A6A7ull;
  m.sm_key = 0xB0B1B2B3B4B5B6B7ull;
  m.segment = 0x01020304;
  m.payload_length = 0x00000240;  // 576 = 3 x 192
  m.fragment_flag = kFragFirst;
  m.edit_modifier = static_cast<uint8_t>(EditModifier::Add);
  m.window = kDefaultSaWindow;
  m.end_rid = 0xFFFFFFFF;
  m.component_mask = 0x8000000000000011ull;
  for (unsigned i = 0; i < kSaDataBytes; ++i) m.data[i] = static_cast<uint8_t>(i);
  Bytes b{};
  b.fill(0xEE);
  encode(m, b.data());
  CHECK(b[3] == 0x16);
  CHECK(b[24] == 0xA0);
  CHECK(b[31] == 0xA7);  // SA_Key 24-31
  CHECK(b[32] == 0xB0);
  CHECK(b[39] == 0xB7);  // SM_Key 32-39
  CHECK(b[40] == 0x01);
  CHECK(b[43] == 0x04);  // Segment Number 40-43
  CHECK(b[44] == 0x00);
  CHECK(b[46] == 0x02);
  CHECK(b[47] == 0x40);  // Payload Length 44-47
  CHECK(b[48] == 0x01);  // Fragment Flag: First = bit 0
  CHECK(b[49] == 1);     // Edit Modifier
  CHECK(b[50] == 0x00);
  CHECK(b[51] == 64);    // Window
  CHECK(b[52] == 0xFF);
  CHECK(b[55] == 0xFF);  // End RID
  CHECK(b[56] == 0x80);
  CHECK(b[63] == 0x11);  // ComponentMask
  CHECK(b[64] == 0);
  CHECK(b[65] == 1);
  CHECK(b[255] == 191);  // Admin Data Area 64-255

  SaMad d;
  REQUIRE(decode(b.data(), d));
  CHECK(d.sa_key == m.sa_key);
  CHECK(d.sm_key == m.sm_key);
  CHECK(d.segment == m.segment);
  CHECK(d.payload_length == 576);
  CHECK(d.fragment_flag == kFragFirst);
  CHECK(d.edit_modifier == 1);
  CHECK(d.window == 64);
  CHECK(d.end_rid == 0xFFFFFFFFu);
  CHECK(d.component_mask == m.component_mask);
  CHECK(d.data == m.data);
  Bytes again{};
  encode(d, again.data());
  CHECK(again == b);
}

TEST_CASE("Fragment Flag bits are those of seeds/000 Table 33-11", "[mad]") {
  CHECK(kFragFirst == 0x01);
  CHECK(kFragLast == 0x04);
  CHECK(kFragResend == 0x08);  // the table's bit 3 (seeds README: the table wins)
  CHECK(kFragAck == 0x20);
  CHECK(kFragKeepAlive == 0x80);
  CHECK(kSaDataBytes == 192);
}

TEST_CASE("MAD decode refuses a wrong base version or class and leaves out unchanged", "[mad]") {
  Bytes b{};
  encode(sample_dr_smp(), b.data());
  Smp smp;
  smp.m_key = 42;
  SaMad sa;
  sa.sa_key = 43;
  MadHeader h;
  h.tid = 44;

  CHECK_FALSE(decode(b.data(), sa));  // class 0x81 is not the SA's
  CHECK(sa.sa_key == 43);

  b[0] = 2;  // BaseVersion 2
  CHECK_FALSE(decode(b.data(), smp));
  CHECK_FALSE(decode(b.data(), h));
  CHECK(smp.m_key == 42);
  CHECK(h.tid == 44);

  SaMad s;
  s.hdr = sample_header(kClassSubnAdm);
  encode(s, b.data());
  CHECK_FALSE(decode(b.data(), smp));  // class 0x03 is not an SMP
  CHECK(smp.m_key == 42);
  REQUIRE(decode(b.data(), sa));
  b[1] = 0x04;  // Perf class
  CHECK_FALSE(decode(b.data(), sa));
  CHECK_FALSE(decode(b.data(), smp));
}

TEST_CASE("MAD and SA status codes have OpenSM's values", "[mad]") {
  CHECK(kStatusInvalidAttribute == 0x001C);  // IB_MAD_STATUS_INVALID_FIELD
  CHECK(kStatusUnsupportedMethodAttr == 0x000C);
  CHECK(kSaStatusNoRecords == 0x0300);
  CHECK(kSaStatusTooManyRecords == 0x0400);
  CHECK(kSaStatusInsufficientComponents == 0x0600);
  CHECK(kSaStatusDenied == 0x0700);
  CHECK(kSaStatusInsufficientKey == kSaStatusDenied);
}
