#include "models/ib/packet.hpp"

#include "models/ib/layout.hpp"

namespace hcasim::ib {

uint32_t Packet::wire_bytes() const {
  if (kind == PacketKind::FlowControl) return kFlowControlBytes;
  return packet_wire_bytes(hdr, payload_len);
}

void Packet::finalize_lengths() {
  hdr.lrh.pkt_len = pkt_len_words(hdr, payload_len);
  hdr.bth.pad_cnt = pad_count(payload_len);
  if (hdr.lrh.lnh == Lnh::IbaGlobal) hdr.grh.pay_len = grh_pay_len(hdr, payload_len);
}

void Packet::reset() {
  kind = PacketKind::Data;
  hdr = Headers{};
  fc = FlowControl{};
  payload_len = 0;
  payload.clear();
  id = 0;
  flow = 0;
  seq = 0;
  created_ps = injected_ps = last_hop_ps = tail_ps = received_ps = 0;
  next = nullptr;
  due_ps = 0;
  queued_bytes = 0;
}

Packet* PacketPool::acquire() {
  if (free_.empty()) {
    all_.push_back(std::make_unique<Packet>());
    return all_.back().get();
  }
  Packet* p = free_.back();
  free_.pop_back();
  p->reset();
  return p;
}

void PacketPool::release(Packet* p) { free_.push_back(p); }

}  // namespace hcasim::ib
