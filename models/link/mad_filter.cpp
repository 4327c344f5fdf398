#include "models/link/mad_filter.hpp"

#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"

namespace hcasim::link {

namespace {
constexpr unsigned kClassByte = 1;       // iba-facts 6: MgmtClass
constexpr unsigned kMethodByte = 3;      // iba-facts 6: R + Method
constexpr unsigned kAttributeByte = 16;  // iba-facts 6: AttributeID, 2 bytes
constexpr unsigned kSegmentByte = 40;    // seeds/000 Table 33-10: Segment Number, 4 bytes
constexpr unsigned kFlagByte = 48;       // seeds/000 Table 33-10: Fragment Flag
constexpr uint8_t kTransportMask = 0xE0; // BTH opcode bits 7-5: the transport
constexpr uint8_t kSaControlBits = ib::kFragResend | ib::kFragAck | ib::kFragKeepAlive;
}  // namespace

const uint8_t* mad_of(const ib::Packet& p) {
  const ib::Headers& h = p.hdr;
  if (h.lrh.lnh != ib::Lnh::IbaLocal && h.lrh.lnh != ib::Lnh::IbaGlobal) return nullptr;
  if ((h.bth.opcode & kTransportMask) != ib::op::kUdPrefix) return nullptr;
  const uint32_t qp = h.bth.dest_qp & 0xFFFFFF;
  if (qp != ib::kQp0 && qp != ib::kQp1) return nullptr;
  if (p.payload_len < ib::kMadBytes || p.payload.size() < ib::kMadBytes) return nullptr;
  return p.payload.data();
}

bool MadFilter::matches(const ib::Packet& p) const {
  const uint8_t* m = mad_of(p);
  if (m == nullptr) return false;
  const uint8_t cls = m[kClassByte];
  if (mgmt_class && cls != *mgmt_class) return false;
  if (method && m[kMethodByte] != *method) return false;
  if (attribute && ((m[kAttributeByte] << 8) | m[kAttributeByte + 1]) != *attribute) return false;
  const bool sa = cls == ib::kClassSubnAdm;
  const uint8_t flags = m[kFlagByte];
  if (sa_segment || sa_flags || sa_flags_clear) {
    if (!sa) return false;
    const uint32_t segment = (uint32_t{m[kSegmentByte]} << 24) | (uint32_t{m[kSegmentByte + 1]} << 16) |
                             (uint32_t{m[kSegmentByte + 2]} << 8) | m[kSegmentByte + 3];
    if (sa_segment && segment != *sa_segment) return false;
    if (sa_flags && (flags & *sa_flags) != *sa_flags) return false;
    if (sa_flags_clear && (flags & *sa_flags_clear) != 0) return false;
  }
  switch (kind) {
    case MadKind::Any:
    case MadKind::Mad: return true;
    case MadKind::Smp: return cls == ib::kClassSubnLid || cls == ib::kClassSubnDr;
    case MadKind::Sa: return sa;
    case MadKind::SaData: return sa && (flags & kSaControlBits) == 0;
    case MadKind::SaAck: return sa && (flags & ib::kFragAck) != 0;
    case MadKind::SaResend: return sa && (flags & ib::kFragResend) != 0;
    case MadKind::SaKeepAlive: return sa && (flags & ib::kFragKeepAlive) != 0;
  }
  return false;
}

bool MadFilter::operator==(const MadFilter& o) const {
  return kind == o.kind && mgmt_class == o.mgmt_class && method == o.method && attribute == o.attribute &&
         sa_segment == o.sa_segment && sa_flags == o.sa_flags && sa_flags_clear == o.sa_flags_clear;
}

}  // namespace hcasim::link
