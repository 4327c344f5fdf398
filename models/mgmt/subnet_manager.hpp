#pragma once
// The subnet manager (SM) on one HCA port, as event-driven logic: it sweeps
// the subnet with directed-route SMPs and programs it (iba-facts 6 "OpenSM
// sweep", 7; seed 004 for the SL2VL and VLArb tables). Time is passed in and
// SMPs come out; mad_node.hpp sends them and hands back the answers.
//
// Rules:
// - Discovery, breadth first from the SM's own node (hop count 0): NodeInfo of
//   a node found at the end of a directed path; for a new node its
//   NodeDescription and the PortInfo of the port it was entered by (an HCA)
//   or of every port (a switch); then NodeInfo through every switch port whose
//   PortInfo says LinkUp and whose far end is not known yet. A NodeInfo answer
//   with a known NodeGUID only adds the link. Paths are at most 63 hops.
// - At most max_in_flight SMPs are outstanding (OpenSM's max_wire_smps); an
//   SMP with no answer within smp_timeout is sent again, at most smp_retries
//   times, then counted as failed (the node or link behind it is left out).
// - Then, with nothing outstanding: nodes in ascending NodeGUID order,
//   LIDs by routing::assign_lids from the SM's own port (OpenSM's order),
//   routes by routing::compute_routes (the
//   routing library the pre-configured mode uses, so equal input gives equal
//   tables); routing roots are named by NodeDescription.
// - Programming, each pass once the previous one is answered: (1) PortInfo of
//   every port (LID and LMC on HCA ports and switch port 0, MasterSMLID and
//   SL, SubnetTimeout, VLHighLimit, the M_Key), the SL2VL tables, the VLArb
//   blocks and the LFT blocks 0..top/64 of every switch; (2) PortState Armed on
//   every linked port; (3) Active. All by directed route.
// - SL2VL at a switch: per output port, the table most of its inputs share
//   goes in one Set with the "all input ports" bit (kSl2VlAllInputs), the
//   others per (input, output) pair.
// - QoS: the policy gives each node (by NodeGUID) its tables; a node the
//   policy does not name keeps the tables it has.
// - Traps (on_trap): every Trap() is counted; Trap 128 (a switch's link state
//   change; the node sends the TrapRepress) asks for a re-sweep, which starts
//   at once when the SM is Done, else when the sweep under way is.
// - Re-sweep (OpenSM's heavy sweep after a trap; iba-facts 6): discovery
//   again from scratch, so links whose ports are no longer LinkUp drop out;
//   routes by the same routing library on what was found. LIDs of nodes known
//   before are kept (OpenSM keeps LIDs); nodes new since then get LIDs above
//   the highest one. Programming writes only the LFT blocks that differ from
//   what the SM wrote last (OpenSM's osm_ucast_mgr does the same) and, for
//   the ports found in Init (they came up), PortInfo, then Armed, then Active.
//   A node new since the first sweep also gets its switch port 0 PortInfo and
//   its QoS tables. The SA's database is not refilled (not modelled yet).
// - Each re-sweep is recorded (resweeps()): trigger, start, the time its last
//   LFT block was answered (tables), end, SMPs sent, LFT blocks written.
// - Adaptive routing (config.adaptive, mode not off; docs/adaptive-routing.md):
//   after the routes, the groups of routing::adaptive_groups on the view and
//   the credit-loop check of routing::adaptive_credit_loop. In pass (1), after
//   a switch's LFT blocks: hcasim's ArGroupTable blocks 0..(groups - 1) / 2,
//   ArLidTable blocks 0..top/32 of its LFT's reach, then ArInfo with the
//   settings (ar_programming.hpp). Groups that close a credit loop are not
//   written: ArInfo goes with mode off, and stats().ar_refusals counts the
//   sweep. A re-sweep writes only the blocks that differ from what this SM
//   wrote last, as for the LFT; a takeover writes them all.
// - Partitions (config.partitions, by NodeGUID; partition_tables.hpp): in
//   pass (1), after a port's PortInfo Set (which carries a switch port's
//   enforcement bits), a P_KeyTable Set per 32-entry block of its table (a
//   switch's port 0, and its external ports that enforce or hold more than
//   {0xFFFF}; modifier port << 16 | block). A node the policy does not name
//   keeps its tables; no policy, no P_KeyTable SMPs.
// - SM roles (sm_role.hpp; IBA 14.4, OpenSM osm_sminfo_rcv.c,
//   osm_sm_state_mgr.c): during discovery every HCA port whose PortInfo
//   CapabilityMask has IsSM (not the SM's own) is asked SubnGet(SMInfo); each
//   answer goes to the role. When discovery ends: an SM still Discovering
//   becomes Master and programs; one the answers made Standby programs
//   nothing and polls its master. A master's re-sweep that found a Standby SM
//   winning against it hands over: SubnSet(SMInfo, modifier Handover) to that
//   port, and on its answer this SM is Standby, polling the new master.
// - Polling (poll(), every role polling period while Standby): a
//   SubnGet(SMInfo) to the master's port by the directed path discovery
//   found, sent once (no retries: an unanswered poll is what the role
//   counts). When the role says take over, or a SubnSet(SMInfo) Handover
//   arrives (on_handover), a takeover sweep starts: a re-sweep whose LIDs are
//   the ones the ports hold (PortInfo.LID, as OpenSM with reassign_lids off),
//   programming every node as a first sweep does (PortInfo with the new
//   MasterSMLID and ClientReregister on HCA ports, as OpenSM's first master
//   sweep; all LFT blocks, as the new master knows none) but arming and
//   activating only ports found in Init.
// - Light sweep (light_sweep(), every config.sweep_interval once the master
//   is Done; OpenSM state_mgr_light_sweep_start): SubnGet(SwitchInfo) of every
//   switch it knows and SubnGet(SMInfo) of every other SM it found. A change
//   is a SwitchInfo with PortStateChange, an error answer or none (after the
//   retries), another Master, or a Standby that wins against this SM; a
//   change starts a heavy sweep (a re-sweep, trigger "periodic"). OpenSM also
//   reads NodeDescriptions and the PortInfo of ports that are up with no known
//   peer; this light sweep does not.
// - PortStateChange: a re-sweep reads each switch's SwitchInfo during
//   discovery and clears the bit (SubnSet(SwitchInfo) with it set, as OpenSM)
//   where it is set, in its first programming pass.
// - request_sweep(): a master's re-sweep on request (trigger "request"; as
//   OpenSM sweeps on a signal), which is how a handover is asked for.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"
#include "models/ib/notice.hpp"
#include "models/link/vl_arbiter.hpp"
#include "models/ib/sm_info.hpp"
#include "models/mgmt/partition_tables.hpp"
#include "models/mgmt/sm_role.hpp"
#include "models/mgmt/sma.hpp"
#include "models/mgmt/subnet_view.hpp"
#include "models/routing/routing.hpp"
#include "models/switch/adaptive_router.hpp"

