#pragma once
// The bytes host software and the HCA exchange, byte by byte: work queue
// entries (WQEs) in the send and receive rings, completion queue entries
// (CQEs) in the CQ ring, the doorbell records, and the HCA's BAR0 (register
// page, MSI-X table, UAR pages with their doorbells and BlueFlame buffer).
// A user's own CPU model drives the HCA by writing these bytes; the driver in
// models/host is just the first such user. The layout is ConnectX-like (a
// control segment, then the segments the opcode needs) but the model's own.
//
// Every multi-byte field is little-endian (the host's byte order). Offsets
// are in bytes from the start of the structure.
//
// Send WQE (the send ring holds entries of the QP's send stride, a multiple of
// 64 bytes; a WQE is 16 x ds bytes of it):
//   control segment, 16 bytes:
//     0      opcode (kOp* below)
//     1      flags: bit 0 signaled (write a CQE on success), bit 1 solicited event
//     2-3    WQE index: the send counter of this WQE modulo 2^16
//     4-7    QP number (low 24 bits)
//     8      ds: the WQE's size in 16-byte units, this segment included
//     9-11   0
//     12-15  immediate data (send / write with immediate), or the R_Key to
//            invalidate (send with invalidate)
//   then, in this order, the segments the QP type and opcode need:
//   UD address segment (UD QPs), 16 bytes:
//     0-3 remote QP number, 4-7 remote Q_Key, 8-9 DLID, 10 SL, 11 source path bits, 12-15 0
//   remote address segment (RDMA read and write, atomics), 16 bytes:
//     0-7 remote address, 8-11 R_Key, 12-15 0
//   atomic segment (atomics), 16 bytes:
//     0-7 swap value (compare and swap) or addend (fetch and add), 8-15 compare value
//   data segments, 16 bytes each (the gather list; atomics: one 8-byte element
//   that receives the original value):
//     0-3 byte count, 4-7 L_Key, 8-15 address
//   or one inline segment instead: 0-3 byte count | kInlineFlag, then the
//   bytes themselves, padded to a multiple of 16 (no gather read).
//
// Receive WQE (entries of the QP's receive stride, a multiple of 16): data
// segments as above; a segment whose L_Key is 0 (never a valid key) ends a
// list shorter than the stride.
//
// Doorbell record (8 bytes per QP in host memory, written by software):
//   0-3 receive counter (receive WQEs ever posted), 4-7 send counter (send
//   WQEs ever posted), both modulo 2^32. The HCA reads the receive counter
//   when a request needs a receive WQE it has not fetched.
// CQ doorbell record (8 bytes per CQ): 0-3 consumer counter (CQEs ever
//   polled), 4-7 0. The HCA reads it when the CQ looks full.
//
// CQE, 64 bytes (the CQ ring holds a power of two of them):
//     0-7    timestamp: simulated time the completion was made, ps
//     8-11   byte count (receives: bytes placed; UD: including the 40-byte GRH space)
//     12-15  immediate data, or the R_Key a send with invalidate ended
//     16-19  QP number
//     20-23  source QP (UD receives)
//     24-25  source LID (receives)
//     26     SL
//     27     flags: bit 0 with immediate, bit 1 with invalidate
//     28-31  vendor error (the model's detail code for an error status; 0 = none)
//     32-33  WQE index: the send or receive counter of the completed WQE modulo 2^16
//     34     opcode (transport::WcOpcode)
//     35     status (transport::WcStatus, the IBV_WC values)
//     36     mini CQEs that follow this CQE (a compressed block's title; 0 = a
//            plain CQE)
//     37-62  0
//     63     bit 0: owner. Entry i of a ring of n is valid when its owner bit is
//            ((i / n) & 1) ^ 1: the HCA writes 1 on the first pass, 0 on the
//            second, ..., so a ring of zeroed memory holds no valid entry.
//            bit 1: a mini-CQE array (below), not a CQE.
//
// Compressed block (CQE compression, completion_writer.hpp): completions of
// one QP that succeeded with no immediate or invalidate, made close together,
// go to the ring as one block written by one DMA write: a title CQE (the
// first completion, as above, byte 36 = m, the completions that follow),
// then ceil(m / 7) mini-CQE arrays in the ring entries after it. An array is a
// ring entry of its own (64 bytes, with its owner bit in byte 63 and bit 1
// set) holding up to 7 mini CQEs of 8 bytes, in completion order:
//     0-1    WQE index
//     2      opcode (transport::WcOpcode)
//     3      0
//     4-7    byte count
//   then 0 up to byte 62. A completion of a mini CQE has the title's fields
//   (QP number, status, SL, source LID and QP, timestamp) and its own WQE
//   index, opcode and byte count. A block of n completions takes
//   1 + ceil((n - 1) / 7) ring entries (cqe_block_entries).
//
// BAR0 (MMIO; page = offset >> 12):
//   page 0, registers: 0x000 device id (read only), 0x008 number of UAR pages
//     (read only), 0x010 number of MSI-X vectors (read only); the MSI-X table
//     at 0x800, 16 bytes per vector (PCIe's layout): 0-7 message address,
//     8-11 message data, 12-15 vector control (bit 0 masked).
//   pages 1 to uar_pages, one per user context (UAR):
//     0x000 send doorbell, 8 bytes: 0-3 send counter, 4-7 QP number
//     0x008 CQ doorbell, 8 bytes: 0-3 CQ number | command << 24 (1 arm for the
//           next completion, 2 arm for the next solicited one), 4-7 consumer counter
//     0x100 BlueFlame buffer, kBlueFlameBytes: a whole send WQE written with the
//           doorbell (its control segment names the QP and the WQE index), so the
//           HCA fetches nothing.
//   Any other offset is unmapped (a TLM address error).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/transport/verbs.hpp"

