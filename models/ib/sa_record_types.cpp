// SA record bodies: encode/decode at the offsets of sa_record_types.hpp.
#include "models/ib/sa_record_types.hpp"

#include <algorithm>
#include <cstring>

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {
namespace {
// Selector (7:6) + value (5:0) bytes of a PathRecord (iba-facts 6).
uint8_t sel(uint8_t selector, uint8_t value) {
  return static_cast<uint8_t>(((selector & 0x3) << 6) | (value & 0x3F));
}
}  // namespace

void NodeRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, lid);
  node_info.encode(out + 4);
  node_desc.encode(out + 4 + NodeInfo::kBytes);
}

void NodeRecord::decode(const uint8_t* in) {
  lid = get_be16(in);
  node_info.decode(in + 4);
  node_desc.decode(in + 4 + NodeInfo::kBytes);
}

void PortInfoRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, end_port_lid);
  out[2] = port_num;
  out[3] = options;
  port_info.encode(out + 4);
}

void PortInfoRecord::decode(const uint8_t* in) {
  end_port_lid = get_be16(in);
  port_num = in[2];
  options = in[3];
  port_info.decode(in + 4);
}

void LinkRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, from_lid);
  out[2] = from_port;
  out[3] = to_port;
  put_be16(out + 4, to_lid);
}

void LinkRecord::decode(const uint8_t* in) {
  from_lid = get_be16(in);
  from_port = in[2];
  to_port = in[3];
  to_lid = get_be16(in + 4);
}

void PathRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be64(out, service_id);
  std::copy(dgid.begin(), dgid.end(), out + 8);
  std::copy(sgid.begin(), sgid.end(), out + 24);
  put_be16(out + 40, dlid);
  put_be16(out + 42, slid);
  put_be32(out + 44, (raw_traffic ? 0x80000000u : 0u) | ((flow_label & 0xFFFFFu) << 8) | hop_limit);
  out[48] = tclass;
  out[49] = static_cast<uint8_t>((reversible ? 0x80 : 0) | (numb_path & 0x7F));
  put_be16(out + 50, pkey);
  put_be16(out + 52, static_cast<uint16_t>(((qos_class & 0xFFF) << 4) | (sl & 0xF)));
  out[54] = sel(mtu_selector, mtu);
  out[55] = sel(rate_selector, rate);
  out[56] = sel(pkt_life_selector, pkt_life);
  out[57] = preference;
}

void PathRecord::decode(const uint8_t* in) {
  service_id = get_be64(in);
  std::copy(in + 8, in + 24, dgid.begin());
  std::copy(in + 24, in + 40, sgid.begin());
  dlid = get_be16(in + 40);
  slid = get_be16(in + 42);
  const uint32_t w = get_be32(in + 44);
  raw_traffic = (w & 0x80000000u) != 0;
  flow_label = (w >> 8) & 0xFFFFF;
  hop_limit = static_cast<uint8_t>(w);
  tclass = in[48];
  reversible = (in[49] & 0x80) != 0;
  numb_path = static_cast<uint8_t>(in[49] & 0x7F);
  pkey = get_be16(in + 50);
  const uint16_t q = get_be16(in + 52);
  qos_class = static_cast<uint16_t>(q >> 4);
  sl = static_cast<uint8_t>(q & 0xF);
  mtu_selector = static_cast<uint8_t>(in[54] >> 6);
  mtu = static_cast<uint8_t>(in[54] & 0x3F);
  rate_selector = static_cast<uint8_t>(in[55] >> 6);
  rate = static_cast<uint8_t>(in[55] & 0x3F);
  pkt_life_selector = static_cast<uint8_t>(in[56] >> 6);
  pkt_life = static_cast<uint8_t>(in[56] & 0x3F);
  preference = in[57];
}

void Sl2VlRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, lid);
  out[2] = in_port;
  out[3] = out_port;
  table.encode(out + 8);
}

void Sl2VlRecord::decode(const uint8_t* in) {
  lid = get_be16(in);
  in_port = in[2];
  out_port = in[3];
  table.decode(in + 8);
}

void VlArbRecord::encode(uint8_t* out) const {
  std::memset(out, 0, kBytes);
  put_be16(out, lid);
  out[2] = out_port;
  out[3] = block;
  table.encode(out + 8);
}

void VlArbRecord::decode(const uint8_t* in) {
  lid = get_be16(in);
  out_port = in[2];
  block = in[3];
  table.decode(in + 8);
}

}  // namespace hcasim::ib
