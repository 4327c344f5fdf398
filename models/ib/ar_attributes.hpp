#pragma once
// hcasim's adaptive-routing SMP attributes (docs/adaptive-routing.md): how
// the in-band SM hands a switch its AR groups. NVIDIA's AR attributes are not
// public, so these are hcasim's own, in the vendor-specific attribute range
// (IBA 14.2.5: 0xFF00-0xFFFF). No SystemC.
//
// Rules:
// - ArInfo (kAttrHcasimArInfo, modifier 0): byte 0 mode (0 off, 1 free,
//   2 bounded), byte 1 choice (0 least_queued, 1 random, 2
//   least_queued_of_k), byte 2 k, bytes 4-5 the SL mask (bit s: SL s),
//   bytes 6-7 GroupCap (read only: the groups a switch holds), bytes 8-15
//   the ageing in picoseconds. A Set of mode 0 turns AR off.
// - ArGroupTable block (kAttrHcasimArGroupTable): two groups, 2 * block and
//   2 * block + 1, each a 256-bit port mask of 32 bytes (bit p of the mask
//   in byte 31 - p / 8, bit p % 8: port p, big-endian as a 256-bit number).
//   Port 0 and port 255 are never members. Group 0 means "none".
// - ArLidTable block (kAttrHcasimArLidTable): the groups of LIDs 32 * block
//   .. 32 * block + 31, 16 bits each, big-endian; 0 = the LFT routes it.

#include <array>
#include <cstdint>
#include <vector>

namespace hcasim::ib {

constexpr uint16_t kAttrHcasimArInfo = 0xFFB0;
constexpr uint16_t kAttrHcasimArGroupTable = 0xFFB1;
constexpr uint16_t kAttrHcasimArLidTable = 0xFFB2;

constexpr unsigned kArGroupsPerBlock = 2;
constexpr unsigned kArLidsPerBlock = 32;

struct ArInfo {
  static constexpr unsigned kBytes = 16;
  uint8_t mode = 0;
  uint8_t choice = 0;
  uint8_t k = 0;
  uint16_t sl_mask = 0;
  uint16_t group_cap = 0;
  uint64_t ageing_ps = 0;
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct ArGroupBlock {
  static constexpr unsigned kMaskBytes = 32;
  static constexpr unsigned kBytes = kArGroupsPerBlock * kMaskBytes;
  std::array<std::vector<uint8_t>, kArGroupsPerBlock> ports;  // each group's port numbers, ascending
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct ArLidBlock {
  static constexpr unsigned kBytes = 2 * kArLidsPerBlock;
  std::array<uint16_t, kArLidsPerBlock> group{};  // group[i]: of LID 32 * block + i
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

}  // namespace hcasim::ib