namespace hcasim::mgmt {

constexpr unsigned kMaxDrHops = ib::kSmpMaxHops - 1;

// The tables a node should have (a switch: SL2VL per (input, output) for
// inputs 0..N and outputs 1..N; an HCA: (0, port)); VLArb by port number.
struct NodeQos {
  std::map<std::pair<uint8_t, uint8_t>, Sl2VlTable> sl2vl;
  std::vector<link::VlArbConfig> vlarb;
};
using QosPolicy = std::map<uint64_t, NodeQos>;

struct SmConfig {
  unsigned lmc = 0;                          // LIDs per HCA port = 2^lmc
  routing::RoutingConfig routing;             // minhop / updown, roots by NodeDescription
  unsigned max_in_flight = 4;                // OpenSM max_wire_smps (iba-facts 6)
  uint64_t smp_timeout_ps = 200'000'000'000; // OpenSM transaction_timeout 200 ms (iba-facts 6)
  unsigned smp_retries = 3;                  // OpenSM transaction_retries (iba-facts 6)
  uint8_t subnet_timeout = 18;               // PortInfo.SubnetTimeout, OpenSM default 0x12 (iba-facts 6)
  uint64_t m_key = 0;                        // M_Key programmed into every port (0 = none)
  uint8_t sm_sl = 0;                         // PortInfo.MasterSMSL
  PartitionPolicy partitions;                // P_KeyTables and switch enforcement by NodeGUID; empty = none programmed
  SmRoleConfig role;                         // priority and standby polling
  uint64_t port_guid = 0;                    // the SM's port GUID (SMInfo.GUID)
  uint64_t sweep_interval_ps = 0;            // light sweeps this often once Done (OpenSM sweep_interval); 0 = none
  sw::AdaptiveRoutingConfig adaptive;        // AR programmed on every switch (see the rules); mode off: none
};

struct SmStats {
  uint64_t smps_sent = 0;          // requests put on the wire (retries included), local ones too
  uint64_t responses = 0;
  uint64_t timeouts = 0;
  uint64_t retries = 0;
  uint64_t failed = 0;             // given up after smp_retries
  uint64_t errors = 0;             // answered with a non-zero status
  uint64_t discovery_smps = 0;     // sent during discovery
  uint64_t programming_smps = 0;   // sent while programming
  uint64_t nodes = 0, switches = 0, links = 0;
  uint64_t start_ps = 0, discovered_ps = 0, done_ps = 0;
  uint64_t light_sweeps = 0;       // light sweeps run
  uint64_t light_sweep_smps = 0;   // their SMPs
  uint64_t light_changes = 0;      // of them, the ones that found a change (and started a heavy sweep)
  uint64_t ar_blocks = 0;          // AR attribute Sets (ArInfo included) written
  uint64_t ar_refusals = 0;        // sweeps whose AR groups closed a credit loop (AR programmed off)
};

enum class SweepTrigger : uint8_t { Trap, Periodic, Request, Takeover, Handover };
const char* to_string(SweepTrigger t);

// A change of the SM's role.
struct RoleChange {
  uint64_t time_ps = 0;
  ib::SmState state = ib::SmState::NotActive;
};

struct SmRoleStats {
  uint64_t polls = 0;             // SubnGet(SMInfo) polls sent as standby
  uint64_t poll_answers = 0;      // answered
  uint64_t handovers_sent = 0;    // SubnSet(SMInfo) Handover sent (answered)
  uint64_t handovers_received = 0;
  uint64_t sms_found = 0;         // SMInfo answers from other SMs during sweeps
};

struct ResweepRecord {
  SweepTrigger trigger = SweepTrigger::Trap;
  uint64_t requested_ps = 0;   // the trap's arrival (or the period's end)
  uint64_t start_ps = 0;       // discovery started
  uint64_t tables_ps = 0;      // every LFT block written and answered (0 = not reached)
  uint64_t done_ps = 0;        // ports armed and activated (0 = not finished)
  uint64_t smps = 0;           // SMPs sent by this sweep (retries included)
  uint64_t lft_blocks = 0;     // LFT blocks written
  uint64_t ports_raised = 0;   // ports found in Init and taken to Active
};

class SubnetManager {
 public:
  // sm_port: the port number of the SM's HCA port.
  SubnetManager(const SmConfig& config, QosPolicy policy, unsigned sm_port);

