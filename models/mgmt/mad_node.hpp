#pragma once
// The management side of one node in the simulation: its SMA, and on the SM's
// HCA the subnet manager, wired to the node's ports. It takes the MADs the
// node hands it (link/management_agent.hpp), applies the directed-route rules
// (directed_route.hpp), answers SMPs after the SMA's processing time, forwards
// directed-route SMPs at a switch, feeds answers to the SM and sends what the
// SM asks, and passes GMPs (QP1, the SA's traffic) to a handler.
//
// Rules:
// - SMPs are UD packets to QP0 on VL15 (iba-facts 6): LRH SLID and DLID and
//   DrSLID / DrDLID the permissive LID for directed route; a LID-routed
//   answer goes to the request's SLID from the node's LID.
// - The SMA answers each SMP sma_latency after it arrived, one at a time in
//   arrival order (a firmware agent); an SMP with hop count 0 from the node's
//   own SM is handed over without the wire, with the same latency.
// - A port that cannot take a MAD now (its VL15 queue is full) keeps it in a
//   FIFO of its own and sends it when the port reports room.
// - The SM's timer is one alarm at its earliest SMP deadline, removed when
//   nothing is outstanding, so a finished sweep leaves no event behind.
// - Trap 128 (a switch's SMA; [SH] Table 29-7 names it a switch's trap, so an
//   HCA sends none): port_state_changed sets SwitchInfo.PortStateChange and
//   sends SubnTrap(Notice 128, LIDADDR = the switch's LID) LID-routed through
//   the switch's own LFT to PortInfo.MasterSMLID of port 0. With no
//   MasterSMLID (no SM has programmed the switch) no trap goes. Until a
//   TrapRepress with its TID arrives the trap is sent again every
//   4.096 us x 2^SubnetTimeout (port 0's PortInfo.SubnetTimeout; the model's
//   reading: the sources give no repeat rule, and OpenSM programs 0x12, about
//   1.07 s). A change while a trap is outstanding sends a new one (new TID)
//   at once.
// - At the SM's node a LID-routed SubnTrap() goes to the SM (on_trap), and
//   the node answers it with SubnTrapRepress() (the trap's TID, attribute and
//   data) to the trap's SLID. A trap at a node without an SM is dropped.
// - P_Key traps (ib/pkey_traps.hpp): a packet a port of the node refuses for
//   its P_Key (link/port.hpp) makes the SMA send SubnTrap(Notice) 257 (an
//   HCA) or 259 (a switch), LID-routed from the port's LID (a switch: its LID,
//   out of the LFT's port for the SM) to PortInfo.MasterSMLID. One trap per
//   port is outstanding until a TrapRepress with its TID arrives; violations
//   meanwhile are only counted (traps_held). No MasterSMLID yet (the SM has not
//   programmed the port): no trap. The SM's node records each trap it receives
//   (traps()) and answers TrapRepress to the sender; other nodes drop traps.
// - SM roles: the SMA answers SMInfo on the SM's port from the SM
//   (SubnetManager::sm_info; a Set with modifier Handover goes to
//   SubnetManager::on_handover first). While the SM is Standby an alarm calls
//   its poll() every polling period, the first one period after it stood by.
// - A master SM with a sweep interval runs a light sweep (SubnetManager::
//   light_sweep) that long after it last finished a sweep.
// - The polling alarm, the light-sweep alarm and the Trap 128 repeat alarm are background alarms
//   (link/timeline.hpp): a run that goes until idle does not go on for them.
// - GMPs (QP1) go to the handler of their management class (on_gmp_class:
//   the CC agent's class 0x21), else to the general handler (on_gmp: the SA
//   agent); with neither they are dropped.
// - on_done runs each time the SM's sweep finishes (Done, or given up): after
//   the first sweep and after each re-sweep.
// - Outside software attached to the node (serve/, on_external): what no part
//   of the node takes goes to the external handler instead of being dropped:
//   SMP answers and traps when the node runs no SM, SMInfo requests on a port
//   whose SMA serves no SMInfo, GMPs no class handler or general handler
//   takes, and every GMP response (the node's own managers run only with a
//   built-in SM, where no outside software attaches). send_external sends a MAD as the node's QP0 or QP1: a directed-route
//   SMP by the directed-route rules (hop count 0: the node's own SMA answers,
//   after its latency, to the handler), anything else LID-routed to its DLID
//   from the port's LID (a switch: out of the LFT's port); a MAD to the port's
//   own LID, and an SMA's LID-routed answer to one, stays inside the node.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/notice.hpp"
#include "models/ib/packet.hpp"
#include "models/link/management_agent.hpp"
#include "models/link/timeline.hpp"
#include "models/mgmt/sma.hpp"
#include "models/mgmt/subnet_manager.hpp"

