// hcasim's AR attributes (ar_attributes.hpp): every field at the byte the
// header's rules give it, worked by hand, and round trips.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "models/ib/ar_attributes.hpp"
#include "models/ib/mad.hpp"

using namespace hcasim::ib;

namespace {

template <typename T>
std::array<uint8_t, kSmpDataBytes> ar_bytes(const T& a) {
  std::array<uint8_t, kSmpDataBytes> b{};
  a.encode(b.data());
  return b;
}

}  // namespace

TEST_CASE("ArInfo: mode, choice, k, SL mask, GroupCap and the ageing in picoseconds at their bytes") {
  ArInfo i;
  i.mode = 2;
  i.choice = 1;
  i.k = 3;
  i.sl_mask = 0x8001;
  i.group_cap = 2048;
  i.ageing_ps = 30'000'000;  // 30 us = 0x01C9C380 ps
  const auto b = ar_bytes(i);
  const std::array<uint8_t, 16> want = {2, 1, 3, 0, 0x80, 0x01, 0x08, 0x00, 0, 0, 0, 0, 0x01, 0xC9, 0xC3, 0x80};
  for (unsigned n = 0; n < 16; ++n) CHECK(b[n] == want[n]);
  ArInfo d;
  d.decode(b.data());
  CHECK(ar_bytes(d) == b);
}

TEST_CASE("ArGroupTable block: two 256-bit port masks, port p at byte 31 - p / 8, bit p % 8") {
  ArGroupBlock g;
  g.ports[0] = {1, 9, 254};
  g.ports[1] = {2};
  const auto b = ar_bytes(g);
  std::array<uint8_t, kSmpDataBytes> want{};
  want[31] = 0x02;  // port 1
  want[30] = 0x02;  // port 9
  want[0] = 0x40;   // port 254
  want[63] = 0x04;  // the second group's port 2
  CHECK(b == want);
  ArGroupBlock d;
  d.decode(b.data());
  CHECK(d.ports[0] == std::vector<uint8_t>{1, 9, 254});
  CHECK(d.ports[1] == std::vector<uint8_t>{2});
  // Ports 0 and 255 are never members.
  std::array<uint8_t, kSmpDataBytes> all{};
  all.fill(0xFF);
  d.decode(all.data());
  CHECK(d.ports[0].size() == 254);
  CHECK(d.ports[0].front() == 1);
  CHECK(d.ports[0].back() == 254);
}

TEST_CASE("ArLidTable block: 32 sixteen-bit groups, big-endian") {
  ArLidBlock l;
  l.group[0] = 0x0102;
  l.group[31] = 7;
  const auto b = ar_bytes(l);
  CHECK(b[0] == 0x01);
  CHECK(b[1] == 0x02);
  CHECK(b[62] == 0);
  CHECK(b[63] == 7);
  ArLidBlock d;
  d.decode(b.data());
  CHECK(d.group == l.group);
}
