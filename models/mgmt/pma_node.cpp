#include "models/mgmt/pma_node.hpp"

#include <algorithm>

namespace hcasim::mgmt {

using link::now_ps;

PmaNode::PmaNode(MadNode& node, Pma pma, ib::PacketPool& pool, uint64_t latency_ps)
    : node_(node), pma_(std::move(pma)), pool_(pool), latency_ps_(latency_ps), alarm_([this] { due(); }) {
  node_.on_gmp_class(ib::kClassPerfMgmt, [this](ib::Packet* p, unsigned in) { on_packet(p, in); });
}

PmaNode::~PmaNode() { node_.on_gmp_class(ib::kClassPerfMgmt, {}); }

void PmaNode::on_packet(ib::Packet* p, unsigned in) {
  if ((p->payload[3] & ib::kMethodResponseBit) != 0) {
    ++stats_.dropped;
    pool_.release(p);
    return;
  }
  ++stats_.requests;
  Waiting w;
  w.from = MadNode::origin(*p, in);
  w.mad.assign(p->payload.begin(), p->payload.end());
  pool_.release(p);
  const uint64_t start = waiting_.empty() ? now_ps() : std::max(now_ps(), waiting_.back().due_ps);
  w.due_ps = start + latency_ps_;
  waiting_.push_back(std::move(w));
  alarm_.notify_at(waiting_.front().due_ps);
}

void PmaNode::due() {
  const uint64_t now = now_ps();
  while (!waiting_.empty() && waiting_.front().due_ps <= now) {
    const Waiting w = std::move(waiting_.front());
    waiting_.pop_front();
    scratch_.assign(ib::kMadBytes, 0);
    if (!pma_.process(w.mad.data(), scratch_.data())) {
      ++stats_.dropped;
      continue;
    }
    ++stats_.answers;
    node_.answer_gmp(w.from, scratch_.data());
  }
  if (!waiting_.empty()) alarm_.notify_at(waiting_.front().due_ps);
}

}  // namespace hcasim::mgmt
