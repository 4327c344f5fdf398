#pragma once
// How a message becomes packets, and how packet payloads move between packets
// and scatter/gather lists: the parts the requester and the responder share.
//
// Rules (seed 002; iba-facts 1):
// - A message of L bytes takes max(1, ceil(L / PMTU)) packets; every packet but
//   the last carries exactly PMTU bytes. A READ's responses follow the same rule.
// - Opcodes: FIRST / MIDDLE / LAST for a message of several packets, ONLY for
//   one; the immediate rides the LAST or ONLY packet (…_WITH_IMMEDIATE), as does
//   SEND with invalidate's IETH; a WRITE's RETH rides its FIRST or ONLY packet.
// - Scatter/gather lists are walked in order; offset counts from the list's
//   first byte.

#include <cstdint>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/transport/host_memory.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::transport {

enum class Position : uint8_t { First, Middle, Last, Only };

constexpr uint32_t packet_count(uint64_t length, uint32_t mtu) {
  return length == 0 ? 1 : static_cast<uint32_t>((length + mtu - 1) / mtu);
}
constexpr Position position(uint32_t index, uint32_t count) {
  return count == 1 ? Position::Only : index == 0 ? Position::First : index + 1 == count ? Position::Last : Position::Middle;
}

// The BTH opcode of packet `index` of `count` of a request (RC, UC or UD).
uint8_t request_opcode(QpType type, WrOpcode op, uint32_t index, uint32_t count);
// The READ response opcode for a packet at position p.
uint8_t read_response_opcode(Position p);

bool is_read_or_atomic(WrOpcode op);
uint64_t sg_length(const std::vector<Sge>& sg);
// The first failing check of the list's elements (Ok when all pass).
// Whether a request packet with this opcode takes (or goes on using) a receive
// WQE: a SEND of any position, an RDMA WRITE with immediate at its last packet.
bool uses_recv_wqe(uint8_t opcode);

KeyCheck check_sg(const HostMemory& m, const std::vector<Sge>& sg, uint32_t access);
// Copies len bytes at offset of the list to / from out. The range must lie in the list.
// gather returns when the last of its bytes is at the HCA (host_memory.hpp), 0 when it read nothing.
uint64_t gather(HostMemory& m, const std::vector<Sge>& sg, uint64_t offset, uint8_t* out, uint64_t len);
void scatter(HostMemory& m, const std::vector<Sge>& sg, uint64_t offset, const uint8_t* data, uint64_t len);

// An 8-byte word in the host's byte order (little-endian), as atomics use it.
inline void to_le64(uint64_t v, uint8_t out[8]) {
  for (unsigned i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t from_le64(const uint8_t in[8]) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; ++i) v |= uint64_t{in[i]} << (8 * i);
  return v;
}

// Fills the LRH and BTH of a transport packet (IBA local, no GRH).
void fill_lrh_bth(ib::Packet& p, uint8_t sl, uint16_t dlid, uint16_t slid, uint8_t opcode, uint32_t dest_qp,
                  uint32_t psn);

}  // namespace hcasim::transport
