#include "models/link/port.hpp"

#include <algorithm>


namespace hcasim::link {

using sc_core::sc_time;

namespace {
sc_time ps(uint64_t v) { return sc_time::from_value(v); }
}  // namespace

Port::Port(const sc_core::sc_module_name& name, const PortConfig& config, ib::PacketPool& pool)
    : sc_module(name),
      config_(config),
      pool_(pool),
      vls_(config.effective_vls()),
      sl2vl_(resolved_sl2vl(config)),
      arbiter_(resolved_vlarb(config)) {
  tx.bind(*this);
  rx.bind(*this);
  for (unsigned vl = 0; vl < vls_; ++vl)
    receiver_[vl] = CreditReceiver(static_cast<uint32_t>(rx_buffer_bytes(config_, vl) / kCreditBlockBytes));

}

void Port::connect(Port& a, Port& b, const LinkConfig& link) {
  a.tx.bind(b.rx);
  b.tx.bind(a.rx);
  a.timing_ = LinkTiming(link);
  b.timing_ = LinkTiming(link);
  a.peer_ = &b;
  b.peer_ = &a;
  for (Port* p : {&a, &b}) {
    p->fc_period_ps_ = link.fc_period_ps;
    p->block_ps_ = static_cast<double>(kCreditBlockBytes) * 8e12 / p->timing_.data_rate_bps();
    p->head_ps_ = p->timing_.bytes_ps(ib::kLrhBytes);
    p->fc_flight_ps_ = p->timing_.serialization_ps(ib::kFlowControlBytes) + p->timing_.propagation_ps() +
                       p->peer_->rx_extra_ps_;
  }
}

void Port::set_rx_timing(bool cut_through, uint64_t extra_latency_ps) {
  rx_cut_through_ = cut_through;
  rx_extra_ps_ = extra_latency_ps;
  // The peer's flow-control packets now reach this port later.
  if (peer_ != nullptr)
    peer_->fc_flight_ps_ = peer_->timing_.serialization_ps(ib::kFlowControlBytes) + peer_->timing_.propagation_ps() +
                           rx_extra_ps_;
}

void Port::set_lifetimes(const Lifetimes& lifetimes) {
  lifetimes_ = lifetimes;
  lifetimes_on_ = lifetimes.enabled();
}

void Port::start_of_simulation() {
  // Link up: advertise the initial credits of every data VL.
  if (peer_ == nullptr) return;
  for (unsigned vl = 0; vl < vls_; ++vl) consider_flow_control(vl);
}

SubmitResult Port::submit(ib::Packet* p) {
  const unsigned vl = sl2vl_[p->hdr.lrh.sl & 0xF];
  if (vl == kVl15) {
    discard(p, vl, DropReason::SlToVl15);
    return SubmitResult::Dropped;
  }
  return submit_on_vl(p, vl);
}

SubmitResult Port::submit_on_vl(ib::Packet* p, unsigned vl) {
  if (peer_ == nullptr) {
    discard(p, vl, DropReason::LinkDown);
    return SubmitResult::Dropped;
  }
  if (p->payload_len > config_.mtu) {
    discard(p, vl, DropReason::MtuExceeded);
    return SubmitResult::Dropped;
  }
  if (vl != kVl15 && vl >= vls_) {
    discard(p, vl, DropReason::BadVl);
    return SubmitResult::Dropped;
  }
  const uint32_t bytes = p->wire_bytes();
  if (!tx_has_room(vl, bytes)) return SubmitResult::Busy;
  p->hdr.lrh.vl = static_cast<uint8_t>(vl);
  if (p->injected_ps == 0) p->injected_ps = now_ps();
  if (lifetimes_on_) {
    if (stall_[vl].stalled(now_ps())) {
      discard(p, vl, DropReason::VlStalled);
      return SubmitResult::Dropped;
    }
    if (p->received_ps == 0) p->received_ps = now_ps();  // made here: its switch lifetime starts now
  }
  p->queued_bytes = bytes;
  txq_[vl].push_back(p);
  if (lifetimes_on_ && txq_[vl].front() == p) new_head(vl);
  txq_bytes_[vl] += bytes;
  VlStats& s = stats_.vl[vl];
  s.tx_high_water_bytes = std::max(s.tx_high_water_bytes, txq_bytes_[vl]);
  trace_tx_bytes_[vl] = static_cast<uint32_t>(txq_bytes_[vl]);
  wake_tx();
  return SubmitResult::Queued;
}

void Port::open_stalls() {
  const uint64_t now = now_ps();
  for (unsigned vl = 0; vl < vls_; ++vl)
    if (stall_since_[vl] == 0 && !txq_[vl].empty() && !sender_[vl].may_send(blocks_for(txq_[vl].front()->queued_bytes)))
      stall_since_[vl] = now + 1;
}

void Port::close_stalls() {
  const uint64_t now = now_ps();
  for (unsigned vl = 0; vl < vls_; ++vl) {
    if (stall_since_[vl] == 0) continue;
    stats_.vl[vl].credit_stall_ps += now - (stall_since_[vl] - 1);
    stall_since_[vl] = 0;
  }
}

void Port::finish() { close_stalls(); }

void Port::tx_method() {
  const uint64_t now = now_ps();
  if (now < tx_free_at_) {
    tx_wakeup_.notify_at(tx_free_at_);
    return;
  }
  if (!txq_[kVl15].empty()) {
    transmit(pop_tx(kVl15), kVl15);
    if (tx_waiting()) tx_wakeup_.notify_at(tx_free_at_);
    return;
  }
  if (fc_pending_ != 0) {
    // Round robin among the VLs with a flow-control packet due.
    const uint32_t later = fc_pending_ & ~((1u << fc_next_) - 1);
    const unsigned vl = static_cast<unsigned>(__builtin_ctz(later != 0 ? later : fc_pending_));
    fc_next_ = (vl + 1) % vls_;
    transmit(make_flow_control(vl), kGrantFlowControl);
    if (tx_waiting()) tx_wakeup_.notify_at(tx_free_at_);
    return;
  }
  VlCandidates candidates{};
  for (unsigned vl = 0; vl < vls_; ++vl) {
    if (txq_[vl].empty()) continue;
    const uint32_t blocks = blocks_for(txq_[vl].front()->queued_bytes);
    if (sender_[vl].may_send(blocks)) candidates[vl] = blocks;
  }
  const int vl = arbiter_.grant(candidates);
  if (vl < 0) {
    // The link is idle: VLs whose head packet lacks credits are stalled.
    trace_grant_ = kGrantIdle;
    open_stalls();
    return;
  }
  ib::Packet* p = pop_tx(static_cast<unsigned>(vl));
  sender_[vl].on_sent(blocks_for(p->queued_bytes));
  trace_credits_[vl] = sender_[vl].available();
  transmit(p, static_cast<uint32_t>(vl));
  consider_flow_control(static_cast<unsigned>(vl));
  if (tx_waiting()) tx_wakeup_.notify_at(tx_free_at_);
}

ib::Packet* Port::pop_tx(unsigned vl) {
  ib::Packet* p = txq_[vl].pop_front();
  txq_bytes_[vl] -= p->queued_bytes;
  if (lifetimes_on_) {
    stall_[vl].on_sent();
    if (!txq_[vl].empty()) new_head(vl);
  }
  return p;
}

void Port::new_head(unsigned vl) {
  head_since_[vl] = now_ps();
  arm_lifetime(vl);
}

void Port::arm_lifetime(unsigned vl) {
  const uint64_t deadline = lifetimes_.deadline(head_since_[vl], txq_[vl].front()->received_ps);
  if (deadline >= lifetime_at_) return;  // the timer goes off earlier anyway
  lifetime_at_ = deadline;
  const uint64_t now = now_ps();
  lifetime_timer_.notify_at(std::max(deadline, now));
}

void Port::lifetime_method() {
  // Discards every expired head; then re-arms for the earliest deadline left.
  lifetime_at_ = UINT64_MAX;
  const uint64_t now = now_ps();
  bool freed = false;
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (vl >= vls_ && vl != kVl15) continue;
    ib::PacketQueue& q = txq_[vl];
    while (!q.empty()) {
      const uint64_t received = q.front()->received_ps;
      if (now < lifetimes_.deadline(head_since_[vl], received)) break;
      const bool hoq = lifetimes_.hoq_expired_first(head_since_[vl], received);
      ib::Packet* gone = q.pop_front();
      txq_bytes_[vl] -= gone->queued_bytes;
      discard(gone, vl, hoq ? DropReason::HoqLifetime : DropReason::SwitchLifetime);
      freed = true;
      head_since_[vl] = now;
      if (hoq && stall_[vl].on_hoq_discard(lifetimes_, now)) flush_stalled(vl);
    }
    trace_tx_bytes_[vl] = static_cast<uint32_t>(txq_bytes_[vl]);
    if (!q.empty()) arm_lifetime(vl);
  }
  if (freed) {
    signal(tx_space_);
    wake_tx();
  }
}

