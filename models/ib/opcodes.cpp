#include "models/ib/opcodes.hpp"

#include <array>

#include "models/ib/headers.hpp"

namespace hcasim::ib {
namespace {

using OpcodeTable = std::array<OpcodeInfo, 256>;

constexpr OpcodeInfo kReserved{"RESERVED", false, 0, false};

// One row per operation suffix (bits 4:0), shared by RC and UC where both exist.
struct OpRow {
  uint8_t suffix;
  const char* rc_name;
  const char* uc_name;  // nullptr: RC only
  uint8_t ext;
  bool has_payload;
};

constexpr uint8_t kImm = ExtHeader::ImmDt;
constexpr uint8_t kReth = ExtHeader::Reth;
constexpr uint8_t kAeth = ExtHeader::Aeth;

// iba-facts 1 "Which opcodes carry which headers"; READ_RESP_MIDDLE has no AETH.
constexpr OpRow kRows[] = {
    {0x00, "RC_SEND_FIRST", "UC_SEND_FIRST", 0, true},
    {0x01, "RC_SEND_MIDDLE", "UC_SEND_MIDDLE", 0, true},
    {0x02, "RC_SEND_LAST", "UC_SEND_LAST", 0, true},
    {0x03, "RC_SEND_LAST_IMM", "UC_SEND_LAST_IMM", kImm, true},
    {0x04, "RC_SEND_ONLY", "UC_SEND_ONLY", 0, true},
    {0x05, "RC_SEND_ONLY_IMM", "UC_SEND_ONLY_IMM", kImm, true},
    {0x06, "RC_WRITE_FIRST", "UC_WRITE_FIRST", kReth, true},
    {0x07, "RC_WRITE_MIDDLE", "UC_WRITE_MIDDLE", 0, true},
    {0x08, "RC_WRITE_LAST", "UC_WRITE_LAST", 0, true},
    {0x09, "RC_WRITE_LAST_IMM", "UC_WRITE_LAST_IMM", kImm, true},
    {0x0A, "RC_WRITE_ONLY", "UC_WRITE_ONLY", kReth, true},
    {0x0B, "RC_WRITE_ONLY_IMM", "UC_WRITE_ONLY_IMM", kReth | kImm, true},
    {0x0C, "RC_READ_REQUEST", nullptr, kReth, false},
    {0x0D, "RC_READ_RESP_FIRST", nullptr, kAeth, true},
    {0x0E, "RC_READ_RESP_MIDDLE", nullptr, 0, true},
    {0x0F, "RC_READ_RESP_LAST", nullptr, kAeth, true},
    {0x10, "RC_READ_RESP_ONLY", nullptr, kAeth, true},
    {0x11, "RC_ACK", nullptr, kAeth, false},
    {0x12, "RC_ATOMIC_ACK", nullptr, kAeth | ExtHeader::AtomicAckEth, false},
    {0x13, "RC_CMP_SWAP", nullptr, ExtHeader::AtomicEth, false},
    {0x14, "RC_FETCH_ADD", nullptr, ExtHeader::AtomicEth, false},
    {0x16, "RC_SEND_LAST_INV", nullptr, ExtHeader::Ieth, true},
    {0x17, "RC_SEND_ONLY_INV", nullptr, ExtHeader::Ieth, true},
    {0x1C, "RC_FLUSH", nullptr, ExtHeader::Feth | kReth, false},
    {0x1D, "RC_ATOMIC_WRITE", nullptr, kReth, true},
};

constexpr OpcodeTable make_table() {
  OpcodeTable t{};
  for (auto& e : t) e = kReserved;
  for (const OpRow& r : kRows) {
    t[op::kRcPrefix | r.suffix] = OpcodeInfo{r.rc_name, true, r.ext, r.has_payload};
    if (r.uc_name != nullptr) {
      t[op::kUcPrefix | r.suffix] = OpcodeInfo{r.uc_name, true, r.ext, r.has_payload};
    }
  }
  t[op::kCnp] = OpcodeInfo{"CNP", true, 0, false};
  t[op::kUdSendOnly] = OpcodeInfo{"UD_SEND_ONLY", true, ExtHeader::Deth, true};
  t[op::kUdSendOnlyImm] = OpcodeInfo{"UD_SEND_ONLY_IMM", true,
                                     ExtHeader::Deth | ExtHeader::ImmDt, true};
  return t;
}

constexpr OpcodeTable kTable = make_table();

}  // namespace

const OpcodeInfo& opcode_info(uint8_t opcode) { return kTable[opcode]; }

namespace {

constexpr unsigned size_of(ExtHeader h) {
  switch (h) {
    case ExtHeader::Deth: return kDethBytes;
    case ExtHeader::Feth: return kFethBytes;
    case ExtHeader::Reth: return kRethBytes;
    case ExtHeader::AtomicEth: return kAtomicEthBytes;
    case ExtHeader::Aeth: return kAethBytes;
    case ExtHeader::AtomicAckEth: return kAtomicAckEthBytes;
    case ExtHeader::ImmDt: return kImmDtBytes;
    case ExtHeader::Ieth: return kIethBytes;
  }
  return 0;
}

// Extended-header bytes per opcode, summed once at compile time (it is on the
// per-packet path).
constexpr std::array<uint8_t, 256> make_ext_bytes() {
  std::array<uint8_t, 256> t{};
  for (unsigned op = 0; op < 256; ++op)
    for (unsigned bit = 0; bit < 8; ++bit)
      if (kTable[op].ext & (1u << bit)) t[op] = static_cast<uint8_t>(t[op] + size_of(static_cast<ExtHeader>(1u << bit)));
  return t;
}
constexpr std::array<uint8_t, 256> kExtBytes = make_ext_bytes();

}  // namespace

unsigned ext_header_size(ExtHeader h) { return size_of(h); }

unsigned ext_header_bytes(uint8_t opcode) { return kExtBytes[opcode]; }

}  // namespace hcasim::ib
