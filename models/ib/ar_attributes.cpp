#include "models/ib/ar_attributes.hpp"

#include <algorithm>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

void ArInfo::encode(uint8_t* out) const {
  std::fill(out, out + kBytes, uint8_t{0});
  out[0] = mode;
  out[1] = choice;
  out[2] = k;
  put_be16(out + 4, sl_mask);
  put_be16(out + 6, group_cap);
  put_be64(out + 8, ageing_ps);
}

void ArInfo::decode(const uint8_t* in) {
  mode = in[0];
  choice = in[1];
  k = in[2];
  sl_mask = get_be16(in + 4);
  group_cap = get_be16(in + 6);
  ageing_ps = get_be64(in + 8);
}

void ArGroupBlock::encode(uint8_t* out) const {
  std::fill(out, out + kBytes, uint8_t{0});
  for (unsigned g = 0; g < kArGroupsPerBlock; ++g)
    for (uint8_t p : ports[g])
      if (p != 0 && p != 255) out[g * kMaskBytes + kMaskBytes - 1 - p / 8] |= static_cast<uint8_t>(1u << (p % 8));
}

void ArGroupBlock::decode(const uint8_t* in) {
  for (unsigned g = 0; g < kArGroupsPerBlock; ++g) {
    ports[g].clear();
    for (unsigned p = 1; p < 255; ++p)
      if ((in[g * kMaskBytes + kMaskBytes - 1 - p / 8] >> (p % 8) & 1) != 0) ports[g].push_back(static_cast<uint8_t>(p));
  }
}

void ArLidBlock::encode(uint8_t* out) const {
  for (unsigned i = 0; i < kArLidsPerBlock; ++i) put_be16(out + 2 * i, group[i]);
}

void ArLidBlock::decode(const uint8_t* in) {
  for (unsigned i = 0; i < kArLidsPerBlock; ++i) group[i] = get_be16(in + 2 * i);
}

}  // namespace hcasim::ib