void Port::flush_stalled(unsigned vl) {
  while (!txq_[vl].empty()) {
    discard(txq_[vl].pop_front(), vl, DropReason::VlStalled);
  }
  txq_bytes_[vl] = 0;
}

void Port::transmit(ib::Packet* p, uint32_t grant) {
  const uint64_t now = now_ps();
  const uint32_t bytes = p->wire_bytes();
  const uint64_t serialization = timing_.serialization_ps(bytes);
  const uint64_t tail = now + serialization + timing_.propagation_ps();
  // Delivery: when the receiver takes it (its cut-through setting), plus the
  // receiver's latency; the same latency for flow control keeps link order.
  uint64_t arrival = tail;
  if (p->kind == ib::PacketKind::Data && peer_->rx_cut_through_) arrival = now + head_ps_ + timing_.propagation_ps();
  arrival += peer_->rx_extra_ps_;
  p->tail_ps = tail;
  tx_free_at_ = now + serialization;
  stats_.busy_ps += serialization;
  close_stalls();
  trace_grant_ = grant;
  if (p->kind == ib::PacketKind::Data) {
    const unsigned vl = p->hdr.lrh.vl;
    VlStats& s = stats_.vl[vl];
    ++s.tx_packets;
    s.tx_bytes += bytes;
    s.tx_payload_bytes += p->payload_len;
    trace_tx_bytes_[vl] = static_cast<uint32_t>(txq_bytes_[vl]);
    signal(tx_space_);  // the upper layer may refill at this same time
  } else {
    ++stats_.fc_tx;
  }
  p->last_hop_ps = now;
  for (PortObserver* o : observers_) o->on_transmit(*this, *p, now, arrival);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time delay = ps(arrival - now);
  tx->nb_transport_fw(*p, phase, delay);
}

