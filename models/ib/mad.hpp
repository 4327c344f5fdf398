#pragma once
// Management datagrams (MADs): the 256-byte payload of a UD packet to QP0 (SMPs,
// on VL15) or QP1 (GMPs such as the SA's). Decoded fields here; the exact
// bytes come from encode/decode (mad.cpp). No SystemC.
//
// Layouts (iba-facts 6):
// - Common header, bytes 0-23: BaseVersion, MgmtClass, ClassVersion, R + Method,
//   Status, ClassSpecific, TID, AttributeID, reserved, AttributeModifier.
// - SMP: M_Key at 24; LID-routed: 64 bytes of data at 64, the rest reserved;
//   directed route (class 0x81): the D bit is Status bit 15, HopPointer and
//   HopCount are the ClassSpecific bytes, DrSLID 32, DrDLID 34, data 64-127,
//   InitialPath 128-191, ReturnPath 192-255.
// - SA MAD in the IBA 1.0 layout of seeds/000 and [SH] Table 33-1: SA_Key 24,
//   SM_Key 32, Segment Number 40, Payload Length 44, Fragment Flag 48, Edit
//   Modifier 49, Window 50, End RID 52, ComponentMask 56, a 192-byte Admin Data
//   Area at 64.

#include <array>
#include <cstdint>

namespace hcasim::ib {

constexpr unsigned kMadBytes = 256;           // iba-facts 6: a MAD is 256 bytes
constexpr unsigned kMadHeaderBytes = 24;      // iba-facts 6: common header
constexpr unsigned kSmpDataBytes = 64;        // iba-facts 6: SMP data, bytes 64-127
constexpr unsigned kSmpMaxHops = 64;          // iba-facts 6: InitialPath / ReturnPath entries
constexpr unsigned kSaDataBytes = 192;        // seeds/000 Table 33-10: Admin Data Area
constexpr uint8_t kMadBaseVersion = 1;        // iba-facts 6
constexpr uint16_t kPermissiveLid = 0xFFFF;   // iba-facts 6: DrSLID / DrDLID / DLID of a DR SMP

constexpr uint32_t kQp0 = 0;                  // SMI: SMPs, VL15
constexpr uint32_t kQp1 = 1;                  // GSI: GMPs (SA)
constexpr uint32_t kGsiQKey = 0x80010000u;    // IBA 13.5.1: the well-known Q_Key of QP1
constexpr uint32_t kSmiQKey = 0;              // SMPs carry Q_Key 0 (QP0 does not check it)

// Management classes (iba-facts 6).
constexpr uint8_t kClassSubnLid = 0x01;
constexpr uint8_t kClassSubnDr = 0x81;
constexpr uint8_t kClassSubnAdm = 0x03;
constexpr uint8_t kSmpClassVersion = 1;
constexpr uint8_t kSaClassVersion = 1;        // the IBA 1.0 SA layout (seeds/000)

// Methods (iba-facts 6). The R bit (0x80) marks a response.
constexpr uint8_t kMethodGet = 0x01;
constexpr uint8_t kMethodSet = 0x02;
constexpr uint8_t kMethodGetResp = 0x81;
constexpr uint8_t kMethodTrap = 0x05;
constexpr uint8_t kMethodTrapRepress = 0x07;
constexpr uint8_t kMethodReport = 0x06;
constexpr uint8_t kMethodReportResp = 0x86;
constexpr uint8_t kMethodGetTable = 0x12;
constexpr uint8_t kMethodGetTableResp = 0x92;
constexpr uint8_t kMethodGetBulk = 0x14;      // SubnAdmGetBulk (IBA 1.0; 1.1 reuses 0x14 as GetMulti)
constexpr uint8_t kMethodGetBulkResp = 0x94;
constexpr uint8_t kMethodDelete = 0x15;
constexpr uint8_t kMethodDeleteResp = 0x95;
constexpr uint8_t kMethodConfig = 0x16;       // SubnAdmConfig (IBA 1.0; model's number, 1.1 has no Config)
constexpr uint8_t kMethodConfigResp = 0x96;
constexpr uint8_t kMethodResponseBit = 0x80;

// MAD status (IBA 13.4.7, [SH] Table 27-2): bits 4:2 of the 16-bit Status.
constexpr uint16_t kStatusOk = 0;
constexpr uint16_t kStatusBusy = 0x0001;
constexpr uint16_t kStatusRedirect = 0x0002;
constexpr uint16_t kStatusBadVersion = 1u << 2;
constexpr uint16_t kStatusUnsupportedMethod = 2u << 2;
constexpr uint16_t kStatusUnsupportedMethodAttr = 3u << 2;
constexpr uint16_t kStatusInvalidAttribute = 7u << 2;  // invalid value in an attribute or modifier
// SA-specific status, bits 15:8 (IBA 15.2.5.1.1).
constexpr uint16_t kSaStatusNoResources = 1u << 8;
constexpr uint16_t kSaStatusReqInvalid = 2u << 8;
constexpr uint16_t kSaStatusNoRecords = 3u << 8;
constexpr uint16_t kSaStatusTooManyRecords = 4u << 8;
constexpr uint16_t kSaStatusInvalidGid = 5u << 8;
// OpenSM ib_types.h IB_SA_MAD_STATUS_INSUF_COMPS (0x0600): the mask lacks a
// component the request needs. Code 6 means this, not a key problem.
constexpr uint16_t kSaStatusInsufficientComponents = 6u << 8;
constexpr uint16_t kSaStatusDenied = 7u << 8;  // OpenSM IB_SA_MAD_STATUS_DENIED (0x0700)
// Model: a Config from a port that is not the master SM (seeds/003 SLID check)
// is refused as ERR_REQ_DENIED. (Was 6 << 8, which is insufficient components.)
constexpr uint16_t kSaStatusInsufficientKey = kSaStatusDenied;

// SMP attribute IDs (iba-facts 6).
constexpr uint16_t kAttrClassPortInfo = 0x0001;
constexpr uint16_t kAttrNodeDescription = 0x0010;
constexpr uint16_t kAttrNodeInfo = 0x0011;
constexpr uint16_t kAttrSwitchInfo = 0x0012;
constexpr uint16_t kAttrPortInfo = 0x0015;
constexpr uint16_t kAttrPkeyTable = 0x0016;
constexpr uint16_t kAttrSlToVlTable = 0x0017;
constexpr uint16_t kAttrVlArbTable = 0x0018;
constexpr uint16_t kAttrLft = 0x0019;
constexpr uint16_t kAttrSmInfo = 0x0020;
// SA attribute IDs (iba-facts 6).
constexpr uint16_t kAttrNodeRecord = 0x0011;
constexpr uint16_t kAttrPortInfoRecord = 0x0012;
constexpr uint16_t kAttrSl2VlRecord = 0x0013;
constexpr uint16_t kAttrLinkRecord = 0x0020;
constexpr uint16_t kAttrPathRecord = 0x0035;
constexpr uint16_t kAttrVlArbRecord = 0x0036;

// Fragment Flag bits (seeds/000 Table 33-11; Resend is bit 3 as the table says).
constexpr uint8_t kFragFirst = 1u << 0;
constexpr uint8_t kFragLast = 1u << 2;
constexpr uint8_t kFragResend = 1u << 3;
constexpr uint8_t kFragAck = 1u << 5;
constexpr uint8_t kFragKeepAlive = 1u << 7;
constexpr uint16_t kDefaultSaWindow = 64;     // seeds/000: default window; an Ack window below 64 means 64

// SubnAdmConfig Edit Modifier (model's encoding; [SH] Table 33-2 is not in the sources).
enum class EditModifier : uint8_t { None = 0, Add = 1, Delete = 2, Edit = 3 };

struct MadHeader {
  uint8_t base_version = kMadBaseVersion;
  uint8_t mgmt_class = 0;
  uint8_t class_version = 1;
  uint8_t method = 0;            // R bit included (0x80 = response)
  uint16_t status = 0;           // DR SMPs: bit 15 is the D bit, see Smp
  uint16_t class_specific = 0;   // DR SMPs: HopPointer (high byte) and HopCount (low byte)
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
};

// A subnet management packet, LID-routed or directed route.
struct Smp {
  // For DR: encode takes the D bit from `direction` and bytes 6-7 from hop_ptr /
  // hop_cnt, ignoring hdr.status bit 15 and hdr.class_specific; decode gives
  // hdr.status without the D bit and hdr.class_specific = 0.
  MadHeader hdr;
  bool direction = false;        // D bit: 0 outbound, 1 returning (DR only)
  uint8_t hop_ptr = 0;           // DR only
  uint8_t hop_cnt = 0;           // DR only
  uint64_t m_key = 0;
  uint16_t dr_slid = kPermissiveLid;  // DR only
  uint16_t dr_dlid = kPermissiveLid;  // DR only
  std::array<uint8_t, kSmpDataBytes> data{};
  std::array<uint8_t, kSmpMaxHops> initial_path{};  // DR only; entry 0 unused
  std::array<uint8_t, kSmpMaxHops> return_path{};   // DR only; entry 0 unused

