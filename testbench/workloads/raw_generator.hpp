#pragma once
// Raw packet generator for one HCA port: link and switch studies without the
// transport layer. Each flow sends UD SEND-only packets (LRH, BTH, DETH; QP0 on
// VL15 for management flows) of a fixed payload to one destination LID.
//
// Rules:
// - A saturating flow keeps its port's transmit buffer full: it makes a packet
//   when the port has room (its creation time is then) and resumes when the
//   port frees space.
// - A rate-limited flow is an open-loop source (BookSim's method): packets are
//   made at the offered rate (bytes x 8 / rate, or the packet's link time /
//   load, apart; arrival_process.hpp: deterministic, Poisson or on/off) into a
//   source queue of its own, whether or not the port can take them; the port's
//   transmit buffer drains the queue. A bounded queue (source.queue) drops and
//   counts arrivals that find it full. A packet's latency counts from its
//   arrival in the source queue.
// - Arrivals are taken into the queue when the generator runs (on a port's
//   room, or at the next arrival once the queue is empty): the queue drains
//   only then, so a bounded queue drops exactly the arrivals that found it
//   full.
// - Flows of one port take equal turns within their VL: the flows whose
//   packets go to one VL are served round robin, one packet each; a flow whose
//   packet the port refuses (the VL's buffer is full) is first when room
//   frees. VLs are served independently, so a full VL does not hold the
//   others.
// - A flow stops making packets after `count` (0 = never).
// - A flow's destination is fixed or picked per packet (flow.hpp); the pick is
//   made once per packet, so a packet refused as Busy keeps its destination.
// - Congestion control (on when the HCA port's is, ca_congestion.hpp): each
//   flow is a QP of its own (or shares its SL's CCTI). After a packet of link
//   time T is accepted by the port at t, the flow's next packet is not made or
//   submitted before t + T + the CCT's delay for T at the flow's CCTI then;
//   the generator wakes for it. So a saturating flow's rate is at most the
//   link's x T / (T + delay). Off, a flow pays one branch per packet.
// - Counts of the measured window (measure_window.hpp): packets made in it
//   are offered; those dropped at the source are counted against it.

#include <systemc>

#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/ib/ring_fifo.hpp"
#include "models/link/timeline.hpp"
#include "testbench/workloads/arrival_process.hpp"
#include "testbench/workloads/flow.hpp"
#include "testbench/workloads/measure_window.hpp"

namespace hcasim::workloads {

class RawGenerator : public sc_core::sc_module {
 public:
  // `flows` indexes into `specs` / `results`; all share this port. Throws
  // std::invalid_argument for a flow whose arrivals cannot be made (on_off
  // above the link's rate).
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
  // The run's measured window (the run moves it; read as packets are made).
  void use_window(const MeasureWindow& w) { window_ = w; }
  // The run ended at end_ps: arrivals up to then join the queues (and the
  // counts), as if the generator had run then.
  void finish(uint64_t end_ps);
  // Wire bytes made since the last call (the automatic warm-up's periods).
  uint64_t take_period_offered() { return std::exchange(period_offered_bytes_, 0); }

 private:
  struct Active {
    unsigned index = 0;                 // flow index
    uint8_t vl = 0;                     // the VL its packets take
    bool open_loop = false;             // rate-limited: arrivals into the source queue
    uint32_t wire_bytes = 0;            // per packet
    double interval_ps = 0;             // open loop: mean time between arrivals
    ArrivalProcess arrivals;            // open loop
    uint64_t next_arrival_ps = 0;       // open loop: the next arrival (UINT64_MAX: none left)
    ib::RingFifo<uint64_t, 1> queue;    // open loop: arrival times of the packets waiting
    ib::Packet* pending = nullptr;      // built but refused as Busy
    std::unique_ptr<std::mt19937_64> rng;  // destination choices (Uniform, HotSpot; null for the others)
    std::size_t cursor = 0;             // Cycle: next destination
    uint64_t link_ps = 0;               // a packet's serialization time on the port
    uint64_t allowed_ps = 0;            // congestion control: no packet before then
  };
  // The flows of one VL, served round robin (lanes_ holds the VLs the flows use).
  struct Lane {
    std::vector<unsigned> members;  // into active_
    std::size_t turn = 0;           // member served next
  };
  void start_of_simulation() override;
  void run();
  void admit_arrivals(Active& a, uint64_t now);
  bool has_work(const Active& a, uint64_t now) const;
  // Submits the flow's next packet; false when the port is busy.
  bool submit_one(Active& a, uint64_t now);
  void serve(Lane& lane, uint64_t now);
  // Prefetches what run() reads first: the port's submission lines. No effect on the model.
  void warm() const;
  ib::Packet* make_packet(const Active& a, uint16_t dlid);
  uint16_t pick_dlid(Active& a);
  void count_made(const Active& a, uint64_t at);
  // Congestion control: when the flow's next packet may go, after one accepted now.
  void throttle(Active& a, uint8_t sl, uint64_t now);

  // The alarm, then on the next line (which the Timeline prefetches with the
  // alarm) what warm() reads.
  link::Alarm wake_ = link::Alarm::method<&RawGenerator::run, &RawGenerator::warm>(this);
  link::Port& port_;
  hca::Hca& hca_;
  unsigned port_index_;
  hca::CaCongestionControl* cc_ = nullptr;  // the port's, read at the start; null = off
  std::vector<Active> active_;
  std::vector<Lane> lanes_;
  bool deferred_ = false;
  MeasureWindow window_;
  uint64_t period_offered_bytes_ = 0;
  const std::vector<FlowSpec>& specs_;
  std::vector<FlowResult>& results_;
  ib::PacketPool& pool_;
  uint64_t next_id_;
};

}  // namespace hcasim::workloads
