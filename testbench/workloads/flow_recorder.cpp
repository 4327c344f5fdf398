#include "testbench/workloads/flow_recorder.hpp"

#include <algorithm>

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
    if (p->flow < ordered_.size() && ordered_[p->flow] != 0) {
      if (p->seq < r.next_seq) ++r.out_of_order;
      else r.next_seq = p->seq + 1;
    }
    if (window_.contains(now_ps)) {
      r.accepted_bytes += p->wire_len;
      r.accepted_payload += p->payload_len;
    }
    const uint64_t latency = now_ps - p->created_ps;
    if (window_.contains(p->created_ps)) {
      ++r.measured_delivered;
      r.latency_ps.add(latency, now_ps);
      r.source_wait_ps.add(p->injected_ps - p->created_ps, now_ps);
      r.port_wait_ps.add(p->injected_ps - p->submitted_ps, now_ps);
      r.network_ps.add(now_ps - p->injected_ps, now_ps);
      if (on_measured_) on_measured_();
    }
    period_.packets += 1;
    period_.latency_sum_ps += static_cast<double>(latency);
    period_.bytes += p->wire_len;
  }
  pool_.release(p);
}

void FlowResult::add_deliveries(const FlowResult& r) {
  if (r.delivered == 0) return;
  if (delivered == 0 || r.first_delivery_ps < first_delivery_ps) first_delivery_ps = r.first_delivery_ps;
  last_delivery_ps = std::max(last_delivery_ps, r.last_delivery_ps);
  delivered += r.delivered;
  delivered_bytes += r.delivered_bytes;
  delivered_payload += r.delivered_payload;
  out_of_order += r.out_of_order;
  measured_delivered += r.measured_delivered;
  accepted_bytes += r.accepted_bytes;
  accepted_payload += r.accepted_payload;
  latency_ps.merge(r.latency_ps);
  source_wait_ps.merge(r.source_wait_ps);
  port_wait_ps.merge(r.port_wait_ps);
  network_ps.merge(r.network_ps);
}

void FlowResult::add_sources(const FlowResult& r) {
  created += r.created;
  sent += r.sent;
  dropped_at_source += r.dropped_at_source;
  dropped_source_queue += r.dropped_source_queue;
  source_queue_high_water = std::max(source_queue_high_water, r.source_queue_high_water);
  offered += r.offered;
  offered_bytes += r.offered_bytes;
  offered_lost += r.offered_lost;
}

}  // namespace hcasim::workloads
