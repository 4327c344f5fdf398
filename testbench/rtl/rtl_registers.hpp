#pragma once
// The register maps and pin encodings of testbench/rtl/vl_arbiter.sv and
// credit_manager.sv, as plain logic: what a transactor writes to configure a
// block, and how per-VL lengths are packed onto one vector of pins.

#include <array>
#include <cstdint>
#include <vector>

#include "models/link/credits.hpp"
#include "models/link/vl_arbiter.hpp"

namespace hcasim::rtl {

// Parameters the blocks are Verilated with (CMakeLists.txt passes them as -G).
constexpr unsigned kRtlVls = 15;       // NUM_VLS: data VLs
constexpr unsigned kRtlDepth = 64;     // DEPTH: entries per arbitration table
constexpr unsigned kRtlLenBits = 8;    // LEN_W: packet lengths in 64-byte blocks
constexpr unsigned kRtlBufferBits = 25;  // BUF_W: receive buffer sizes in blocks
constexpr uint32_t kRtlMaxLen = (1u << kRtlLenBits) - 1;
constexpr unsigned kLenWords = (kRtlVls * kRtlLenBits + 31) / 32;

// vl_arbiter.sv registers.
constexpr uint32_t kArbHighEntry = 0x00;  // + entry index
constexpr uint32_t kArbLowEntry = 0x40;   // + entry index
constexpr uint32_t kArbHighSize = 0x80;
constexpr uint32_t kArbLowSize = 0x81;
constexpr uint32_t kArbHighLimit = 0x82;
constexpr uint32_t kArbControl = 0x83;    // bit 0: deficit policy; the write commits
constexpr uint32_t kArbControlDeficit = 1;

// credit_manager.sv events (ev_op).
constexpr uint32_t kEvSent = 0;
constexpr uint32_t kEvFlowControl = 1;
constexpr uint32_t kEvReceived = 2;
constexpr uint32_t kEvReleased = 3;

struct RegWrite {
  uint32_t addr = 0;
  uint32_t data = 0;
  bool operator==(const RegWrite& o) const { return addr == o.addr && data == o.data; }
};

// An IBA VLArbitrationTable entry as two bytes {VL, weight} (iba-facts 3).
constexpr uint32_t arbiter_entry_word(const link::VlArbEntry& e) {
  return (static_cast<uint32_t>(e.vl & 0xF) << 8) | e.weight;
}

// The writes that load an arbiter configuration, the committing control write last.
std::vector<RegWrite> arbiter_program(const link::VlArbConfig& c);

// The writes that set each VL's receive buffer (blocks), VL0 first.
std::vector<RegWrite> credit_program(const std::vector<uint32_t>& capacity_blocks);

// Per-VL lengths (blocks, 0 = none) as the words of req_len / head_len, VL0 in
// the lowest bits. Throws std::out_of_range for a length over kRtlMaxLen.
std::array<uint32_t, kLenWords> pack_lengths(const link::VlCandidates& lengths);

// The lengths whose bit is set in `mask`, the others 0.
link::VlCandidates select(const link::VlCandidates& lengths, uint32_t mask);

}  // namespace hcasim::rtl