  void start(uint64_t now, std::vector<ib::Smp>& out);
  // An answer (D = 1 delivered at the SM's node).
  void on_response(const ib::Smp& resp, uint64_t now, std::vector<ib::Smp>& out);
  void on_timer(uint64_t now, std::vector<ib::Smp>& out);
  // A Trap() that arrived (see the rules); out gets a re-sweep's first SMPs.
  void on_trap(const ib::Smp& trap, uint64_t now, std::vector<ib::Smp>& out);
  uint64_t traps() const { return traps_; }
  const std::vector<ResweepRecord>& resweeps() const { return resweeps_; }
  // Earliest SMP timeout; UINT64_MAX when nothing is outstanding.
  uint64_t deadline_ps() const;

  bool done() const { return phase_ == Phase::Done; }
  // SM roles (see the rules).
  ib::SmInfo sm_info() const { return role_.info(static_cast<uint32_t>(stats_.smps_sent)); }
  ib::SmState role() const { return role_.state(); }
  bool standby() const { return phase_ == Phase::Standby; }
  uint64_t polling_ps() const { return role_.polling_ps(); }
  void poll(uint64_t now, std::vector<ib::Smp>& out);
  // A SubnSet(SMInfo) Handover arrived; false when this SM is not Standby.
  bool on_handover(uint64_t now, std::vector<ib::Smp>& out);
  void request_sweep(uint64_t now, std::vector<ib::Smp>& out);
  // A light sweep, when this SM is a master with nothing under way (see the rules).
  void light_sweep(uint64_t now, std::vector<ib::Smp>& out);
  uint64_t sweep_interval_ps() const { return config_.sweep_interval_ps; }
  bool master_idle() const { return phase_ == Phase::Done && role_.state() == ib::SmState::Master; }
  const std::vector<RoleChange>& role_changes() const { return role_changes_; }
  const SmRoleStats& role_stats() const { return role_stats_; }
  // True while a re-sweep runs or waits to.
  bool resweeping() const { return !resweeps_.empty() && (resweeps_.back().done_ps == 0 || resweep_wanted_); }
  const SubnetView& view() const { return view_; }
  const SmStats& stats() const { return stats_; }
  uint16_t sm_lid() const { return sm_lid_; }
  // Why the sweep could not finish ("" while it runs or when it did).
  const std::string& failure() const { return failure_; }
  // The credit loop the last sweep's AR groups closed ("" = none; see the rules).
  const std::string& ar_loop() const { return ar_loop_; }

