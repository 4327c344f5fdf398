#pragma once
// The SystemC glue of a node's performance management agent (pma.hpp): takes
// the node's class 0x04 GMPs from its MadNode and sends the answers.
//
// Rules:
// - A request is answered `latency_ps` after it arrived, one at a time in
//   arrival order (a firmware agent, as the SMA: the same latency). The
//   answer goes as a UD packet from QP1 to the request's SLID, SL, P_Key and
//   source QP with the GSI Q_Key, out of the port it came in on (a switch: by
//   its LFT); to the port's own LID it stays inside the node.
// - Responses of class 0x04 (the node asked nobody) are dropped and counted.

#include <cstdint>
#include <deque>
#include <vector>

#include "models/ib/packet.hpp"
#include "models/link/timeline.hpp"
#include "models/mgmt/mad_node.hpp"
#include "models/mgmt/pma.hpp"

namespace hcasim::mgmt {

struct PmaNodeStats {
  uint64_t requests = 0;   // class 0x04 requests taken
  uint64_t answers = 0;    // answers sent
  uint64_t dropped = 0;    // responses and undecodable MADs
};

class PmaNode {
 public:
  // Attaches to `node` (its class 0x04 handler).
  PmaNode(MadNode& node, Pma pma, ib::PacketPool& pool, uint64_t latency_ps);
  ~PmaNode();
  PmaNode(const PmaNode&) = delete;
  PmaNode& operator=(const PmaNode&) = delete;

  const Pma& pma() const { return pma_; }
  const PmaNodeStats& stats() const { return stats_; }

 private:
  struct Waiting {
    uint64_t due_ps = 0;
    MadNode::GmpOrigin from;
    std::vector<uint8_t> mad;
  };
  void on_packet(ib::Packet* p, unsigned in);
  void due();

  MadNode& node_;
  Pma pma_;
  ib::PacketPool& pool_;
  uint64_t latency_ps_;
  std::deque<Waiting> waiting_;
  link::Alarm alarm_;
  std::vector<uint8_t> scratch_;
  PmaNodeStats stats_;
};

}  // namespace hcasim::mgmt