namespace hcasim::mgmt {

struct MadNodeStats {
  uint64_t smps_in = 0;          // SMPs that arrived at this node
  uint64_t smps_forwarded = 0;   // directed-route SMPs a switch passed on
  uint64_t smps_dropped = 0;     // refused by the directed-route rules or undecodable
  uint64_t gmps_in = 0;          // QP1 MADs handed to the GMP handler
  uint64_t queued = 0;           // MADs that waited for room on a port
  uint64_t traps_sent = 0;       // SubnTrap() sent by this SMA (Trap 128 repeats included)
  uint64_t trap_repeats = 0;     // of them, repeats of a Trap 128 not yet repressed
  uint64_t traps_held = 0;       // P_Key violations with a trap of the port still outstanding (no trap sent)
  uint64_t represses_in = 0;     // SubnTrapRepress() that stopped one of this SMA's traps
  uint64_t traps_in = 0;         // at the SM's node: SubnTrap() received (and handed to the SM)
  uint64_t external_in = 0;      // MADs handed to outside software (on_external)
  uint64_t external_out = 0;     // MADs outside software sent (send_external)
};

// A trap the SM's node received.
struct ReceivedTrap {
  uint64_t time_ps = 0;
  uint16_t slid = 0;             // LRH SLID
  ib::Notice notice;
};

class MadNode : public link::ManagementAgent {
 public:
  MadNode(hca::Hca& hca, const NodeIdentity& id, ib::PacketPool& pool, uint64_t sma_latency_ps);
  MadNode(sw::Switch& sw, const NodeIdentity& id, ib::PacketPool& pool, uint64_t sma_latency_ps);
  ~MadNode() override;
  MadNode(const MadNode&) = delete;
  MadNode& operator=(const MadNode&) = delete;

  Sma& sma() { return sma_; }
  const Sma& sma() const { return sma_; }
  const MadNodeStats& stats() const { return stats_; }
  bool trap_pending() const { return trap_pending_; }  // a Trap 128 waits for its TrapRepress

  // Runs an SM on HCA port `port` (number), started at `start_ps`; on_done runs
  // when its sweep has programmed the subnet (or given up).
  void run_sm(std::unique_ptr<SubnetManager> sm, unsigned port, uint64_t start_ps, std::function<void()> on_done);
  const SubnetManager* sm() const { return sm_.get(); }
  // A master's re-sweep on request (SubnetManager::request_sweep).
  void request_sweep();
  // QP1 MADs (GMPs) go here; the handler owns the packet. Without one they are dropped.
  void on_gmp(std::function<void(ib::Packet*, unsigned port)> handler) { gmp_ = std::move(handler); }
  // QP1 MADs of one management class go here instead (see the rules); an empty handler removes it.
  void on_gmp_class(uint8_t mgmt_class, std::function<void(ib::Packet*, unsigned port)> handler);

  // Where a GMP came from, for its answer: the port it came in on, and the
  // sender's LID, SL, P_Key and QP.
  struct GmpOrigin {
    unsigned in = 0;
    uint16_t slid = 0;
    uint8_t sl = 0;
    uint16_t pkey = 0;
    uint32_t src_qp = 0;
  };
  static GmpOrigin origin(const ib::Packet& p, unsigned in);
  // Sends `mad` (kMadBytes) as the answer to a GMP from `o`: a UD packet from
  // QP1 to its SLID, SL, P_Key and source QP with the GSI Q_Key, out of the
  // port it came in on (a switch: by its LFT); to the node's own LID it stays
  // inside the node.
  void answer_gmp(const GmpOrigin& o, const uint8_t* mad);
  // A UD packet carrying `mad` (kMadBytes) to dest_qp (0 or 1) from src_qp.
  ib::Packet* make_packet(uint16_t slid, uint16_t dlid, uint8_t sl, uint32_t dest_qp, uint32_t src_qp,
                          const uint8_t* mad);
  // Sends a MAD packet out of port number `port` (queued while the port is full).
  void send(unsigned port, ib::Packet* p);
  uint16_t lid(unsigned port) const;

