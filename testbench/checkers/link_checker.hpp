#pragma once
// Watches ports and fails the run on a broken link-layer invariant:
// - a data packet sent without credit: the checker keeps its own unwrapped
//   (64-bit) count of blocks sent and of the credit limit each flow-control
//   packet raised, per transmitter and VL, independent of the port's modulo
//   arithmetic, and requires blocks sent <= limit at every send;
// - a receive buffer overflow: per receiver and VL, blocks buffered minus
//   blocks released never exceed the buffer, and no packet is dropped for
//   lack of room;
// - a packet lost on a lossless link: every packet that starts on a link
//   arrives at the far end, in order, at the time the sender announced; at the
//   end, nothing is missing whose arrival time has passed.
// Policy drops (MTU, SL to VL15, an unsupported VL, a full VL15 buffer, a
// switch's no-route and lifetime discards) are counted by the ports, not
// flagged here. Arrival times are the sender's announced delivery times (a
// cut-through receiver takes a packet before its tail is in).

#include <cstdint>
#include <array>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "testbench/checkers/ring_fifo.hpp"

namespace hcasim::checkers {

class LinkChecker : public link::PortObserver {
 public:
  void watch(link::Port& port);
  // Call after the simulation stops: flags packets that should have arrived.
  void finish(uint64_t now_ps);

  bool ok() const { return violations_ == 0; }
  uint64_t violations() const { return violations_; }
  const std::vector<std::string>& messages() const { return messages_; }  // the first few
  uint64_t packets_checked() const { return checked_; }

  void on_transmit(const link::Port&, const ib::Packet&, uint64_t now_ps, uint64_t arrival_ps) override;
  void on_arrival(const link::Port&, const ib::Packet&, uint64_t now_ps) override;
  void on_buffered(const link::Port&, const ib::Packet&, unsigned vl, uint32_t blocks) override;
  void on_released(const link::Port&, unsigned vl, uint32_t blocks) override;
  void on_drop(const link::Port&, const ib::Packet&, link::DropReason, uint64_t now_ps) override;

 private:
  struct VlView {
    uint64_t sent_blocks = 0;    // unwrapped blocks sent
    uint64_t limit_blocks = 0;   // unwrapped credit limit
    uint16_t last_fccl = 0;
    bool limit_known = false;
    int64_t buffered_blocks = 0; // at this port as receiver
  };
  struct InFlight {
    uint64_t id;
    uint64_t arrival_ps;
    bool flow_control;
  };
  struct PortView {
    std::array<VlView, 16> vl;
    RingFifo<InFlight> wire;     // packets this port sent, not yet arrived
  };
  void fail(uint64_t now_ps, const std::string& what);
  PortView& view(const link::Port& p) { return views_[p.id()]; }

  std::vector<PortView> views_;          // by port id
  std::vector<const link::Port*> ports_; // by port id
  uint64_t violations_ = 0;
  uint64_t checked_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace hcasim::checkers
