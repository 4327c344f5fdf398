#include "models/ib/pkey_traps.hpp"

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

Notice pkey_trap_notice(bool at_switch, uint16_t issuer_lid, const PkeyViolation& v) {
  Notice n;
  n.is_generic = true;
  n.type = kNoticeTypeSecurity;
  n.producer_or_vendor = at_switch ? kProducerSwitch : kProducerCa;
  n.trap_or_device = at_switch ? kTrapSwitchBadPkey : kTrapBadPkey;
  n.issuer_lid = issuer_lid;
  uint8_t* d = n.details.data();
  const uint32_t sl_qp1 = (static_cast<uint32_t>(v.sl & 0xF) << 28) | (v.qp1 & 0xFFFFFF);
  put_be16(d + 2, v.lid1);
  put_be16(d + 4, v.lid2);
  if (at_switch) {
    put_be16(d + 6, v.pkey);
    put_be32(d + 8, sl_qp1);
    put_be32(d + 12, v.qp2 & 0xFFFFFF);
    put_be16(d + 48, v.switch_lid);
    d[50] = v.port;
  } else {
    put_be32(d + 6, v.pkey);
    put_be32(d + 10, sl_qp1);
    put_be32(d + 14, v.qp2 & 0xFFFFFF);
  }
  return n;
}

PkeyViolation pkey_trap_details(const Notice& n) {
  const uint8_t* d = n.details.data();
  const bool at_switch = n.trap_or_device == kTrapSwitchBadPkey;
  PkeyViolation v;
  v.lid1 = get_be16(d + 2);
  v.lid2 = get_be16(d + 4);
  const uint32_t sl_qp1 = get_be32(d + (at_switch ? 8 : 10));
  v.pkey = at_switch ? get_be16(d + 6) : static_cast<uint16_t>(get_be32(d + 6));
  v.sl = static_cast<uint8_t>(sl_qp1 >> 28);
  v.qp1 = sl_qp1 & 0xFFFFFF;
  v.qp2 = get_be32(d + (at_switch ? 12 : 14)) & 0xFFFFFF;
  if (at_switch) {
    v.switch_lid = get_be16(d + 48);
    v.port = d[50];
  }
  return v;
}

}  // namespace hcasim::ib
