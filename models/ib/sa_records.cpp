// SA record layouts (ComponentMask bit -> bits of the body), field comparison
// and copy over big-endian bit runs, and the RID + body record buffers.
//
// Bit numbers: OpenSM include/iba/ib_types.h IB_NR_COMPMASK_*, IB_PIR_COMPMASK_*,
// IB_LR_COMPMASK_*, IB_PR_COMPMASK_* (bits 0-21; Preference = bit 22 as in
// rdma-core libibmad), IB_SLVL_COMPMASK_*, IB_VLA_COMPMASK_*. Offsets: the
// record layouts of sa_record_types.hpp.
#include "models/ib/sa_records.hpp"

#include "models/ib/be_bytes.hpp"
#include "models/ib/sa_record_types.hpp"

namespace hcasim::ib {
namespace {

// A field starting at bit `msb` (7 = most significant) of body byte `byte`.
RecordField F(uint8_t bit, const char* name, unsigned byte, unsigned msb, unsigned width) {
  return RecordField{bit, name, static_cast<uint16_t>(byte * 8 + (7 - msb)), static_cast<uint16_t>(width)};
}

RecordLayout node_record_layout() {
  constexpr unsigned ni = 4;  // NodeInfo starts at byte 4
  return RecordLayout{kAttrNodeRecord, "NodeRecord", NodeRecord::kBytes,
                      {F(0, "LID", 0, 7, 16), F(1, "Reserved1", 2, 7, 16),
                       F(2, "BaseVersion", ni + 0, 7, 8), F(3, "ClassVersion", ni + 1, 7, 8),
                       F(4, "NodeType", ni + 2, 7, 8), F(5, "NumPorts", ni + 3, 7, 8),
                       F(6, "SystemImageGUID", ni + 4, 7, 64), F(7, "NodeGUID", ni + 12, 7, 64),
                       F(8, "PortGUID", ni + 20, 7, 64), F(9, "PartitionCap", ni + 28, 7, 16),
                       F(10, "DeviceID", ni + 30, 7, 16), F(11, "Revision", ni + 32, 7, 32),
                       F(12, "LocalPortNum", ni + 36, 7, 8), F(13, "VendorID", ni + 37, 7, 24),
                       F(14, "NodeDescription", ni + NodeInfo::kBytes, 7, 8 * NodeDescription::kBytes)}};
}

RecordLayout portinfo_record_layout() {
  constexpr unsigned p = 4;  // PortInfo starts at byte 4
  return RecordLayout{
      kAttrPortInfoRecord, "PortInfoRecord", PortInfoRecord::kBytes,
      {F(0, "EndPortLID", 0, 7, 16), F(1, "PortNum", 2, 7, 8), F(2, "Options", 3, 7, 8),
       F(3, "M_Key", p + 0, 7, 64), F(4, "GIDPrefix", p + 8, 7, 64), F(5, "LID", p + 16, 7, 16),
       F(6, "MasterSMLID", p + 18, 7, 16), F(7, "CapabilityMask", p + 20, 7, 32),
       F(8, "DiagCode", p + 24, 7, 16), F(9, "M_KeyLeasePeriod", p + 26, 7, 16),
       F(10, "LocalPortNum", p + 28, 7, 8), F(11, "LinkWidthEnabled", p + 29, 7, 8),
       F(12, "LinkWidthSupported", p + 30, 7, 8), F(13, "LinkWidthActive", p + 31, 7, 8),
       F(14, "LinkSpeedSupported", p + 32, 7, 4), F(15, "PortState", p + 32, 3, 4),
       F(16, "PortPhysicalState", p + 33, 7, 4), F(17, "LinkDownDefaultState", p + 33, 3, 4),
       F(18, "M_KeyProtectBits", p + 34, 7, 2), F(19, "Reserved2", p + 34, 5, 3),
       F(20, "LMC", p + 34, 2, 3), F(21, "LinkSpeedActive", p + 35, 7, 4),
       F(22, "LinkSpeedEnabled", p + 35, 3, 4), F(23, "NeighborMTU", p + 36, 7, 4),
       F(24, "MasterSMSL", p + 36, 3, 4), F(25, "VLCap", p + 37, 7, 4),
       F(26, "InitType", p + 37, 3, 4), F(27, "VLHighLimit", p + 38, 7, 8),
       F(28, "VLArbitrationHighCap", p + 39, 7, 8), F(29, "VLArbitrationLowCap", p + 40, 7, 8),
       F(30, "InitTypeReply", p + 41, 7, 4), F(31, "MTUCap", p + 41, 3, 4),
       F(32, "VLStallCount", p + 42, 7, 3), F(33, "HOQLife", p + 42, 4, 5),
       F(34, "OperationalVLs", p + 43, 7, 4), F(35, "PartitionEnforcementInbound", p + 43, 3, 1),
       F(36, "PartitionEnforcementOutbound", p + 43, 2, 1), F(37, "FilterRawInbound", p + 43, 1, 1),
       F(38, "FilterRawOutbound", p + 43, 0, 1), F(39, "M_KeyViolations", p + 44, 7, 16),
       F(40, "P_KeyViolations", p + 46, 7, 16), F(41, "Q_KeyViolations", p + 48, 7, 16),
       F(42, "GUIDCap", p + 50, 7, 8), F(43, "ClientReregister", p + 51, 7, 1),
       F(44, "Reserved3", p + 51, 6, 2), F(45, "SubnetTimeOut", p + 51, 4, 5),
       F(46, "Reserved4", p + 52, 7, 3), F(47, "RespTimeValue", p + 52, 4, 5),
       F(48, "LocalPhyErrors", p + 53, 7, 4), F(49, "OverrunErrors", p + 53, 3, 4),
       F(50, "MaxCreditHint", p + 54, 7, 16), F(51, "Reserved5", p + 56, 7, 8),
       F(52, "LinkRoundTripLatency", p + 57, 7, 24), F(53, "CapabilityMask2", p + 60, 7, 16),
       F(54, "LinkSpeedExtActive", p + 62, 7, 4), F(55, "LinkSpeedExtSupported", p + 62, 3, 4),
       F(56, "Reserved7", p + 63, 7, 3), F(57, "LinkSpeedExtEnabled", p + 63, 4, 5)}};
}

RecordLayout link_record_layout() {
  return RecordLayout{kAttrLinkRecord, "LinkRecord", LinkRecord::kBytes,
                      {F(0, "FromLID", 0, 7, 16), F(1, "FromPort", 2, 7, 8), F(2, "ToPort", 3, 7, 8),
                       F(3, "ToLID", 4, 7, 16)}};
}

RecordLayout path_record_layout() {
  return RecordLayout{
      kAttrPathRecord, "PathRecord", PathRecord::kBytes,
      {F(0, "ServiceID_MSB", 0, 7, 32), F(1, "ServiceID_LSB", 4, 7, 32), F(2, "DGID", 8, 7, 128),
       F(3, "SGID", 24, 7, 128), F(4, "DLID", 40, 7, 16), F(5, "SLID", 42, 7, 16),
       F(6, "RawTraffic", 44, 7, 1), F(7, "Reserved0", 44, 6, 3), F(8, "FlowLabel", 44, 3, 20),
       F(9, "HopLimit", 47, 7, 8), F(10, "TClass", 48, 7, 8), F(11, "Reversible", 49, 7, 1),
       F(12, "NumbPath", 49, 6, 7), F(13, "P_Key", 50, 7, 16), F(14, "QoSClass", 52, 7, 12),
       F(15, "SL", 53, 3, 4), F(16, "MTUSelector", 54, 7, 2), F(17, "MTU", 54, 5, 6),
       F(18, "RateSelector", 55, 7, 2), F(19, "Rate", 55, 5, 6),
       F(20, "PacketLifeTimeSelector", 56, 7, 2), F(21, "PacketLifeTime", 56, 5, 6),
       F(22, "Preference", 57, 7, 8)}};
}

RecordLayout sl2vl_record_layout() {
  return RecordLayout{kAttrSl2VlRecord, "SL2VLRecord", Sl2VlRecord::kBytes,
                      {F(0, "LID", 0, 7, 16), F(1, "InputPortNum", 2, 7, 8), F(2, "OutputPortNum", 3, 7, 8)}};
}

RecordLayout vlarb_record_layout() {
  return RecordLayout{kAttrVlArbRecord, "VLArbRecord", VlArbRecord::kBytes,
                      {F(0, "LID", 0, 7, 16), F(1, "OutputPortNum", 2, 7, 8), F(2, "BlockNumber", 3, 7, 8)}};
}

bool get_bit(const uint8_t* p, unsigned i) { return (p[i / 8] >> (7 - i % 8)) & 1u; }
void set_bit(uint8_t* p, unsigned i, bool v) {
  const uint8_t m = static_cast<uint8_t>(1u << (7 - i % 8));
  p[i / 8] = static_cast<uint8_t>(v ? (p[i / 8] | m) : (p[i / 8] & ~m));
}

bool selected(const RecordField& f, uint64_t mask) { return f.bit < 64 && ((mask >> f.bit) & 1u) != 0; }

}  // namespace

const RecordLayout* sa_record_layout(uint16_t attr_id) {
  static const RecordLayout node = node_record_layout();
  static const RecordLayout portinfo = portinfo_record_layout();
  static const RecordLayout link = link_record_layout();
  static const RecordLayout path = path_record_layout();
  static const RecordLayout sl2vl = sl2vl_record_layout();
  static const RecordLayout vlarb = vlarb_record_layout();
  switch (attr_id) {
    case kAttrNodeRecord: return &node;
    case kAttrPortInfoRecord: return &portinfo;
    case kAttrLinkRecord: return &link;
    case kAttrPathRecord: return &path;
    case kAttrSl2VlRecord: return &sl2vl;
    case kAttrVlArbRecord: return &vlarb;
    default: return nullptr;
  }
}

bool fields_match(const RecordLayout& layout, uint64_t mask, const uint8_t* a, const uint8_t* b) {
  for (const RecordField& f : layout.fields) {
    if (!selected(f, mask)) continue;
    for (unsigned i = f.bit_offset; i < unsigned(f.bit_offset) + f.bit_width; ++i) {
      if (get_bit(a, i) != get_bit(b, i)) return false;
    }
  }
  return true;
}

void copy_fields(const RecordLayout& layout, uint64_t mask, const uint8_t* from, uint8_t* to) {
  for (const RecordField& f : layout.fields) {
    if (!selected(f, mask)) continue;
    for (unsigned i = f.bit_offset; i < unsigned(f.bit_offset) + f.bit_width; ++i) {
      set_bit(to, i, get_bit(from, i));
    }
  }
}

uint64_t field_value(const RecordField& f, const uint8_t* body) {
  if (f.bit_width > 64) return 0;
  uint64_t v = 0;
  for (unsigned i = f.bit_offset; i < unsigned(f.bit_offset) + f.bit_width; ++i) {
    v = (v << 1) | (get_bit(body, i) ? 1u : 0u);
  }
  return v;
}

const RecordField* find_field(const RecordLayout& layout, const std::string& name) {
  for (const RecordField& f : layout.fields) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

void append_record(std::vector<uint8_t>& buf, uint32_t rid, const uint8_t* body, size_t size) {
  uint8_t r[kRidBytes];
  put_be32(r, rid);
  buf.insert(buf.end(), r, r + kRidBytes);
  buf.insert(buf.end(), body, body + size);
}

void append_record(std::vector<uint8_t>& buf, const uint8_t* body, size_t size) {
  buf.insert(buf.end(), body, body + size);
}

bool RecordReader::next(uint32_t& rid, const uint8_t*& body) {
  if (record_bytes() == 0 || len_ - pos_ < record_bytes()) return false;
  const uint8_t* p = data_ + pos_;
  rid = with_rid_ ? get_be32(p) : 0;
  body = p + (with_rid_ ? kRidBytes : 0);
  pos_ += record_bytes();
  return true;
}

}  // namespace hcasim::ib
