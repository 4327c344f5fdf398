#pragma once
// IBA packet headers as decoded fields (no SystemC here).
// Layouts, sizes and field widths: IBA vol. 1 ch. 7 (LRH), 8 (GRH), 9 (BTH and the
// extended transport headers), as collected in iba-facts.md section 1.
// Which extended headers a packet carries follows from its LNH and BTH opcode
// (see opcodes.hpp); fields of headers a packet does not carry are ignored.

#include <array>
#include <cstdint>

namespace hcasim::ib {

constexpr unsigned kLrhBytes = 8;           // iba-facts 1: header sizes
constexpr unsigned kGrhBytes = 40;
constexpr unsigned kBthBytes = 12;
constexpr unsigned kRethBytes = 16;
constexpr unsigned kAethBytes = 4;
constexpr unsigned kAtomicEthBytes = 28;
constexpr unsigned kAtomicAckEthBytes = 8;
constexpr unsigned kImmDtBytes = 4;
constexpr unsigned kIethBytes = 4;
constexpr unsigned kDethBytes = 8;
constexpr unsigned kIcrcBytes = 4;
constexpr unsigned kVcrcBytes = 2;
constexpr unsigned kMaxPayloadBytes = 4096;  // largest MTU (iba-facts 2: MTU enum 5)

// LRH LNH (link next header), iba-facts 1.
enum class Lnh : uint8_t { Raw = 0, Ip = 1, IbaLocal = 2, IbaGlobal = 3 };

struct Lrh {
  uint8_t vl = 0;         // 4 bits
  uint8_t lver = 0;       // 4 bits, 0 for IBA 1.x
  uint8_t sl = 0;         // 4 bits
  Lnh lnh = Lnh::IbaLocal;
  uint16_t dlid = 0;
  uint16_t pkt_len = 0;   // 11 bits: 4-byte words from LRH through ICRC (VCRC excluded)
  uint16_t slid = 0;
};

struct Grh {
  uint8_t ip_ver = 6;         // 4 bits
  uint8_t tclass = 0;
  uint32_t flow_label = 0;    // 20 bits
  uint16_t pay_len = 0;       // bytes from BTH through ICRC
  uint8_t nxt_hdr = 0x1B;     // 0x1B = IBA transport
  uint8_t hop_lmt = 0;
  std::array<uint8_t, 16> sgid{};
  std::array<uint8_t, 16> dgid{};
};

// Bits of Bth::resv8a, BTH byte 4 (IBA Annex A10; Linux rxe/hfi1 BTH_FECN_MASK
// and BTH_BECN_MASK are bits 31 and 30 of the word that starts there).
constexpr uint8_t kBthFecn = 0x80;  // forward explicit congestion notification
constexpr uint8_t kBthBecn = 0x40;  // backward explicit congestion notification

struct Bth {
  uint8_t opcode = 0;
  bool se = false;            // solicited event
  bool m = false;             // migration request
  uint8_t pad_cnt = 0;        // 2 bits
  uint8_t tver = 0;           // 4 bits, 0
  uint16_t p_key = 0xFFFF;
  uint8_t resv8a = 0;         // variant byte (FECN/BECN in rxe); masked in the ICRC
  uint32_t dest_qp = 0;       // 24 bits
  bool ack_req = false;
  uint32_t psn = 0;           // 24 bits
};

struct Reth {
  uint64_t va = 0;
  uint32_t r_key = 0;
  uint32_t dma_len = 0;
};

struct Aeth {
  uint8_t syndrome = 0;
  uint32_t msn = 0;           // 24 bits
};

struct AtomicEth {
  uint64_t va = 0;
  uint32_t r_key = 0;
  uint64_t swap_add = 0;
  uint64_t compare = 0;
};

struct AtomicAckEth {
  uint64_t orig_data = 0;
};

// FLUSH extended transport header (IBA 1.5 A19, layout as in the Linux rxe driver):
// one 32-bit word, bits 3:0 placement type, bits 5:4 selectivity level, rest reserved.
struct Feth {
  uint8_t placement_type = 0;     // 4 bits
  uint8_t selectivity_level = 0;  // 2 bits
};

struct Deth {
  uint32_t q_key = 0;
  uint32_t src_qp = 0;        // 24 bits
};

// All headers of one packet. has_grh mirrors lrh.lnh == IbaGlobal; the extended
// headers present are those opcode_info(bth.opcode) lists.
struct Headers {
  Lrh lrh;
  Grh grh;
  Bth bth;
  Reth reth;
  Aeth aeth;
  AtomicEth atomic_eth;
  AtomicAckEth atomic_ack_eth;
  uint32_t imm_dt = 0;
  uint32_t ieth_r_key = 0;
  Deth deth;
  Feth feth;                  // FLUSH only
};

}  // namespace hcasim::ib
