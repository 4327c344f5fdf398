// MAD encode/decode: the byte offsets of mad.hpp (iba-facts 6; seeds/000 and
// [SH] Table 33-1 for the IBA 1.0 SA layout). All fields big-endian.
#include "models/ib/mad.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {
namespace {

// Common header (iba-facts 6).
constexpr unsigned kOffBaseVersion = 0;
constexpr unsigned kOffMgmtClass = 1;
constexpr unsigned kOffClassVersion = 2;
constexpr unsigned kOffMethod = 3;
constexpr unsigned kOffStatus = 4;
constexpr unsigned kOffClassSpecific = 6;   // DR SMP: HopPointer 6, HopCount 7
constexpr unsigned kOffTid = 8;
constexpr unsigned kOffAttrId = 16;
constexpr unsigned kOffAttrMod = 20;         // 18-19 reserved
// SMP (iba-facts 6).
constexpr unsigned kOffMKey = 24;
constexpr unsigned kOffDrSlid = 32;
constexpr unsigned kOffDrDlid = 34;          // 36-63 reserved
constexpr unsigned kOffSmpData = 64;
constexpr unsigned kOffInitialPath = 128;
constexpr unsigned kOffReturnPath = 192;
constexpr uint16_t kDirectionBit = 0x8000;   // iba-facts 6: D bit = Status bit 15
// SA, IBA 1.0 layout (seeds/000 Table 33-10; [SH] Table 33-1).
constexpr unsigned kOffSaKey = 24;
constexpr unsigned kOffSmKey = 32;
constexpr unsigned kOffSegment = 40;
constexpr unsigned kOffPayloadLength = 44;
constexpr unsigned kOffFragmentFlag = 48;
constexpr unsigned kOffEditModifier = 49;
constexpr unsigned kOffWindow = 50;
constexpr unsigned kOffEndRid = 52;
constexpr unsigned kOffComponentMask = 56;
constexpr unsigned kOffSaData = 64;

static_assert(kOffSmpData + kSmpDataBytes == kOffInitialPath, "SMP data is bytes 64-127");
static_assert(kOffReturnPath + kSmpMaxHops == kMadBytes, "ReturnPath ends the MAD");
static_assert(kOffSaData + kSaDataBytes == kMadBytes, "Admin Data Area is bytes 64-255");

MadHeader decode_header(const uint8_t* in) {
  MadHeader h;
  h.base_version = in[kOffBaseVersion];
  h.mgmt_class = in[kOffMgmtClass];
  h.class_version = in[kOffClassVersion];
  h.method = in[kOffMethod];
  h.status = get_be16(in + kOffStatus);
  h.class_specific = get_be16(in + kOffClassSpecific);
  h.tid = get_be64(in + kOffTid);
  h.attr_id = get_be16(in + kOffAttrId);
  h.attr_mod = get_be32(in + kOffAttrMod);
  return h;
}

}  // namespace

void encode(const MadHeader& h, uint8_t* out) {
  std::memset(out, 0, kMadBytes);
  out[kOffBaseVersion] = h.base_version;
  out[kOffMgmtClass] = h.mgmt_class;
  out[kOffClassVersion] = h.class_version;
  out[kOffMethod] = h.method;
  put_be16(out + kOffStatus, h.status);
  put_be16(out + kOffClassSpecific, h.class_specific);
  put_be64(out + kOffTid, h.tid);
  put_be16(out + kOffAttrId, h.attr_id);
  put_be32(out + kOffAttrMod, h.attr_mod);
}

Smp lid_routed_get(uint16_t attr_id, uint32_t attr_mod, uint64_t tid) {
  Smp m;
  m.hdr.mgmt_class = kClassSubnLid;
  m.hdr.class_version = kSmpClassVersion;
  m.hdr.method = kMethodGet;
  m.hdr.tid = tid;
  m.hdr.attr_id = attr_id;
  m.hdr.attr_mod = attr_mod;
  return m;
}