ib::Packet* Port::make_flow_control(unsigned vl) {
  ib::Packet* p = pool_.acquire();
  p->kind = ib::PacketKind::FlowControl;
  p->fc.op = 0;
  p->fc.vl = static_cast<uint8_t>(vl);
  p->fc.fctbs = sender_[vl].fctbs();
  p->fc.fccl = receiver_[vl].fccl();
  FlowControlState& f = fc_[vl];
  f.last_fccl = p->fc.fccl;
  f.last_fctbs = p->fc.fctbs;
  f.last_ps = now_ps();
  f.sent_once = true;
  fc_pending_ &= ~(1u << vl);
  consider_flow_control(vl);  // re-arm the timer if something changed meanwhile
  return p;
}

void Port::consider_flow_control(unsigned vl) {
  if (fc_pending_ & (1u << vl)) return;
  const FlowControlState& f = fc_[vl];
  const bool fccl_changed = !f.sent_once || receiver_[vl].fccl() != f.last_fccl;
  if (!fccl_changed && sender_[vl].fctbs() == f.last_fctbs) return;
  const uint64_t now = now_ps();
  const uint64_t due = f.sent_once ? f.last_ps + fc_period_ps_ : now;
  if (now >= due || (fccl_changed && peer_would_stall(vl, due - now))) {
    fc_pending_ |= 1u << vl;
    wake_tx();
  } else if (due < fc_timer_at_ || fc_timer_at_ <= now) {
    fc_timer_at_ = due;
    fc_timer_.notify_at(due);
  }
}

bool Port::peer_would_stall(unsigned vl, uint64_t wait_ps) const {
  // The credit the peer holds keeps its link busy for this long...
  const double headroom_ps = receiver_[vl].sender_headroom(fc_[vl].last_fccl) * block_ps_;
  // ...and a flow-control packet sent after waiting reaches it this late.
  return headroom_ps < static_cast<double>(wait_ps + fc_flight_ps_);
}

void Port::fc_timer_method() {
  fc_timer_at_ = UINT64_MAX;
  for (unsigned vl = 0; vl < vls_; ++vl) consider_flow_control(vl);
}

tlm::tlm_sync_enum Port::nb_transport_fw(ib::Packet& p, tlm::tlm_phase&, sc_time& delay) {
  p.due_ps = now_ps() + delay.value();
  if (in_flight_.empty()) rx_arrival_.notify_at(p.due_ps);
  in_flight_.push_back(&p);
  return tlm::TLM_COMPLETED;
}

void Port::b_transport(ib::Packet& p, sc_time& delay) {
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  nb_transport_fw(p, phase, delay);
  delay = sc_core::SC_ZERO_TIME;
}

