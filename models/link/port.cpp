#include "models/link/port.hpp"

#include <algorithm>
#include <stdexcept>

namespace hcasim::link {

using sc_core::sc_time;

Port::Port(const sc_core::sc_module_name& name, const PortConfig& config, ib::PacketPool& pool)
    : Port(name, std::make_shared<const SharedPortConfig>(config), pool) {}

Port::Port(const sc_core::sc_module_name& name, std::shared_ptr<const SharedPortConfig> shared, ib::PacketPool& pool)
    : sc_module(name),
      vls_(static_cast<uint8_t>(std::min(shared->config.effective_vls(), kMaxDataVls))),
      rx_data_vls_(static_cast<uint8_t>(vls_)),
      tx_data_vls_(static_cast<uint8_t>(vls_)),
      mtu_(static_cast<uint16_t>(std::min(shared->config.mtu, kMaxMtu))),
      pool_(pool),
      tx_buffer_bytes_(static_cast<uint32_t>(std::min(shared->config.tx_buffer_bytes, kMaxVlBufferBytes))),  // larger throws below
      stats_(nullptr, 0),  // set once block_ is made
      arbiter_(shared->vlarb, shared->config.effective_vls()),
      block_(vls_),
      sl2vl_(resolved_sl2vl(shared->config)),
      vl15_buffer_bytes_(shared->config.vl15_buffer_bytes),
      shared_(std::move(shared)) {
  const PortConfig& config = shared_->config;
  if (config.mtu > kMaxMtu)
    throw std::invalid_argument(std::string(this->name()) + ": MTU of " + std::to_string(config.mtu) +
                                " bytes; accepted: at most " + std::to_string(kMaxMtu));
  if (config.tx_buffer_bytes > kMaxVlBufferBytes)
    throw std::invalid_argument(std::string(this->name()) + ": tx_buffer of " + std::to_string(config.tx_buffer_bytes) +
                                " bytes; accepted: at most " + std::to_string(kMaxVlBufferBytes));
  lanes_ = block_.lanes();
  stats_.vl = VlStatsTable(block_.slots(), vls_);
  tx.bind(*this);
  rx.bind(*this);
  for (unsigned vl = 0; vl < vls_; ++vl)
    lane(vl).receiver = CreditReceiver(static_cast<uint32_t>(rx_buffer_bytes(config, vl) / kCreditBlockBytes));
}

void Port::add_observer(PortObserver* o) {
  if (observer_count_ == kMaxObservers)
    throw std::logic_error(std::string(name()) + ": more than " + std::to_string(kMaxObservers) + " observers");
  observers_[observer_count_++] = o;
}

void Port::connect(Port& a, Port& b, const LinkConfig& link) {
  a.tx.bind(b.rx);
  b.tx.bind(a.rx);
  a.timing_ = LinkTiming(link);
  b.timing_ = LinkTiming(link);
  a.peer_ = &b;
  b.peer_ = &a;
  const auto shared = std::make_shared<const LinkConfig>(link);
  for (Port* p : {&a, &b}) {
    p->link_ = shared;
    p->fc_period_ps_ = link.fc_period_ps;
    p->block_ps_ = static_cast<double>(kCreditBlockBytes) * 8e12 / p->timing_.data_rate_bps();
    p->head_ps_ = p->timing_.bytes_ps(ib::kLrhBytes);
    p->update_peer_timing();
    p->set_faults(link.faults);
  }
}

// A cut link's far end as the transmitter sees it: an outbox.
class Port::CutLink : public tlm::tlm_fw_transport_if<IbProtocol> {
 public:
  CutLink(Port& to, Outbox& outbox) : to_(to), outbox_(outbox) {}
  tlm::tlm_sync_enum nb_transport_fw(ib::Packet& p, tlm::tlm_phase&, sc_time& delay) override {
    send(p, now_ps() + delay.value());
    return tlm::TLM_COMPLETED;
  }
  void send(ib::Packet& p, uint64_t arrival_ps) { outbox_.push_back({&to_, &p, arrival_ps}); }
  void b_transport(ib::Packet&, sc_time&) override {}
  bool get_direct_mem_ptr(ib::Packet&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(ib::Packet&) override { return 0; }

 private:
  Port& to_;
  Outbox& outbox_;
};

Port::~Port() = default;

Port::VlBlock::VlBlock(unsigned data_vls) : data_vls_(data_vls) {
  const std::size_t lanes = data_vls + 1, slots = data_vls + 2;
  static_assert(sizeof(Lane) % alignof(VlStats*) == 0, "the slots follow the lanes aligned");
  memory_ = ::operator new(lanes * sizeof(Lane) + slots * sizeof(VlStats*), std::align_val_t{alignof(Lane)});
  for (std::size_t i = 0; i < lanes; ++i) new (static_cast<Lane*>(memory_) + i) Lane();
  std::fill_n(this->slots(), slots, nullptr);
}

Port::VlBlock::~VlBlock() {
  for (std::size_t i = 0; i < std::size_t{data_vls_} + 2; ++i) delete static_cast<VlRecord*>(slots()[i]);
  for (std::size_t i = 0; i < std::size_t{data_vls_} + 1; ++i) lanes()[i].~Lane();
  ::operator delete(memory_, std::align_val_t{alignof(Lane)});
}

VlStats* Port::make_record(std::size_t slot) {
  VlStats* r = new VlRecord();
  slots()[slot] = r;
  return r;
}

const LinkConfig& Port::link_config() const {
  static const LinkConfig unlinked;
  return link_ != nullptr ? *link_ : unlinked;
}

const Port::Lane& Port::idle_lane() {
  static const Lane idle;
  return idle;
}

void Port::cut(Outbox& outbox) {
  if (peer_ == nullptr) throw std::logic_error(std::string(name()) + ": cut before connect");
  cut_ = std::make_unique<CutLink>(*peer_, outbox);
}

uint64_t Port::min_flight_ps() const {
  return std::min(head_ps_, timing_.serialization_ps(ib::kFlowControlBytes)) + timing_.propagation_ps() +
         peer_extra_ps_;
}

void Port::set_faults(const FaultConfig& config) {
  faults_ = config.enabled() ? std::make_unique<FaultInjector>(config, fault_stream_seed(config.seed, name()))
                             : nullptr;
  faults_on_ = faults_ != nullptr;
}

void Port::update_peer_timing() {
  // What the transmitter needs of its peer's receive timing, kept on this side.
  peer_cut_through_ = peer_->rx_cut_through_;
  peer_extra_ps_ = peer_->rx_extra_ps_;
  fc_flight_ps_ = timing_.serialization_ps(ib::kFlowControlBytes) + timing_.propagation_ps() + peer_extra_ps_;
}

void Port::set_rx_timing(bool cut_through, uint64_t extra_latency_ps) {
  rx_cut_through_ = cut_through;
  rx_extra_ps_ = extra_latency_ps;
  // The peer's packets now reach this port differently.
  if (peer_ != nullptr) peer_->update_peer_timing();
}

void Port::set_lifetimes(const Lifetimes& lifetimes) {
  if (lifetime_ == nullptr && !lifetimes.enabled()) return;  // off, as by default
  if (lifetime_ == nullptr)
    lifetime_.reset(new LifetimeState{lifetimes, UINT64_MAX, Alarm::method_on<&Port::lifetime_method>(rx_arrival_.timeline(), this)});
  lifetime_->lifetimes = lifetimes;
  lifetimes_on_ = lifetimes.enabled();
  stamp_arrivals_ = lifetimes_on_ || stamp_for_hops_;
}

void Port::start_of_simulation() {
  // Link up: advertise the initial credits of every data VL.
  if (peer_ == nullptr) return;
  peer_rx_ = tx.operator->();  // the binding is complete now
  peer_is_port_ = peer_rx_ == static_cast<tlm::tlm_fw_transport_if<IbProtocol>*>(peer_);
  if (cut_ != nullptr) {
    peer_rx_ = cut_.get();
    peer_is_port_ = false;
  }
  for (unsigned vl = 0; vl < vls_; ++vl) consider_flow_control(vl);
}

const char* to_string(PortState s) {
  switch (s) {
    case PortState::Down: return "Down";
    case PortState::Init: return "Init";
    case PortState::Armed: return "Armed";
    case PortState::Active: return "Active";
  }
  return "?";
}

void Port::set_state(PortState s) {
  state_ = s;
  rx_data_vls_ = static_cast<uint8_t>(s == PortState::Armed || s == PortState::Active ? vls_ : 0);
  tx_data_vls_ = static_cast<uint8_t>(s == PortState::Active ? vls_ : 0);
}

void Port::take_down(Port& a) {
  Port& b = *a.peer_;
  a.drop_link();
  b.drop_link();
}

void Port::bring_up(Port& a) {
  Port& b = *a.peer_;
  a.restart_link();
  b.restart_link();
}

void Port::drop_link() {
  const uint64_t now = now_ps();
  notify_observers([&](PortObserver& o) { o.on_link_down(*this, now); });
  link_down_ = true;
  set_state(PortState::Down);
  close_stalls();
  fc_pending_ = 0;
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (vl >= vls_ && vl != kVl15) continue;  // nothing is queued on a VL the port does not operate
    Lane& l = lane(vl);
    while (!l.txq.empty()) discard(l.txq.pop_front(), vl, DropReason::LinkDown);
    l.txq_bytes = 0;
    if (trace_ != nullptr) trace_->tx_bytes[vl] = 0;
  }
  tx_ready_ = 0;
  while (!in_flight_.empty()) {
    ib::Packet* p = in_flight_.pop_front();
    discard(p, p->hdr.lrh.vl & 0xFu, DropReason::LinkDown);
  }
  fc_in_flight_.clear();
  fc_arriving_ = false;
  arriving_data_ = arriving_fc_ = 0;
  if (on_tx_space_) on_tx_space_();  // the upper layer learns that its queues are empty
}

void Port::restart_link() {
  link_down_ = false;
  set_state(PortState::Init);
  for (unsigned vl = 0; vl < vls_; ++vl) {
    Lane& l = lane(vl);
    l.sender = CreditSender();
    l.receiver.restart();
    l.fc_sent_ps = Lane::kNeverSent;
    if (trace_ != nullptr) trace_->credits[vl] = 0;
  }
  for (unsigned vl = 0; vl < vls_; ++vl) consider_flow_control(vl);
}

void Port::set_vlarb(const VlArbConfig& c) {
  programmed_vlarb_ = std::make_unique<VlArbConfig>(c);
  arbiter_ = VlArbiter(c, vls_);
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
  if (p->payload_len > mtu_) {
    discard(p, vl, DropReason::MtuExceeded);
    return SubmitResult::Dropped;
  }
  if (vl != kVl15 && vl >= tx_data_vls_) {
    discard(p, vl, vl < vls_ ? DropReason::LinkDown : DropReason::BadVl);
    return SubmitResult::Dropped;
  }
  if (vl == kVl15 && state_ == PortState::Down) {  // data VLs: tx_data_vls_ is 0 when Down
    discard(p, vl, DropReason::LinkDown);
    return SubmitResult::Dropped;
  }
  // A packet forwarded from another link keeps the size recorded there.
  const uint32_t bytes = p->wire_len != 0 ? p->wire_len : p->wire_bytes();
  if (!tx_has_room(vl, bytes)) return SubmitResult::Busy;
  const uint64_t now = now_ps();
  p->hdr.lrh.vl = static_cast<uint8_t>(vl);
  Lane& l = lane(vl);
  VlRecord& r = record(vl);  // the VL's packets are counted there from now on
  if (lifetimes_on_) {
    if (r.stall.stalled(now)) {
      discard(p, vl, DropReason::VlStalled);
      return SubmitResult::Dropped;
    }
    if (p->received_ps == 0) p->received_ps = now;  // made here: its switch lifetime starts now
  }
  p->wire_len = static_cast<uint16_t>(bytes);
  l.txq.push_back(p);
  tx_ready_ |= 1u << vl;
  if (lifetimes_on_ && l.txq.front() == p) new_head(vl);
  l.txq_bytes += bytes;
  r.tx_high_water_bytes = std::max<uint64_t>(r.tx_high_water_bytes, l.txq_bytes);
  if (trace_ != nullptr) trace_->tx_bytes[vl] = l.txq_bytes;
  wake_tx();
  return SubmitResult::Queued;
}

void Port::open_stalls(const VlCandidates& candidates) {
  // Data VLs with a queued packet and no stall open (tx_ready_ and stalled_
  // mirror the queues and stall_since, so no other lane is read).
  const uint64_t now = now_ps();
  for (uint32_t open = tx_ready_ & ~stalled_ & ~(1u << kVl15); open != 0; open &= open - 1) {
    const auto vl = static_cast<unsigned>(__builtin_ctz(open));
    if (candidates[vl] != 0) continue;
    queued_record(vl).stall_since = now + 1;
    stalled_ = static_cast<uint16_t>(stalled_ | (1u << vl));
  }
}

void Port::close_stalls() {
  if (stalled_ == 0) return;
  const uint64_t now = now_ps();
  uint64_t first = UINT64_MAX;  // the earliest open stall's start + 1
  for (uint32_t open = stalled_; open != 0; open &= open - 1) {
    const auto vl = static_cast<unsigned>(__builtin_ctz(open));
    VlRecord& r = queued_record(vl);
    r.credit_stall_ps += now - (r.stall_since - 1);
    first = std::min(first, r.stall_since);
    r.stall_since = 0;
  }
  stats_.xmit_wait_ps_ += now - (first - 1);
  stalled_ = 0;
}

void Port::finish() { close_stalls(); }

uint64_t Port::xmit_wait_ps_until(uint64_t now) const {
  uint64_t first = UINT64_MAX;
  for (uint32_t open = stalled_; open != 0; open &= open - 1) {
    const VlRecord* r = find_record(static_cast<unsigned>(__builtin_ctz(open)));
    if (r != nullptr && r->stall_since != 0) first = std::min(first, r->stall_since);
  }
  const uint64_t open = first != UINT64_MAX && now + 1 > first ? now + 1 - first : 0;
  return stats_.xmit_wait_ps() + open;
}

void Port::tx_method() {
  if (__builtin_expect(link_down_, false)) return;  // bring_up wakes it again
  const uint64_t now = now_ps();
  if (now < tx_free_at_) {
    tx_wakeup_.notify_at(tx_free_at_);
    return;
  }
  if (tx_ready_ & (1u << kVl15)) {
    if (__builtin_expect(cosim_on_, false) && cosim_->arbitration()) return ask_cosim(TxQuestion::Kind::Vl15, 0);
    send_vl15();
  } else if (fc_pending_ != 0) {
    const unsigned vl = next_flow_control_vl();
    if (__builtin_expect(cosim_on_, false) && cosim_->credits()) return ask_cosim(TxQuestion::Kind::FlowControl, vl);
    const Lane& l = data_lane(vl);
    transmit(make_flow_control(vl, l.sender.fctbs(), l.receiver.fccl()), kGrantFlowControl);
  } else {
    if (__builtin_expect(cosim_on_, false) &&
        (cosim_->arbitration() || (cosim_->credits() && (tx_ready_ & ~(1u << kVl15)) != 0)))
      return ask_cosim(TxQuestion::Kind::Data, 0);
    const VlCandidates candidates = credit_candidates();
    if (!send_data(arbiter_.grant(candidates), candidates)) return;
  }
  if (tx_waiting()) tx_wakeup_.notify_at(tx_free_at_);
}

void Port::warm_tx() const {
  for (uint32_t ready = tx_ready_ & ~(1u << kVl15); ready != 0; ready &= ready - 1) {
    const auto vl = static_cast<unsigned>(__builtin_ctz(ready));
    __builtin_prefetch(&lane(vl));
    __builtin_prefetch(slots()[vl]);  // its transmission counters
  }
  __builtin_prefetch(&arbiter_);
  __builtin_prefetch(&stats_);  // the port's busy time
  // A transmission's second line, and the peer's receive side it appends to
  // (Port::arrive: the arrivals queue and, when that was empty, its alarm).
  __builtin_prefetch(&peer_rx_);
  if (peer_ != nullptr) {
    __builtin_prefetch(&peer_->rx_arrival_);
    __builtin_prefetch(&peer_->in_flight_);
  }
  warm_observers();
}

void Port::warm_release(unsigned vl) const {
  const Lane& l = lane(vl);
  __builtin_prefetch(l.rxq.front());
  __builtin_prefetch(&faults_on_);   // the receive side's two lines
  __builtin_prefetch(&fc_pending_);
  __builtin_prefetch(&block_ps_);    // flow control's line
  __builtin_prefetch(&tx_free_at_);
  warm_observers();
}

void Port::warm_submit() const {
  __builtin_prefetch(&sl2vl_);            // submit's table
  __builtin_prefetch(&mtu_);              // the receive line's checks
  __builtin_prefetch(&tx_ready_);
  __builtin_prefetch(&tx_wakeup_);        // wake_tx
  __builtin_prefetch(&tx_free_at_);       // with peer_
  __builtin_prefetch(&tx_buffer_bytes_);  // with lifetimes_on_ and on_tx_space_
}

void Port::warm_rx() const {
  if (!in_flight_.empty()) __builtin_prefetch(in_flight_.front());
  // What receiving the packets in flight touches, by their VLs: a data packet
  // its lane, its receive counters and flow control's line (consider_flow_control);
  // a flow-control packet its lane and the counters it shares with transmissions.
  for (uint32_t vls = arriving_data_; vls != 0; vls &= vls - 1) {
    const auto vl = static_cast<unsigned>(__builtin_ctz(vls));
    __builtin_prefetch(&lane(vl));
    __builtin_prefetch(slots()[vl]);  // null until the VL's first packet: no effect
  }
  if ((arriving_data_ | arriving_fc_) != 0) __builtin_prefetch(&block_ps_);  // with the port's counters
  for (uint32_t vls = arriving_fc_; vls != 0; vls &= vls - 1)
    __builtin_prefetch(&lane(static_cast<unsigned>(__builtin_ctz(vls))));
  warm_observers();
}

void Port::warm_observers() const {
  for (unsigned i = 0; i < observer_count_; ++i) observers_[i]->warm(*this);
}

VlCandidates Port::credit_candidates(VlCandidates* heads) const {
  VlCandidates candidates{};
  for (uint32_t ready = tx_ready_ & ~(1u << kVl15); ready != 0; ready &= ready - 1) {
    const auto vl = static_cast<unsigned>(__builtin_ctz(ready));
    const Lane& l = data_lane(vl);
    const uint32_t blocks = blocks_for(l.txq.front()->wire_len);
    if (heads != nullptr) (*heads)[vl] = blocks;
    if (l.sender.may_send(blocks)) candidates[vl] = blocks;
  }
  return candidates;
}

unsigned Port::next_flow_control_vl() {
  const unsigned vl = first_vl_from(fc_pending_, fc_next_);
  fc_next_ = static_cast<uint8_t>((vl + 1) % vls_);
  return vl;
}

void Port::send_vl15() {
  transmit(pop_tx(kVl15), kVl15);
  if (on_tx_space_) on_tx_space_();
}

bool Port::send_data(int vl, const VlCandidates& candidates) {
  if (vl < 0) {
    // The link is idle: VLs whose head packet lacks credits are stalled.
    if (trace_ != nullptr) trace_->grant = kGrantIdle;
    open_stalls(candidates);
    return false;
  }
  if (tx_space_reads_ != nullptr) __builtin_prefetch(tx_space_reads_);  // for on_tx_space_ below
  ib::Packet* p = pop_tx(static_cast<unsigned>(vl));
  Lane& l = data_lane(static_cast<unsigned>(vl));
  const uint32_t blocks = blocks_for(p->wire_len);
  l.sender.on_sent(blocks);
  tell_cosim(CreditEvent::Sent, static_cast<unsigned>(vl), blocks);
  if (trace_ != nullptr) trace_->credits[vl] = l.sender.available();
  transmit(p, static_cast<uint32_t>(vl));
  consider_flow_control(static_cast<unsigned>(vl));
  if (on_tx_space_) on_tx_space_();  // the upper layer may refill now
  return true;
}

void Port::ask_cosim(TxQuestion::Kind kind, unsigned fc_vl) {
  TxQuestion q;
  q.kind = kind;
  q.fc_vl = static_cast<uint8_t>(fc_vl);
  if (kind != TxQuestion::Kind::FlowControl) q.candidates = credit_candidates(&q.heads);
  Timeline::current().hold();
  cosim_->ask(q);
}

void Port::tx_answer(const TxAnswer& a) {
  bool sent = true;
  switch (a.kind) {
    case TxQuestion::Kind::Vl15: send_vl15(); break;
    case TxQuestion::Kind::FlowControl:
      transmit(make_flow_control(a.fc_vl, a.fctbs, a.fccl), kGrantFlowControl);
      break;
    case TxQuestion::Kind::Data:
      sent = send_data(cosim_->arbitration() ? a.grant : arbiter_.grant(a.candidates), a.candidates);
      break;
  }
  if (sent && tx_waiting()) tx_wakeup_.notify_at(tx_free_at_);
  Timeline::current().release();
}

ib::Packet* Port::pop_tx(unsigned vl) {
  Lane& l = lane(vl);
  ib::Packet* p = l.txq.pop_front();
  l.txq_bytes -= p->wire_len;
  if (l.txq.empty()) tx_ready_ &= ~(1u << vl);
  if (trace_ != nullptr) trace_->tx_bytes[vl] = l.txq_bytes;
  if (lifetimes_on_) {
    queued_record(vl).stall.on_sent();
    if (!l.txq.empty()) new_head(vl);
  }
  return p;
}

void Port::new_head(unsigned vl) {
  queued_record(vl).head_since = now_ps();
  arm_lifetime(vl);
}

void Port::arm_lifetime(unsigned vl) {
  LifetimeState& t = *lifetime_;
  const uint64_t deadline = t.lifetimes.deadline(queued_record(vl).head_since, lane(vl).txq.front()->received_ps);
  if (deadline >= t.at) return;  // the timer goes off earlier anyway
  t.at = deadline;
  t.timer.notify_at(std::max(deadline, now_ps()));
}

void Port::lifetime_method() {
  // Discards every expired head; then re-arms for the earliest deadline left.
  lifetime_->at = UINT64_MAX;
  const Lifetimes& lifetimes = lifetime_->lifetimes;
  const uint64_t now = now_ps();
  bool freed = false;
  for (unsigned vl = 0; vl < 16; ++vl) {
    if (vl >= vls_ && vl != kVl15) continue;
    Lane& l = lane(vl);
    while (!l.txq.empty()) {
      VlRecord& r = queued_record(vl);
      const uint64_t received = l.txq.front()->received_ps;
      if (now < lifetimes.deadline(r.head_since, received)) break;
      const bool hoq = lifetimes.hoq_expired_first(r.head_since, received);
      ib::Packet* gone = l.txq.pop_front();
      l.txq_bytes -= gone->wire_len;
      discard(gone, vl, hoq ? DropReason::HoqLifetime : DropReason::SwitchLifetime);
      freed = true;
      r.head_since = now;
      if (hoq && r.stall.on_hoq_discard(lifetimes, now)) flush_stalled(vl);
    }
    if (trace_ != nullptr) trace_->tx_bytes[vl] = l.txq_bytes;
    if (l.txq.empty()) tx_ready_ &= ~(1u << vl);
    else arm_lifetime(vl);
  }
  if (freed) {
    wake_tx();  // a new head may have credits
    if (on_tx_space_) on_tx_space_();
  }
}

void Port::flush_stalled(unsigned vl) {
  Lane& l = lane(vl);
  while (!l.txq.empty()) discard(l.txq.pop_front(), vl, DropReason::VlStalled);
  l.txq_bytes = 0;
  tx_ready_ &= ~(1u << vl);
}

void Port::transmit(ib::Packet* p, uint32_t grant) {
  const uint64_t now = now_ps();
  const uint32_t bytes = p->wire_len;
  const uint64_t serialization = timing_.serialization_ps(bytes);
  const uint64_t tail = now + serialization + timing_.propagation_ps();
  // Delivery: when the receiver takes it (its cut-through setting), plus the
  // receiver's latency; the same latency for flow control keeps link order.
  uint64_t arrival = tail;
  if (p->kind == ib::PacketKind::Data && peer_cut_through_) arrival = now + head_ps_ + timing_.propagation_ps();
  arrival += peer_extra_ps_;
  p->tail_ps = tail;
  tx_free_at_ = now + serialization;
  close_stalls();
  if (trace_ != nullptr) trace_->grant = grant;
  stats_.busy_ps_ += serialization;
  if (p->kind == ib::PacketKind::Data) {
    if (stamp_injection_) p->injected_ps = now;
    VlStats& s = queued_record(p->hdr.lrh.vl);
    ++s.tx_packets;
    s.tx_bytes += bytes;
    s.tx_payload_bytes += p->payload_len;
  } else {
    ++stats_.fc_tx_;
  }
  notify_observers([&](PortObserver& o) { o.on_transmit(*this, *p, now, arrival); });
  // Bound to the peer port itself (connect): straight to what its
  // nb_transport_fw does, without the virtual call (the peer's virtual table
  // is a cache line nothing else on a hop reads) or the sc_time round trip.
  if (peer_is_port_) return peer_->arrive(*p, arrival);
  // A cut link: into the outbox directly, without the sc_time either. This
  // runs on a partition's thread (parallel simulation), and
  // sc_time::from_value writes the SystemC kernel's time-resolution flag
  // (sc_time_params::time_resolution_fixed), which every partition's thread
  // would write at once; the kernel is not thread-safe, nor built for TSan to
  // see that. So the partitions' threads call no SystemC code at all.
  if (cut_ != nullptr) return cut_->send(*p, arrival);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time delay = sc_time::from_value(arrival - now);
  peer_rx_->nb_transport_fw(*p, phase, delay);
}

ib::Packet* Port::make_flow_control(unsigned vl, uint16_t fctbs, uint16_t fccl) {
  Lane& l = data_lane(vl);
  // To another port only its fields travel (arrive()): no packet of the pool.
  ib::Packet* p = peer_is_port_ ? &pool_.flow_control_scratch(false) : pool_.acquire_flow_control();
  p->fc.vl = static_cast<uint8_t>(vl);
  p->fc.fctbs = fctbs;
  p->fc.fccl = fccl;
  l.fc_sent_fccl = p->fc.fccl;
  l.fc_sent_fctbs = p->fc.fctbs;
  l.fc_sent_ps = now_ps();
  fc_pending_ &= ~(1u << vl);
  consider_flow_control(vl);  // re-arm the timer if something changed meanwhile
  return p;
}

void Port::consider_flow_control(unsigned vl) {
  if (fc_pending_ & (1u << vl)) return;
  const Lane& l = data_lane(vl);
  const bool sent_once = l.fc_sent_ps != Lane::kNeverSent;
  const bool fccl_changed = !sent_once || l.receiver.fccl() != l.fc_sent_fccl;
  if (!fccl_changed && l.sender.fctbs() == l.fc_sent_fctbs) return;
  const uint64_t now = now_ps();
  const uint64_t due = sent_once ? l.fc_sent_ps + fc_period_ps_ : now;
  if (now >= due || (fccl_changed && peer_would_stall(vl, due - now))) {
    fc_pending_ |= 1u << vl;
    wake_tx();
  } else if (due < fc_timer_at_ || fc_timer_at_ <= now) {
    fc_timer_at_ = due;
    fc_timer_.notify_at(due);
  }
}

void Port::set_rx_capacity(unsigned vl, uint32_t blocks) {
  Lane& l = data_lane(vl);
  const uint32_t before = l.receiver.capacity_blocks();
  l.receiver.set_capacity(std::max(blocks, rx_committed_blocks(vl)));
  // Before the simulation starts, start_of_simulation advertises what is set.
  if (l.receiver.capacity_blocks() > before && sc_core::sc_is_running()) consider_flow_control(vl);
}

bool Port::peer_would_stall(unsigned vl, uint64_t wait_ps) const {
  const Lane& l = data_lane(vl);
  // The credit the peer holds keeps its link busy for this long...
  const double headroom_ps = l.receiver.sender_headroom(l.fc_sent_fccl) * block_ps_;
  // ...and a flow-control packet sent after waiting reaches it this late.
  return headroom_ps < static_cast<double>(wait_ps + fc_flight_ps_);
}

void Port::fc_timer_method() {
  fc_timer_at_ = UINT64_MAX;
  for (unsigned vl = 0; vl < vls_; ++vl) consider_flow_control(vl);
}

tlm::tlm_sync_enum Port::nb_transport_fw(ib::Packet& p, tlm::tlm_phase&, sc_time& delay) {
  arrive(p, now_ps() + delay.value());
  return tlm::TLM_COMPLETED;
}

void Port::b_transport(ib::Packet& p, sc_time& delay) {
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  nb_transport_fw(p, phase, delay);
  delay = sc_core::SC_ZERO_TIME;
}

void Port::rx_method() {
  const uint64_t now = now_ps();
  bool buffered = false;
  for (;;) {
    const ib::Packet* head = in_flight_.front();  // null when empty
    // The earlier of the two queues' heads (link order; their due times never tie).
    if (fc_arriving_ && fc_in_flight_.front().due_ps <= now && (head == nullptr || fc_in_flight_.front().due_ps < head->due_ps)) {
      receive_fc_in_flight(now);
      continue;
    }
    if (head == nullptr || head->due_ps > now) break;
    ib::Packet* p = in_flight_.pop_front();
    notify_observers([&](PortObserver& o) { o.on_arrival(*this, *p, now); });
    buffered |= receive_data(p);
  }
  uint64_t next = in_flight_.empty() ? UINT64_MAX : in_flight_.front()->due_ps;
  if (fc_arriving_) next = std::min(next, fc_in_flight_.front().due_ps);
  if (next != UINT64_MAX) rx_arrival_.notify_at(next);
  else arriving_data_ = arriving_fc_ = 0;
  if (buffered && on_rx_ready_) on_rx_ready_();  // the upper layer may take them now
}

void Port::receive_fc_in_flight(uint64_t now) {
  const FcArrival a = fc_in_flight_.front();
  fc_in_flight_.pop_front();
  fc_arriving_ = !fc_in_flight_.empty();
  ib::Packet& p = pool_.flow_control_scratch(true);
  p.fc = a.fc;
  p.due_ps = a.due_ps;
  p.tail_ps = a.due_ps - rx_extra_ps_;  // a flow-control packet arrives when all of it is in, plus this receiver's latency
  notify_observers([&](PortObserver& o) { o.on_arrival(*this, p, now); });
  receive_flow_control(p);
}

void Port::receive_flow_control(const ib::Packet& packet) {
  const ib::Packet* p = &packet;
  const unsigned vl = p->fc.vl;
  ++stats_.fc_rx_;
  if (vl < vls_ && p->fc.op <= 1) {
    Lane& l = data_lane(vl);
    l.sender.on_flow_control(p->fc.fccl);
    l.receiver.on_flow_control(p->fc.fctbs);
    tell_cosim(CreditEvent::FlowControl, vl, l.sender.fccl(), l.receiver.abr());
    if (trace_ != nullptr) trace_->credits[vl] = l.sender.available();
    consider_flow_control(vl);
    wake_tx();
  }
}

// Inlined into receive_data so that a port without faults pays nothing for
// the split.
[[gnu::always_inline]] inline bool Port::admit(ib::Packet* p) {
  const unsigned vl = p->hdr.lrh.vl;
  const uint32_t bytes = p->wire_len;
  const uint32_t blocks = blocks_for(bytes);
  Lane& l = lane(vl & 0xF);  // used only for an operated data VL, checked below
  if (vl == kVl15) {
    if (state_ == PortState::Down) {
      discard(p, vl, DropReason::LinkDown);
      return false;
    }
    if (vl15_rx_bytes_ + bytes > vl15_buffer_bytes_) {
      discard(p, vl, DropReason::Vl15Overflow);
      return false;
    }
    vl15_rx_bytes_ += bytes;
  } else if (vl >= rx_data_vls_) {
    discard(p, vl, vl < vls_ ? DropReason::LinkDown : DropReason::BadVl);
    return false;
  } else if (p->payload_len > mtu_) {
    discard(p, vl, DropReason::MtuExceeded);
    return false;
  } else if (!l.receiver.on_packet(blocks)) {
    discard(p, vl, DropReason::BufferOverflow);
    return false;
  } else {
    tell_cosim(CreditEvent::Received, vl, blocks);
  }
  if (stamp_arrivals_) p->received_ps = now_ps();
  VlStats& s = record(vl);
  ++s.rx_packets;
  s.rx_bytes += bytes;
  s.rx_payload_bytes += p->payload_len;
  const uint64_t occupancy =
      vl == kVl15 ? vl15_rx_bytes_ : static_cast<uint64_t>(l.receiver.used_blocks()) * kCreditBlockBytes;
  s.rx_high_water_bytes = std::max(s.rx_high_water_bytes, occupancy);
  if (trace_ != nullptr) trace_->rx_blocks[vl] = static_cast<uint32_t>(occupancy / kCreditBlockBytes);
  notify_observers([&](PortObserver& o) { o.on_buffered(*this, *p, vl, blocks); });
  if (vl != kVl15) consider_flow_control(vl);
  return true;
}

[[gnu::always_inline]] inline bool Port::accept(ib::Packet* p) {
  if (!admit(p)) return false;
  queue_rx(p);
  return true;
}

bool Port::receive_data(ib::Packet* p) {
  if (__builtin_expect(faults_on_, false)) return receive_faulted(p);
  return accept(p);
}

bool Port::receive_faulted(ib::Packet* p) {
  const Verdict v = faults_->judge(*p);
  switch (v.action) {
    case FaultAction::Pass: break;
    case FaultAction::Delay:
      if (admit(p)) hold(p, now_ps() + v.delay_ps);
      return false;  // nothing new for the upper layer yet
    case FaultAction::Duplicate:
      if (!accept(p)) return false;
      copy_in(*p);
      return true;
    case FaultAction::DropTargeted:
    case FaultAction::DropRandom:
    case FaultAction::Corrupt:
      discard(p, p->hdr.lrh.vl & 0xFu, v.action == FaultAction::Corrupt ? DropReason::CrcError : DropReason::FaultDrop);
      return false;
  }
  return accept(p);
}

Port::Detours& Port::detours() {
  if (detours_ == nullptr)
    detours_.reset(new Detours{{}, {}, Alarm::method_on<&Port::held_method>(rx_arrival_.timeline(), this)});
  return *detours_;
}

void Port::hold(ib::Packet* p, uint64_t until_ps) {
  p->due_ps = until_ps;
  Detours& d = detours();
  const auto at = std::upper_bound(d.held.begin(), d.held.end(), until_ps,
                                   [](uint64_t t, const ib::Packet* q) { return t < q->due_ps; });
  d.held.insert(at, p);
  d.held_timer.notify_at(d.held.front()->due_ps);
}

void Port::held_method() {
  const uint64_t now = now_ps();
  std::vector<ib::Packet*>& held = detours_->held;
  std::size_t n = 0;
  for (; n < held.size() && held[n]->due_ps <= now; ++n) {
    ib::Packet* p = held[n];
    if (stamp_arrivals_) p->received_ps = now;
    queue_rx(p);
  }
  held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(n));
  if (!held.empty()) detours_->held_timer.notify_at(held.front()->due_ps);
  if (n != 0 && on_rx_ready_) on_rx_ready_();
}

