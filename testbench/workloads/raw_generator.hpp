#pragma once
// Raw packet generator for one HCA port: link and switch studies without the
// transport layer. Each flow sends UD SEND-only packets (LRH, BTH, DETH; QP0 on
// VL15 for management flows) of a fixed payload to one destination LID.
//
// Rules:
// - A saturating flow keeps its port's transmit buffer full: it submits until
//   the port answers Busy and resumes when the port frees space.
// - A rate-limited flow submits one packet every bytes x 8 / rate (or every
//   serialization time / load); if the port is busy it resumes when space frees
//   and keeps its schedule.
// - Flows of one port take turns round robin, so none starves another.
// - A flow stops after `count` packets (0 = never).
// - A flow's destination is fixed or picked per packet (flow.hpp); the pick is
//   made once per packet, so a packet refused as Busy keeps its destination.

#include <systemc>

#include <cstdint>
#include <random>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/link/timeline.hpp"
#include "testbench/workloads/flow.hpp"

namespace hcasim::workloads {

class RawGenerator : public sc_core::sc_module {
 public:
  // `flows` indexes into `specs` / `results`; all share this port.
  RawGenerator(const sc_core::sc_module_name& name, hca::Hca& hca, unsigned port, const std::vector<FlowSpec>& specs,
               std::vector<unsigned> flows, std::vector<FlowResult>& results, ib::PacketPool& pool);
  RawGenerator() = delete;
  RawGenerator(const RawGenerator&) = delete;
  RawGenerator& operator=(const RawGenerator&) = delete;
  // A fabric managed in band: hold the start until the SM is done, then
  // begin() at the current time, start times counted from `offset_ps`.
  void defer_start() { deferred_ = true; }
  // The flows' start_ps are absolute: the caller moves them first.
  void begin();

 private:
  struct Active {
    unsigned index = 0;        // flow index
    uint64_t interval_ps = 0;  // 0 = saturate
    uint64_t next_ps = 0;
    ib::Packet* pending = nullptr;  // built but refused as Busy
    std::mt19937_64 rng;            // destination choices
    std::size_t cursor = 0;         // Cycle: next destination
  };
  void start_of_simulation() override;
  void run();
  // Prefetches what run() reads first: the port's submission lines and the
  // flow whose turn it is. No effect on the model.
  void warm() const;
  ib::Packet* make_packet(const Active& a, uint16_t dlid);
  uint16_t pick_dlid(Active& a);

  // The alarm, then on the next line (which the Timeline prefetches with the
  // alarm) what warm() reads.
  link::Alarm wake_ = link::Alarm::method<&RawGenerator::run, &RawGenerator::warm>(this);
  link::Port& port_;
  std::vector<Active> active_;
  std::size_t turn_ = 0;
  bool deferred_ = false;
  const std::vector<FlowSpec>& specs_;
  std::vector<FlowResult>& results_;
  ib::PacketPool& pool_;
  uint64_t next_id_;
};

}  // namespace hcasim::workloads
