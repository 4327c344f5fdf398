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
  wire_len = 0;
  payload_len = 0;
  next = nullptr;
  due_ps = tail_ps = received_ps = 0;
  id = 0;
  hdr = Headers{};
  flow = 0;
  seq = 0;
  created_ps = submitted_ps = request_in_ps = injected_ps = 0;
  ssn = 0;
  fc = FlowControl{};
  payload.clear();
}

void Packet::reset_as_flow_control() {
  kind = PacketKind::FlowControl;
  wire_len = kFlowControlBytes;
  payload_len = 0;
  next = nullptr;
  due_ps = tail_ps = 0;
  id = 0;
  fc = FlowControl{};
}

Packet* PacketPool::take() {
  if (free_.empty()) {
    slabs_.push_back(std::make_unique<Packet[]>(kSlabPackets));
    allocated_ += kSlabPackets;
    // Handed out in address order: the first one last onto the stack.
    for (std::size_t i = kSlabPackets; i-- > 0;) free_.push_back(&slabs_.back()[i]);
  }
  Packet* p = free_.back();
  free_.pop_back();
  return p;
}

Packet* PacketPool::acquire() {
  Packet* p = take();
  p->reset();
  return p;
}

Packet* PacketPool::acquire_flow_control() {
  Packet* p = take();
  p->reset_as_flow_control();
  return p;
}

Packet& PacketPool::flow_control_scratch(bool receiving) {
  Packet& p = scratch_[receiving ? 1 : 0];
  p.reset_as_flow_control();
  return p;
}

}  // namespace hcasim::ib