 private:
  enum class Phase { Idle, Discovering, Configuring, Arming, Activating, Done, Failed, Standby, HandingOver, LightSweep };
  enum class Purpose : uint8_t { NodeInfo, NodeDesc, PortInfo, Program, SmInfo, Handover, SwitchInfo, LightSwitchInfo, LightSmInfo };
  struct RemoteSm {                       // another SM's port, found by the sweep under way
    ib::SmInfo info;
    std::vector<uint8_t> path;
  };
  struct Peer {
    unsigned node = UINT32_MAX;
    uint8_t port = 0;
  };
  struct Found {                          // a discovered node
    ib::NodeInfo info;
    std::string description;
    std::vector<uint8_t> path;            // out ports from the SM's node (initial_path 1..n)
    std::vector<std::vector<uint8_t>> port_paths;  // HCA: the path that reaches each port
    std::vector<bool> reached;            // HCA: by port number, a path to it is known
    std::vector<ib::PortInfo> ports;      // by port number
    std::vector<Peer> peers;              // by port number
    bool is_new = false;                  // not known to an earlier sweep
    ib::SwitchInfo switch_info;           // a re-sweep's read of a switch's SwitchInfo
    bool port_state_change = false;       // ... with PortStateChange set
  };
  struct Pending {
    ib::Smp smp;
    Purpose purpose = Purpose::Program;
    unsigned node = UINT32_MAX;           // the node it is about (NodeInfo: the parent)
    uint8_t port = 0;                     // NodeInfo: the parent's port; PortInfo: the port
    unsigned tries = 0;
    uint64_t deadline = UINT64_MAX;
  };