void Port::copy_in(const ib::Packet& p) {
  ib::Packet* c = pool_.acquire();
  *c = p;
  c->next = nullptr;
  const unsigned vl = p.hdr.lrh.vl;
  detours().copies.push_back({c, p.wire_len, static_cast<uint8_t>(vl)});
  queue_rx(c);
}

void Port::took_copy(const ib::Packet* p) {
  for (Copy& c : detours_->copies)
    if (c.p == p) c.p = nullptr;
}

bool Port::released_copy(unsigned vl, uint32_t wire_bytes) {
  std::vector<Copy>& copies = detours_->copies;
  for (auto it = copies.begin(); it != copies.end(); ++it)
    if (it->p == nullptr && it->vl == vl && it->wire_bytes == wire_bytes) {
      copies.erase(it);
      return true;
    }
  return false;
}

ib::Packet* Port::rx_pop(unsigned vl) {
  const uint32_t bytes = lane(vl).rxq.front()->wire_len;
  ib::Packet* p = rx_take(vl);
  rx_release(vl, bytes);
  return p;
}

ib::Packet* Port::rx_take(unsigned vl) {
  ib::PacketQueue& q = lane(vl).rxq;
  ib::Packet* p = q.pop_front();
  if (q.empty()) rx_ready_ = static_cast<uint16_t>(rx_ready_ & ~(1u << vl));
  if (__builtin_expect(faults_on_, false) && has_copies()) took_copy(p);
  return p;
}