  bool directed() const { return hdr.mgmt_class == kClassSubnDr; }
};

// An SA MAD in the IBA 1.0 layout (seeds/000, [SH] Table 33-1).
struct SaMad {
  MadHeader hdr;
  uint64_t sa_key = 0;
  uint64_t sm_key = 0;
  uint32_t segment = 0;          // 0 = single packet, else from 1
  uint32_t payload_length = 0;   // first packet: total; last: valid bytes of its data
  uint8_t fragment_flag = 0;     // kFrag* bits
  uint8_t edit_modifier = 0;     // EditModifier
  uint16_t window = 0;
  uint32_t end_rid = 0;
  uint64_t component_mask = 0;
  std::array<uint8_t, kSaDataBytes> data{};
};

// A LID-routed SubnGet() of one attribute (class 0x01, class version 1, method
// Get, M_Key 0, empty data; iba-facts 6): the SMP a load generator or a test
// sends to a port's SMA, e.g. lid_routed_get(kAttrNodeInfo, 0, tid).
Smp lid_routed_get(uint16_t attr_id, uint32_t attr_mod, uint64_t tid);

// Bytes of a MAD (out must hold kMadBytes). Reserved bytes are zero. A
// LID-routed SMP writes none of the DR fields (bytes 32-63 and 128-255 stay
// zero); decoding one leaves the DR fields at their defaults. encode(MadHeader)
// writes the 24-byte header and zeroes the rest of the 256 bytes.
void encode(const MadHeader& h, uint8_t* out);
void encode(const Smp& m, uint8_t* out);
void encode(const SaMad& m, uint8_t* out);
// Decode kMadBytes bytes. False (and `out` unchanged) for a base version other
// than 1; an SMP decoder also refuses classes other than 0x01 / 0x81, the SA
// decoder classes other than 0x03.
bool decode(const uint8_t* in, MadHeader& out);
bool decode(const uint8_t* in, Smp& out);
bool decode(const uint8_t* in, SaMad& out);

}  // namespace hcasim::ib