  // A port of this node changed state on its own (a link event): Trap 128
  // from a switch (see the rules).
  void port_state_changed(unsigned port);
  const std::vector<ReceivedTrap>& traps() const { return traps_; }

  // A MAD for outside software (see the rules): its 256 bytes, the port
  // number it arrived on, the LRH SLID and the QPs of its DETH / BTH.
  struct ExternalMad {
    const uint8_t* mad = nullptr;
    unsigned port = 0;
    uint16_t slid = 0;
    uint32_t src_qp = 0, dest_qp = 0;
  };
  void on_external(std::function<void(const ExternalMad&)> handler) { external_ = std::move(handler); }
  // Sends `mad` (kMadBytes) from outside software out of port number `port`
  // (a switch: 0) from src_qp to dest_qp at dlid; false when it is not a MAD the
  // node can send (an undecodable SMP, a directed-route path the node refuses).
  bool send_external(unsigned port, const uint8_t* mad, uint16_t dlid, uint32_t dest_qp, uint32_t src_qp);

  void deliver(ib::Packet* p, unsigned port) override;
  void tx_space(unsigned port) override;

 private:
  struct Waiting {                 // an SMP the SMA will answer
    uint64_t due_ps = 0;
    unsigned in = 0;               // port it came in on
    uint16_t slid = 0;             // LID-routed: whom to answer
    ib::Smp smp;
  };
  void smp_arrived(ib::Smp& smp, unsigned in, uint16_t slid);
  void sma_due();
  void answer(const Waiting& w);
  void send_smp(const ib::Smp& smp, unsigned port, uint16_t slid, uint16_t dlid);
  void sm_step(std::vector<ib::Smp>& out);  // sends what the SM asked, re-arms its timer
  void sm_timer();
  uint16_t sm_info(const ib::Smp& req, uint8_t* data);  // the SMA's SMInfo handler
  bool try_submit(unsigned port, ib::Packet* p);
  void send_trap();
  void pkey_violation(unsigned port, const ib::Packet& p);
  bool trap_arrived(const ib::Smp& smp, unsigned port, uint16_t slid);  // true when it was a trap or repress
  // An SMP answer (or a trap) for the node's SM, else for outside software.
  void to_sm(const ib::Smp& smp, unsigned port, uint16_t slid);
  void to_external(const uint8_t* mad, unsigned port, uint16_t slid, uint32_t src_qp, uint32_t dest_qp);
  void smp_to_external(const ib::Smp& smp, unsigned port, uint16_t slid);

  hca::Hca* hca_ = nullptr;
  sw::Switch* switch_ = nullptr;
  ib::PacketPool& pool_;
  Sma sma_;
  uint64_t sma_latency_ps_;
  std::deque<Waiting> waiting_;
  link::Alarm sma_alarm_;
  std::vector<std::deque<ib::Packet*>> out_;  // by port number
  std::unique_ptr<SubnetManager> sm_;
  unsigned sm_port_ = 0;
  std::function<void()> sm_done_;
  bool sm_reported_ = false;
  link::Alarm sm_alarm_;
  link::Alarm sm_start_;
  link::Alarm poll_alarm_;          // a standby SM's polling
  link::Alarm sweep_alarm_;         // a master SM's light sweeps
  std::function<void(ib::Packet*, unsigned)> gmp_;
  std::map<uint8_t, std::function<void(ib::Packet*, unsigned)>> gmp_classes_;  // by management class
  std::vector<uint8_t> scratch_;
  bool trap_pending_ = false;       // a Trap 128 not yet repressed
  uint64_t trap_tid_ = 0;
  link::Alarm trap_alarm_;          // its repeat
  bool trap_background_ = false;    // trap_alarm_ is registered as a background alarm
  MadNodeStats stats_;
  std::vector<uint64_t> pkey_trap_tid_;       // P_Key traps, by port number: the outstanding trap's TID (0 = none)
  uint64_t next_trap_tid_ = 1;
  std::vector<ReceivedTrap> traps_;
  std::function<void(const ExternalMad&)> external_;
};

}  // namespace hcasim::mgmt
