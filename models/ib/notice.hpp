#pragma once
// The Notice attribute (attribute ID 0x0002): what a SubnTrap() carries to the
// SM and what its TrapRepress() echoes (iba-facts 6; the layout of OpenSM's
// ib_mad_notice_attr_t). No SystemC. (The same interface as the Notice of
// branch traps, so the two merge into one module.)
//
// Rules (byte offsets in the attribute; multi-byte fields big-endian):
// - 0: IsGeneric (bit 7), Type (bits 6:0: 0 fatal, 1 urgent, 2 security,
//   3 subnet management, 4 informational; OpenSM IB_NOTICE_TYPE_*).
// - 1-3: generic: ProducerType (the producer's NodeType: 1 CA, 2 switch,
//   3 router, 4 class manager); vendor: VendorID.
// - 4-5: generic: TrapNumber; vendor: DeviceID.
// - 6-7: IssuerLID. 8-9: NoticeToggle (bit 15), NoticeCount (bits 14:0).
// - 10-63: DataDetails (54 bytes), each trap's own layout, kept as bytes.
// - 64-79: IssuerGID. A SubnTrap() SMP has 64 bytes of data, so there the
//   attribute ends at byte 63 (encode_smp / decode_smp).

#include <array>
#include <cstdint>

namespace hcasim::ib {

constexpr uint16_t kAttrNotice = 0x0002;          // iba-facts 6: SMP / SA attribute Notice

constexpr uint8_t kNoticeTypeFatal = 0;           // OpenSM IB_NOTICE_TYPE_*
constexpr uint8_t kNoticeTypeUrgent = 1;
constexpr uint8_t kNoticeTypeSecurity = 2;
constexpr uint8_t kNoticeTypeSubnMgmt = 3;
constexpr uint8_t kNoticeTypeInfo = 4;

constexpr uint32_t kProducerCa = 1;               // ProducerType = NodeType (iba-facts 6)
constexpr uint32_t kProducerSwitch = 2;
constexpr uint32_t kProducerRouter = 3;
constexpr uint32_t kProducerClassManager = 4;

struct Notice {
  static constexpr unsigned kBytes = 80;          // with IssuerGID
  static constexpr unsigned kSmpBytes = 64;       // in SMP data: up to DataDetails' end
  static constexpr unsigned kDetailsBytes = 54;

  bool is_generic = true;
  uint8_t type = 0;                  // 7 bits, kNoticeType*
  uint32_t producer_or_vendor = 0;   // 24 bits: ProducerType (generic) or VendorID
  uint16_t trap_or_device = 0;       // TrapNumber (generic) or DeviceID
  uint16_t issuer_lid = 0;
  bool toggle = false;               // NoticeToggle
  uint16_t count = 0;                // NoticeCount, 15 bits
  std::array<uint8_t, kDetailsBytes> details{};
  std::array<uint8_t, 16> issuer_gid{};

  // Writes kBytes (encode) or kSmpBytes (encode_smp) bytes; decode the same.
  void encode(uint8_t* out) const;
  void decode(const uint8_t* in);
  void encode_smp(uint8_t* out) const;
  void decode_smp(const uint8_t* in);
};

}  // namespace hcasim::ib
