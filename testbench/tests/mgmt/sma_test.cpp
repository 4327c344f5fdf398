// The SMA of a switch: Get / Set of its attributes and the M_Key check
// (IBA 14.2.4 as sma.hpp reads it).

#include <catch2/catch.hpp>

#include <systemc>

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
