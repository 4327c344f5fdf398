#include "models/ib/sm_info.hpp"

#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

void SmInfo::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be64(out, guid);
  put_be64(out + 8, sm_key);
  put_be32(out + 16, act_count);
  out[20] = static_cast<uint8_t>((priority & 0x0F) << 4 | (static_cast<uint8_t>(state) & 0x0F));
}

void SmInfo::decode(const uint8_t* in) {
  guid = get_be64(in);
  sm_key = get_be64(in + 8);
  act_count = get_be32(in + 16);
  priority = in[20] >> 4;
  state = static_cast<SmState>(in[20] & 0x0F);
}

bool SmInfo::operator==(const SmInfo& o) const {
  return guid == o.guid && sm_key == o.sm_key && act_count == o.act_count && priority == o.priority &&
         state == o.state;
}

const char* to_string(SmState s) {
  switch (s) {
    case SmState::NotActive: return "not_active";
    case SmState::Discovering: return "discovering";
    case SmState::Standby: return "standby";
    case SmState::Master: return "master";
  }
  return "unknown";
}

}  // namespace hcasim::ib
