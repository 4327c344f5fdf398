#include "models/ib/layout.hpp"

#include "models/ib/opcodes.hpp"

namespace hcasim::ib {

unsigned header_bytes(const Headers& h) {
  if (!is_iba_transport(h.lrh.lnh)) return kLrhBytes;
  unsigned bytes = kLrhBytes + kBthBytes + ext_header_bytes(h.bth.opcode);
  if (h.lrh.lnh == Lnh::IbaGlobal) bytes += kGrhBytes;
  return bytes;
}

uint16_t pkt_len_words(const Headers& h, uint32_t payload_len) {
  const uint32_t padded = payload_len + pad_count(payload_len);
  const uint32_t icrc = is_iba_transport(h.lrh.lnh) ? kIcrcBytes : 0;
  return static_cast<uint16_t>((header_bytes(h) + padded + icrc) / 4);
}

uint16_t grh_pay_len(const Headers& h, uint32_t payload_len) {
  return static_cast<uint16_t>(pkt_len_words(h, payload_len) * 4u - kLrhBytes - kGrhBytes);
}

uint32_t packet_wire_bytes(const Headers& h, uint32_t payload_len) {
  return pkt_len_words(h, payload_len) * 4u + kVcrcBytes;
}

}  // namespace hcasim::ib