void Port::rx_method() {
  const uint64_t now = now_ps();
  while (!in_flight_.empty() && in_flight_.front()->due_ps <= now) {
    ib::Packet* p = in_flight_.pop_front();
    for (PortObserver* o : observers_) o->on_arrival(*this, *p, now);
    if (p->kind == ib::PacketKind::FlowControl)
      receive_flow_control(p);
    else
      receive_data(p);
  }
  if (!in_flight_.empty()) rx_arrival_.notify_at(in_flight_.front()->due_ps);
}

void Port::receive_flow_control(ib::Packet* p) {
  ++stats_.fc_rx;
  const unsigned vl = p->fc.vl;
  if (vl < vls_ && p->fc.op <= 1) {
    sender_[vl].on_flow_control(p->fc.fccl);
    receiver_[vl].on_flow_control(p->fc.fctbs);
    trace_credits_[vl] = sender_[vl].available();
    consider_flow_control(vl);
    wake_tx();
  }
  pool_.release(p);
}

void Port::receive_data(ib::Packet* p) {
  const unsigned vl = p->hdr.lrh.vl;
  const uint32_t bytes = p->wire_bytes();
  const uint32_t blocks = blocks_for(bytes);
  if (vl == kVl15) {
    if (vl15_rx_bytes_ + bytes > config_.vl15_buffer_bytes) return discard(p, vl, DropReason::Vl15Overflow);
    vl15_rx_bytes_ += bytes;
  } else if (vl >= vls_) {
    return discard(p, vl, DropReason::BadVl);
  } else if (p->payload_len > config_.mtu) {
    return discard(p, vl, DropReason::MtuExceeded);
  } else if (!receiver_[vl].on_packet(blocks)) {
    return discard(p, vl, DropReason::BufferOverflow);
  }
  p->received_ps = now_ps();
  VlStats& s = stats_.vl[vl];
  ++s.rx_packets;
  s.rx_bytes += bytes;
  s.rx_payload_bytes += p->payload_len;
  const uint64_t occupancy =
      vl == kVl15 ? vl15_rx_bytes_ : static_cast<uint64_t>(receiver_[vl].used_blocks()) * kCreditBlockBytes;
  s.rx_high_water_bytes = std::max(s.rx_high_water_bytes, occupancy);
  trace_rx_blocks_[vl] = static_cast<uint32_t>(occupancy / kCreditBlockBytes);
  p->queued_bytes = bytes;
  rxq_[vl].push_back(p);
  for (PortObserver* o : observers_) o->on_buffered(*this, *p, vl, blocks);
  if (vl != kVl15) consider_flow_control(vl);
  signal(rx_ready_);  // the upper layer may take it at this same time
}

ib::Packet* Port::rx_pop(unsigned vl) {
  const uint32_t bytes = rxq_[vl].front()->queued_bytes;
  ib::Packet* p = rx_take(vl);
  rx_release(vl, bytes);
  return p;
}

ib::Packet* Port::rx_take(unsigned vl) {
  return rxq_[vl].pop_front();
}

void Port::rx_release(unsigned vl, uint32_t wire_bytes) {
  const uint32_t blocks = blocks_for(wire_bytes);
  if (vl == kVl15) {
    vl15_rx_bytes_ -= wire_bytes;
    trace_rx_blocks_[vl] = static_cast<uint32_t>(vl15_rx_bytes_ / kCreditBlockBytes);
  } else {
    receiver_[vl].on_released(blocks);
    trace_rx_blocks_[vl] = receiver_[vl].used_blocks();
    consider_flow_control(vl);
  }
  for (PortObserver* o : observers_) o->on_released(*this, vl, blocks);
}

void Port::discard(ib::Packet* p, unsigned vl, DropReason why) {
  ++stats_.vl[std::min(vl, 15u)].drops[static_cast<std::size_t>(why)];
  for (PortObserver* o : observers_) o->on_drop(*this, *p, why, now_ps());
  pool_.release(p);
}

void Port::trace(sc_core::sc_trace_file* tf) const {
  const std::string base = name();
  for (unsigned vl = 0; vl < vls_; ++vl) {
    const std::string v = base + ".vl" + std::to_string(vl);
    sc_core::sc_trace(tf, trace_credits_[vl], v + ".credits");
    sc_core::sc_trace(tf, trace_rx_blocks_[vl], v + ".rx_blocks");
    sc_core::sc_trace(tf, trace_tx_bytes_[vl], v + ".tx_bytes");
  }
  sc_core::sc_trace(tf, trace_rx_blocks_[kVl15], base + ".vl15.rx_blocks");
  sc_core::sc_trace(tf, trace_grant_, base + ".grant", 5);
}

}  // namespace hcasim::link
