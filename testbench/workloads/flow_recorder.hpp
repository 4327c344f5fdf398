#pragma once
// The sink of every HCA in a raw-traffic run: counts each delivered packet
// against its flow, records its latency, and returns it to the pool.
// In a parallel simulation each partition has one, which keeps records of its
// own (made at a flow's first delivery there: a flow's latency histogram is
// large) for the caller to merge, so that no two threads write one record.

#include <memory>
#include <vector>

#include "models/hca/hca.hpp"
#include "testbench/workloads/flow.hpp"

namespace hcasim::workloads {

class FlowRecorder : public hca::PacketSink {
 public:
  // Records into results (the delivery side of each flow's result).
  FlowRecorder(std::vector<FlowResult>& results, ib::PacketPool& pool) : results_(&results), pool_(pool) {}
  // Records of its own, for `flows` flows.
  FlowRecorder(std::size_t flows, ib::PacketPool& pool) : own_(flows), pool_(pool) {}
  void deliver(ib::Packet* p, unsigned port_index, uint64_t now_ps) override;
  uint64_t delivered() const { return delivered_; }
  // Own records: what this recorder saw of a flow (null: nothing delivered).
  const FlowResult* received(std::size_t flow) const { return flow < own_.size() ? own_[flow].get() : nullptr; }

 private:
  FlowResult* record(uint32_t flow);
  std::vector<FlowResult>* results_ = nullptr;
  std::vector<std::unique_ptr<FlowResult>> own_;
  ib::PacketPool& pool_;
  uint64_t delivered_ = 0;
};

}  // namespace hcasim::workloads
