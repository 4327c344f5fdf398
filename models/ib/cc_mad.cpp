// CC MAD encode/decode: the byte offsets of cc_mad.hpp (OpenSM ib_cc_mad_t,
// libibmad mad.h). All fields big-endian.
#include "models/ib/cc_mad.hpp"

#include <algorithm>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

static_assert(kCcLogDataOffset + kCcLogDataBytes == kCcMgtDataOffset, "log data is bytes 32-63");
static_assert(kCcMgtDataOffset + kCcMgtDataBytes == kMadBytes, "management data is bytes 64-255");

unsigned cc_attribute_offset(uint16_t attr_id) {
  return attr_id == kAttrCongestionLog ? kCcLogDataOffset : kCcMgtDataOffset;
}

uint8_t* CcMad::attribute_data(uint16_t attr_id) {
  return area.data() + (cc_attribute_offset(attr_id) - kCcLogDataOffset);
}

const uint8_t* CcMad::attribute_data(uint16_t attr_id) const {
  return area.data() + (cc_attribute_offset(attr_id) - kCcLogDataOffset);
}

bool CcMad::operator==(const CcMad& o) const {
  return hdr.base_version == o.hdr.base_version && hdr.mgmt_class == o.hdr.mgmt_class &&
         hdr.class_version == o.hdr.class_version && hdr.method == o.hdr.method && hdr.status == o.hdr.status &&
         hdr.class_specific == o.hdr.class_specific && hdr.tid == o.hdr.tid && hdr.attr_id == o.hdr.attr_id &&
         hdr.attr_mod == o.hdr.attr_mod && cc_key == o.cc_key && area == o.area;
}

CcMad cc_request(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid, uint64_t cc_key) {
  CcMad m;
  m.hdr.method = method;
  m.hdr.attr_id = attr_id;
  m.hdr.attr_mod = attr_mod;
  m.hdr.tid = tid;
  m.cc_key = cc_key;
  return m;
}

void encode(const CcMad& m, uint8_t* out) {
  encode(m.hdr, out);  // the common header; zeroes bytes 24-255
  put_be64(out + kCcKeyOffset, m.cc_key);
  std::copy(m.area.begin(), m.area.end(), out + kCcLogDataOffset);
}

bool decode(const uint8_t* in, CcMad& out) {
  MadHeader h;
  if (!decode(in, h) || h.mgmt_class != kClassCongestionControl) return false;
  out.hdr = h;
  out.cc_key = get_be64(in + kCcKeyOffset);
  std::copy(in + kCcLogDataOffset, in + kMadBytes, out.area.begin());
  return true;
}

}  // namespace hcasim::ib
