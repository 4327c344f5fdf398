#pragma once
// The SystemC glue of congestion control management on one node: a CcNode
// sits on the node's MadNode (mad_node.hpp), takes its class 0x21 GMPs, lets
// the node's CC agent (cc_agent.hpp) answer requests and, on the master SM's
// node, drives the CC manager (cc_manager.hpp).
//
// Rules:
// - Arriving QP1 packets of class 0x21: decoded as a CcMad (undecodable ones
//   are dropped and counted). R bit clear -> the agent; R bit set -> the
//   manager, when this node runs one, else dropped and counted.
// - The agent answers each request `latency_ps` after it arrived, one at a
//   time in arrival order (a firmware agent, as the SMA: the same latency);
//   the answer goes as a UD packet from QP1 to the request's SLID, SL, P_Key
//   and source QP with the GSI Q_Key, out of the port the request came in on
//   (a switch: by its LFT). A refused request (CC_Key) gets none.
// - The manager's MADs go from QP1 of its HCA port to QP1 at the target's
//   LID on SL `sl`; a MAD to the port's own LID is handed to this node's
//   agent without the wire (with the same latency) and its answer straight
//   back to the manager.
// - The manager's timer is one alarm at its deadline_ps(), cancelled and set
//   again after every call into it, so a finished setup leaves no event.

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/ib/cc_mad.hpp"
#include "models/ib/packet.hpp"
#include "models/link/timeline.hpp"
#include "models/mgmt/cc_agent.hpp"
#include "models/mgmt/cc_manager.hpp"
#include "models/mgmt/mad_node.hpp"

namespace hcasim::mgmt {

struct CcNodeStats {
  uint64_t mads_in = 0;        // class 0x21 MADs taken from the wire (or handed over locally)
  uint64_t answers_sent = 0;   // the agent's answers (local ones included)
  uint64_t local = 0;          // manager MADs to the node's own port, without the wire
  uint64_t undecodable = 0;    // QP1 packets of class 0x21 that do not decode
  uint64_t unhandled = 0;      // answers at a node without a manager
};

class CcNode {
 public:
  // Attaches to `node` (its class 0x21 handler).
  CcNode(MadNode& node, CcAgent agent, ib::PacketPool& pool, uint64_t latency_ps);
  ~CcNode();
  CcNode(const CcNode&) = delete;
  CcNode& operator=(const CcNode&) = delete;

  CcAgent& agent() { return agent_; }
  const CcAgent& agent() const { return agent_; }
  // Runs a manager from HCA port `port` (number) with MADs on `sl`.
  void run_manager(CcManagerConfig config, unsigned port, uint8_t sl);
  const CcManager* manager() const { return manager_.get(); }
  // The manager's setup() after a sweep (see cc_manager.hpp).
  void setup(const std::vector<CcTarget>& targets);
  const CcNodeStats& stats() const { return stats_; }

 private:
  struct Waiting {
    uint64_t due_ps = 0;
    MadNode::GmpOrigin from;
    bool local = false;        // from this node's manager: answer back to it
    ib::CcMad mad;
  };
  void on_packet(ib::Packet* p, unsigned in);
  void arrived(Waiting w);
  void agent_due();
  void answer(const Waiting& w);
  void flush(std::vector<CcSend>& out);  // sends the manager's MADs, re-arms its timer
  void manager_timer();

  MadNode& node_;
  CcAgent agent_;
  ib::PacketPool& pool_;
  uint64_t latency_ps_;
  std::deque<Waiting> waiting_;
  link::Alarm agent_alarm_;
  std::unique_ptr<CcManager> manager_;
  unsigned manager_port_ = 0;
  uint8_t manager_sl_ = 0;
  link::Alarm manager_alarm_;
  std::vector<uint8_t> scratch_;
  CcNodeStats stats_;
};

}  // namespace hcasim::mgmt
