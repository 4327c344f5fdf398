#include "models/ib/pma_mad.hpp"

#include "models/ib/be_bytes.hpp"

namespace hcasim::ib {

void PortCounters::encode(uint8_t* d) const {
  d[1] = port_select;
  put_be16(d + 2, counter_select);
  put_be16(d + 4, symbol_errors);
  d[6] = link_error_recovery;
  d[7] = link_downed;
  put_be16(d + 8, rcv_errors);
  put_be16(d + 10, rcv_remote_physical_errors);
  put_be16(d + 12, rcv_switch_relay_errors);
  put_be16(d + 14, xmit_discards);
  d[16] = xmit_constraint_errors;
  d[17] = rcv_constraint_errors;
  d[18] = counter_select2;
  d[19] = static_cast<uint8_t>((local_link_integrity_errors & 0x0F) << 4 | (excessive_buffer_overrun_errors & 0x0F));
  put_be16(d + 22, vl15_dropped);
  put_be32(d + 24, xmit_data);
  put_be32(d + 28, rcv_data);
  put_be32(d + 32, xmit_pkts);
  put_be32(d + 36, rcv_pkts);
  put_be32(d + 40, xmit_wait);
}

void PortCounters::decode(const uint8_t* d) {
  port_select = d[1];
  counter_select = get_be16(d + 2);
  symbol_errors = get_be16(d + 4);
  link_error_recovery = d[6];
  link_downed = d[7];
  rcv_errors = get_be16(d + 8);
  rcv_remote_physical_errors = get_be16(d + 10);
  rcv_switch_relay_errors = get_be16(d + 12);
  xmit_discards = get_be16(d + 14);
  xmit_constraint_errors = d[16];
  rcv_constraint_errors = d[17];
  counter_select2 = d[18];
  local_link_integrity_errors = d[19] >> 4;
  excessive_buffer_overrun_errors = d[19] & 0x0F;
  vl15_dropped = get_be16(d + 22);
  xmit_data = get_be32(d + 24);
  rcv_data = get_be32(d + 28);
  xmit_pkts = get_be32(d + 32);
  rcv_pkts = get_be32(d + 36);
  xmit_wait = get_be32(d + 40);
}

void PortCountersExtended::encode(uint8_t* d) const {
  d[1] = port_select;
  put_be16(d + 2, counter_select);
  put_be64(d + 8, xmit_data);
  put_be64(d + 16, rcv_data);
  put_be64(d + 24, xmit_pkts);
  put_be64(d + 32, rcv_pkts);
  put_be64(d + 40, unicast_xmit_pkts);
  put_be64(d + 48, unicast_rcv_pkts);
  put_be64(d + 56, multicast_xmit_pkts);
  put_be64(d + 64, multicast_rcv_pkts);
}

void PortCountersExtended::decode(const uint8_t* d) {
  port_select = d[1];
  counter_select = get_be16(d + 2);
  xmit_data = get_be64(d + 8);
  rcv_data = get_be64(d + 16);
  xmit_pkts = get_be64(d + 24);
  rcv_pkts = get_be64(d + 32);
  unicast_xmit_pkts = get_be64(d + 40);
  unicast_rcv_pkts = get_be64(d + 48);
  multicast_xmit_pkts = get_be64(d + 56);
  multicast_rcv_pkts = get_be64(d + 64);
}

void PortDetails::encode(uint8_t* d) const {
  d[1] = port_select;
  put_be16(d + 2, counter_select);
  for (unsigned i = 0; i < kMaxCounters; ++i) put_be16(d + 4 + 2 * i, counters[i]);
}

void PortDetails::decode(const uint8_t* d) {
  port_select = d[1];
  counter_select = get_be16(d + 2);
  for (unsigned i = 0; i < kMaxCounters; ++i) counters[i] = get_be16(d + 4 + 2 * i);
}

}  // namespace hcasim::ib
