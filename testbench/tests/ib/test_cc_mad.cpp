// The Congestion Control MAD (class 0x21) against bytes worked out by hand from
// its layout (cc_mad.hpp: OpenSM ib_cc_mad_t, libibmad IB_CC_DATA_OFFS /
// IB_CC_LOG_DATA_OFFS): header 0-23, CC_Key 24-31, log data 32-63, management
// data 64-255; CongestionLog from byte 32, every other attribute from 64.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

#include "models/ib/cc_attributes.hpp"
#include "models/ib/cc_mad.hpp"

using namespace hcasim::ib;

TEST_CASE("CC MAD: a Set(SwitchCongestionSetting) header and CC_Key at their bytes", "[ib][cc]") {
  const CcMad m = cc_request(kMethodSet, kAttrSwitchCongestionSetting, 0, 0x7A94, 0x0102030405060708ull);
  std::array<uint8_t, kMadBytes> b;
  b.fill(0xEE);
  encode(m, b.data());
  const std::array<uint8_t, 32> want = {
      0x01, 0x21, 0x02, 0x02,                          // BaseVersion 1, class 0x21, class version 2, Set
      0x00, 0x00, 0x00, 0x00,                          // Status, ClassSpecific
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7A, 0x94,  // TID
      0x00, 0x14, 0x00, 0x00,                          // AttributeID 0x0014, reserved
      0x00, 0x00, 0x00, 0x00,                          // AttributeModifier
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}; // CC_Key, bytes 24-31
  CHECK(std::equal(want.begin(), want.end(), b.begin()));
  for (unsigned i = 32; i < kMadBytes; ++i) {
    INFO("byte " << i);
    CHECK(b[i] == 0);  // both data areas empty, reserved bytes zero
  }
  CcMad back;
  REQUIRE(decode(b.data(), back));
  CHECK(back == m);

  b[1] = kClassSubnAdm;  // not class 0x21
  CHECK_FALSE(decode(b.data(), back));
  b[1] = kClassCongestionControl;
  b[0] = 2;  // base version 2
  CHECK_FALSE(decode(b.data(), back));
}

TEST_CASE("CC MAD: CongestionLog starts at MAD byte 32, the other attributes at byte 64", "[ib][cc]") {
  CHECK(cc_attribute_offset(kAttrCongestionLog) == 32);
  for (uint16_t id : {kAttrCongestionInfo, kAttrCongestionKeyInfo, kAttrSwitchCongestionSetting,
                      kAttrSwitchPortCongestionSetting, kAttrCaCongestionSetting, kAttrCongestionControlTable,
                      kAttrTimeStamp}) {
    INFO("attribute " << id);
    CHECK(cc_attribute_offset(id) == 64);
  }

  CcMad log = cc_request(kMethodGetResp, 0, 0, 1, 0);
  CongestionLogCa ca;
  ca.event_counter = 0x0102;
  put_attribute(log, ca);
  CHECK(log.hdr.attr_id == 0x0013);
  std::array<uint8_t, kMadBytes> b{};
  encode(log, b.data());
  CHECK(b[32] == kCongestionLogTypeCa);  // LogType at attribute byte 0 = MAD byte 32
  CHECK(b[34] == 0x01);                  // ThresholdEventCounter, attribute bytes 2-3
  CHECK(b[35] == 0x02);

  CcMad ts = cc_request(kMethodGetResp, 0, 0, 2, 0);
  TimeStamp t;
  t.value = 0x89ABCDEF;
  put_attribute(ts, t);
  CHECK(ts.hdr.attr_id == 0x0018);
  encode(ts, b.data());
  const std::array<uint8_t, 4> want{0x89, 0xAB, 0xCD, 0xEF};  // Timestamp, MAD bytes 64-67
  CHECK(std::equal(want.begin(), want.end(), b.begin() + 64));
  CHECK(b[32] == 0);  // the log data area stays empty
  CcMad back;
  REQUIRE(decode(b.data(), back));
  TimeStamp t2;
  get_attribute(back, t2);
  CHECK(t2 == t);
}
