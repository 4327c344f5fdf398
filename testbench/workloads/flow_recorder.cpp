#include "testbench/workloads/flow_recorder.hpp"

namespace hcasim::workloads {

void FlowRecorder::deliver(ib::Packet* p, unsigned, uint64_t now_ps) {
  ++delivered_;
  if (p->flow < results_.size()) {
    FlowResult& r = results_[p->flow];
    if (r.delivered == 0) r.first_delivery_ps = now_ps;
    r.last_delivery_ps = now_ps;
    ++r.delivered;
    r.delivered_bytes += p->wire_len;
    r.delivered_payload += p->payload_len;
    r.latency_ps.add(now_ps - p->created_ps);
  }
  pool_.release(p);
}

}  // namespace hcasim::workloads
