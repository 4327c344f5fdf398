#pragma once
// The Congestion Control management class (IBA Annex A10.4.1): the MAD that
// carries the CC attributes (cc_attributes.hpp) between the CC manager and
// every node's CC agent. Decoded fields here; the exact bytes from
// encode/decode. No SystemC.
//
// Rules (byte offsets in the 256-byte MAD; multi-byte fields big-endian):
// - Class 0x21, class version 2 (OpenSM ib_types.h IB_MCLASS_CC and
//   osm_congestion_control.c cc_mad_post; rdma-core libibmad mad.h
//   IB_CC_CLASS and mad_get_class_version). A GMP: it travels to QP1 with the
//   GSI Q_Key (OpenSM sends it so), not on VL15.
// - Bytes 0-23: the common MAD header (mad.hpp).
// - Bytes 24-31: CC_Key (OpenSM ib_cc_mad_t.cc_key; libibmad IB_CC_CCKEY_F at
//   bit 192).
// - Bytes 32-63: the log data area (OpenSM IB_CC_LOG_DATA_SIZE 32). Only the
//   CongestionLog attribute uses it: that attribute starts at byte 32 and runs
//   through the management data (libibmad IB_CC_LOG_DATA_OFFS 32, used only
//   for IB_CC_ATTR_CONGESTION_LOG in cc.c). Every other attribute leaves it
//   zero (OpenSM cc_mad_post zeroes it).
// - Bytes 64-255: the management data area, 192 bytes (OpenSM
//   IB_CC_MGT_DATA_SIZE; libibmad IB_CC_DATA_OFFS 64). Every attribute other
//   than CongestionLog starts at byte 64.
// - Methods: Get, Set, GetResp as for other classes (mad.hpp kMethod*).

#include <array>
#include <cstdint>

#include "models/ib/mad.hpp"

namespace hcasim::ib {

constexpr uint8_t kClassCongestionControl = 0x21;  // A10.4.1; OpenSM IB_MCLASS_CC
constexpr uint8_t kCcClassVersion = 2;             // OpenSM cc_mad_post; libibmad mad_get_class_version
constexpr unsigned kCcKeyOffset = 24;              // OpenSM ib_cc_mad_t.cc_key; libibmad IB_CC_CCKEY_F
constexpr unsigned kCcLogDataOffset = 32;          // libibmad IB_CC_LOG_DATA_OFFS
constexpr unsigned kCcLogDataBytes = 32;           // OpenSM IB_CC_LOG_DATA_SIZE
constexpr unsigned kCcMgtDataOffset = 64;          // libibmad IB_CC_DATA_OFFS
constexpr unsigned kCcMgtDataBytes = 192;          // OpenSM IB_CC_MGT_DATA_SIZE
// Bytes 32-255, all of which CongestionLog may fill.
constexpr unsigned kCcLogAttrBytes = kCcLogDataBytes + kCcMgtDataBytes;  // 224

// CC attribute IDs (A10.4.3; OpenSM IB_MAD_ATTR_CONG_* / IB_MAD_ATTR_CC_TBL /
// IB_MAD_ATTR_TIME_STAMP; libibmad enum CC_ATTRI_ID). ClassPortInfo is the
// common 0x0001 (mad.hpp kAttrClassPortInfo).
constexpr uint16_t kAttrCongestionInfo = 0x0011;
constexpr uint16_t kAttrCongestionKeyInfo = 0x0012;
constexpr uint16_t kAttrCongestionLog = 0x0013;
constexpr uint16_t kAttrSwitchCongestionSetting = 0x0014;
constexpr uint16_t kAttrSwitchPortCongestionSetting = 0x0015;
constexpr uint16_t kAttrCaCongestionSetting = 0x0016;
constexpr uint16_t kAttrCongestionControlTable = 0x0017;
constexpr uint16_t kAttrTimeStamp = 0x0018;

// A CC MAD. `area` holds bytes 32-255: the log data area (area[0..31]) and
// the management data area (area[32..223]).
struct CcMad {
  MadHeader hdr{kMadBaseVersion, kClassCongestionControl, kCcClassVersion};
  uint64_t cc_key = 0;
  std::array<uint8_t, kCcLogAttrBytes> area{};

  // Where the attribute `attr_id` starts: area[0] (MAD byte 32) for
  // CongestionLog, area[32] (MAD byte 64) for the others.
  uint8_t* attribute_data(uint16_t attr_id);
  const uint8_t* attribute_data(uint16_t attr_id) const;

  bool operator==(const CcMad& o) const;
};

// Where `attr_id`'s attribute starts in the MAD: kCcLogDataOffset for
// CongestionLog, kCcMgtDataOffset for the others.
unsigned cc_attribute_offset(uint16_t attr_id);

// A CC MAD with the header of a request: class 0x21, class version 2, the
// given method, TID, attribute and modifier, and the CC_Key; `area` zero.
CcMad cc_request(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid, uint64_t cc_key);

// Writes kMadBytes bytes (reserved bytes zero).
void encode(const CcMad& m, uint8_t* out);
// Reads kMadBytes bytes. False (and `out` unchanged) for a base version other
// than 1 or a class other than 0x21.
bool decode(const uint8_t* in, CcMad& out);

// An attribute of cc_attributes.hpp (a type with kAttrId, encode and decode)
// into or out of the MAD at its offset. put_attribute also sets hdr.attr_id.
template <class Attribute>
void put_attribute(CcMad& m, const Attribute& a) {
  m.hdr.attr_id = Attribute::kAttrId;
  a.encode(m.attribute_data(Attribute::kAttrId));
}
template <class Attribute>
void get_attribute(const CcMad& m, Attribute& a) {
  a.decode(m.attribute_data(Attribute::kAttrId));
}

}  // namespace hcasim::ib
