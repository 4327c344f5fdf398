#include "models/mgmt/cc_node.hpp"

#include <algorithm>

namespace hcasim::mgmt {

namespace {

using link::now_ps;

}  // namespace

CcNode::CcNode(MadNode& node, CcAgent agent, ib::PacketPool& pool, uint64_t latency_ps)
    : node_(node), agent_(std::move(agent)), pool_(pool), latency_ps_(latency_ps),
      agent_alarm_([this] { agent_due(); }), manager_alarm_([this] { manager_timer(); }) {
  node_.on_gmp_class(ib::kClassCongestionControl, [this](ib::Packet* p, unsigned in) { on_packet(p, in); });
}

CcNode::~CcNode() { node_.on_gmp_class(ib::kClassCongestionControl, {}); }

void CcNode::run_manager(CcManagerConfig config, unsigned port, uint8_t sl) {
  manager_alarm_.cancel();
  manager_ = std::make_unique<CcManager>(std::move(config));
  manager_port_ = port;
  manager_sl_ = sl;
}

void CcNode::setup(const std::vector<CcTarget>& targets) {
  if (manager_ == nullptr) return;
  std::vector<CcSend> out;
  manager_->setup(targets, now_ps(), out);
  flush(out);
}

void CcNode::on_packet(ib::Packet* p, unsigned in) {
  ib::CcMad mad;
  if (!ib::decode(p->payload.data(), mad)) {
    ++stats_.undecodable;
    pool_.release(p);
    return;
  }
  ++stats_.mads_in;
  Waiting w;
  w.from = MadNode::origin(*p, in);
  w.mad = mad;
  pool_.release(p);
  if ((mad.hdr.method & ib::kMethodResponseBit) == 0) {
    arrived(w);
    return;
  }
  if (manager_ == nullptr) {
    ++stats_.unhandled;
    return;
  }
  std::vector<CcSend> out;
  manager_->on_response(mad, now_ps(), out);
  flush(out);
}

void CcNode::arrived(Waiting w) {
  const uint64_t start = waiting_.empty() ? now_ps() : std::max(now_ps(), waiting_.back().due_ps);
  w.due_ps = start + latency_ps_;
  waiting_.push_back(w);
  agent_alarm_.notify_at(waiting_.front().due_ps);
}

void CcNode::agent_due() {
  const uint64_t now = now_ps();
  while (!waiting_.empty() && waiting_.front().due_ps <= now) {
    const Waiting w = waiting_.front();
    waiting_.pop_front();
    answer(w);
  }
  if (!waiting_.empty()) agent_alarm_.notify_at(waiting_.front().due_ps);
}

void CcNode::answer(const Waiting& w) {
  ib::CcMad resp;
  if (!agent_.process(w.mad, w.from.in, now_ps(), resp)) return;  // refused: no answer
  ++stats_.answers_sent;
  if (w.local) {
    std::vector<CcSend> out;
    manager_->on_response(resp, now_ps(), out);
    flush(out);
    return;
  }
  scratch_.assign(ib::kMadBytes, 0);
  ib::encode(resp, scratch_.data());
  node_.answer_gmp(w.from, scratch_.data());
}

void CcNode::flush(std::vector<CcSend>& out) {
  const uint16_t me = node_.lid(manager_port_);
  for (const CcSend& s : out) {
    if (s.dlid == me) {
      ++stats_.local;
      Waiting w;
      w.from.in = manager_port_;
      w.local = true;
      w.mad = s.mad;
      arrived(w);
      continue;
    }
    scratch_.assign(ib::kMadBytes, 0);
    ib::encode(s.mad, scratch_.data());
    node_.send(manager_port_, node_.make_packet(me, s.dlid, manager_sl_, ib::kQp1, ib::kQp1, scratch_.data()));
  }
  out.clear();
  manager_alarm_.cancel();
  const uint64_t d = manager_->deadline_ps();
  if (d != UINT64_MAX) manager_alarm_.notify_at(std::max(d, now_ps()));
}

void CcNode::manager_timer() {
  std::vector<CcSend> out;
  manager_->on_timer(now_ps(), out);
  flush(out);
}

}  // namespace hcasim::mgmt
