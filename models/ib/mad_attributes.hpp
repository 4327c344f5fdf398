#pragma once
// SMP attributes (and the ClassPortInfo a GMP class such as the SA reports) as
// decoded fields, with encode/decode to their exact bytes. No SystemC.
//
// Rules:
// - encode(out) writes kBytes bytes and zeroes reserved bits; decode(in) reads
//   kBytes bytes. Fields wider than their wire field are truncated to it.
//   All multi-byte fields are big-endian. Every SMP attribute here fits the
//   64-byte SMP data (bytes 64-127 of the MAD); the rest of the 64 bytes is
//   reserved and zero.
// - NodeInfo, PortInfo: the byte offsets and bit positions of iba-facts 6 (from
//   OpenSM ib_node_info_t / ib_port_info_t and rdma-core fields.c).
// - SwitchInfo: OpenSM ib_switch_info_t; byte 11 = LifeTimeValue (7:3),
//   PortStateChange (2), OptimizedSLtoVLMappingProgramming (1:0); byte 16 =
//   Inbound/OutboundEnforcementCap (7, 6), FilterRawInbound/OutboundCap (5, 4),
//   EnhancedPort0 (3) (Wireshark packet-infiniband.c uses the same masks).
// - LFT block: 64 one-byte egress ports; block = attribute modifier, LID =
//   64 * block + index (iba-facts 6; OpenSM ib_lft_record_t).
// - SLtoVLMappingTable: 16 four-bit VLs, SL0 in the high nibble of byte 0
//   (OpenSM ib_slvl_table_t). Switch attribute modifier: input port in bits
//   15:8, output port in bits 7:0.
// - VLArbitrationTable block: 32 entries of {VL in the low 4 bits of the first
//   byte, Weight in the second} (OpenSM ib_vl_arb_element_t). Attribute
//   modifier: block in bits 31:16 (1 = low 0-31, 2 = low 32-63, 3 = high 0-31,
//   4 = high 32-63), port in bits 15:0.
// - P_KeyTable block: 32 two-byte P_Keys, big-endian (iba-facts 6: attribute
//   0x0016; OpenSM ib_pkey_table_t). Attribute modifier: block number in bits
//   15:0; at a switch the port number in bits 23:16 (OpenSM osm_pkey_mgr.c
//   sends (port << 16) | block; an HCA ignores the port bits and answers for
//   the port the SMP came in on).
// - ClassPortInfo (OpenSM ib_class_port_info_t): 72 bytes, so it travels in a
//   GMP's data area (the SA's 192-byte Admin Data Area), not in SMP data.
//   Bytes 4-7: CapabilityMask2 in the top 27 bits, RespTimeValue in the low 5.

#include <array>
#include <cstdint>
#include <string>