namespace hcasim::hca {

constexpr uint32_t kWqeBasicBlock = 64;   // send stride unit
constexpr uint32_t kSegmentBytes = 16;    // every segment, and ds's unit
constexpr uint32_t kCqeBytes = 64;
constexpr uint32_t kDoorbellRecordBytes = 8;
constexpr uint32_t kInlineFlag = 0x8000'0000u;
constexpr uint32_t kMaxDs = 255;          // ds is one byte: a WQE is at most 4080 bytes

// Send WQE opcodes (the values ConnectX uses).
constexpr uint8_t kOpNop = 0x00;
constexpr uint8_t kOpSendInv = 0x01;
constexpr uint8_t kOpRdmaWrite = 0x08;
constexpr uint8_t kOpRdmaWriteImm = 0x09;
constexpr uint8_t kOpSend = 0x0A;
constexpr uint8_t kOpSendImm = 0x0B;
constexpr uint8_t kOpRdmaRead = 0x10;
constexpr uint8_t kOpAtomicCs = 0x11;
constexpr uint8_t kOpAtomicFa = 0x12;

constexpr uint8_t kWqeSignaled = 1u << 0;
constexpr uint8_t kWqeSolicited = 1u << 1;

// BAR0.
constexpr uint64_t kPageBytes = 4096;
constexpr uint64_t kRegDeviceId = 0x000;
constexpr uint64_t kRegUarPages = 0x008;
constexpr uint64_t kRegMsixVectors = 0x010;
constexpr uint64_t kMsixTable = 0x800;
constexpr uint64_t kMsixEntryBytes = 16;
constexpr uint32_t kMaxMsixVectors = (kPageBytes - kMsixTable) / kMsixEntryBytes;  // 128
constexpr uint64_t kUarSendDoorbell = 0x000;
constexpr uint64_t kUarCqDoorbell = 0x008;
constexpr uint64_t kUarBlueFlame = 0x100;
constexpr uint32_t kBlueFlameBytes = 256;
constexpr uint32_t kDeviceId = 0x15B3'1017;  // model: a vendor and device id pair for the register page
constexpr uint8_t kCqArmNext = 1;
constexpr uint8_t kCqArmSolicited = 2;

// The segments a send WQE has, in bytes, for a QP type, opcode and gather
// list (inline: the bytes carried in the WQE instead, 0 = a gather list).
uint32_t send_wqe_bytes(transport::QpType type, transport::WrOpcode op, std::size_t sges, uint32_t inline_bytes);
// The smallest send stride (a multiple of 64) that holds any WQE of a QP with
// these limits; the receive stride (a multiple of 16, a power of two) for max_recv_sge.
uint32_t send_stride(transport::QpType type, uint32_t max_send_sge, uint32_t max_inline);
uint32_t recv_stride(uint32_t max_recv_sge);

uint8_t wqe_opcode(transport::WrOpcode op);
// The WrOpcode of a WQE opcode; false for an unknown one (NOP included).
bool wr_opcode(uint8_t wqe_op, transport::WrOpcode& out);

// Writes wr as a send WQE at out (send_wqe_bytes(...) bytes, the rest of the
// stride untouched). inline_data: the message bytes when sent inline (the
// gather list is then not written), else empty.
void encode_send_wqe(const transport::SendWr& wr, transport::QpType type, uint32_t qpn, uint32_t index,
                     const std::vector<uint8_t>& inline_data, uint8_t* out);

// What a send WQE's bytes say. The control segment's fields, then the work
// request (inline bytes in wr.inline_data).
struct SendWqeHeader {
  uint8_t opcode = 0;
  uint8_t flags = 0;
  uint16_t index = 0;
  uint32_t qpn = 0;
  uint8_t ds = 0;
};
SendWqeHeader read_send_header(const uint8_t* wqe);
enum class WqeError : uint8_t { None, UnknownOpcode, BadSize };
// Decodes a send WQE of `bytes` available bytes for a QP of `type`; wr_id is
// left 0 (the HCA uses the send counter). UnknownOpcode for an opcode the
// type does not support or that is unknown, BadSize when ds is below what
// the opcode needs or above `bytes`.
WqeError decode_send_wqe(const uint8_t* wqe, uint32_t bytes, transport::QpType type, transport::SendWr& wr);

// Receive WQEs: the scatter list, at most stride / 16 entries.
void encode_recv_wqe(const transport::RecvWr& wr, uint32_t stride, uint8_t* out);
void decode_recv_wqe(const uint8_t* wqe, uint32_t stride, transport::RecvWr& wr);

// CQEs.
constexpr uint32_t kMiniCqeBytes = 8;
constexpr uint32_t kMiniCqesPerEntry = 7;   // 56 bytes; byte 63 keeps the owner bit
constexpr uint32_t kMaxMiniCqes = 255;      // byte 36 of the title
constexpr uint8_t kCqeMiniArray = 1u << 1;  // byte 63, bit 1
void encode_cqe(const transport::WorkCompletion& wc, uint32_t wqe_index, uint32_t ring_index, uint32_t ring_entries,
                uint8_t* out);
bool cqe_valid(const uint8_t* cqe, uint32_t ring_index, uint32_t ring_entries);
// The completion (wr_id left 0) and the WQE index it reports.
transport::WorkCompletion decode_cqe(const uint8_t* cqe, uint16_t& wqe_index);

// Compressed blocks.
struct MiniCqe {
  uint16_t wqe_index = 0;
  transport::WcOpcode opcode = transport::WcOpcode::Send;
  uint32_t byte_len = 0;
};
// Ring entries a block of n >= 1 completions takes: the title and its arrays.
constexpr uint32_t cqe_block_entries(uint32_t n) { return 1 + (n - 1 + kMiniCqesPerEntry - 1) / kMiniCqesPerEntry; }
// Whether wc may follow `title` in a block as a mini CQE (same QP, source and
// SL; both succeeded with no immediate, no invalidate and no vendor error).
bool joins_block(const transport::WorkCompletion& title, const transport::WorkCompletion& wc);
void set_mini_count(uint8_t* title, uint8_t m);
inline uint8_t mini_count(const uint8_t* cqe) { return cqe[36]; }
inline bool is_mini_array(const uint8_t* entry) { return (entry[63] & kCqeMiniArray) != 0; }
// A mini-CQE array at ring entry ring_index: minis[0..n), n <= kMiniCqesPerEntry.
void encode_mini_array(const MiniCqe* minis, uint32_t n, uint32_t ring_index, uint32_t ring_entries, uint8_t* out);
MiniCqe decode_mini_cqe(const uint8_t* array, uint32_t k);

// Little-endian access to the fields above.
inline void put_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint16_t get_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
inline uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// Context tables in host memory (ICM, icm_layout.hpp), written by the driver
// at reg_mr and read by the HCA's MPT and MTT caches.
//
// MPT entry (memory protection), 64 bytes, one per memory region, at the
// region's key index (key >> 8):
//     0-3    L_Key
//     4-7    R_Key
//     8-11   access flags (transport::Access bits: local write, remote write, read, atomic)
//     12     log2 of the page size (12: 4 KiB, 21: 2 MiB)
//     13     flags: bit 0 valid (0 after dereg_mr), bit 1 R_Key valid
//     14-15  0
//     16-23  start address (the region's first byte)
//     24-31  length in bytes
//     32-39  first MTT index
//     40-47  MTT entries (pages the region touches)
//     48-63  0
// MTT entry (translation), 8 bytes, one per page of a region, in page order
// from the first MTT index:
//     0-7    the page's physical address, page aligned; bit 0 present (0 after dereg_mr)
constexpr uint32_t kMptBytes = 64;
constexpr uint32_t kMttBytes = 8;
struct MptEntry {
  uint32_t lkey = 0, rkey = 0, access = 0;
  uint8_t page_shift = 12;
  bool valid = false, rkey_valid = false;
  uint64_t start = 0, length = 0, mtt_first = 0, mtt_count = 0;
};
void encode_mpt(const MptEntry& e, uint8_t* out);  // kMptBytes
MptEntry decode_mpt(const uint8_t* in);
inline void encode_mtt(uint64_t page_addr, bool present, uint8_t* out) { put_u64(out, page_addr | (present ? 1 : 0)); }

}  // namespace hcasim::hca
