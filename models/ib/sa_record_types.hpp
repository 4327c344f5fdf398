#pragma once
// The SA record bodies as decoded fields, with encode/decode to their exact
// bytes (the layouts sa_record_layout() describes bit by bit). No SystemC.
//
// Rules:
// - Sizes and padding follow OpenSM's ib_types.h, so a body is a multiple of 8
//   bytes: NodeRecord 112 (LID, reserved, NodeInfo at 4, NodeDescription at 44,
//   4 pad; ib_node_record_t), PortInfoRecord 72 (EndPortLID, PortNum, Options,
//   PortInfo at 4, 4 pad; ib_portinfo_record_t), LinkRecord 8 (FromLID,
//   FromPort, ToPort, ToLID, 2 pad; ib_link_record_t), PathRecord 64 (iba-facts
//   6; ib_path_rec_t), SL2VLRecord 16 (LID, InputPortNum, OutputPortNum, 4
//   reserved, the 8-byte table; ib_slvl_table_record_t), VLArbRecord 72 (LID,
//   OutputPortNum, BlockNumber, 4 reserved, the 64-byte block;
//   ib_vl_arb_table_record_t).
// - encode(out) writes kBytes bytes, reserved and pad bytes zero; decode(in)
//   reads kBytes bytes.

#include <array>
#include <cstdint>

#include "models/ib/mad.hpp"
#include "models/ib/mad_attributes.hpp"

namespace hcasim::ib {

struct NodeRecord {
  static constexpr unsigned kBytes = 112;
  static constexpr uint16_t kAttrId = kAttrNodeRecord;
  uint16_t lid = 0;
  NodeInfo node_info;
  NodeDescription node_desc;
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct PortInfoRecord {
  static constexpr unsigned kBytes = 72;
  static constexpr uint16_t kAttrId = kAttrPortInfoRecord;
  uint16_t end_port_lid = 0;
  uint8_t port_num = 0;
  uint8_t options = 0;   // OpenSM "options" (reserved in IBA 1.0)
  PortInfo port_info;
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct LinkRecord {
  static constexpr unsigned kBytes = 8;
  static constexpr uint16_t kAttrId = kAttrLinkRecord;
  uint16_t from_lid = 0;
  uint8_t from_port = 0;
  uint8_t to_port = 0;
  uint16_t to_lid = 0;
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

// PathRecord selectors (iba-facts 6).
constexpr uint8_t kSelectorGreaterThan = 0;
constexpr uint8_t kSelectorLessThan = 1;
constexpr uint8_t kSelectorExactly = 2;
constexpr uint8_t kSelectorLargest = 3;

struct PathRecord {
  static constexpr unsigned kBytes = 64;
  static constexpr uint16_t kAttrId = kAttrPathRecord;
  uint64_t service_id = 0;              // 0
  std::array<uint8_t, 16> dgid{};       // 8
  std::array<uint8_t, 16> sgid{};       // 24
  uint16_t dlid = 0;                    // 40
  uint16_t slid = 0;                    // 42
  bool raw_traffic = false;             // 44 bit 31 of the word
  uint32_t flow_label = 0;              // 44 bits 27:8 (20 bits)
  uint8_t hop_limit = 0;                // 47
  uint8_t tclass = 0;                   // 48
  bool reversible = false;              // 49 bit 7
  uint8_t numb_path = 0;                // 49 6:0
  uint16_t pkey = 0;                    // 50
  uint16_t qos_class = 0;               // 52 bits 15:4 (12 bits)
  uint8_t sl = 0;                       // 53 3:0
  uint8_t mtu_selector = 0;             // 54 7:6
  uint8_t mtu = 0;                      // 54 5:0
  uint8_t rate_selector = 0;            // 55 7:6
  uint8_t rate = 0;                     // 55 5:0
  uint8_t pkt_life_selector = 0;        // 56 7:6
  uint8_t pkt_life = 0;                 // 56 5:0
  uint8_t preference = 0;               // 57 (58-63 reserved)
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct Sl2VlRecord {
  static constexpr unsigned kBytes = 16;
  static constexpr uint16_t kAttrId = kAttrSl2VlRecord;
  uint16_t lid = 0;
  uint8_t in_port = 0;    // InputPortNum (switches; reserved for CAs)
  uint8_t out_port = 0;   // OutputPortNum
  SlToVlTable table;      // at byte 8
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

struct VlArbRecord {
  static constexpr unsigned kBytes = 72;
  static constexpr uint16_t kAttrId = kAttrVlArbRecord;
  uint16_t lid = 0;
  uint8_t out_port = 0;   // OutputPortNum
  uint8_t block = 0;      // BlockNumber, kVlArb* (1-4)
  VlArbBlock table;       // at byte 8
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
};

}  // namespace hcasim::ib
