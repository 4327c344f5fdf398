#pragma once
// The attributes of the Congestion Control class (IBA Annex A10.4.3) as
// decoded fields, with encode/decode to their exact bytes. They travel in a
// CcMad (cc_mad.hpp): CongestionLog from MAD byte 32, the others from byte
// 64. No SystemC.
//
// Sources, for every offset below: OpenSM include/iba/ib_types.h (ib_cong_*_t,
// ib_sw_*_t, ib_ca_*_t, ib_cc_tbl_*_t, ib_time_stamp_t); rdma-core
// libibmad/fields.c (the IB_CC_* field table, bit offsets in the spec's
// big-endian numbering); the Mellanox ibis adb headers (CC_* structs); where
// they disagree it says so, and the majority is taken.
//
// Rules (byte offsets in the attribute; multi-byte fields big-endian; encode
// writes kBytes bytes with reserved bits zero, fields wider than their wire
// field are truncated to it; decode reads kBytes bytes):
// - CongestionInfo (0x11), 4 bytes: 0-1 CongestionInfo, bit 0 (0x0001) = the
//   switch supports Credit Starvation (ibis; Intel opa-ff stl_sm_types.h
//   CC_CONGESTION_INFO_CREDIT_STARVATION citing IBTA 1.2.1 A10.4.3.3); 2
//   ControlTableCap, the number of 64-entry blocks of the CCT; 3 reserved.
// - CongestionKeyInfo (0x12), 16 bytes: 0-7 CC_Key; 8 bit 7 CC_KeyProtectBit
//   (libibmad bit 64; ibis bit 31 of the word at 8); 10-11 CC_KeyLeasePeriod;
//   12-13 CC_KeyViolations; 9, 14-15 reserved.
// - CongestionLog (0x13), 220 bytes from MAD byte 32; byte 0 LogType (1
//   switch, 2 CA), byte 1 CongestionFlags.
//   Switch: 2-3 LogEventsCounter, 4-7 CurrentTimeStamp, 8-39 PortMap (a port
//   mask, see below), 40-219 fifteen 12-byte events {0-1 SLID, 2-3 DLID, 4
//   bits 7:4 SL, 8-11 Timestamp}.
//   CA: 2-3 ThresholdEventCounter, 4-5 ThresholdCongestionEventMap (bit n =
//   SL n), 6-7 reserved, 8-11 CurrentTimeStamp, 12-219 thirteen 16-byte events
//   {0-2 Local QP, 4-6 Remote QP, 7 bits 7:4 SL and 3:0 Service Type, 8-9
//   Remote LID, 12-15 Timestamp}. (OpenSM ib_cong_log_event_ca_t and ibis
//   agree on this event; libibmad's table puts SL/Service Type in byte 3 and a
//   Local LID at 8-9: the minority, not followed.)
// - SwitchCongestionSetting (0x14), 76 bytes: 0-3 Control_Map; 4-35
//   Victim_Mask; 36-67 Credit_Mask; 68 bits 7:4 Threshold; 69 Packet_Size (64-
//   byte credits); 70 bits 7:4 CS_Threshold; 72-73 CS_ReturnDelay (a CCT entry:
//   shift 15:14, multiplier 13:0); 74-75 Marking_Rate.
//   Control_Map bits (which parts a Set applies): 0 Victim_Mask, 1
//   Credit_Mask, 2 Threshold and Packet_Size, 3 CS_Threshold and
//   CS_ReturnDelay, 4 Marking_Rate (OpenSM osm_subnet.c's documented option;
//   opa-ff CC_SWITCH_CONTROL_MAP_*). ibis lists the five in the reverse order
//   (bit 0 Marking_Rate): the minority, not followed.
// - Port masks (Victim_Mask, Credit_Mask, PortMap): 256 bits, big-endian, bit
//   n = port n, so port n is bit n % 8 of byte 31 - n / 8 (ibis UINT256
//   "Mask_31_0 ... bit0: port 0"; opa-fm stl_cca.c "Port 0 =
//   Victim_Mask[31] & 0x1"; OpenSM prints the mask as one hex number). Bit
//   255 reserved.
// - SwitchPortCongestionSetting (0x15), 128 bytes: 32 four-byte elements for
//   ports 32 * AttributeModifier + i {0 bit 7 Valid, bit 6 Control_Type (0
//   congestion control, 1 credit starvation), bits 3:0 Threshold; 1
//   Packet_Size; 2-3 Marking_Rate (Cong_Parm)}. (32 per block: OpenSM
//   IB_CC_SW_PORT_SETTING_ELEMENTS, ibis 1024 bits; ibccquery's 48 per block
//   is not followed.)
// - CACongestionSetting (0x16), 132 bytes: 0-1 Port_Control (bit 0: 0 = per
//   QP, 1 = per SL/port); 2-3 Control_Map (bit n = SL n's entry is to be set);
//   4-131 sixteen 8-byte entries, one per SL {0-1 CCTI_Timer, 2
//   CCTI_Increase, 3 Trigger_Threshold, 4 CCTI_Min, 5-7 reserved}.
// - CongestionControlTable (0x17), 132 bytes: 0-1 CCTI_Limit (the largest
//   valid CCTI of the whole table), 2-3 reserved, 4-131 sixty-four 2-byte
//   entries for CCTI 64 * AttributeModifier + i (OpenSM cc_send_cct sends block
//   i with modifier i), each CCT_Shift 15:14, CCT_Multiplier 13:0.
// - TimeStamp (0x18), 4 bytes: a free-running count of 1.024 us.

