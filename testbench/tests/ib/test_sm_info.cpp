// SMInfo against bytes worked out by hand from its layout (IBA 14.2.5.13,
// OpenSM ib_sm_info_t: GUID, SM_Key, ActCount, Priority:4 | SMState:4).
#include <catch2/catch.hpp>

#include <array>

#include "models/ib/sm_info.hpp"

using namespace hcasim::ib;

TEST_CASE("SMInfo encodes to its 24 bytes and decodes back") {
  SmInfo i;
  i.guid = 0x0002c90300000101;
  i.sm_key = 0x1122334455667788;
  i.act_count = 0x01020304;
  i.priority = 5;
  i.state = SmState::Master;
  std::array<uint8_t, SmInfo::kBytes> b;
  b.fill(0xEE);
  i.encode(b.data());
  const std::array<uint8_t, SmInfo::kBytes> expected = {
      0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x01, 0x01,  // GUID
      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,  // SM_Key
      0x01, 0x02, 0x03, 0x04,                          // ActCount
      0x53,                                            // Priority 5, SMState 3 (Master)
      0x00, 0x00, 0x00};                               // reserved
  CHECK(b == expected);
  SmInfo back;
  back.decode(b.data());
  CHECK(back == i);
  b[20] = 0xF2;  // priority 15, Standby
  back.decode(b.data());
  CHECK(back.priority == 15);
  CHECK(back.state == SmState::Standby);
  CHECK(std::string(to_string(back.state)) == "standby");
}
