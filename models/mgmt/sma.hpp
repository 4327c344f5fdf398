#pragma once
// The subnet management agent (SMA) of one HCA or switch: answers SubnGet and
// SubnSet of the node's own attributes (iba-facts 6; seed 004 for the SL2VL
// and VLArb tables). The node's MAD layer (mad_node.hpp) hands it requests
// and sends its answers; this class reads and writes the node's model state.
//
// Rules:
// - Attributes: NodeInfo, NodeDescription, PortInfo, SLtoVLMappingTable,
//   VLArbitrationTable; at a switch also SwitchInfo and LinearForwardingTable,
//   and at an AR-capable switch hcasim's AR attributes (ar_programming.hpp).
//   Others: status "unsupported method / attribute combination". A bad
//   modifier or value: status "invalid attribute", nothing changed.
// - Ports: at an HCA, PortInfo's modifier is the port number (0 = the port
//   the SMP came in on); at a switch 0 is the management port, which holds the
//   switch's LID, LMC and M_Key. Modifier bit 31 (SMSupportsExtendedSpeeds) is
//   ignored; other bits above the port number make it invalid. PortInfo's
//   LocalPortNum is the port the SMP came in on; CapabilityMask has
//   IsExtendedSpeedsSupported for FDR and faster links (a switch's port 0: its
//   port 1's link). SL2VL at a switch: modifier = input port
//   << 8 | output port; VLArb: modifier = block << 16 | port (port 0 at an
//   HCA = the port it came in on). A switch's SL2VL Set with modifier bit 16
//   (kSl2VlAllInputs) sets the table of every input port to the output port,
//   bit 17 (kSl2VlAllOutputs) of the input port to every output port (model's
//   reading of IBA 1.2.1 optimized SL2VL programming, which OpenSM's
//   use_optimized_slvl turns on; SwitchInfo says it is supported).
// - PortInfo Set applies LID, LMC, MasterSMLID / SL, SubnetTimeout, M_Key,
//   protect bits and lease, VLHighLimit, HOQLife, VLStallCount, ClientReregister
//   and PortState (0 = no change; Init -> Armed -> Active, Armed or Active ->
//   Init, and Down, IBA 7.2). OperationalVLs and the MTUs are fixed when the
//   fabric is built: a Set must give the built value (or 0 = no change).
// - M_Key (IBA 14.2.4; model's reading): with a port M_Key of 0 every SMP
//   passes. Else an SMP whose M_Key differs is refused when it is a Set, or a
//   Get with protect bits >= 2; a Get with protect bits 1 passes with the M_Key
//   read as 0. A refused SMP gets no answer and counts an M_Key violation.
// - VLArb blocks map onto the port's tables as vlarb_blocks.hpp says.
// - SwitchInfo.PortStateChange: set when a port of the switch changes state
//   on its own (a link going down or training up: note_port_state_change);
//   a SwitchInfo Set with the bit 1 clears it (model's reading of the bit as
//   OpenSM's light sweep uses it: it reads the bit and writes it back).
// - P_KeyTable (IBA 10.9; mad_attributes.hpp): blocks 0..kPkeyTableEntries/32
//   - 1 of the port's table (at an HCA the port the SMP came in on; at a
//   switch the port in modifier bits 23:16, 0 = the management port, whose
//   table the SMA keeps). Entries beyond the table read 0; a Set writes its
//   block and the table ends after its last non-zero entry.
// - Partition fields: NodeInfo.PartitionCap and SwitchInfo.
//   PartitionEnforcementCap = kPkeyTableEntries; a switch reports
//   Inbound/OutboundEnforcementCap. PortInfo.P_KeyViolations is the port's
//   count of refused packets, saturating at 0xFFFF. At a switch external port
//   a PortInfo Set applies PartitionEnforcementInbound / Outbound (the
//   FilterRaw bits are kept and reported, with no effect on raw packets); at an
//   HCA port these bits read 0.
// - SMInfo belongs to the SM, not the SMA (IBA 14.2.5.13): on the port an SM
//   serves (serve_sm_info) the SM's handler answers Get and Set (the Set's
//   control in the modifier); elsewhere "unsupported method / attribute".
// - A PortInfo Set at an HCA port with ClientReregister set tells the port's
//   clients to register again (on_client_reregister; IBA 14.4.11, the event
//   OpenSM's first sweep as a new master causes).

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"

namespace hcasim::hca {
class Hca;
}
namespace hcasim::sw {
class Switch;
}
namespace hcasim::link {
class Port;
}

namespace hcasim::mgmt {

constexpr uint32_t kSl2VlAllInputs = 1u << 16;   // see the rules
constexpr unsigned kPkeyTableEntries = 128;        // model: P_KeyTable size of every port (ConnectX HCAs report 128)
constexpr uint32_t kSl2VlAllOutputs = 1u << 17;

struct NodeIdentity {
  uint64_t guid = 0;              // NodeGUID (an HCA's port n has GUID + n)
  std::string description;        // NodeDescription
  uint32_t vendor_id = 0x0002C9;  // 24 bits
  uint16_t device_id = 0;
  uint64_t system_guid = 0;       // SystemImageGUID; 0 = the NodeGUID
};

struct SmaStats {
  uint64_t gets = 0;
  uint64_t sets = 0;
  uint64_t errors = 0;            // answered with a non-zero status
  uint64_t m_key_violations = 0;  // refused, no answer
};

class Sma {
 public:
  Sma(hca::Hca& hca, const NodeIdentity& id);
  Sma(sw::Switch& sw, const NodeIdentity& id);