void Port::rx_release(unsigned vl, uint32_t wire_bytes) {
  if (__builtin_expect(faults_on_, false) && has_copies() && released_copy(vl, wire_bytes)) return;
  const uint32_t blocks = blocks_for(wire_bytes);
  if (vl == kVl15) {
    vl15_rx_bytes_ -= wire_bytes;
    if (trace_ != nullptr) trace_->rx_blocks[vl] = static_cast<uint32_t>(vl15_rx_bytes_ / kCreditBlockBytes);
  } else {
    Lane& l = data_lane(vl);  // buffered, so operated
    l.receiver.on_released(blocks);
    tell_cosim(CreditEvent::Released, vl, blocks);
    if (trace_ != nullptr) trace_->rx_blocks[vl] = l.receiver.used_blocks();
    consider_flow_control(vl);
  }
  notify_observers([&](PortObserver& o) { o.on_released(*this, vl, blocks); });
}

void Port::discard(ib::Packet* p, unsigned vl, DropReason why) {
  record_at(stats_.vl.slot(std::min(vl, 15u))).drops.add(why);
  notify_observers([&](PortObserver& o) { o.on_drop(*this, *p, why, now_ps()); });
  pool_.release(p);
}

void Port::reject_pkey(ib::Packet* p) {
  ++pkey_violations_;
  if (on_pkey_violation_) on_pkey_violation_(*p);
  pool_.release(p);
}

