#pragma once
// The sink of every HCA in a raw-traffic run: counts each delivered packet
// against its flow, records its latency, and returns it to the pool.
// In a parallel simulation each partition has one, which keeps records of its
// own (made at a flow's first delivery there: a flow's latency histogram is
// large) for the caller to merge, so that no two threads write one record.

#include <functional>
#include <memory>
#include <vector>

#include "models/hca/hca.hpp"
#include "testbench/workloads/flow.hpp"
#include "testbench/workloads/measure_window.hpp"
#include "testbench/workloads/steady_state.hpp"

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
  // Flows whose order is checked (one destination each), by flow index.
  void track_order(std::vector<uint8_t> one_destination) { ordered_ = std::move(one_destination); }
  // The run's measured window (read at every delivery; the run moves it).
  void use_window(const MeasureWindow& w) { window_ = w; }
  // Called after each delivery of a measured packet (the run's drain check).
  void on_measured(std::function<void()> f) { on_measured_ = std::move(f); }
  // Deliveries since the last call, and starts a new period.
  PeriodSample take_period() {
    const PeriodSample s = period_;
    period_ = {};
    return s;
  }

 private:
  FlowResult* record(uint32_t flow);
  std::vector<FlowResult>* results_ = nullptr;
  std::vector<std::unique_ptr<FlowResult>> own_;
  ib::PacketPool& pool_;
  uint64_t delivered_ = 0;
  std::vector<uint8_t> ordered_;
  MeasureWindow window_;
  std::function<void()> on_measured_;
  PeriodSample period_;
};

}  // namespace hcasim::workloads
