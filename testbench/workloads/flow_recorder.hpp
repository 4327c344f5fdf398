#pragma once
// The sink of every HCA in a raw-traffic run: counts each delivered packet
// against its flow, records its latency, and returns it to the pool.

#include <vector>

#include "models/hca/hca.hpp"
#include "testbench/workloads/flow.hpp"

namespace hcasim::workloads {

class FlowRecorder : public hca::PacketSink {
 public:
  FlowRecorder(std::vector<FlowResult>& results, ib::PacketPool& pool) : results_(results), pool_(pool) {}
  void deliver(ib::Packet* p, unsigned port_index, uint64_t now_ps) override;
  uint64_t delivered() const { return delivered_; }

 private:
  std::vector<FlowResult>& results_;
  ib::PacketPool& pool_;
  uint64_t delivered_ = 0;
};

}  // namespace hcasim::workloads