void Port::trace_signals(sc_core::sc_trace_file* tf) {
  if (trace_ == nullptr) {
    trace_ = std::make_unique<TraceMirror>();
    for (unsigned vl = 0; vl < 16; ++vl) {
      if (vl >= vls_ && vl != kVl15) continue;  // stays 0
      const Lane& l = lane(vl);
      trace_->credits[vl] = l.sender.available();
      trace_->rx_blocks[vl] = vl == kVl15 ? static_cast<uint32_t>(vl15_rx_bytes_ / kCreditBlockBytes) : l.receiver.used_blocks();
      trace_->tx_bytes[vl] = l.txq_bytes;
    }
  }
  const std::string base = name();
  for (unsigned vl = 0; vl < vls_; ++vl) {
    const std::string v = base + ".vl" + std::to_string(vl);
    sc_core::sc_trace(tf, trace_->credits[vl], v + ".credits");
    sc_core::sc_trace(tf, trace_->rx_blocks[vl], v + ".rx_blocks");
    sc_core::sc_trace(tf, trace_->tx_bytes[vl], v + ".tx_bytes");
  }
  sc_core::sc_trace(tf, trace_->rx_blocks[kVl15], base + ".vl15.rx_blocks");
  sc_core::sc_trace(tf, trace_->grant, base + ".grant", 5);
}

}  // namespace hcasim::link