namespace hcasim::ib {

// NodeInfo.NodeType (iba-facts 6).
constexpr uint8_t kNodeTypeCa = 1;
constexpr uint8_t kNodeTypeSwitch = 2;
constexpr uint8_t kNodeTypeRouter = 3;
// PortInfo.PortState (iba-facts 6); 0 = no state change in a Set.
constexpr uint8_t kPortStateNoChange = 0;
constexpr uint8_t kPortStateDown = 1;
constexpr uint8_t kPortStateInit = 2;
constexpr uint8_t kPortStateArmed = 3;
constexpr uint8_t kPortStateActive = 4;
// PortInfo.PortPhysicalState (OpenSM IB_PORT_PHYS_STATE_*).
constexpr uint8_t kPhysStatePolling = 2;
constexpr uint8_t kPhysStateDisabled = 3;
constexpr uint8_t kPhysStateLinkUp = 5;
// PortInfo.CapabilityMask bits used by the model (OpenSM IB_PORT_CAP_*).
constexpr uint32_t kPortCapIsSm = 0x00000002;
constexpr uint32_t kPortCapHasSlMap = 0x00000040;
constexpr uint32_t kPortCapExtendedSpeeds = 0x00004000;  // IsExtendedSpeedsSupported: LinkSpeedExt* valid

struct NodeInfo {
  static constexpr unsigned kBytes = 40;  // iba-facts 6: VendorID ends at byte 39
  uint8_t base_version = 1;
  uint8_t class_version = 1;
  uint8_t node_type = 0;        // kNodeType*
  uint8_t num_ports = 0;
  uint64_t sys_image_guid = 0;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  uint16_t partition_cap = 0;
  uint16_t device_id = 0;
  uint32_t revision = 0;
  uint8_t local_port_num = 0;   // the port the SMP came in on
  uint32_t vendor_id = 0;       // 24 bits
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

// 64 bytes of text, not NUL-terminated when full (OpenSM ib_node_desc_t).
struct NodeDescription {
  static constexpr unsigned kBytes = 64;
  std::string text;             // at most 64 bytes go on the wire; the rest NUL
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);  // text up to the first NUL (or all 64 bytes)
};

struct PortInfo {
  static constexpr unsigned kBytes = 64;
  uint64_t m_key = 0;                   // 0
  uint64_t gid_prefix = 0;              // 8
  uint16_t lid = 0;                     // 16
  uint16_t master_sm_lid = 0;           // 18
  uint32_t capability_mask = 0;         // 20
  uint16_t diag_code = 0;               // 24
  uint16_t m_key_lease_period = 0;      // 26
  uint8_t local_port_num = 0;           // 28
  uint8_t link_width_enabled = 0;       // 29
  uint8_t link_width_supported = 0;     // 30
  uint8_t link_width_active = 0;        // 31
  uint8_t link_speed_supported = 0;     // 32 7:4
  uint8_t port_state = 0;               // 32 3:0, kPortState*
  uint8_t port_phys_state = 0;          // 33 7:4
  uint8_t link_down_default_state = 0;  // 33 3:0
  uint8_t m_key_protect_bits = 0;       // 34 7:6
  uint8_t lmc = 0;                      // 34 2:0
  uint8_t link_speed_active = 0;        // 35 7:4
  uint8_t link_speed_enabled = 0;       // 35 3:0
  uint8_t neighbor_mtu = 0;             // 36 7:4
  uint8_t master_sm_sl = 0;             // 36 3:0
  uint8_t vl_cap = 0;                   // 37 7:4
  uint8_t init_type = 0;                // 37 3:0
  uint8_t vl_high_limit = 0;            // 38
  uint8_t vl_arb_high_cap = 0;          // 39
  uint8_t vl_arb_low_cap = 0;           // 40
  uint8_t init_type_reply = 0;          // 41 7:4
  uint8_t mtu_cap = 0;                  // 41 3:0
  uint8_t vl_stall_count = 0;           // 42 7:5
  uint8_t hoq_life = 0;                 // 42 4:0
  uint8_t operational_vls = 0;          // 43 7:4
  bool partition_enforcement_inbound = false;   // 43 bit 3
  bool partition_enforcement_outbound = false;  // 43 bit 2
  bool filter_raw_inbound = false;              // 43 bit 1
  bool filter_raw_outbound = false;             // 43 bit 0
  uint16_t m_key_violations = 0;        // 44
  uint16_t p_key_violations = 0;        // 46
  uint16_t q_key_violations = 0;        // 48
  uint8_t guid_cap = 0;                 // 50
  bool client_reregister = false;       // 51 bit 7
  uint8_t mcast_pkey_trap_suppression = 0;  // 51 6:5
  uint8_t subnet_timeout = 0;           // 51 4:0
  uint8_t resp_time_value = 0;          // 52 4:0
  uint8_t local_phy_errors = 0;         // 53 7:4
  uint8_t overrun_errors = 0;           // 53 3:0
  uint16_t max_credit_hint = 0;         // 54
  uint32_t link_round_trip_latency = 0; // 57-59 (24 bits; byte 56 reserved)
  uint16_t capability_mask2 = 0;        // 60
  uint8_t link_speed_ext_active = 0;    // 62 7:4
  uint8_t link_speed_ext_supported = 0; // 62 3:0
  uint8_t link_speed_ext_enabled = 0;   // 63 4:0
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct SwitchInfo {
  static constexpr unsigned kBytes = 20;  // OpenSM ib_switch_info_t
  uint16_t linear_fdb_cap = 0;          // 0
  uint16_t random_fdb_cap = 0;          // 2
  uint16_t multicast_fdb_cap = 0;       // 4
  uint16_t linear_fdb_top = 0;          // 6
  uint8_t default_port = 0;             // 8
  uint8_t default_mcast_primary_port = 0;      // 9
  uint8_t default_mcast_not_primary_port = 0;  // 10
  uint8_t life_time_value = 0;          // 11 7:3
  bool port_state_change = false;       // 11 bit 2
  uint8_t optimized_sl2vl = 0;          // 11 1:0, OptimizedSLtoVLMappingProgramming
  uint16_t lids_per_port = 0;           // 12
  uint16_t partition_enforcement_cap = 0;  // 14
  bool inbound_enforcement_cap = false;    // 16 bit 7
  bool outbound_enforcement_cap = false;   // 16 bit 6
  bool filter_raw_inbound_cap = false;     // 16 bit 5
  bool filter_raw_outbound_cap = false;    // 16 bit 4
  bool enhanced_port0 = false;             // 16 bit 3
  uint16_t multicast_fdb_top = 0;       // 18 (byte 17 reserved)
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

constexpr unsigned kLftBlockEntries = 64;  // iba-facts 6 / OpenSM: 64 LIDs per block
constexpr uint8_t kLftNoPort = 0xFF;       // iba-facts 7: unreachable LIDs get 0xFF

struct LftBlock {
  static constexpr unsigned kBytes = kLftBlockEntries;
  std::array<uint8_t, kLftBlockEntries> port{};  // port[i] = egress of LID 64 * block + i
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

constexpr unsigned kNumSls = 16;

struct SlToVlTable {
  static constexpr unsigned kBytes = 8;
  std::array<uint8_t, kNumSls> vl{};   // vl[sl], 4 bits each
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

constexpr unsigned kVlArbBlockEntries = 32;

struct VlArbEntry {
  uint8_t vl = 0;      // 4 bits
  uint8_t weight = 0;
};

struct VlArbBlock {
  static constexpr unsigned kBytes = 2 * kVlArbBlockEntries;
  std::array<VlArbEntry, kVlArbBlockEntries> entry{};
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

constexpr unsigned kPkeyBlockEntries = 32;  // iba-facts 6: 32 P_Keys per P_KeyTable block

struct PkeyTableBlock {
  static constexpr unsigned kBytes = 2 * kPkeyBlockEntries;
  std::array<uint16_t, kPkeyBlockEntries> pkey{};  // pkey[i] = table entry 32 * block + i; 0 = empty
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct ClassPortInfo {
  static constexpr unsigned kBytes = 72;
  uint8_t base_version = 1;             // 0
  uint8_t class_version = 1;            // 1
  uint16_t capability_mask = 0;         // 2
  uint32_t capability_mask2 = 0;        // 4, 27 bits (bits 31:5 of the word)
  uint8_t resp_time_value = 0;          // 4, 5 bits (bits 4:0 of the word)
  std::array<uint8_t, 16> redirect_gid{};  // 8
  uint8_t redirect_tclass = 0;          // 24 bits 31:24
  uint8_t redirect_sl = 0;              // 24 bits 23:20
  uint32_t redirect_flow_label = 0;     // 24 bits 19:0
  uint16_t redirect_lid = 0;            // 28
  uint16_t redirect_pkey = 0;           // 30
  uint32_t redirect_qp = 0;             // 32, 24 bits (bits 23:0)
  uint32_t redirect_qkey = 0;           // 36
  std::array<uint8_t, 16> trap_gid{};   // 40
  uint8_t trap_tclass = 0;              // 56 bits 31:24
  uint8_t trap_sl = 0;                  // 56 bits 23:20
  uint32_t trap_flow_label = 0;         // 56 bits 19:0
  uint16_t trap_lid = 0;                // 60
  uint16_t trap_pkey = 0;               // 62
  uint8_t trap_hop_limit = 0;           // 64 bits 31:24
  uint32_t trap_qp = 0;                 // 64 bits 23:0
  uint32_t trap_qkey = 0;               // 68
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

// Attribute-modifier packing.
// PortInfo: the port number (iba-facts 6); 0 = the port the SMP came in on.
inline uint32_t portinfo_attr_mod(uint8_t port) { return port; }
// LinearForwardingTable: the block number.
inline uint32_t lft_attr_mod(uint16_t block) { return block; }
inline uint16_t lft_block_of(uint16_t lid) { return static_cast<uint16_t>(lid / kLftBlockEntries); }
// SLtoVLMappingTable of a switch: input port 15:8, output port 7:0.
inline uint32_t sl2vl_attr_mod(uint8_t in_port, uint8_t out_port) {
  return (static_cast<uint32_t>(in_port) << 8) | out_port;
}
inline uint8_t sl2vl_in_port(uint32_t attr_mod) { return static_cast<uint8_t>(attr_mod >> 8); }
inline uint8_t sl2vl_out_port(uint32_t attr_mod) { return static_cast<uint8_t>(attr_mod); }
// VLArbitrationTable: block 31:16, port 15:0.
constexpr uint16_t kVlArbLowFirst = 1;    // low-priority entries 0-31
constexpr uint16_t kVlArbLowSecond = 2;   // low-priority entries 32-63
constexpr uint16_t kVlArbHighFirst = 3;   // high-priority entries 0-31
constexpr uint16_t kVlArbHighSecond = 4;  // high-priority entries 32-63
inline uint32_t vlarb_attr_mod(uint16_t block, uint16_t port) {
  return (static_cast<uint32_t>(block) << 16) | port;
}
inline uint16_t vlarb_block(uint32_t attr_mod) { return static_cast<uint16_t>(attr_mod >> 16); }
inline uint16_t vlarb_port(uint32_t attr_mod) { return static_cast<uint16_t>(attr_mod); }

// P_KeyTable: port 23:16 (switches), block 15:0 (see the rules).
inline uint32_t pkey_attr_mod(uint16_t block, uint8_t port) {
  return (static_cast<uint32_t>(port) << 16) | block;
}
inline uint16_t pkey_block(uint32_t attr_mod) { return static_cast<uint16_t>(attr_mod); }
inline uint8_t pkey_port(uint32_t attr_mod) { return static_cast<uint8_t>(attr_mod >> 16); }

}  // namespace hcasim::ib