#include <array>
#include <cstdint>

#include "models/ib/cc_mad.hpp"

namespace hcasim::ib {

constexpr uint16_t kCongestionInfoCreditStarvation = 0x0001;  // opa-ff / ibis: bit 0
constexpr uint8_t kCongestionLogTypeSwitch = 1;               // OpenSM ib_cong_log_t
constexpr uint8_t kCongestionLogTypeCa = 2;
constexpr unsigned kSwitchLogEvents = 15;                     // OpenSM log_sw.entry_list[15]
constexpr unsigned kCaLogEvents = 13;                         // OpenSM log_ca.log_event[13]
constexpr unsigned kPortsPerSwitchPortBlock = 32;             // OpenSM IB_CC_SW_PORT_SETTING_ELEMENTS
constexpr unsigned kCaCongestionEntries = 16;                 // one per SL: IB_CA_CONG_ENTRY_DATA_SIZE
constexpr unsigned kCctEntriesPerBlock = 64;                  // OpenSM IB_CC_TBL_ENTRY_LIST_MAX
constexpr unsigned kCreditBytesForPacketSize = 64;            // OpenSM/opa-ff: Packet_Size in 64-byte credits
constexpr uint16_t kCaPortControlPerSl = 0x0001;              // OpenSM/opa-ff: Port_Control bit 0

// SwitchCongestionSetting.Control_Map bits (OpenSM osm_subnet.c; opa-ff).
constexpr uint32_t kSwCcMapVictimMask = 1u << 0;
constexpr uint32_t kSwCcMapCreditMask = 1u << 1;
constexpr uint32_t kSwCcMapThreshold = 1u << 2;       // Threshold and Packet_Size
constexpr uint32_t kSwCcMapCreditStarvation = 1u << 3;  // CS_Threshold and CS_ReturnDelay
constexpr uint32_t kSwCcMapMarkingRate = 1u << 4;

// A 256-bit port mask (see the rules).
struct PortMask {
  std::array<uint8_t, 32> bytes{};  // as on the wire
  bool test(unsigned port) const { return port < 256 && (bytes[31 - port / 8] >> (port % 8) & 1) != 0; }
  void set(unsigned port, bool on = true);
  bool operator==(const PortMask& o) const { return bytes == o.bytes; }
};

// A CongestionControlTable entry (and CS_ReturnDelay): 2-bit shift, 14-bit
// multiplier in one big-endian 16-bit word.
struct CctEntry {
  uint8_t shift = 0;        // 0-3
  uint16_t multiplier = 0;  // 0-16383
  uint16_t word() const { return static_cast<uint16_t>((shift & 0x3) << 14 | (multiplier & 0x3FFF)); }
  static CctEntry from_word(uint16_t w) { return {static_cast<uint8_t>(w >> 14), static_cast<uint16_t>(w & 0x3FFF)}; }
  bool operator==(const CctEntry& o) const { return shift == o.shift && multiplier == o.multiplier; }
};

struct CongestionInfo {
  static constexpr uint16_t kAttrId = kAttrCongestionInfo;
  static constexpr unsigned kBytes = 4;
  uint16_t congestion_info = 0;    // kCongestionInfo* bits
  uint8_t control_table_cap = 0;   // 64-entry CCT blocks
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const CongestionInfo& o) const;
};

struct CongestionKeyInfo {
  static constexpr uint16_t kAttrId = kAttrCongestionKeyInfo;
  static constexpr unsigned kBytes = 16;
  uint64_t cc_key = 0;
  bool protect = false;            // CC_KeyProtectBit
  uint16_t lease_period = 0;       // CC_KeyLeasePeriod
  uint16_t violations = 0;         // CC_KeyViolations
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const CongestionKeyInfo& o) const;
};

struct SwitchLogEvent {
  uint16_t slid = 0;
  uint16_t dlid = 0;
  uint8_t sl = 0;                  // 4 bits
  uint32_t timestamp = 0;          // 1.024 us units
  bool operator==(const SwitchLogEvent& o) const;
};

