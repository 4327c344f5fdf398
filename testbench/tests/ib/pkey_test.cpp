// P_Keys (ib/pkey.hpp: IBA 10.9 match rule), the P_KeyTable block and the
// partition fields of NodeInfo, PortInfo and SwitchInfo at their byte offsets
// (iba-facts 6), and Traps 257 / 259 (ib/pkey_traps.hpp; OpenSM ntc_257_258,
// ntc_259), each against bytes computed by hand.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "models/ib/mad_attributes.hpp"
#include "models/ib/pkey.hpp"
#include "models/ib/pkey_traps.hpp"

using namespace hcasim;

TEST_CASE("P_Keys match when their bases are equal and at least one is a full member", "[ib][pkey]") {
  CHECK(ib::pkey_match(0xFFFF, 0xFFFF));
  CHECK(ib::pkey_match(0xFFFF, 0x7FFF));   // full - limited
  CHECK(ib::pkey_match(0x7FFF, 0xFFFF));   // limited - full
  CHECK(!ib::pkey_match(0x7FFF, 0x7FFF));  // limited - limited
  CHECK(!ib::pkey_match(0x8001, 0x8002));  // other partition
  CHECK(!ib::pkey_match(0x8000, 0x8000));  // base 0 is invalid
  CHECK(!ib::pkey_match(0x0000, 0x8000));
  CHECK(ib::pkey_table_accepts({0x7FFF, 0x0005}, 0x8005));
  CHECK(!ib::pkey_table_accepts({0x7FFF, 0x0005}, 0x0005));
  CHECK(!ib::pkey_table_accepts({}, 0xFFFF));
  CHECK(ib::default_pkey_table() == std::vector<uint16_t>{0xFFFF});
}

TEST_CASE("a P_KeyTable block is 32 big-endian P_Keys and its modifier carries the port above the block", "[ib][pkey]") {
  ib::PkeyTableBlock b;
  b.pkey[0] = 0xFFFF;
  b.pkey[1] = 0x8001;
  b.pkey[31] = 0x7FFF;
  std::array<uint8_t, 64> bytes{};
  b.encode(bytes.data());
  std::array<uint8_t, 64> want{};
  want[0] = 0xFF, want[1] = 0xFF, want[2] = 0x80, want[3] = 0x01, want[62] = 0x7F, want[63] = 0xFF;
  CHECK(bytes == want);
  ib::PkeyTableBlock back;
  back.decode(want.data());
  CHECK(back.pkey == b.pkey);
  CHECK(ib::pkey_attr_mod(2, 5) == 0x00050002u);
  CHECK(ib::pkey_block(0x00050002u) == 2);
  CHECK(ib::pkey_port(0x00050002u) == 5);
}

TEST_CASE("the partition fields of NodeInfo, PortInfo and SwitchInfo sit at their bytes", "[ib][pkey]") {
  std::array<uint8_t, 64> out{};
  ib::NodeInfo ni;
  ni.partition_cap = 128;
  ni.encode(out.data());
  CHECK(out[28] == 0x00);
  CHECK(out[29] == 0x80);

  out.fill(0);
  ib::PortInfo pi;
  pi.operational_vls = 4;
  pi.partition_enforcement_inbound = true;
  pi.filter_raw_outbound = true;
  pi.p_key_violations = 0x0102;
  pi.encode(out.data());
  CHECK(out[43] == 0x49);  // OperationalVLs 4 in 7:4, inbound bit 3, outbound bit 2, raw in bit 1, raw out bit 0
  CHECK(out[46] == 0x01);
  CHECK(out[47] == 0x02);
  out[43] = 0x46;          // OperationalVLs 4, outbound and raw inbound
  ib::PortInfo back;
  back.decode(out.data());
  CHECK(!back.partition_enforcement_inbound);
  CHECK(back.partition_enforcement_outbound);
  CHECK(back.filter_raw_inbound);
  CHECK(!back.filter_raw_outbound);
  CHECK(back.p_key_violations == 0x0102);

  out.fill(0);
  ib::SwitchInfo si;
  si.partition_enforcement_cap = 128;
  si.inbound_enforcement_cap = si.outbound_enforcement_cap = true;
  si.encode(out.data());
  CHECK(out[14] == 0x00);
  CHECK(out[15] == 0x80);
  CHECK(out[16] == 0xC0);
}

TEST_CASE("Trap 257 and Trap 259 Notices encode the dropped packet at OpenSM's offsets", "[ib][pkey]") {
  ib::PkeyViolation v;
  v.lid1 = 1;
  v.lid2 = 2;
  v.pkey = 0x8001;
  v.sl = 3;
  v.qp1 = 0;
  v.qp2 = 0x123;
  std::array<uint8_t, 64> out{};
  ib::pkey_trap_notice(false, 2, v).encode_smp(out.data());
  const std::array<uint8_t, 28> want257 = {0x82, 0x00, 0x00, 0x01,  // generic, security; producer CA
                                           0x01, 0x01, 0x00, 0x02,  // trap 257; issuer LID 2
                                           0x00, 0x00, 0x00, 0x00,  // toggle/count; DataDetails pad
                                           0x00, 0x01, 0x00, 0x02,  // LID1, LID2
                                           0x00, 0x00, 0x80, 0x01,  // Key (32 bits)
                                           0x30, 0x00, 0x00, 0x00,  // SL 3 in 31:28, QP1 0
                                           0x00, 0x00, 0x01, 0x23}; // QP2
  for (size_t i = 0; i < want257.size(); ++i) {
    INFO("byte " << i);
    CHECK(out[i] == want257[i]);
  }
  for (size_t i = want257.size(); i < 64; ++i) CHECK(out[i] == 0);  // GIDs: no GRH in the model
  ib::Notice n;
  n.decode_smp(out.data());
  ib::PkeyViolation d = ib::pkey_trap_details(n);
  CHECK(d.lid1 == 1);
  CHECK(d.lid2 == 2);
  CHECK(d.pkey == 0x8001);
  CHECK(d.sl == 3);
  CHECK(d.qp2 == 0x123);

  v.sl = 0;
  v.qp1 = 5;
  v.switch_lid = 3;
  v.port = 2;
  out.fill(0);
  ib::pkey_trap_notice(true, 3, v).encode_smp(out.data());
  const std::array<uint8_t, 26> want259 = {0x82, 0x00, 0x00, 0x02,  // producer switch
                                           0x01, 0x03, 0x00, 0x03,  // trap 259; issuer LID 3
                                           0x00, 0x00, 0x00, 0x00,  // toggle/count; DataValid
                                           0x00, 0x01, 0x00, 0x02,  // LID1, LID2
                                           0x80, 0x01,              // P_Key (16 bits)
                                           0x00, 0x00, 0x00, 0x05,  // SL 0, QP1 5
                                           0x00, 0x00, 0x01, 0x23}; // QP2
  for (size_t i = 0; i < want259.size(); ++i) {
    INFO("byte " << i);
    CHECK(out[i] == want259[i]);
  }
  CHECK(out[58] == 0x00);
  CHECK(out[59] == 0x03);  // the switch's LID
  CHECK(out[60] == 0x02);  // the port
  n.decode_smp(out.data());
  d = ib::pkey_trap_details(n);
  CHECK(d.pkey == 0x8001);
  CHECK(d.qp1 == 5);
  CHECK(d.switch_lid == 3);
  CHECK(d.port == 2);
}
