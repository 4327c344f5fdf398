#pragma once
// One part of a fabric simulated on its own timeline, so that parts can run on
// threads of their own (parallel simulation; testbench/cli/windowed_run.hpp drives
// them).
//
// Rules:
// - The fabric builder puts each node (an HCA or a switch, with its ports) in
//   one partition: its alarms go on the partition's timeline, its packets come
//   from the partition's pool. Only links join partitions; a link whose ends
//   are in different partitions is cut.
// - Partitions run in windows [start, end) no longer than the shortest time
//   anything takes over a cut link (Port::min_flight_ps: a flow-control packet
//   or a packet's LRH, plus propagation and the receiver's latency), so what a
//   partition sends on a cut link during a window arrives after the window.
//   The partitions therefore run a window without each other. A packet sent on
//   a cut link waits in its sender's outbox for the receiving partition, which
//   takes its inbound packets (Port::hand_over) before they are due (when,
//   testbench/cli/windowed_run.hpp), by sending partition, in the order they were
//   sent; that puts them in flight on their links exactly as a direct
//   transmission would have. A run
//   is the same whether its partitions run one after the other on one thread
//   or at once on several.
// - A packet goes back to the pool of the partition that frees it.

#include <cstdint>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::link {

class Port;

// A packet sent on a cut link: for `to`, due at due_ps.
struct Handover {
  Port* to = nullptr;
  ib::Packet* packet = nullptr;
  uint64_t due_ps = 0;
};
using Outbox = std::vector<Handover>;

struct Partition {
  explicit Partition(unsigned count) : outbox(count) {}
  Timeline timeline{Timeline::Standalone{}};
  ib::PacketPool pool;
  std::vector<Outbox> outbox;  // by receiving partition: sent this step
};

}  // namespace hcasim::link
