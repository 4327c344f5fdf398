#include "testbench/workloads/flow_recorder.hpp"

namespace hcasim::workloads {

FlowResult* FlowRecorder::record(uint32_t flow) {
  if (results_ != nullptr) return flow < results_->size() ? &(*results_)[flow] : nullptr;
  if (flow >= own_.size()) return nullptr;
  if (own_[flow] == nullptr) own_[flow] = std::make_unique<FlowResult>();
  return own_[flow].get();
}

void FlowRecorder::deliver(ib::Packet* p, unsigned, uint64_t now_ps) {
  ++delivered_;
  if (FlowResult* found = record(p->flow)) {
    FlowResult& r = *found;
    if (r.delivered == 0) r.first_delivery_ps = now_ps;
    r.last_delivery_ps = now_ps;
    ++r.delivered;
    r.delivered_bytes += p->wire_len;
    r.delivered_payload += p->payload_len;
    r.latency_ps.add(now_ps - p->created_ps, now_ps);
  }
  pool_.release(p);
}

}  // namespace hcasim::workloads
