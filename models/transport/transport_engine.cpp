#include "models/transport/transport_engine.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "models/ib/opcodes.hpp"
#include "models/transport/cyclic_numbers.hpp"
#include "models/transport/message_layout.hpp"
#include "models/transport/qp_state.hpp"
#include "models/transport/requester.hpp"
#include "models/transport/responder.hpp"
#include "models/transport/transport_timers.hpp"

namespace hcasim::transport {

namespace {
constexpr uint64_t kIdStride = uint64_t{1} << 40;   // packet ids: the port's fabric position in the top bits
constexpr uint64_t kTransportIds = uint64_t{1} << 39;  // apart from the raw generators' ids of the same port

}  // namespace

struct TransportEngine::Entry {
  Entry(TransportEngine& owner) : owner(owner) {}
  void on_timer() { owner.timer_fired(*this); }
  void on_rnr() { owner.rnr_over(*this); }
  void on_context() { owner.context_on_chip(*this); }
  // The alarms first, next to the QP's hot fields (qp.hpp).
  TransportEngine& owner;
  bool in_engine = false;  // an engine holds a packet of this QP: it waits, so its packets stay in order
  bool leaving = false;    // destroyed; freed when its packets have gone to the port
  uint32_t waiting_data = 0;  // its packets in the data stage (later ones queue behind them)
  uint32_t waiting_room = 0;  // its packets in a VL's room list: it takes no turn until they have gone
  bool waiting_vl = false;    // in a VL's list of QPs waiting for room to start a packet
  uint32_t promise = 0;       // bytes of its VL's room kept for it when that list let it go
  uint8_t promise_vl = 0;
  uint64_t rx_aside_until = 0;  // rx_units 0: its last packet waiting aside reaches it then (later ones wait too)
  bool on_rx_unit = false;    // a receive unit parses a packet of it (any_free: one at a time)
  bool context_filling = false;  // its QPC is being read for its next packet: it takes no turn meanwhile
  bool context_held = false;     // its QPC is on chip for its next packet (looked up, or filled)
  bool in_paced = false;         // in paced_, waiting for its injection time
  uint64_t inject_at_ps = 0;     // congestion control: its next request starts no earlier (0: any time)
  SchedSlot sched;            // its place in the QP scheduler
  ib::RingFifo<ib::Packet*, 1> held;  // requests waiting for the receive-WQE source's fetch
  bool resuming = false;              // resume_requests runs (a fetch done at once calls it again)
  bool recv_flushed = false;          // the source was asked to flush this ERR state's receive WQEs
  link::Alarm timer = link::Alarm::method<&Entry::on_timer>(this);
  link::Alarm rnr = link::Alarm::method<&Entry::on_rnr>(this);
  link::Alarm context = link::Alarm::method<&Entry::on_context>(this);
  Qp qp;
};

struct TransportEngine::Engine {
  Engine(TransportEngine& owner, unsigned index) : owner(owner), index(index) {}
  void on_done() { owner.engine_done(*this); }
  TransportEngine& owner;
  unsigned index;               // qpn_hash: it serves the QPs whose number modulo the units is this
  Entry* entry = nullptr;       // the QP whose packet it builds or holds
  ib::Packet* packet = nullptr;
  uint64_t ready_ps = 0;        // when the packet's host-memory data is at the HCA (0: none read)
  Started started;              // the VL room it holds
  link::Alarm done = link::Alarm::method<&Engine::on_done>(this);
};

struct TransportEngine::RxUnit {
  RxUnit(TransportEngine& owner, unsigned index) : owner(owner), index(index) {}
  void on_done() { owner.rx_unit_done(*this); }
  TransportEngine& owner;
  unsigned index;
  ib::Packet* packet = nullptr;  // the packet it parses
  link::Alarm done = link::Alarm::method<&RxUnit::on_done>(this);
};

TransportEngine::TransportEngine(const TransportConfig& config, std::vector<PortBinding> ports, HostMemory& memory,
                                 ib::PacketPool& pool)
    : config_(config),
      ports_(std::move(ports)),
      memory_(memory),
      pool_(pool),
      rx_alarm_(link::Alarm::method<&TransportEngine::rx_due>(this)),
      data_alarm_(link::Alarm::method<&TransportEngine::data_due>(this)),
      cqe_alarm_(link::Alarm::method<&TransportEngine::completions_due>(this)),
      pace_alarm_(link::Alarm::method<&TransportEngine::pace_due>(this)) {
  const bool hash = config_.unit_mapping == UnitMapping::QpnHash;
  for (uint32_t i = 0; i < std::max<uint32_t>(1, config_.tx_units); ++i)
    engines_.push_back(std::make_unique<Engine>(*this, i));
  for (std::size_t i = 0; i < (hash ? engines_.size() : 1); ++i) ready_.emplace_back(config_.scheduler);
  for (uint32_t i = 0; i < config_.rx_units; ++i) rx_units_.push_back(std::make_unique<RxUnit>(*this, i));
  rx_waiting_.resize(hash ? rx_units_.size() : 1);
  lanes_.resize(ports_.size());
}

TransportEngine::~TransportEngine() {
  for (auto& g : engines_)
    if (g->packet != nullptr) pool_.release(g->packet);
  for (auto& u : rx_units_)
    if (u->packet != nullptr) pool_.release(u->packet);
  for (auto& waiting : rx_waiting_)
    while (!waiting.empty()) {
      pool_.release(waiting.front());
      waiting.pop_front();
    }
  while (!arrivals_.empty()) {
    pool_.release(arrivals_.front().packet);
    arrivals_.pop_front();
  }
  while (!data_stage_.empty()) {
    pool_.release(data_stage_.front().packet);
    data_stage_.pop_front();
  }
  for (PortLanes& r : lanes_)
    if (r.made != nullptr)
      for (Lane& l : *r.made)
        while (!l.parked.empty()) {
        pool_.release(l.parked.front().packet);
        l.parked.pop_front();
      }
  for (auto& e : qps_)
    while (e != nullptr && !e->held.empty()) {
      pool_.release(e->held.front());
      e->held.pop_front();
    }
}

Qp& TransportEngine::create_qp(const QpInit& init) {
  auto e = std::make_unique<Entry>(*this);
  Qp& qp = e->qp;
  const auto in_use = [&](uint32_t n) {
    return entry(n) != nullptr ||
           std::any_of(leaving_.begin(), leaving_.end(), [n](const auto& l) { return l->qp.qpn == n; });
  };
  const std::optional<uint32_t> qpn = take_cyclic(next_qpn_, kFirstQpn, kMaxQpn, in_use);
  if (!qpn)
    throw std::invalid_argument("create_qp: every QP number from " + std::to_string(kFirstQpn) + " to " +
                                std::to_string(kMaxQpn) + " is in use; accepted: destroy a QP first");
  qp.qpn = *qpn;
  qp.type = init.type;
  qp.init = init;
  qp.init.out_of_order = init.out_of_order || config_.out_of_order;
  arm_out_of_order(qp);
  if (qps_.size() <= qp.qpn) qps_.resize(qp.qpn + 1);
  qps_[qp.qpn] = std::move(e);
  return qp;
}

bool TransportEngine::destroy_qp(uint32_t qpn) {
  Entry* e = entry(qpn);
  if (e == nullptr) return false;
  scheduler_of(*e).forget(e);  // skipped by dispatch
  drop_promise(*e);
  if (e->waiting_vl)
    for (Lane& l : lanes_[e->qp.port].vl())
      for (std::size_t i = 0; i < l.qps.size(); ++i)
        if (l.qps[i] == e) l.qps[i] = nullptr;  // skipped when room comes
  std::unique_ptr<Entry> gone = std::move(qps_[qpn]);
  while (!gone->held.empty()) {
    pool_.release(gone->held.front());
    gone->held.pop_front();
  }
  if (gone->in_engine || gone->waiting_data > 0 || gone->waiting_room > 0) {  // freed once its packets have gone to the port
    gone->leaving = true;
    gone->timer.cancel();
    gone->rnr.cancel();
    leaving_.push_back(std::move(gone));
  }
  return true;
}

TransportEngine::Entry* TransportEngine::entry(uint32_t qpn) const {
  return qpn < qps_.size() ? qps_[qpn].get() : nullptr;
}

Qp* TransportEngine::find(uint32_t qpn) {
  Entry* e = entry(qpn);
  return e == nullptr ? nullptr : &e->qp;
}

const Qp* TransportEngine::find(uint32_t qpn) const {
  const Entry* e = entry(qpn);
  return e == nullptr ? nullptr : &e->qp;
}

std::vector<const Qp*> TransportEngine::qps() const {
  std::vector<const Qp*> out;
  for (const auto& e : qps_)
    if (e != nullptr) out.push_back(&e->qp);
  return out;
}

std::string TransportEngine::modify_qp(uint32_t qpn, const QpAttr& attr, uint32_t mask) {
  Entry* found = entry(qpn);
  if (found == nullptr) return "no QP " + std::to_string(qpn);
  Entry& e = *found;
  Qp& qp = e.qp;
  const std::string why = check_modify(qp.type, qp.state, attr, mask);
  if (!why.empty()) return why;
  if ((mask & kAttrPort) && (attr.port_num < 1 || attr.port_num > ports_.size()))
    return "port_num " + std::to_string(attr.port_num) + ": the HCA has ports 1-" + std::to_string(ports_.size());
  const unsigned port_index = ((mask & kAttrPort) ? attr.port_num : qp.attr.port_num) - 1u;
  const uint32_t port_mtu = ports_[port_index].port->config().mtu;
  if ((mask & kAttrPathMtu) && qp.type != QpType::Ud && attr.path_mtu > port_mtu)
    return "path_mtu " + std::to_string(attr.path_mtu) + " exceeds the MTU of port " +
           std::to_string(port_index + 1) + " (" + std::to_string(port_mtu) + ")";
  const QpState to = (mask & kAttrState) ? attr.qp_state : qp.state;
  QpAttr& a = qp.attr;
  if (mask & kAttrAccessFlags) a.qp_access_flags = attr.qp_access_flags;
  if (mask & kAttrPkeyIndex) a.pkey_index = attr.pkey_index;
  if (mask & kAttrPort) a.port_num = attr.port_num;
  if (mask & kAttrQkey) a.qkey = attr.qkey;
  if (mask & kAttrAv) a.ah_attr = attr.ah_attr;
  if (mask & kAttrPathMtu) a.path_mtu = attr.path_mtu;
  if (mask & kAttrTimeout) a.timeout = attr.timeout;
  if (mask & kAttrRetryCnt) a.retry_cnt = attr.retry_cnt;
  if (mask & kAttrRnrRetry) a.rnr_retry = attr.rnr_retry;
  if (mask & kAttrRqPsn) a.rq_psn = attr.rq_psn;
  if (mask & kAttrMaxQpRdAtomic) a.max_rd_atomic = attr.max_rd_atomic;
  if (mask & kAttrMinRnrTimer) a.min_rnr_timer = attr.min_rnr_timer;
  if (mask & kAttrSqPsn) a.sq_psn = attr.sq_psn;
  if (mask & kAttrMaxDestRdAtomic) a.max_dest_rd_atomic = attr.max_dest_rd_atomic;
  if (mask & kAttrDestQpn) a.dest_qp_num = attr.dest_qp_num;
  qp.port = port_index;
  if (qp.type == QpType::Ud) a.path_mtu = port_mtu;  // UD messages are limited by the port's MTU
  qp.slid = static_cast<uint16_t>(ports_[qp.port].lid + (qp.type == QpType::Ud ? 0 : a.ah_attr.src_path_bits));

  if (to == QpState::Reset) {
    const QpInit init = qp.init;
    const uint32_t n = qp.qpn;
    const QpStats stats = qp.stats;
    qp = Qp{};
    qp.qpn = n;
    qp.type = init.type;
    qp.init = init;
    qp.stats = stats;
    arm_out_of_order(qp);
    return "";
  }
  if (to == QpState::Err && qp.state != QpState::Err) Requester::fail(qp, *this, -1, WcStatus::WrFlushErr, QpState::Err);
  if (to == QpState::Rtr && qp.state == QpState::Init) {
    qp.epsn = a.rq_psn;
    qp.resources.clear();
    qp.next_resource = 0;
  }
  if (to == QpState::Sqd && qp.state != QpState::Sqd) qp.drain_told = false;
  if (to == QpState::Rts && qp.state == QpState::Rtr) {
    qp.npsn = qp.una = qp.send_psn = qp.fresh_psn = a.sq_psn;
    qp.retry_left = a.retry_cnt;
    qp.rnr_left = a.rnr_retry;
  }
  qp.state = to;
  after(e);
  return "";
}

std::string TransportEngine::post_send(uint32_t qpn, const SendWr& wr, const WrTimes& times) {
  Entry* found = entry(qpn);
  if (found == nullptr) return "no QP " + std::to_string(qpn);
  Entry& e = *found;
  Qp& qp = e.qp;
  if (qp.state == QpState::Err || qp.state == QpState::Sqe) {
    Requester::flush_now(qp, *this, wr);  // seed 001: later WQEs complete flushed in error
    return "";
  }
  if (qp.state != QpState::Rts && qp.state != QpState::Sqd)
    return std::string("post_send needs the QP in RTS or SQD, not ") + to_string(qp.state);
  if (!opcode_supported(qp.type, wr.opcode))
    return std::string(to_string(wr.opcode)) + " is not supported on a " + to_string(qp.type) + " QP";
  const std::string full = queue_full_reason("send", qp.sq.size(), qp.init.max_send_wr, wr.sg_list.size(), qp.init.max_send_sge);
  if (!full.empty()) return full;
  SendWqe w;
  w.wr = wr;
  const bool atomic = wr.opcode == WrOpcode::AtomicCmpSwp || wr.opcode == WrOpcode::AtomicFetchAdd;
  w.length = atomic ? 8 : !wr.inline_data.empty() ? wr.inline_data.size() : sg_length(wr.sg_list);
  w.times = times;
  w.times.on_chip_ps = now_ps();
  w.ssn = ++qp.ssn;
  qp.sq.push_back(std::move(w));
  wake(e);
  return "";
}

std::string TransportEngine::post_recv(uint32_t qpn, const RecvWr& wr) {
  Entry* found = entry(qpn);
  if (found == nullptr) return "no QP " + std::to_string(qpn);
  Qp& qp = found->qp;
  if (qp.state == QpState::Reset) return "post_recv needs the QP out of RESET";
  if (qp.state == QpState::Err) {
    complete(qp, false, recv_completion(qp, wr.wr_id, WcStatus::WrFlushErr, now_ps()));
    return "";
  }
  const std::string full = queue_full_reason("recv", qp.rq.size(), qp.init.max_recv_wr, wr.sg_list.size(), qp.init.max_recv_sge);
  if (!full.empty()) return full;
  RecvWqe w;
  w.wr = wr;
  w.length = sg_length(wr.sg_list);
  qp.rq.push_back(std::move(w));
  return "";
}

void TransportEngine::post_unusable(uint32_t qpn, const SendWr& wr, uint32_t vendor_err) {
  Entry* e = entry(qpn);
  if (e == nullptr) return;
  Requester::queue_unusable(e->qp, *this, wr, vendor_err);
  after(*e);
}

void TransportEngine::retired_unsignaled(Qp& qp, const SendWr& wr) {
  if (contexts_ != nullptr) contexts_->wqe_done(qp.qpn, true, wr.wr_id);
}

void TransportEngine::complete(Qp& qp, bool send_queue, const WorkCompletion& wc) {
  if (contexts_ != nullptr) contexts_->wqe_done(qp.qpn, send_queue, wc.wr_id);
  if (config_.completion_generation_ps == 0) {
    if (on_completion_) on_completion_(qp, send_queue, wc);
    return;
  }
  const uint64_t due = now_ps() + config_.completion_generation_ps;
  if (completions_.empty()) cqe_alarm_.notify_at(due);
  completions_.push_back({due, qp.qpn, send_queue, wc});
}

void TransportEngine::completions_due() {
  const uint64_t now = now_ps();
  while (!completions_.empty() && completions_.front().due_ps <= now) {
    const Completion c = completions_.front();
    completions_.pop_front();
    Entry* e = entry(c.qpn);  // a QP destroyed meanwhile takes its completions with it
    if (e != nullptr && on_completion_) on_completion_(e->qp, c.send_queue, c.wc);
  }
  if (!completions_.empty()) cqe_alarm_.notify_at(completions_.front().due_ps);
}

void TransportEngine::async_event(Qp& qp, const char* event) {
  if (on_async_) on_async_(qp, event);
}

bool TransportEngine::has_work(const Qp& qp) const {
  return qp.state != QpState::Reset && (Responder::has_work(qp) || Requester::has_work(qp, config_));
}

void TransportEngine::arm(Entry& e) {
  const Qp& qp = e.qp;
  // An earlier pending wakeup stays and re-arms when it fires; a stopped timer
  // or an ended wait takes its wakeup out, so a quiet fabric ends the run.
  if (qp.timer_at_ps != 0) e.timer.notify_at(timer_check_ps(qp.timer_at_ps, qp.attr.timeout));
  else e.timer.cancel();
  if (qp.rnr_waiting) e.rnr.notify_at(qp.rnr_until_ps);
  else e.rnr.cancel();
}

void TransportEngine::after(Entry& e) {
  if (e.qp.state != QpState::Err) {
    e.recv_flushed = false;
  } else if (recv_source_ != nullptr && !e.recv_flushed) {
    e.recv_flushed = true;
    recv_source_->flush_recv_wqes(e.qp);
  }
  arm(e);
  wake(e);
  Requester::check_drained(e.qp, *this);
}

void TransportEngine::wake(Entry& e) {
  if (e.in_engine || e.waiting_room > 0 || e.waiting_vl || e.context_filling) return;
  const bool strict = config_.scheduler == SchedulerKind::StrictPriority;
  if (e.sched.queued[1] && !strict) return;  // queued already (strict_priority: perhaps not among responses)
  if (!has_work(e.qp)) return;
  scheduler_of(e).push(&e, strict && Responder::has_work(e.qp), weight_of(e.qp));
  dispatch();
}

void TransportEngine::dispatch() {
  const bool shared = ready_.size() == 1;  // any_free: one scheduler for every unit
  for (auto& gp : engines_) {
    Engine& g = *gp;
    if (g.entry != nullptr) continue;
    QpScheduler<Entry>& ready = ready_[shared ? 0 : g.index];
    while (!ready.empty() && g.entry == nullptr) {
      if (data_stage_.size() >= config_.tx_dma_packets) return;  // resumes as the data stage drains
      Entry* e = ready.pop();
      if (e == nullptr) continue;  // destroyed while waiting
      if (e->in_engine || e->waiting_room > 0 || e->waiting_vl || e->context_filling ||
          !has_work(e->qp)) {  // woken when it can go
        if (!e->in_engine) QpScheduler<Entry>::idle(*e);
        drop_promise(*e);
        continue;
      }
      if (!context_on_chip_now(*e)) continue;  // woken when its QPC is filled
      start_packet(g, *e);
    }
    if (shared && ready.empty()) return;
  }
}

QpScheduler<TransportEngine::Entry>& TransportEngine::scheduler_of(const Entry& e) {
  return ready_[ready_.size() == 1 ? 0 : e.qp.qpn % ready_.size()];
}

uint32_t TransportEngine::weight_of(const Qp& qp) const {
  if (config_.scheduler != SchedulerKind::WeightedRoundRobin) return 1;
  if (config_.weights == WeightSource::Qp) return std::max<uint32_t>(1, qp.init.weight);
  return config_.sl_weights.empty() ? 1 : config_.sl_weights[qp.attr.ah_attr.sl & 0xF];
}

uint64_t TransportEngine::build_ps(const ib::Packet& p, bool first_of_message) const {
  const uint64_t stage = p.hdr.bth.opcode == ib::op::kRcAck ? config_.ack_generation_ps : config_.packet_build_ps;
  return stage + (first_of_message ? config_.wqe_parse_ps : 0);
}

unsigned TransportEngine::next_vl(const Qp& qp) const {
  const bool ud_request = qp.type == QpType::Ud && !Responder::has_work(qp);
  const uint8_t sl = ud_request ? qp.sq[qp.next_wqe].wr.ah.sl : qp.attr.ah_attr.sl;
  return ports_[qp.port].port->sl2vl()[sl & 0xF];
}

bool TransportEngine::vl_has_room(unsigned port_index, unsigned vl) const {
  const link::Port& port = *ports_[port_index].port;
  const uint64_t queued = port.tx_queued_bytes(vl);
  const PortLanes& r = lanes_[port_index];
  const uint64_t started = r.made != nullptr ? (*r.made)[vl].started_bytes : 0;
  return (queued == 0 && started == 0) || queued + started < port.tx_buffer_bytes();
}

void TransportEngine::drop_promise(Entry& e) {
  if (e.promise == 0) return;
  lanes_[e.qp.port].vl()[e.promise_vl].started_bytes -= e.promise;
  e.promise = 0;
}

void TransportEngine::start_packet(Engine& g, Entry& e) {
  Qp& qp = e.qp;
  const unsigned vl = next_vl(qp);
  // Without room kept for it, a QP finding others waiting for its VL's room,
  // or no room, waits behind them.
  if (e.promise == 0 && vl < link::kVl15 && (!lanes_[qp.port].vl()[vl].qps.empty() || !vl_has_room(qp.port, vl))) {
    wait_for_room(e, vl);
    return;
  }
  // Congestion control: the one branch it costs when off.
  if (CongestionHooks* cc = ports_[qp.port].cc) start_paced(g, e, vl, *cc);
  else build_packet(g, e, vl);
}

ib::Packet* TransportEngine::build_packet(Engine& g, Entry& e, unsigned vl) {
  Qp& qp = e.qp;
  drop_promise(e);
  bool first = false;
  uint64_t ready = 0;
  const uint64_t now = now_ps();
  const bool responding = Responder::has_work(qp);
  ib::Packet* p = responding ? Responder::next_packet(qp, *this, ready)
                             : Requester::next_packet(qp, *this, first, ready);
  if (p == nullptr) {  // the WQE failed locally; its completions are made
    after(e);
    return nullptr;
  }
  p->created_ps = now_ps();
  p->id = (ports_[qp.port].port->id() + 1) * kIdStride + kTransportIds + next_id_++;
  // A context the units' own store lacks is loaded first (context_lookups.hpp).
  const uint64_t latency = build_ps(*p, first) + (contexts_ != nullptr ? contexts_->unit_context_load(qp.qpn, now) : 0);
  QpScheduler<Entry>::served(e);
  g.entry = &e;
  g.packet = p;
  g.ready_ps = ready;
  g.started = {static_cast<uint8_t>(vl), p->wire_bytes()};
  if (vl < link::kVl15) lanes_[qp.port].vl()[vl].started_bytes += g.started.bytes;
  e.in_engine = true;
  ++stats_.packets_built;
  stats_.busy_ps += latency;
  arm(e);
  e.context_held = false;  // the next packet looks its QPC (and WQE) up again
  g.done.notify_at(now + latency);
  return p;
}

bool TransportEngine::context_on_chip_now(Entry& e) {
  if (contexts_ == nullptr || e.context_held) return true;
  const uint64_t now = now_ps();
  const uint64_t qpc = contexts_->qp_context(e.qp.qpn, now);
  // A send WQE's first packet: its WQE is read once the QPC (its ring's
  // address) is on chip.
  const Qp& qp = e.qp;
  uint64_t on_chip = qpc;
  if (!Responder::has_work(qp) && qp.next_packet == 0 && qp.next_wqe < qp.sq.size()) {
    const uint64_t from = std::max(now, qpc);
    on_chip = contexts_->wqe(qp.qpn, true, qp.sq[qp.next_wqe].wr.wr_id, from);
    if (on_chip > from) ++stats_.wqe_waits;
    const std::size_t ahead = qp.next_wqe + contexts_->wqe_prefetch_depth();
    if (ahead > qp.next_wqe && ahead < qp.sq.size())
      contexts_->wqe_prefetch(qp.qpn, qp.sq[ahead].wr.wr_id, static_cast<uint32_t>(qp.sq.size() - ahead), from);
  }
  if (on_chip <= now) {
    e.context_held = true;
    return true;
  }
  e.context_filling = true;
  e.context.notify_at(on_chip);
  if (qpc > now) ++stats_.context_waits;
  return false;
}

void TransportEngine::context_on_chip(Entry& e) {
  e.context_filling = false;
  e.context_held = true;
  wake(e);
}

void TransportEngine::wait_for_room(Entry& e, unsigned vl) {
  Lane& l = lanes_[e.qp.port].vl()[vl];
  block(e.qp.port, vl);
  l.qps.push_back(&e);
  e.waiting_vl = true;
  ++stats_.room_waits;
}

void TransportEngine::block(unsigned port_index, unsigned vl) {
  uint32_t& blocked = lanes_[port_index].blocked;
  if (blocked >> vl & 1u) return;
  blocked |= 1u << vl;
  if (blocked_lists_++ == 0 && on_room_wanted_) on_room_wanted_(true);
}

void TransportEngine::engine_done(Engine& g) {
  Entry& e = *g.entry;
  ib::Packet* p = g.packet;
  const uint64_t now = now_ps();
  e.in_engine = false;
  g.entry = nullptr;
  g.packet = nullptr;
  if (SendWqe* w = carried_wqe(e.qp, *p)) {
    w->times.built_ps = now;
    // A READ's request has gone: past the limit its WQE leaves the cache (context_lookups.hpp).
    if (contexts_ != nullptr && is_read_or_atomic(w->wr.opcode) && contexts_->wqe_reads_kept() != 0)
      contexts_->read_sent(e.qp.qpn, w->wr.wr_id, Requester::reads_outstanding(e.qp));
  }
  if (g.ready_ps <= now && e.waiting_data == 0) {
    to_port(e, p, g.started);
  } else {
    // Its data is still on the way (or an earlier packet of its QP waits): the
    // packet waits in the data stage and the engine takes new work.
    if (data_stage_.empty()) data_alarm_.notify_at(std::max(g.ready_ps, now));
    data_stage_.push_back({g.ready_ps, now, &e, p, g.started});
    ++stats_.data_waits;
    ++e.waiting_data;
    if (!e.leaving) wake(e);
  }
  dispatch();
}

void TransportEngine::data_due() {
  const uint64_t now = now_ps();
  while (!data_stage_.empty()) {
    Waiting& w = data_stage_.front();
    if (w.ready_ps > now) {
      data_alarm_.notify_at(w.ready_ps);
      break;
    }
    Entry& e = *w.entry;
    ib::Packet* p = w.packet;
    const Started started = w.started;
    stats_.data_wait_ps += now - w.since_ps;
    data_stage_.pop_front();
    --e.waiting_data;
    to_port(e, p, started);
  }
  dispatch();
}

void TransportEngine::to_port(Entry& e, ib::Packet* p, Started started) {
  link::Port& port = *ports_[e.qp.port].port;
  // The QP's P_Key: its pkey_index into the port's P_KeyTable (IBA 10.9.2);
  // an index beyond the table sends the invalid key 0, which no port accepts.
  const std::vector<uint16_t>& pkeys = port.pkeys();
  p->hdr.bth.p_key = e.qp.attr.pkey_index < pkeys.size() ? pkeys[e.qp.attr.pkey_index] : 0;
  const unsigned vl = started.vl;
  PortLanes& r = lanes_[e.qp.port];
  // Behind packets already waiting for this VL (a QP's packets stay in
  // order); otherwise the port takes it, drops it, or finds the VL full.
  if (vl >= link::kVl15 || r.vl()[vl].parked.empty()) {
    if (submit(port, e, p) != link::SubmitResult::Busy) {
      if (vl < link::kVl15) r.vl()[vl].started_bytes -= started.bytes;
      handed_on(e);
      return;
    }
  }
  block(e.qp.port, vl);
  r.vl()[vl].parked.push_back({&e, p, started.bytes});
  ++e.waiting_room;
  ++stats_.port_full_waits;
}

link::SubmitResult TransportEngine::submit(link::Port& port, Entry& e, ib::Packet* p) {
  const uint64_t now = now_ps();
  p->submitted_ps = now;  // read before the port may release it (a drop)
  SendWqe* w = carried_wqe(e.qp, *p);
  const link::SubmitResult r = port.submit(p);
  if (r != link::SubmitResult::Busy && w != nullptr) w->times.sent_ps = now;
  return r;
}

SendWqe* TransportEngine::carried_wqe(Qp& qp, const ib::Packet& p) {
  if (p.ssn == 0 || qp.sq.empty()) return nullptr;
  const uint32_t i = p.ssn - qp.sq.front().ssn;  // SSNs are consecutive in the send queue
  return i < qp.sq.size() && qp.sq[i].ssn == p.ssn ? &qp.sq[i] : nullptr;
}

void TransportEngine::handed_on(Entry& e) {
  if (!e.leaving) {
    wake(e);
    return;
  }
  if (e.in_engine || e.waiting_data > 0 || e.waiting_room > 0) return;
  leaving_.erase(std::find_if(leaving_.begin(), leaving_.end(), [&](const auto& l) { return l.get() == &e; }));
}

void TransportEngine::serve_room(unsigned port_index) {
  PortLanes& r = lanes_[port_index];
  link::Port& port = *ports_[port_index].port;
  for (uint32_t left = r.blocked; left != 0; left &= left - 1) {
    const unsigned vl = static_cast<unsigned>(__builtin_ctz(left));
    Lane& l = r.vl()[vl];
    while (!l.parked.empty() && submit(port, *l.parked.front().entry, l.parked.front().packet) != link::SubmitResult::Busy) {
      Entry& e = *l.parked.front().entry;
      l.started_bytes -= l.parked.front().bytes;
      l.parked.pop_front();
      --e.waiting_room;
      handed_on(e);
    }
    // The QPs waiting to start a packet go in order, each with a packet's
    // room kept for it until a unit takes it.
    while (l.parked.empty() && !l.qps.empty() && vl_has_room(port_index, vl)) {
      Entry* e = l.qps.front();
      l.qps.pop_front();
      if (e == nullptr) continue;  // destroyed while waiting
      e->waiting_vl = false;
      e->promise = port.mtu();
      e->promise_vl = static_cast<uint8_t>(vl);
      l.started_bytes += e->promise;
      wake(*e);
      if (!e->sched.queued[0] && !e->sched.queued[1]) drop_promise(*e);  // taken at once, or nothing to send
    }
    if (l.parked.empty() && l.qps.empty()) {
      r.blocked &= ~(1u << vl);
      if (--blocked_lists_ == 0 && on_room_wanted_) on_room_wanted_(false);
    }
  }
  dispatch();
}

void TransportEngine::deliver(ib::Packet* p, unsigned) {
  ++stats_.packets_received;
  if (rx_units_.empty()) {  // a pipeline: the packet reaches its QP receive_parse from now
    const uint64_t now = now_ps();  // the packet reaches its QP once its QPC is on chip, in arrival order
    uint64_t due = now + config_.receive_parse_ps;
    if (contexts_ != nullptr && owns(p->hdr.bth.dest_qp)) {
      Entry& e = *entry(p->hdr.bth.dest_qp);
      due = std::max(due, qpc_on_chip(e, now) + config_.receive_parse_ps);
      if (!arrivals_.empty()) due = std::max(due, arrivals_.back().due_ps);
      // A response whose send WQE is being read again, or whose QP has one aside, waits aside.
      const uint64_t aside = std::max(answered_wqe_on_chip(e, *p, now) + config_.receive_parse_ps, e.rx_aside_until);
      if (aside > due) {
        e.rx_aside_until = aside;
        ++stats_.response_wqe_waits;
        rx_alarm_.notify_at(aside);
        aside_.push_back({aside, aside_order_++, p});
        std::push_heap(aside_.begin(), aside_.end(), Aside::later);
        return;
      }
    }
    if (arrivals_.empty()) rx_alarm_.notify_at(due);
    arrivals_.push_back({due, p});
    return;
  }
  const bool hash = rx_waiting_.size() > 1;
  rx_waiting_[hash ? p->hdr.bth.dest_qp % rx_waiting_.size() : 0].push_back(p);
  start_rx();
}

void TransportEngine::start_rx() {
  const bool hash = rx_waiting_.size() > 1;
  for (auto& up : rx_units_) {
    RxUnit& u = *up;
    if (u.packet != nullptr) continue;
    auto& waiting = rx_waiting_[hash ? u.index : 0];
    if (waiting.empty()) {
      if (hash) continue;
      return;
    }
    ib::Packet* p = waiting.front();
    Entry* e = entry(p->hdr.bth.dest_qp);
    if (e != nullptr && e->on_rx_unit) {  // any_free: its QP's earlier packet is on a unit; it waits, in order
      ++stats_.rx_unit_waits;
      return;
    }
    waiting.pop_front();
    if (e != nullptr) e->on_rx_unit = true;
    u.packet = p;
    const uint64_t now = now_ps();  // the unit parses once the QP's context is on chip
    const uint64_t start = contexts_ != nullptr && e != nullptr ? on_chip(*e, *p, now) : now;
    u.done.notify_at(start + config_.receive_parse_ps);
  }
}

uint64_t TransportEngine::qpc_on_chip(const Entry& e, uint64_t now) {
  return std::max(now, contexts_->qp_context(e.qp.qpn, now));
}

uint64_t TransportEngine::answered_wqe_on_chip(const Entry& e, const ib::Packet& p, uint64_t now) {
  const SendWqe* w = Requester::answered_wqe(e.qp, p);
  return w == nullptr ? 0 : contexts_->wqe(e.qp.qpn, true, w->wr.wr_id, now);
}

void TransportEngine::rx_unit_done(RxUnit& u) {
  ib::Packet* p = u.packet;
  u.packet = nullptr;
  if (Entry* e = entry(p->hdr.bth.dest_qp)) e->on_rx_unit = false;
  received(p);
  start_rx();
}

void TransportEngine::rx_due() {
  const uint64_t now = now_ps();
  for (;;) {
    const bool in_line = !arrivals_.empty() && arrivals_.front().due_ps <= now;
    const bool aside = !aside_.empty() && aside_.front().due_ps <= now;
    ib::Packet* p = nullptr;
    if (aside && (!in_line || aside_.front().due_ps <= arrivals_.front().due_ps)) {  // at a tie, the older QP order
      std::pop_heap(aside_.begin(), aside_.end(), Aside::later);
      p = aside_.back().packet;
      aside_.pop_back();
    } else if (in_line) {
      p = arrivals_.front().packet;
      arrivals_.pop_front();
    } else {
      break;
    }
    received(p);
  }
  if (!arrivals_.empty()) rx_alarm_.notify_at(arrivals_.front().due_ps);
  if (!aside_.empty()) rx_alarm_.notify_at(aside_.front().due_ps);
}

void TransportEngine::received(ib::Packet* p) {
  Entry* found = entry(p->hdr.bth.dest_qp);
  if (found == nullptr) {
    ++stats_.unknown_qp_drops;
  } else if (!ib::op::is_rc_response(p->hdr.bth.opcode)) {
    take_request(*found, p);
    return;
  } else {
    Entry& e = *found;
    Requester::on_response(e.qp, *this, *p);
    if (e.qp.ooo != nullptr) Requester::take_held(e.qp, *this);
    after(e);
  }
  pool_.release(p);
}

bool TransportEngine::must_wait(Entry& e, const ib::Packet& p) {
  if (recv_source_ == nullptr || !uses_recv_wqe(p.hdr.bth.opcode)) return false;
  return e.qp.rq.empty() ? recv_source_->need_recv_wqes(e.qp) : recv_source_->recv_wqe_missing(e.qp);
}

void TransportEngine::take_request(Entry& e, ib::Packet* p) {
  p->request_in_ps = now_ps();  // latency parts: before it may wait for a receive WQE
  if (!e.held.empty() || must_wait(e, *p)) {
    e.held.push_back(p);
    return;
  }
  execute(e, p);
}

void TransportEngine::execute(Entry& e, ib::Packet* p) {
  // congestion_hooks.hpp: an RC request with FECN is answered with BECN.
  if ((p->hdr.bth.resv8a & ib::kBthFecn) != 0 && e.qp.type == QpType::Rc && ports_[e.qp.port].cc != nullptr)
    e.qp.becn_owed = true;
  const std::size_t queued = e.qp.responses.size();
  Responder::on_request(e.qp, *this, *p);
  for (std::size_t i = queued; i < e.qp.responses.size(); ++i) e.qp.responses[i].request_ps = p->request_in_ps;
  after(e);
  pool_.release(p);
}

void TransportEngine::resume_requests(uint32_t qpn) {
  Entry* e = entry(qpn);
  if (e == nullptr || e->resuming) return;
  e->resuming = true;
  bool first = true;  // its fetch is done: it goes on without asking again
  while (!e->held.empty()) {
    ib::Packet* p = e->held.front();
    if (!first && must_wait(*e, *p)) break;
    e->held.pop_front();
    execute(*e, p);
    first = false;
  }
  e->resuming = false;
}

void TransportEngine::start_paced(Engine& g, Entry& e, unsigned vl, CongestionHooks& cc) {
  if (e.inject_at_ps != 0 && held_back(e)) return;  // woken at its injection time
  const bool response = Responder::has_work(e.qp);
  const uint64_t now = now_ps();
  if (const ib::Packet* p = build_packet(g, e, vl)) paced(e, *p, response, now, cc);
}

void TransportEngine::paced(Entry& e, const ib::Packet& p, bool response, uint64_t now, CongestionHooks& cc) {
  if (response) {
    if ((p.hdr.bth.resv8a & ib::kBthBecn) != 0) cc.becn_sent();
    return;
  }
  const uint64_t link_ps = ports_[e.qp.port].port->timing().serialization_ps(p.wire_bytes());
  const uint64_t delay = cc.injection_delay_ps(e.qp.qpn, p.hdr.lrh.sl, link_ps, now);
  e.inject_at_ps = delay == 0 ? 0 : now + link_ps + delay;
}

bool TransportEngine::held_back(Entry& e) {
  if (e.inject_at_ps <= now_ps()) {
    e.inject_at_ps = 0;
    return false;
  }
  if (Responder::has_work(e.qp)) return false;  // responses are not delayed
  QpScheduler<Entry>::idle(e);
  drop_promise(e);
  e.context_held = false;  // its QPC is looked up again when it goes
  if (!e.in_paced) {
    e.in_paced = true;
    paced_.add(e.inject_at_ps, e.qp.qpn);
    pace_alarm_.notify_at(paced_.next_ps());
  }
  return true;
}

void TransportEngine::pace_due() {
  uint32_t qpn = 0;
  while (paced_.pop_due(now_ps(), qpn)) {
    Entry* e = entry(qpn);
    if (e == nullptr) continue;  // destroyed meanwhile
    e->in_paced = false;
    wake(*e);
  }
  if (!paced_.empty()) pace_alarm_.notify_at(paced_.next_ps());
}

void TransportEngine::timer_fired(Entry& e) {
  Qp& qp = e.qp;
  if (qp.timer_at_ps == 0) return;
  if (qp.timer_at_ps > now_ps()) {  // restarted since it was armed
    arm(e);
    return;
  }
  Requester::on_timeout(qp, *this);
  after(e);
}

void TransportEngine::rnr_over(Entry& e) {
  Qp& qp = e.qp;
  if (!qp.rnr_waiting) return;
  if (qp.rnr_until_ps > now_ps()) {
    arm(e);
    return;
  }
  Requester::on_rnr_wait_over(qp);
  after(e);
}

}  // namespace hcasim::transport
