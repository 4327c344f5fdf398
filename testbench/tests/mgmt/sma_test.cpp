// The SMA of a switch: Get / Set of its attributes and the M_Key check
// (IBA 14.2.4 as sma.hpp reads it); its P_KeyTable by port and block, its
// management port's table, the PortInfo enforcement bits, the capabilities.

#include <catch2/catch.hpp>

#include <systemc>

#include "models/ib/pkey.hpp"
#include "models/mgmt/sma.hpp"
#include "models/switch/switch.hpp"

using namespace hcasim;

namespace {

ib::Smp smp(uint8_t method, uint16_t attr, uint32_t mod, uint64_t m_key) {
  ib::Smp s;
  s.hdr.mgmt_class = ib::kClassSubnLid;
  s.hdr.method = method;
  s.hdr.attr_id = attr;
  s.hdr.attr_mod = mod;
  s.m_key = m_key;
  return s;
}

}  // namespace

TEST_CASE("a switch SMA applies Sets of its LID and tables and reads them back", "[mgmt][sma]") {
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(4), 0, pool);
  mgmt::Sma sma(s, {0x1234, "sw"});
  ib::Smp req = smp(ib::kMethodSet, ib::kAttrPortInfo, 0, 0), resp;
  ib::PortInfo pi;
  pi.lid = 0x42;
  pi.encode(req.data.data());
  REQUIRE(sma.process(req, 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusOk);
  REQUIRE(s.lid() == 0x42);
  // LFT block 1 = LIDs 64..127.
  req = smp(ib::kMethodSet, ib::kAttrLft, 1, 0);
  ib::LftBlock b;
  b.port.fill(0xFF);
  b.port[2] = 3;  // LID 66 -> port 3
  b.encode(req.data.data());
  REQUIRE(sma.process(req, 1, resp));
  REQUIRE(s.forwarding().lookup(66) == 3);
  REQUIRE(s.forwarding().lookup(65) == 0xFF);
  // SL2VL with the all-inputs bit: every input 0..4 to output 2.
  req = smp(ib::kMethodSet, ib::kAttrSlToVlTable, mgmt::kSl2VlAllInputs | 2, 0);
  ib::SlToVlTable t;
  for (unsigned sl = 0; sl < 16; ++sl) t.vl[sl] = static_cast<uint8_t>(sl % 3);
  t.encode(req.data.data());
  REQUIRE(sma.process(req, 1, resp));
  for (unsigned in = 0; in <= 4; ++in) REQUIRE(s.forwarding().sl2vl(in, 2)[5] == 2);
  REQUIRE(s.forwarding().sl2vl(1, 3)[5] != 2);  // other outputs untouched (default SL mod VLs = 5 mod 8)
  // An attribute a switch does not have, and a bad modifier.
  REQUIRE(sma.process(smp(ib::kMethodGet, 0x0030, 0, 0), 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusUnsupportedMethodAttr);
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 9, 0), 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusInvalidAttribute);
}

TEST_CASE("the M_Key check refuses Sets with a wrong key and Gets by protect level", "[mgmt][sma]") {
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(2), 0, pool);
  mgmt::Sma sma(s, {0x1234, "sw"});
  constexpr uint64_t kKey = 0xABCDEF0123456789ull;
  ib::Smp req = smp(ib::kMethodSet, ib::kAttrPortInfo, 0, 0), resp;
  ib::PortInfo pi;
  pi.lid = 7;
  pi.m_key = kKey;
  pi.m_key_protect_bits = 1;
  pi.encode(req.data.data());
  REQUIRE(sma.process(req, 1, resp));  // no key yet: anyone may set one
  // Protect 1: a Get with the wrong key passes with the M_Key read as 0.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 0, 1), 1, resp));
  ib::PortInfo got;
  got.decode(resp.data.data());
  REQUIRE(got.m_key == 0);
  REQUIRE(got.lid == 7);
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 0, kKey), 1, resp));
  got.decode(resp.data.data());
  REQUIRE(got.m_key == kKey);
  // A Set with the wrong key is refused: no answer, nothing changed, counted.
  ib::Smp bad = smp(ib::kMethodSet, ib::kAttrPortInfo, 0, 1);
  pi.lid = 9;
  pi.encode(bad.data.data());
  REQUIRE_FALSE(sma.process(bad, 1, resp));
  REQUIRE(s.lid() == 7);
  REQUIRE(sma.stats().m_key_violations == 1);
  // Protect 2: a Get with the wrong key is refused too.
  ib::Smp raise = smp(ib::kMethodSet, ib::kAttrPortInfo, 0, kKey);
  pi.lid = 7;
  pi.m_key_protect_bits = 2;
  pi.encode(raise.data.data());
  REQUIRE(sma.process(raise, 1, resp));
  REQUIRE_FALSE(sma.process(smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, 1), 1, resp));
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, kKey), 1, resp));
  REQUIRE(sma.stats().m_key_violations == 2);
}