void encode(const Smp& m, uint8_t* out) {
  encode(m.hdr, out);
  put_be64(out + kOffMKey, m.m_key);
  std::copy(m.data.begin(), m.data.end(), out + kOffSmpData);
  if (!m.directed()) return;
  const uint16_t status = static_cast<uint16_t>((m.hdr.status & ~kDirectionBit) |
                                                (m.direction ? kDirectionBit : 0));
  put_be16(out + kOffStatus, status);
  out[kOffClassSpecific] = m.hop_ptr;
  out[kOffClassSpecific + 1] = m.hop_cnt;
  put_be16(out + kOffDrSlid, m.dr_slid);
  put_be16(out + kOffDrDlid, m.dr_dlid);
  std::copy(m.initial_path.begin(), m.initial_path.end(), out + kOffInitialPath);
  std::copy(m.return_path.begin(), m.return_path.end(), out + kOffReturnPath);
}

void encode(const SaMad& m, uint8_t* out) {
  encode(m.hdr, out);
  put_be64(out + kOffSaKey, m.sa_key);
  put_be64(out + kOffSmKey, m.sm_key);
  put_be32(out + kOffSegment, m.segment);
  put_be32(out + kOffPayloadLength, m.payload_length);
  out[kOffFragmentFlag] = m.fragment_flag;
  out[kOffEditModifier] = m.edit_modifier;
  put_be16(out + kOffWindow, m.window);
  put_be32(out + kOffEndRid, m.end_rid);
  put_be64(out + kOffComponentMask, m.component_mask);
  std::copy(m.data.begin(), m.data.end(), out + kOffSaData);
}

bool decode(const uint8_t* in, MadHeader& out) {
  if (in[kOffBaseVersion] != kMadBaseVersion) return false;
  out = decode_header(in);
  return true;
}

bool decode(const uint8_t* in, Smp& out) {
  const uint8_t cls = in[kOffMgmtClass];
  if (in[kOffBaseVersion] != kMadBaseVersion || (cls != kClassSubnLid && cls != kClassSubnDr)) {
    return false;
  }
  Smp m;
  m.hdr = decode_header(in);
  m.m_key = get_be64(in + kOffMKey);
  std::copy(in + kOffSmpData, in + kOffSmpData + kSmpDataBytes, m.data.begin());
  if (cls == kClassSubnDr) {
    m.direction = (m.hdr.status & kDirectionBit) != 0;
    m.hdr.status = static_cast<uint16_t>(m.hdr.status & ~kDirectionBit);
    m.hop_ptr = in[kOffClassSpecific];
    m.hop_cnt = in[kOffClassSpecific + 1];
    m.hdr.class_specific = 0;  // carried by hop_ptr / hop_cnt
    m.dr_slid = get_be16(in + kOffDrSlid);
    m.dr_dlid = get_be16(in + kOffDrDlid);
    std::copy(in + kOffInitialPath, in + kOffInitialPath + kSmpMaxHops, m.initial_path.begin());
    std::copy(in + kOffReturnPath, in + kOffReturnPath + kSmpMaxHops, m.return_path.begin());
  }
  out = m;
  return true;
}

bool decode(const uint8_t* in, SaMad& out) {
  if (in[kOffBaseVersion] != kMadBaseVersion || in[kOffMgmtClass] != kClassSubnAdm) return false;
  SaMad m;
  m.hdr = decode_header(in);
  m.sa_key = get_be64(in + kOffSaKey);
  m.sm_key = get_be64(in + kOffSmKey);
  m.segment = get_be32(in + kOffSegment);
  m.payload_length = get_be32(in + kOffPayloadLength);
  m.fragment_flag = in[kOffFragmentFlag];
  m.edit_modifier = in[kOffEditModifier];
  m.window = get_be16(in + kOffWindow);
  m.end_rid = get_be32(in + kOffEndRid);
  m.component_mask = get_be64(in + kOffComponentMask);
  std::copy(in + kOffSaData, in + kOffSaData + kSaDataBytes, m.data.begin());
  out = m;
  return true;
}

}  // namespace hcasim::ib
