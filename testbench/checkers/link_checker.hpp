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
// flagged here. Fault drops (link.faults: fault_drop, crc_error) are announced
// losses: the packet crossed the link (its arrival is checked as above) and
// the receiver discarded it on arrival. A fault drop of any packet other than
// the one arriving at that port at that moment is a violation, so a loss can
// never hide behind fault injection. Link events (Port::take_down) are
// announced too: on_link_down clears the records of what was on the wire
// toward the port and restarts both directions' credit counts (the link
// re-initializes them at link up); from then on every link_down drop of a
// data packet at that port (in flight, queued, or submitted while the link is
// not Active) is an announced loss. Arrival times are the sender's announced delivery times (a
// cut-through receiver takes a packet before its tail is in).
// A link direction is checked when both its ports are watched (a simulation
// watches every port of its fabric).
// Parallel simulation (link/partition.hpp): one checker per partition watches
// that partition's ports and knows the others. On a cut link the sender's
// checker keeps the credit counts and the receiver's the buffer; the record
// of a packet on the wire starts in the sender's checker, which hands it to
// the receiver's between steps (seal, take_handed), as the packet itself goes.

#include <cstdint>
#include <array>
#include <string>
#include <vector>

#include "models/link/port.hpp"
#include "models/ib/ring_fifo.hpp"

namespace hcasim::checkers {

class LinkChecker : public link::PortObserver {
 public:
  // Room for the views of `ports` ports (ids 0..ports-1), made once: a fabric's
  // ports are watched one by one, and growing the views as they come would
  // leave copies of them behind.
  void reserve(std::size_t ports);
  void watch(link::Port& port);
  // A port watched by another partition's checker: known by its id, so the
  // links to it are checked; `partition` is its partition.
  void know(const link::Port& port, unsigned partition);
  // The records of packets sent toward other partitions go the way of the
  // packets (testbench/cli/windowed_run.hpp): seal(slot) stores those of the
  // step just run in `slot` (of `slots`, set once before the run), and
  // take_handed moves those `from` sealed in `slot` toward this checker's
  // partition `me` onto this checker's wires, in the order they were sent.
  void mail_slots(unsigned slots);
  void seal(unsigned slot);
  void take_handed(LinkChecker& from, unsigned me, unsigned slot);
  // Adds another partition's findings (after both have finished).
  void absorb(const LinkChecker& other);
  // Call after the simulation stops: flags packets that should have arrived.
  void finish(uint64_t now_ps);

  bool ok() const { return violations_ == 0; }
  uint64_t violations() const { return violations_; }
  const std::vector<std::string>& messages() const { return messages_; }  // the first few
  uint64_t packets_checked() const { return checked_; }
  uint64_t announced_losses() const { return announced_; }  // fault drops and link-down drops seen
  uint64_t link_down_losses() const { return link_down_; }  // of which link-down drops

  void on_transmit(const link::Port&, const ib::Packet&, uint64_t now_ps, uint64_t arrival_ps) override;
  void on_arrival(const link::Port&, const ib::Packet&, uint64_t now_ps) override;
  void on_buffered(const link::Port&, const ib::Packet&, unsigned vl, uint32_t blocks) override;
  void on_released(const link::Port&, unsigned vl, uint32_t blocks) override;
  void on_drop(const link::Port&, const ib::Packet&, link::DropReason, uint64_t now_ps) override;
  void on_link_down(const link::Port&, uint64_t now_ps) override;
  // Prefetches the views of both directions of the port's link.
  void warm(const link::Port&) const override;

 private:
  struct VlView {
    uint64_t sent_blocks = 0;    // unwrapped blocks the sender sent
    uint64_t limit_blocks = 0;   // unwrapped credit limit the receiver granted
    int32_t buffered_blocks = 0; // in the receiver's buffer
    uint16_t last_fccl = 0;
    bool limit_known = false;
  };
  struct InFlight {
    static constexpr uint64_t kFlowControl = uint64_t{1} << 63;
    uint64_t tag = 0;            // packet id, or kFlowControl
    uint64_t arrival_ps = 0;
  };
  static constexpr uint32_t kUnknown = UINT32_MAX;   // peer not looked up yet
  static constexpr uint32_t kNone = UINT32_MAX - 1;  // no watched peer
  // One direction of a link, kept under the id of the port it leads to: the
  // packets on the wire, and per data VL the sender's credit counts and the
  // receiver's buffer. A data packet's transmission, arrival, buffering and
  // release all touch this one view; what they touch fits 128 bytes for links
  // of up to 2 data VLs (an adjacent-line pair the processor fetches together).
  // Data VLs 0..7 (every link of a fabric of default ports) are in the view;
  // VLs 8..14 in upper_, made when a link first uses one: a view of all 15
  // took twice the memory, most of it never touched.
  static constexpr unsigned kViewVls = 8;
  static constexpr unsigned kUpperVls = 15 - kViewVls;
  struct alignas(128) DirectionView {
    ib::RingFifo<InFlight, 3> wire;    // sent toward the port, not yet arrived
    std::array<VlView, kViewVls> vl;   // data VLs 0..7
  };
  VlView& vl_view(DirectionView& d, unsigned vl) {
    return vl < kViewVls ? d.vl[vl] : upper_vl(static_cast<std::size_t>(&d - views_.data()), vl);
  }
  VlView& upper_vl(std::size_t view, unsigned vl);
  void add(const link::Port& port);  // room for its id, and its pointer
  void fail(uint64_t now_ps, const std::string& what);
  DirectionView& into(const link::Port& receiver) { return views_[receiver.id()]; }
  // The direction a port sends on, or nullptr when its peer is not watched.
  DirectionView* out_of(const link::Port& sender);

  std::vector<DirectionView> views_;     // by receiving port id
  std::vector<std::array<VlView, kUpperVls>> upper_;  // by receiving port id, VLs 8..14; empty until used
  std::vector<uint32_t> peer_;           // by port id: its peer's id, kUnknown or kNone
  std::vector<const link::Port*> ports_; // by port id
  // Parallel simulation: by port id, 0 for this checker's ports, else the
  // partition + 1 of a known port; and by partition, the records of packets
  // sent toward its ports (port id, record) in this step, then sealed by
  // partition and slot (sealed_[partition * slots_ + slot]).
  using Handed = std::vector<std::pair<uint32_t, InFlight>>;
  std::vector<uint32_t> remote_;
  std::vector<Handed> handed_;
  std::vector<Handed> sealed_;
  unsigned slots_ = 0;
  uint64_t violations_ = 0;
  uint64_t checked_ = 0;
  uint64_t announced_ = 0;
  uint64_t link_down_ = 0;
  std::vector<bool> downed_;             // by port id: its link went down at least once
  // The data packet that arrived last: a fault drop must be of it.
  const link::Port* arrived_port_ = nullptr;
  const ib::Packet* arrived_ = nullptr;
  uint64_t arrived_ps_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace hcasim::checkers