  bool is_switch() const { return switch_ != nullptr; }
  unsigned port_count() const;
  const NodeIdentity& identity() const { return id_; }
  // Processes a Get or Set that arrived on port `in` into the GetResp `resp`
  // (a copy of the request with the R bit, status and data set). False when
  // the SMP is refused (M_Key) and gets no answer.
  bool process(const ib::Smp& req, unsigned in, ib::Smp& resp);
  // An attribute's data as a Get of it on port `in` returns it (zeros when the
  // Get would fail), without an SMP: not counted, no M_Key check (ibsim's
  // control side, serve/fabric_directory.hpp).
  std::array<uint8_t, ib::kSmpDataBytes> read(uint16_t attr, uint32_t mod, unsigned in);
  // PortInfo.CapabilityMask bits of a port (the SM's node sets IsSM).
  void add_capability(unsigned port, uint32_t bits) { state(port).capability_mask |= bits; }
  void remove_capability(unsigned port, uint32_t bits) { state(port).capability_mask &= ~bits; }
  uint16_t master_sm_lid(unsigned port) const { return ports_.at(port).master_sm_lid; }
  uint8_t subnet_timeout(unsigned port) const { return ports_.at(port).subnet_timeout; }
  void note_port_state_change() { port_state_change_ = true; }
  // The SM's SMInfo on `port` (see the rules): the handler fills the 64-byte
  // data of the answer and returns its status.
  using SmInfoHandler = std::function<uint16_t(const ib::Smp& req, uint8_t* data)>;
  bool serves_sm_info(unsigned port) const { return sm_info_ && port == sm_info_port_; }
  void serve_sm_info(unsigned port, SmInfoHandler h) {
    sm_info_port_ = port;
    sm_info_ = std::move(h);
  }
  void on_client_reregister(std::function<void(unsigned port)> cb) { reregister_ = std::move(cb); }
  // Runs after a PortInfo Set changed a port's state (an SM arming or activating it).
  void on_port_state_set(std::function<void()> cb) { port_state_set_ = std::move(cb); }
  bool port_state_change() const { return port_state_change_; }
  ib::PortInfo port_info(unsigned port) const;
  const SmaStats& stats() const { return stats_; }

 private:
  // What PortInfo holds that the link model does not.
  struct PortState {
    uint64_t m_key = 0;
    uint8_t m_key_protect = 0;
    uint16_t m_key_lease = 0;
    uint16_t master_sm_lid = 0;
    uint8_t master_sm_sl = 0;
    uint8_t subnet_timeout = 0;
    uint8_t resp_time_value = 0;
    uint8_t lmc = 0;
    uint8_t hoq_life = 0;
    uint8_t vl_stall_count = 0;
    bool client_reregister = false;
    uint32_t capability_mask = ib::kPortCapHasSlMap;
    uint16_t m_key_violations = 0;
    bool filter_raw_inbound = false;
    bool filter_raw_outbound = false;
    std::vector<uint16_t> pkeys = {0xFFFF};  // a switch's port 0 only (IBA 10.9.1.2 default)
  };

  PortState& state(unsigned port) { return ports_.at(port); }
  link::Port* model_port(unsigned number) const;  // null for a switch's port 0
  unsigned key_port(unsigned in) const { return is_switch() ? 0 : in; }
  bool m_key_ok(const ib::Smp& req, unsigned in, bool& hide_key);
  uint16_t get_attribute(const ib::Smp& req, unsigned in, ib::Smp& resp);
  unsigned port_info_port(uint32_t mod, unsigned in) const;  // PortInfo's port from its modifier
  uint16_t set_attribute(const ib::Smp& req, unsigned in);
  uint16_t set_port_info(const ib::PortInfo& pi, unsigned port);
  uint16_t get_vlarb(uint32_t mod, unsigned in, ib::VlArbBlock& out) const;
  uint16_t set_vlarb(uint32_t mod, unsigned in, const ib::VlArbBlock& block);
  // The P_KeyTable an SMP's modifier names (null when there is none).
  const std::vector<uint16_t>* pkey_table(uint32_t mod, unsigned in) const;

  hca::Hca* hca_ = nullptr;
  sw::Switch* switch_ = nullptr;
  NodeIdentity id_;
  std::vector<PortState> ports_;  // by port number (a switch's port 0 included)
  bool port_state_change_ = false;  // SwitchInfo.PortStateChange
  SmaStats stats_;
  unsigned sm_info_port_ = 0;
  SmInfoHandler sm_info_;
  std::function<void(unsigned)> reregister_;
  std::function<void()> port_state_set_;
};

}  // namespace hcasim::mgmt
