#include "models/mgmt/mad_node.hpp"

#include <algorithm>

#include "models/hca/hca.hpp"
#include "models/ib/opcodes.hpp"
#include "models/ib/pkey_traps.hpp"
#include "models/mgmt/directed_route.hpp"
#include "models/switch/switch.hpp"
#include "models/transport/message_layout.hpp"

namespace hcasim::mgmt {

namespace {

using link::now_ps;

bool is_mad(const ib::Packet& p) {
  return p.payload.size() == ib::kMadBytes && p.payload_len == ib::kMadBytes &&
         p.hdr.bth.opcode == ib::op::kUdSendOnly;
}

}  // namespace

MadNode::MadNode(hca::Hca& hca, const NodeIdentity& id, ib::PacketPool& pool, uint64_t sma_latency_ps)
    : hca_(&hca), pool_(pool), sma_(hca, id), sma_latency_ps_(sma_latency_ps),
      sma_alarm_([this] { sma_due(); }), out_(hca.port_count() + 1), sm_alarm_([this] { sm_timer(); }),
      sm_start_([this] {
        std::vector<ib::Smp> out;
        sm_->start(now_ps(), out);
        sm_step(out);
      }),
      poll_alarm_([this] {
        std::vector<ib::Smp> out;
        sm_->poll(now_ps(), out);
        sm_step(out);
      }),
      sweep_alarm_([this] {
        std::vector<ib::Smp> out;
        sm_->light_sweep(now_ps(), out);
        sm_step(out);
      }),
      trap_alarm_([this] {
        ++stats_.trap_repeats;
        send_trap();
      }) {
  hca.set_agent(this);
  pkey_trap_tid_.assign(hca.port_count() + 1, 0);
  for (unsigned i = 0; i < hca.port_count(); ++i)
    hca.port(i).on_pkey_violation([this, i](const ib::Packet& p) { pkey_violation(i + 1, p); });
}

MadNode::MadNode(sw::Switch& sw, const NodeIdentity& id, ib::PacketPool& pool, uint64_t sma_latency_ps)
    : switch_(&sw), pool_(pool), sma_(sw, id), sma_latency_ps_(sma_latency_ps),
      sma_alarm_([this] { sma_due(); }), out_(sw.port_count() + 1), sm_alarm_([this] { sm_timer(); }),
      sm_start_([] {}),
      poll_alarm_([] {}),
      sweep_alarm_([] {}),
      trap_alarm_([this] {
        ++stats_.trap_repeats;
        send_trap();
      }) {
  sw.set_agent(this);
  pkey_trap_tid_.assign(sw.port_count() + 1, 0);
  for (unsigned n = 1; n <= sw.port_count(); ++n)
    sw.port(n).on_pkey_violation([this, n](const ib::Packet& p) { pkey_violation(n, p); });
}

MadNode::~MadNode() {
  // Registered only by the nodes that use them, so that the Timeline's list stays short.
  if (sm_ != nullptr) {
    poll_alarm_.timeline().remove_background(&poll_alarm_);
    sweep_alarm_.timeline().remove_background(&sweep_alarm_);
  }
  if (trap_background_) trap_alarm_.timeline().remove_background(&trap_alarm_);
  if (hca_ != nullptr) {
    hca_->set_agent(nullptr);
    for (unsigned i = 0; i < hca_->port_count(); ++i) hca_->port(i).on_pkey_violation(nullptr);
  }
  if (switch_ != nullptr) {
    switch_->set_agent(nullptr);
    for (unsigned n = 1; n <= switch_->port_count(); ++n) switch_->port(n).on_pkey_violation(nullptr);
  }
  for (auto& q : out_)
    for (ib::Packet* p : q) pool_.release(p);
}

uint16_t MadNode::lid(unsigned port) const { return switch_ != nullptr ? switch_->lid() : hca_->lid(port - 1); }

void MadNode::run_sm(std::unique_ptr<SubnetManager> sm, unsigned port, uint64_t start_ps,
                     std::function<void()> on_done) {
  sm_ = std::move(sm);
  sm_port_ = port;
  sm_done_ = std::move(on_done);
  sma_.add_capability(port, ib::kPortCapIsSm);
  poll_alarm_.timeline().add_background(&poll_alarm_);
  sweep_alarm_.timeline().add_background(&sweep_alarm_);
  sma_.serve_sm_info(port, [this](const ib::Smp& req, uint8_t* data) { return sm_info(req, data); });
  sm_start_.notify_at(start_ps);
}

uint16_t MadNode::sm_info(const ib::Smp& req, uint8_t* data) {
  if (req.hdr.method == ib::kMethodSet && req.hdr.attr_mod == static_cast<uint32_t>(ib::SmInfoControl::Handover)) {
    std::vector<ib::Smp> out;
    sm_->on_handover(now_ps(), out);
    sm_step(out);
  }
  sm_->sm_info().encode(data);
  return ib::kStatusOk;
}

void MadNode::request_sweep() {
  if (sm_ == nullptr) return;
  std::vector<ib::Smp> out;
  sm_->request_sweep(now_ps(), out);
  sm_step(out);
}

void MadNode::on_gmp_class(uint8_t mgmt_class, std::function<void(ib::Packet*, unsigned)> handler) {
  if (handler) gmp_classes_[mgmt_class] = std::move(handler);
  else gmp_classes_.erase(mgmt_class);
}

ib::Packet* MadNode::make_packet(uint16_t slid, uint16_t dlid, uint8_t sl, uint32_t dest_qp, uint32_t src_qp,
                                 const uint8_t* mad) {
  ib::Packet* p = pool_.acquire();
  transport::fill_lrh_bth(*p, sl, dlid, slid, ib::op::kUdSendOnly, dest_qp, 0);
  p->hdr.deth.q_key = dest_qp == ib::kQp0 ? ib::kSmiQKey : ib::kGsiQKey;
  p->hdr.deth.src_qp = src_qp;
  p->payload.assign(mad, mad + ib::kMadBytes);
  p->payload_len = ib::kMadBytes;
  p->finalize_lengths();
  p->created_ps = now_ps();
  return p;
}

MadNode::GmpOrigin MadNode::origin(const ib::Packet& p, unsigned in) {
  return {in, p.hdr.lrh.slid, p.hdr.lrh.sl, p.hdr.bth.p_key, p.hdr.deth.src_qp};
}

void MadNode::answer_gmp(const GmpOrigin& o, const uint8_t* mad) {
  ib::Packet* p = make_packet(lid(o.in), o.slid, o.sl, o.src_qp, ib::kQp1, mad);
  p->hdr.bth.p_key = o.pkey;
  if (o.slid != 0 && o.slid == lid(o.in)) deliver(p, o.in);  // asked from this node
  else send(switch_ != nullptr ? 0 : o.in, p);               // a switch: out of the port its LFT gives
}

bool MadNode::try_submit(unsigned port, ib::Packet* p) {
  const link::SubmitResult r = switch_ != nullptr ? switch_->send_management(p, port) : hca_->send_mad(port - 1, p);
  return r != link::SubmitResult::Busy;
}

void MadNode::send(unsigned port, ib::Packet* p) {
  if (port == 0 && switch_ != nullptr) port = switch_->forwarding().lookup(p->hdr.lrh.dlid);  // by the LFT
  if (port == 0 || port >= out_.size()) {
    pool_.release(p);
    ++stats_.smps_dropped;
    return;
  }
  if (!out_[port].empty() || !try_submit(port, p)) {
    out_[port].push_back(p);
    ++stats_.queued;
  }
}

void MadNode::tx_space(unsigned port) {
  if (port >= out_.size()) return;
  std::deque<ib::Packet*>& q = out_[port];
  while (!q.empty() && try_submit(port, q.front())) q.pop_front();
}

void MadNode::deliver(ib::Packet* p, unsigned port) {
  if (!is_mad(*p)) {
    ++stats_.smps_dropped;
    pool_.release(p);
    return;
  }
  const uint8_t mgmt_class = p->payload[1];
  if (p->hdr.bth.dest_qp == ib::kQp1) {
    ++stats_.gmps_in;
    const bool response = (p->payload[3] & ib::kMethodResponseBit) != 0;
    if (response && external_) {  // an answer to outside software's request (see the rules)
      to_external(p->payload.data(), port, p->hdr.lrh.slid, p->hdr.deth.src_qp, ib::kQp1);
      pool_.release(p);
    } else if (const auto it = gmp_classes_.find(mgmt_class); it != gmp_classes_.end()) {
      it->second(p, port);
    } else if (gmp_) {
      gmp_(p, port);
    } else {
      if (external_) to_external(p->payload.data(), port, p->hdr.lrh.slid, p->hdr.deth.src_qp, ib::kQp1);
      pool_.release(p);
    }
    return;
  }
  ib::Smp smp;
  if (mgmt_class != ib::kClassSubnDr && mgmt_class != ib::kClassSubnLid) {
    ++stats_.smps_dropped;
    pool_.release(p);
    return;
  }
  if (!ib::decode(p->payload.data(), smp)) {
    ++stats_.smps_dropped;
    pool_.release(p);
    return;
  }
  ++stats_.smps_in;
  if (!smp.directed()) {
    const uint16_t slid = p->hdr.lrh.slid;
    const bool for_sm = (smp.hdr.method & ib::kMethodResponseBit) != 0 || smp.hdr.method == ib::kMethodTrap ||
                        (smp.hdr.attr_id == ib::kAttrSmInfo && !sma_.serves_sm_info(port));
    if (for_sm && sm_ == nullptr && external_) {  // outside software's (see the rules)
      to_external(p->payload.data(), port, slid, p->hdr.deth.src_qp, ib::kQp0);
      pool_.release(p);
      return;
    }
    pool_.release(p);
    if (trap_arrived(smp, port, slid)) return;
    if ((smp.hdr.method & ib::kMethodResponseBit) != 0) {
      to_sm(smp, port, slid);
      return;
    }
    smp_arrived(smp, port, slid);
    return;
  }
  const unsigned ports = static_cast<unsigned>(out_.size() - 1);
  const DrAction a = dr_receive(smp, switch_ != nullptr, port, ports);
  switch (a.step) {
    case DrStep::Forward:
      ib::encode(smp, p->payload.data());
      p->wire_len = 0;
      ++stats_.smps_forwarded;
      send(a.out_port, p);
      return;
    case DrStep::Deliver:
      pool_.release(p);
      if (smp.direction) to_sm(smp, port, ib::kPermissiveLid);
      else if (smp.hdr.attr_id == ib::kAttrSmInfo && !sma_.serves_sm_info(port) && external_)
        smp_to_external(smp, port, ib::kPermissiveLid);
      else smp_arrived(smp, port, ib::kPermissiveLid);
      return;
    case DrStep::Drop:
      ++stats_.smps_dropped;
      pool_.release(p);
      return;
  }
}

void MadNode::to_sm(const ib::Smp& smp, unsigned port, uint16_t slid) {
  if (sm_ != nullptr) {
    std::vector<ib::Smp> out;
    sm_->on_response(smp, now_ps(), out);
    sm_step(out);
  } else if (external_) {
    smp_to_external(smp, port, slid);
  }
}

void MadNode::smp_to_external(const ib::Smp& smp, unsigned port, uint16_t slid) {
  scratch_.assign(ib::kMadBytes, 0);
  ib::encode(smp, scratch_.data());
  to_external(scratch_.data(), port, slid, ib::kQp0, ib::kQp0);
}

void MadNode::to_external(const uint8_t* mad, unsigned port, uint16_t slid, uint32_t src_qp, uint32_t dest_qp) {
  ++stats_.external_in;
  external_({mad, port, slid, src_qp, dest_qp});
}

bool MadNode::send_external(unsigned port, const uint8_t* mad, uint16_t dlid, uint32_t dest_qp, uint32_t src_qp) {
  if (port >= out_.size() || (switch_ == nullptr && port == 0)) return false;
  if (mad[1] == ib::kClassSubnDr) {
    ib::Smp smp;
    if (!ib::decode(mad, smp)) return false;
    const DrAction a = dr_send(smp, static_cast<unsigned>(out_.size() - 1));
    if (a.step == DrStep::Drop || (a.step == DrStep::Deliver && smp.direction)) return false;
    ++stats_.external_out;
    if (a.step == DrStep::Deliver) smp_arrived(smp, port, ib::kPermissiveLid);
    else send_smp(smp, a.out_port, ib::kPermissiveLid, ib::kPermissiveLid);
    return true;
  }
  ++stats_.external_out;
  ib::Packet* p = make_packet(lid(port), dlid, 0, dest_qp, src_qp, mad);
  if (dlid != 0 && dlid == lid(port)) deliver(p, port);  // the node's own LID: not on the wire
  else send(port, p);
  return true;
}

void MadNode::port_state_changed(unsigned) {
  if (switch_ == nullptr) return;
  sma_.note_port_state_change();
  if (!trap_background_) trap_alarm_.timeline().add_background(&trap_alarm_);
  trap_background_ = true;
  trap_tid_ = next_trap_tid_++;  // one TID sequence for all of this SMA's traps
  trap_pending_ = true;
  send_trap();
}

void MadNode::send_trap() {
  trap_alarm_.cancel();
  const uint16_t sm_lid = sma_.master_sm_lid(0);
  if (!trap_pending_ || sm_lid == 0) {
    trap_pending_ = false;
    return;
  }
  ib::Smp t;
  t.hdr.mgmt_class = ib::kClassSubnLid;
  t.hdr.class_version = ib::kSmpClassVersion;
  t.hdr.method = ib::kMethodTrap;
  t.hdr.attr_id = ib::kAttrNotice;
  t.hdr.tid = trap_tid_;
  ib::link_state_change_notice(lid(0)).encode_smp(t.data.data());
  ++stats_.traps_sent;
  send_smp(t, 0, lid(0), sm_lid);
  constexpr uint64_t kTimeBasePs = 4'096'000;  // 4.096 us (iba-facts 4: the IBA timer base)
  trap_alarm_.notify_in(kTimeBasePs << std::min<unsigned>(sma_.subnet_timeout(0), 31));
}

void MadNode::pkey_violation(unsigned port, const ib::Packet& p) {
  if (pkey_trap_tid_[port] != 0) {
    ++stats_.traps_held;
    return;
  }
  const uint16_t sm_lid = sma_.master_sm_lid(switch_ != nullptr ? 0 : port);
  const unsigned out = switch_ != nullptr ? switch_->forwarding().lookup(sm_lid) : port;
  if (sm_lid == 0 || out == 0 || out >= out_.size()) return;
  ib::PkeyViolation v;
  v.lid1 = p.hdr.lrh.slid;
  v.lid2 = p.hdr.lrh.dlid;
  v.pkey = p.hdr.bth.p_key;
  v.sl = p.hdr.lrh.sl;
  v.qp1 = (p.hdr.bth.opcode & 0xE0) == 0x60 ? p.hdr.deth.src_qp : 0;  // UD: DETH source QP
  v.qp2 = p.hdr.bth.dest_qp;
  v.switch_lid = switch_ != nullptr ? lid(port) : 0;
  v.port = static_cast<uint8_t>(port);
  ib::Smp trap;
  trap.hdr.mgmt_class = ib::kClassSubnLid;
  trap.hdr.class_version = ib::kSmpClassVersion;
  trap.hdr.method = ib::kMethodTrap;
  trap.hdr.attr_id = ib::kAttrNotice;
  trap.hdr.tid = pkey_trap_tid_[port] = next_trap_tid_++;
  ib::pkey_trap_notice(switch_ != nullptr, lid(port), v).encode_smp(trap.data.data());
  ++stats_.traps_sent;
  send_smp(trap, out, lid(port), sm_lid);
}

bool MadNode::trap_arrived(const ib::Smp& smp, unsigned port, uint16_t slid) {
  if (smp.hdr.method == ib::kMethodTrapRepress) {
    if (trap_pending_ && smp.hdr.tid == trap_tid_) {
      trap_pending_ = false;
      trap_alarm_.cancel();
      ++stats_.represses_in;
    }
    for (uint64_t& tid : pkey_trap_tid_) {
      if (tid != 0 && tid == smp.hdr.tid) {
        tid = 0;
        ++stats_.represses_in;
      }
    }
    return true;
  }
  if (smp.hdr.method != ib::kMethodTrap) return false;
  if (sm_ == nullptr) {
    ++stats_.smps_dropped;
    return true;
  }
  ++stats_.traps_in;
  ReceivedTrap t;
  t.time_ps = now_ps();
  t.slid = slid;
  t.notice.decode_smp(smp.data.data());
  traps_.push_back(t);
  ib::Smp repress = smp;
  repress.hdr.method = ib::kMethodTrapRepress;
  send_smp(repress, port, lid(port), slid);
  std::vector<ib::Smp> out;
  sm_->on_trap(smp, now_ps(), out);
  sm_step(out);
  return true;
}

void MadNode::smp_arrived(ib::Smp& smp, unsigned in, uint16_t slid) {
  const uint64_t start = waiting_.empty() ? now_ps() : std::max(now_ps(), waiting_.back().due_ps);
  waiting_.push_back({start + sma_latency_ps_, in, slid, smp});
  sma_alarm_.notify_at(waiting_.front().due_ps);
}

void MadNode::sma_due() {
  const uint64_t now = now_ps();
  while (!waiting_.empty() && waiting_.front().due_ps <= now) {
    const Waiting w = waiting_.front();
    waiting_.pop_front();
    answer(w);
  }
  if (!waiting_.empty()) sma_alarm_.notify_at(waiting_.front().due_ps);
}

void MadNode::answer(const Waiting& w) {
  ib::Smp resp;
  if (!sma_.process(w.smp, w.in, resp)) return;  // refused: no answer
  if (!resp.directed()) {
    if (external_ && w.slid != 0 && w.slid == lid(w.in)) to_sm(resp, w.in, w.slid);  // asked from this node
    else send_smp(resp, w.in, lid(w.in), w.slid);
    return;
  }
  resp.direction = true;
  const unsigned ports = static_cast<unsigned>(out_.size() - 1);
  const DrAction a = dr_send(resp, ports);
  if (a.step == DrStep::Deliver) {  // hop count 0: the node's own SM (or outside software) asked
    to_sm(resp, w.in, ib::kPermissiveLid);
  } else if (a.step == DrStep::Forward) {
    send_smp(resp, a.out_port, ib::kPermissiveLid, ib::kPermissiveLid);
  } else {
    ++stats_.smps_dropped;
  }
}

void MadNode::send_smp(const ib::Smp& smp, unsigned port, uint16_t slid, uint16_t dlid) {
  scratch_.assign(ib::kMadBytes, 0);
  ib::encode(smp, scratch_.data());
  send(port, make_packet(slid, dlid, 0, ib::kQp0, ib::kQp0, scratch_.data()));
}

void MadNode::sm_step(std::vector<ib::Smp>& out) {
  const unsigned ports = static_cast<unsigned>(out_.size() - 1);
  for (ib::Smp& smp : out) {
    const DrAction a = dr_send(smp, ports);
    if (a.step == DrStep::Deliver) smp_arrived(smp, sm_port_, ib::kPermissiveLid);
    else if (a.step == DrStep::Forward) send_smp(smp, a.out_port, ib::kPermissiveLid, ib::kPermissiveLid);
  }
  out.clear();
  sm_alarm_.cancel();
  const uint64_t d = sm_->deadline_ps();
  if (d != UINT64_MAX) sm_alarm_.notify_at(d);
  if (!sm_->standby()) poll_alarm_.cancel();
  else if (sm_->polling_ps() != 0) poll_alarm_.notify_in(sm_->polling_ps());  // keeps a poll already due
  if (sm_->master_idle() && sm_->sweep_interval_ps() != 0) sweep_alarm_.notify_in(sm_->sweep_interval_ps());
  const bool finished = sm_->done() || !sm_->failure().empty();
  if (!finished) sm_reported_ = false;
  if (!sm_reported_ && finished) {
    sm_reported_ = true;
    if (sm_done_) sm_done_();
  }
}

void MadNode::sm_timer() {
  std::vector<ib::Smp> out;
  sm_->on_timer(now_ps(), out);
  sm_step(out);
}

}  // namespace hcasim::mgmt
