#pragma once
// The bytes the embedding example (embed_hca.cpp) writes and reads, as a user's own CPU model
// would handle them, from the layouts models/hca/host_formats.hpp documents (little-endian):
// - an RDMA WRITE send WQE: a control segment, a remote address segment and one data segment,
//   so ds = 3 and the WQE is 48 bytes;
// - the send doorbell, 8 bytes: 0-3 send counter, 4-7 QP number (the doorbell record's bytes 4-7
//   hold the same send counter);
// - a CQE's fields, read back from its 64 bytes.

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "models/hca/host_formats.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::examples {

struct RdmaWrite {
  uint32_t qpn = 0;          // the sending QP (its low 24 bits go into the WQE)
  uint32_t index = 0;        // the send counter of this WQE: send WQEs posted before it
  uint64_t local_addr = 0;   // the source buffer (a gather list of one element)
  uint32_t lkey = 0;         // its memory region's L_Key
  uint32_t length = 0;       // bytes
  uint64_t remote_addr = 0;  // the destination on the peer
  uint32_t rkey = 0;         // the peer's R_Key for it
  bool signaled = true;      // write a CQE on success
};

constexpr uint32_t kRdmaWriteDs = 3;  // control + remote address + one data segment
constexpr uint32_t kRdmaWriteWqeBytes = kRdmaWriteDs * hca::kSegmentBytes;
constexpr uint32_t kSendDoorbellBytes = 8;

// Writes w's WQE to out[0, kRdmaWriteWqeBytes).
inline void write_rdma_write_wqe(const RdmaWrite& w, uint8_t* out) {
  std::memset(out, 0, kRdmaWriteWqeBytes);
  uint8_t* control = out;  // 0 opcode, 1 flags, 2-3 WQE index, 4-7 QP number, 8 ds
  control[0] = hca::kOpRdmaWrite;
  control[1] = w.signaled ? hca::kWqeSignaled : 0;
  hca::put_u16(control + 2, static_cast<uint16_t>(w.index));
  hca::put_u32(control + 4, w.qpn & 0xFF'FFFFu);
  control[8] = kRdmaWriteDs;
  uint8_t* remote = out + hca::kSegmentBytes;  // 0-7 remote address, 8-11 R_Key
  hca::put_u64(remote, w.remote_addr);
  hca::put_u32(remote + 8, w.rkey);
  uint8_t* data = out + 2 * hca::kSegmentBytes;  // 0-3 byte count, 4-7 L_Key, 8-15 address
  hca::put_u32(data, w.length);
  hca::put_u32(data + 4, w.lkey);
  hca::put_u64(data + 8, w.local_addr);
}

// Writes the send doorbell for a QP whose send counter (WQEs ever posted) is `counter` to out[0, 8).
inline void write_send_doorbell(uint32_t counter, uint32_t qpn, uint8_t* out) {
  hca::put_u32(out, counter);
  hca::put_u32(out + 4, qpn);
}

// The CQE's fields the example prints, from its 64 bytes.
struct Cqe {
  uint64_t timestamp_ps = 0;  // 0-7: when the HCA made the completion
  uint32_t qpn = 0;           // 16-19
  uint16_t wqe_index = 0;     // 32-33: the send counter of the completed WQE modulo 2^16
  uint8_t opcode = 0;         // 34: transport::WcOpcode
  uint8_t status = 0;         // 35: transport::WcStatus (0 = success)
  bool owner = false;         // 63 bit 0
};

inline Cqe read_cqe(const uint8_t* cqe) {
  Cqe c;
  c.timestamp_ps = hca::get_u64(cqe);
  c.qpn = hca::get_u32(cqe + 16);
  c.wqe_index = hca::get_u16(cqe + 32);
  c.opcode = cqe[34];
  c.status = cqe[35];
  c.owner = (cqe[63] & 1) != 0;
  return c;
}

// A CQE's fields from its 64 bytes, as text:
// "status 0 (success), opcode 1 (rdma_write), QP 2, WQE index 0, timestamp 1234 ps".
inline std::string describe_cqe(const uint8_t* cqe) {
  const Cqe c = read_cqe(cqe);
  std::ostringstream s;
  s << "status " << unsigned{c.status} << " (" << transport::to_string(transport::WcStatus{c.status}) << "), opcode "
    << unsigned{c.opcode} << " (" << transport::to_string(transport::WcOpcode{c.opcode}) << "), QP " << c.qpn
    << ", WQE index " << c.wqe_index << ", timestamp " << c.timestamp_ps << " ps";
  return s.str();
}

}  // namespace hcasim::examples