TEST_CASE("a switch SMA sets and reads P_KeyTable blocks by port and PortInfo's partition bits", "[mgmt][sma][pkey]") {
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(4), 0, pool);
  mgmt::Sma sma(s, {0x1234, "sw"});
  ib::Smp resp;
  // Power-on: every port holds 0xFFFF at index 0 and enforces nothing.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPkeyTable, ib::pkey_attr_mod(0, 2), 0), 1, resp));
  ib::PkeyTableBlock b;
  b.decode(resp.data.data());
  CHECK(b.pkey[0] == 0xFFFF);
  CHECK(b.pkey[1] == 0);
  // Block 1 of port 2 (entries 32..63): the table grows to its last non-zero entry.
  ib::Smp set = smp(ib::kMethodSet, ib::kAttrPkeyTable, ib::pkey_attr_mod(1, 2), 0);
  ib::PkeyTableBlock w;
  w.pkey[0] = 0x8001;
  w.pkey[3] = 0x0002;
  w.encode(set.data.data());
  REQUIRE(sma.process(set, 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusOk);
  const std::vector<uint16_t>& t = s.port(2).pkeys();
  REQUIRE(t.size() == 36);
  CHECK(t[0] == 0xFFFF);
  CHECK(t[32] == 0x8001);
  CHECK(t[35] == 0x0002);
  CHECK(s.port(3).pkeys() == ib::default_pkey_table());  // other ports untouched
  // The management port's table lives in the SMA.
  set = smp(ib::kMethodSet, ib::kAttrPkeyTable, ib::pkey_attr_mod(0, 0), 0);
  w = ib::PkeyTableBlock{};
  w.pkey[0] = 0x7FFF;
  w.encode(set.data.data());
  REQUIRE(sma.process(set, 1, resp));
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPkeyTable, ib::pkey_attr_mod(0, 0), 0), 1, resp));
  b.decode(resp.data.data());
  CHECK(b.pkey[0] == 0x7FFF);
  // Block 4 is past the 128 entries; port 5 does not exist.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPkeyTable, ib::pkey_attr_mod(4, 2), 0), 1, resp));
  CHECK(resp.hdr.status == ib::kStatusInvalidAttribute);
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPkeyTable, ib::pkey_attr_mod(0, 5), 0), 1, resp));
  CHECK(resp.hdr.status == ib::kStatusInvalidAttribute);

  // PortInfo Set with the enforcement bits turns enforcement on at port 2.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 2, 0), 1, resp));
  ib::PortInfo pi;
  pi.decode(resp.data.data());
  CHECK(!pi.partition_enforcement_inbound);
  pi.partition_enforcement_inbound = true;
  pi.partition_enforcement_outbound = true;
  pi.port_state = ib::kPortStateNoChange;
  set = smp(ib::kMethodSet, ib::kAttrPortInfo, 2, 0);
  pi.encode(set.data.data());
  REQUIRE(sma.process(set, 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusOk);
  CHECK(s.port(2).enforces_inbound());
  CHECK(s.port(2).enforces_outbound());
  CHECK(!s.port(3).enforces_inbound());
  pi.decode(resp.data.data());
  CHECK(pi.partition_enforcement_inbound);
  CHECK(pi.p_key_violations == 0);

  // NodeInfo.PartitionCap and SwitchInfo's enforcement capabilities.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrNodeInfo, 0, 0), 1, resp));
  ib::NodeInfo ni;
  ni.decode(resp.data.data());
  CHECK(ni.partition_cap == mgmt::kPkeyTableEntries);
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrSwitchInfo, 0, 0), 1, resp));
  ib::SwitchInfo si;
  si.decode(resp.data.data());
  CHECK(si.partition_enforcement_cap == mgmt::kPkeyTableEntries);
  CHECK(si.inbound_enforcement_cap);
  CHECK(si.outbound_enforcement_cap);
}

TEST_CASE("PortInfo: LocalPortNum is the port the SMP came in on, and modifier bit 31 is SMSupportsExtendedSpeeds",
          "[mgmt][sma]") {
  // IBA 14.2.5.6: LocalPortNum = "the link port number this SMP came on in";
  // libibnetdisc leaves a switch only through ports other than LocalPortNum.
  ib::PacketPool pool;
  sw::Switch s("sw", sw::SwitchConfig{}, std::vector<link::PortConfig>(4), 0, pool);
  mgmt::Sma sma(s, {0x1234, "sw"});
  ib::Smp resp;
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 3, 0), 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusOk);
  ib::PortInfo pi;
  pi.decode(resp.data.data());
  REQUIRE(pi.local_port_num == 1);
  // OpenSM sets bit 31 for ports with IsExtendedSpeedsSupported: the same port.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 0x80000003u, 0), 2, resp));
  REQUIRE(resp.hdr.status == ib::kStatusOk);
  pi.decode(resp.data.data());
  REQUIRE(pi.local_port_num == 2);
  // Other bits above the port number are reserved: an invalid modifier.
  REQUIRE(sma.process(smp(ib::kMethodGet, ib::kAttrPortInfo, 0x00010003u, 0), 1, resp));
  REQUIRE(resp.hdr.status == ib::kStatusInvalidAttribute);
  // read(): the same data without counting an SMP.
  const uint64_t gets = sma.stats().gets;
  const auto data = sma.read(ib::kAttrNodeInfo, 0, 0);
  ib::NodeInfo ni;
  ni.decode(data.data());
  REQUIRE(ni.node_guid == 0x1234);
  REQUIRE(sma.stats().gets == gets);
}