struct CongestionLogSwitch {
  static constexpr uint16_t kAttrId = kAttrCongestionLog;
  static constexpr unsigned kBytes = 220;
  uint8_t congestion_flags = 0;
  uint16_t event_counter = 0;      // LogEventsCounter
  uint32_t current_timestamp = 0;  // 1.024 us units
  PortMask port_map;               // ports that marked packets with FECN
  std::array<SwitchLogEvent, kSwitchLogEvents> events{};
  void encode(uint8_t* out) const;  // writes LogType 1
  void decode(const uint8_t* in);
  bool operator==(const CongestionLogSwitch& o) const;
};

struct CaLogEvent {
  uint32_t local_qp = 0;           // 24 bits
  uint32_t remote_qp = 0;          // 24 bits
  uint8_t sl = 0;                  // 4 bits
  uint8_t service_type = 0;        // 4 bits
  uint16_t remote_lid = 0;
  uint32_t timestamp = 0;          // 1.024 us units
  bool operator==(const CaLogEvent& o) const;
};

struct CongestionLogCa {
  static constexpr uint16_t kAttrId = kAttrCongestionLog;
  static constexpr unsigned kBytes = 220;
  uint8_t congestion_flags = 0;
  uint16_t event_counter = 0;      // ThresholdEventCounter
  uint16_t event_map = 0;          // ThresholdCongestionEventMap, bit n = SL n
  uint32_t current_timestamp = 0;  // 1.024 us units
  std::array<CaLogEvent, kCaLogEvents> events{};
  void encode(uint8_t* out) const;  // writes LogType 2
  void decode(const uint8_t* in);
  bool operator==(const CongestionLogCa& o) const;
};

// The LogType byte of an encoded CongestionLog: which of the two it is.
inline uint8_t congestion_log_type(const uint8_t* attribute) { return attribute[0]; }

struct SwitchCongestionSetting {
  static constexpr uint16_t kAttrId = kAttrSwitchCongestionSetting;
  static constexpr unsigned kBytes = 76;
  uint32_t control_map = 0;        // kSwCcMap* bits
  PortMask victim_mask;
  PortMask credit_mask;
  uint8_t threshold = 0;           // 0-15: 0 no marking, 15 most aggressive
  uint8_t packet_size = 0;         // 64-byte credits; smaller packets are not marked
  uint8_t cs_threshold = 0;        // 0-15
  CctEntry cs_return_delay;
  uint16_t marking_rate = 0;       // packets between marked packets
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const SwitchCongestionSetting& o) const;
};

struct SwitchPortCongestionElement {
  bool valid = false;
  bool credit_starvation = false;  // Control_Type: false 0 (congestion control), true 1
  uint8_t threshold = 0;           // 0-15
  uint8_t packet_size = 0;         // 64-byte credits (Control_Type 0)
  uint16_t marking_rate = 0;       // Cong_Parm (Control_Type 0)
  bool operator==(const SwitchPortCongestionElement& o) const;
};

// One block; the attribute modifier is the block number, element i is port
// kPortsPerSwitchPortBlock * block + i.
struct SwitchPortCongestionSetting {
  static constexpr uint16_t kAttrId = kAttrSwitchPortCongestionSetting;
  static constexpr unsigned kBytes = 128;
  std::array<SwitchPortCongestionElement, kPortsPerSwitchPortBlock> ports{};
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const SwitchPortCongestionSetting& o) const;
};

struct CaCongestionEntry {
  uint16_t ccti_timer = 0;         // 1.024 us units (cc_injection.hpp)
  uint8_t ccti_increase = 0;
  uint8_t trigger_threshold = 0;
  uint8_t ccti_min = 0;
  bool operator==(const CaCongestionEntry& o) const;
};

struct CaCongestionSetting {
  static constexpr uint16_t kAttrId = kAttrCaCongestionSetting;
  static constexpr unsigned kBytes = 132;
  uint16_t port_control = 0;       // kCaPortControlPerSl
  uint16_t control_map = 0;        // bit n = entry n (SL n) is to be set
  std::array<CaCongestionEntry, kCaCongestionEntries> entries{};
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const CaCongestionSetting& o) const;
};

// One block; the attribute modifier is the block number, entry i is CCTI
// kCctEntriesPerBlock * block + i.
struct CongestionControlTable {
  static constexpr uint16_t kAttrId = kAttrCongestionControlTable;
  static constexpr unsigned kBytes = 132;
  uint16_t ccti_limit = 0;
  std::array<CctEntry, kCctEntriesPerBlock> entries{};
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const CongestionControlTable& o) const;
};

struct TimeStamp {
  static constexpr uint16_t kAttrId = kAttrTimeStamp;
  static constexpr unsigned kBytes = 4;
  uint32_t value = 0;              // 1.024 us units
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  bool operator==(const TimeStamp& o) const { return value == o.value; }
};

}  // namespace hcasim::ib