  ib::Smp make_smp(uint8_t method, uint16_t attr, uint32_t mod, const std::vector<uint8_t>& path) const;
  void request(ib::Smp smp, Purpose purpose, unsigned node, uint8_t port);
  void pump(uint64_t now, std::vector<ib::Smp>& out);
  void handle(const Pending& p, const ib::Smp& resp);
  void on_node_info(const Pending& p, const ib::Smp& resp);
  void on_port_info(const Pending& p, const ib::Smp& resp);
  void link(unsigned a, uint8_t pa, unsigned b, uint8_t pb);
  void explore(unsigned node, uint8_t port);
  void phase_done(uint64_t now);
  void build_view();
  void plan_configuration();
  void plan_states(uint8_t state);
  void start_resweep(uint64_t now, std::vector<ib::Smp>& out);
  void want_resweep(SweepTrigger trigger, uint64_t now, std::vector<ib::Smp>& out);
  bool discovery_done(uint64_t now);      // the role's decision; false: this SM programs nothing
  void enter_standby(uint64_t now);
  void note_role(uint64_t now);
  void keep_port_lids();                  // takeover: the LIDs the ports hold
  routing::Lids kept_lids(const topology::Topology& t) const;
  void plan_lft(unsigned v);
  void compute_ar_groups();
  void plan_adaptive(unsigned v);
  void plan_pkeys(unsigned v, uint8_t port, const std::vector<uint16_t>& table);  // P_KeyTable Sets of one port
  void set_port_info(unsigned n, uint8_t port, const ib::PortInfo& pi);
  const Found& found_of(unsigned view_node) const { return found_[order_[view_node]]; }

  SmConfig config_;
  QosPolicy policy_;
  unsigned sm_port_;
  Phase phase_ = Phase::Idle;
  std::vector<Found> found_;
  std::unordered_map<uint64_t, unsigned> by_guid_;
  std::vector<unsigned> order_;           // view node -> found index (GUID order)
  std::vector<Pending> queue_;            // not yet sent, in order (a FIFO read from queue_head_)
  std::size_t queue_head_ = 0;
  std::map<uint64_t, Pending> outstanding_;  // by TID
  uint64_t next_tid_ = 1;
  uint16_t sm_lid_ = 0;
  SubnetView view_;
  SmStats stats_;
  std::string failure_;
  // Re-sweeps: what the last sweep assigned and wrote, by NodeGUID.
  bool resweep_ = false;                  // the sweep under way is a re-sweep
  bool resweep_wanted_ = false;           // a trap came during a sweep
  SweepTrigger wanted_trigger_ = SweepTrigger::Trap;
  uint64_t wanted_ps_ = 0;
  uint64_t traps_ = 0;
  std::map<uint64_t, std::vector<uint16_t>> lids_by_guid_;
  std::map<uint64_t, std::vector<ib::LftBlock>> lft_by_guid_;
  std::vector<sw::ArGroupTable> ar_groups_;  // by view node, this sweep's
  std::string ar_loop_;                      // this sweep's credit loop ("" = none)
  // The AR blocks written last, by (NodeGUID, attribute), each as its SMP data.
  std::map<std::pair<uint64_t, uint16_t>, std::vector<std::array<uint8_t, ib::kSmpDataBytes>>> ar_by_guid_;
  std::vector<ResweepRecord> resweeps_;
  std::vector<std::vector<bool>> raise_;  // by view node and port number: arm and activate it
  // SM roles.
  SmRole role_;
  std::map<uint64_t, RemoteSm> remote_sms_;  // by port GUID
  std::vector<uint8_t> master_path_;      // standby: the path to the master's port
  uint64_t poll_tid_ = 0;                 // the last poll's TID
  bool takeover_ = false;                 // the sweep under way takes over from another master
  bool handed_over_ = false;              // the handover Set was answered
  bool light_change_ = false;             // the light sweep under way found a change
  uint64_t light_start_ps_ = 0;
  SmIdentity handover_to_;
  std::vector<RoleChange> role_changes_;
  SmRoleStats role_stats_;
};

}  // namespace hcasim::mgmt
