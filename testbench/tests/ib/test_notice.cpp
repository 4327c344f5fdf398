// The Notice attribute: Trap 128 and a vendor notice against bytes computed by
// hand from the layout in notice.hpp (OpenSM ib_mad_notice_attr_t), and round
// trips in the 80-byte and the 64-byte (SMP) forms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>

#include "models/ib/notice.hpp"

using namespace hcasim::ib;

TEST_CASE("Notice: Trap 128 from the switch at LID 5 encodes to the hand-computed bytes", "[ib][notice]") {
  const Notice n = link_state_change_notice(5);
  std::array<uint8_t, Notice::kBytes> b{};
  b.fill(0xEE);
  n.encode(b.data());
  std::array<uint8_t, Notice::kBytes> want{};
  want[0] = 0x81;                  // IsGeneric 1, Type 1 (urgent)
  want[3] = 0x02;                  // ProducerType 2 (switch), bytes 1-3
  want[5] = 0x80;                  // TrapNumber 128, bytes 4-5
  want[7] = 0x05;                  // IssuerLID 5
  want[11] = 0x05;                 // DataDetails LIDADDR 5, bytes 10-11
  CHECK(b == want);
  CHECK(notice_lid_addr(n) == 5);
}

TEST_CASE("Notice: a vendor notice with toggle, count, details and GID", "[ib][notice]") {
  Notice n;
  n.is_generic = false;
  n.type = kNoticeTypeInfo;
  n.producer_or_vendor = 0x0002C9;
  n.trap_or_device = 0x1234;
  n.issuer_lid = 0xBEEF;
  n.toggle = true;
  n.count = 0x0123;
  n.details[0] = 0x11;
  n.details[53] = 0xAA;
  n.issuer_gid[0] = 0xFE;
  n.issuer_gid[15] = 0x01;
  std::array<uint8_t, Notice::kBytes> b{};
  n.encode(b.data());
  const std::array<uint8_t, 10> head{0x04, 0x00, 0x02, 0xC9, 0x12, 0x34, 0xBE, 0xEF, 0x81, 0x23};
  CHECK(std::equal(head.begin(), head.end(), b.begin()));
  CHECK(b[10] == 0x11);
  CHECK(b[63] == 0xAA);
  CHECK(b[64] == 0xFE);
  CHECK(b[79] == 0x01);
  Notice d;
  d.decode(b.data());
  CHECK(d == n);
  // In an SMP the attribute stops at byte 63: nothing is written after it and the GID reads 0.
  std::array<uint8_t, Notice::kBytes> s{};
  s.fill(0xEE);
  n.encode_smp(s.data());
  CHECK(std::equal(s.begin(), s.begin() + Notice::kSmpBytes, b.begin()));
  CHECK(s[Notice::kSmpBytes] == 0xEE);
  Notice ds;
  ds.decode_smp(s.data());
  Notice no_gid = n;
  no_gid.issuer_gid.fill(0);
  CHECK(ds == no_gid);
}
