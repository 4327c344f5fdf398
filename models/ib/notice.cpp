#include "models/ib/notice.hpp"

#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

void Notice::encode_smp(uint8_t* out) const {
  out[0] = static_cast<uint8_t>((is_generic ? 0x80 : 0) | (type & 0x7F));
  put_be24(out + 1, producer_or_vendor & 0xFFFFFF);
  put_be16(out + 4, trap_or_device);
  put_be16(out + 6, issuer_lid);
  put_be16(out + 8, static_cast<uint16_t>((toggle ? 0x8000 : 0) | (count & 0x7FFF)));
  std::memcpy(out + 10, details.data(), kDetailsBytes);
}

void Notice::decode_smp(const uint8_t* in) {
  is_generic = (in[0] & 0x80) != 0;
  type = in[0] & 0x7F;
  producer_or_vendor = get_be24(in + 1);
  trap_or_device = get_be16(in + 4);
  issuer_lid = get_be16(in + 6);
  const uint16_t tc = get_be16(in + 8);
  toggle = (tc & 0x8000) != 0;
  count = tc & 0x7FFF;
  std::memcpy(details.data(), in + 10, kDetailsBytes);
  issuer_gid.fill(0);
}

void Notice::encode(uint8_t* out) const {
  encode_smp(out);
  std::memcpy(out + kSmpBytes, issuer_gid.data(), issuer_gid.size());
}

void Notice::decode(const uint8_t* in) {
  decode_smp(in);
  std::memcpy(issuer_gid.data(), in + kSmpBytes, issuer_gid.size());
}

}  // namespace hcasim::ib
