#pragma once
// A MAD as the wire carries it, for the pcap tests: a UD SEND Only from and to
// QP0 (on VL15, with the SMI Q_Key) or QP1 (on VL0, with the GSI Q_Key), with
// its headers filled as MadNode::make_packet fills them.
#include <array>
#include <cstdint>

#include "models/ib/headers.hpp"
#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/ib/packet.hpp"
#include "models/transport/message_layout.hpp"

namespace hcasim::test {

// `mad` holds ib::kMadBytes bytes.
inline ib::Packet mad_packet(const uint8_t* mad, uint32_t qp, uint16_t dlid, uint16_t slid) {
  ib::Packet p;
  transport::fill_lrh_bth(p, 0, dlid, slid, ib::op::kUdSendOnly, qp, 0);
  p.hdr.lrh.vl = qp == ib::kQp0 ? 15 : 0;
  p.hdr.deth.q_key = qp == ib::kQp0 ? ib::kSmiQKey : ib::kGsiQKey;
  p.hdr.deth.src_qp = qp;
  p.payload.assign(mad, mad + ib::kMadBytes);
  p.payload_len = ib::kMadBytes;
  p.finalize_lengths();
  return p;
}

// Encodes a MAD (any type with an ib::encode(const T&, uint8_t*)) and wraps it.
template <class Mad>
ib::Packet encoded_mad_packet(const Mad& m, uint32_t qp, uint16_t dlid, uint16_t slid) {
  std::array<uint8_t, ib::kMadBytes> bytes{};
  ib::encode(m, bytes.data());
  return mad_packet(bytes.data(), qp, dlid, slid);
}

}  // namespace hcasim::test
