#include "models/mgmt/pma.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>

#include "models/ib/be_bytes.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::mgmt {

namespace {

constexpr uint32_t kVcrcBytes = 2;
constexpr uint8_t kRespTimeValue = 16;  // model: as the SA's (4.096 us x 2^16, about 268 ms)

uint64_t drops(const link::VlStats& v, std::initializer_list<link::DropReason> why) {
  uint64_t n = 0;
  for (link::DropReason r : why) n += v.drops[static_cast<std::size_t>(r)];
  return n;
}

using Field = uint64_t PortCounts::*;
constexpr Field kFields[] = {&PortCounts::xmit_data,         &PortCounts::rcv_data,
                             &PortCounts::xmit_pkts,         &PortCounts::rcv_pkts,
                             &PortCounts::unicast_xmit_pkts, &PortCounts::unicast_rcv_pkts,
                             &PortCounts::xmit_discards,     &PortCounts::rcv_errors,
                             &PortCounts::rcv_switch_relay_errors, &PortCounts::vl15_dropped,
                             &PortCounts::local_physical_errors, &PortCounts::malformed_pkt_errors,
                             &PortCounts::buffer_overrun_errors, &PortCounts::dlid_mapping_errors,
                             &PortCounts::vl_mapping_errors,  &PortCounts::inactive_discards,
                             &PortCounts::sw_lifetime_discards, &PortCounts::sw_hoq_discards,
                             &PortCounts::xmit_wait};

// CounterSelect bit -> the count it clears (IBA 16.1.3.5 / 16.1.4.11).
struct Select {
  unsigned bit;
  Field field;
};
constexpr Select kPortCountersSelect[] = {
    {3, &PortCounts::rcv_errors}, {5, &PortCounts::rcv_switch_relay_errors}, {6, &PortCounts::xmit_discards},
    {11, &PortCounts::vl15_dropped}, {12, &PortCounts::xmit_data}, {13, &PortCounts::rcv_data},
    {14, &PortCounts::xmit_pkts}, {15, &PortCounts::rcv_pkts}};
constexpr Select kExtendedSelect[] = {{0, &PortCounts::xmit_data}, {1, &PortCounts::rcv_data},
                                      {2, &PortCounts::xmit_pkts}, {3, &PortCounts::rcv_pkts},
                                      {4, &PortCounts::unicast_xmit_pkts}, {5, &PortCounts::unicast_rcv_pkts}};

// The details' counters in order (CounterSelect bit i clears counter i; null: always 0).
constexpr Field kRcvErrorDetails[] = {&PortCounts::local_physical_errors, &PortCounts::malformed_pkt_errors,
                                      &PortCounts::buffer_overrun_errors, &PortCounts::dlid_mapping_errors,
                                      &PortCounts::vl_mapping_errors, nullptr};
constexpr Field kXmitDiscardDetails[] = {&PortCounts::inactive_discards, nullptr, &PortCounts::sw_lifetime_discards,
                                         &PortCounts::sw_hoq_discards};

template <std::size_t N>
void encode_details(const Field (&fields)[N], const PortCounts& c, ib::PortDetails& d) {
  for (std::size_t i = 0; i < N; ++i)
    d.counters[i] = fields[i] == nullptr ? 0 : static_cast<uint16_t>(ib::saturated(c.*fields[i], 16));
}

PortCounts minus(PortCounts a, const PortCounts& b) {
  for (Field f : kFields) a.*f -= b.*f;
  return a;
}

void add(PortCounts& a, const PortCounts& b) {
  for (Field f : kFields) a.*f += b.*f;
}

}  // namespace

PortCounts port_counts(const link::Port& port) {
  using R = link::DropReason;
  uint64_t tx_bytes = 0, rx_bytes = 0;
  PortCounts c;
  for (const link::VlStats& v : port.stats().vl) {
    tx_bytes += v.tx_bytes - kVcrcBytes * v.tx_packets;
    rx_bytes += v.rx_bytes - kVcrcBytes * v.rx_packets;
    c.xmit_pkts += v.tx_packets;
    c.rcv_pkts += v.rx_packets;
    c.xmit_discards += drops(v, {R::HoqLifetime, R::SwitchLifetime, R::VlStalled, R::LinkDown});
    c.rcv_errors += drops(v, {R::CrcError, R::BufferOverflow, R::BadVl, R::MtuExceeded});
    c.rcv_switch_relay_errors += drops(v, {R::NoRoute, R::SlToVl15});
    c.vl15_dropped += drops(v, {R::Vl15Overflow});
    c.local_physical_errors += drops(v, {R::CrcError});
    c.malformed_pkt_errors += drops(v, {R::BadVl, R::MtuExceeded});
    c.buffer_overrun_errors += drops(v, {R::BufferOverflow});
    c.dlid_mapping_errors += drops(v, {R::NoRoute});
    c.vl_mapping_errors += drops(v, {R::SlToVl15});
    c.inactive_discards += drops(v, {R::LinkDown});
    c.sw_lifetime_discards += drops(v, {R::SwitchLifetime});
    c.sw_hoq_discards += drops(v, {R::HoqLifetime});
  }
  c.xmit_data = tx_bytes / 4;
  c.rcv_data = rx_bytes / 4;
  c.xmit_wait = port.xmit_wait_ps_until(link::now_ps()) / std::max<uint64_t>(1, port.timing().bytes_ps(kXmitWaitTickBytes));
  c.unicast_xmit_pkts = c.xmit_pkts;
  c.unicast_rcv_pkts = c.rcv_pkts;
  return c;
}

Pma::Pma(std::vector<const link::Port*> ports, bool is_switch)
    : ports_(std::move(ports)), is_switch_(is_switch), zero_(ports_.size()) {}

PortCounts Pma::raw(unsigned n) const { return ports_[n] != nullptr ? port_counts(*ports_[n]) : PortCounts{}; }

PortCounts Pma::counts(unsigned n) const {
  if (n != ib::kAllPortSelect) return minus(raw(n), zero_[n]);
  PortCounts sum;
  for (unsigned p = 0; p < ports_.size(); ++p) add(sum, counts(p));
  return sum;
}

bool Pma::valid(unsigned select) const {
  return select == ib::kAllPortSelect || (select < ports_.size() && (is_switch_ || select != 0));
}

void Pma::clear(unsigned select, uint16_t bits, uint8_t bits2, uint16_t attr) {
  const unsigned first = select == ib::kAllPortSelect ? 0 : select;
  const unsigned last = select == ib::kAllPortSelect ? static_cast<unsigned>(ports_.size()) - 1 : select;
  for (unsigned p = first; p <= last; ++p) {
    const PortCounts now = raw(p);
    const auto clear_selected = [&](const auto& table) {
      for (const Select& sel : table)
        if ((bits >> sel.bit & 1) != 0) zero_[p].*sel.field = now.*sel.field;
    };
    const auto clear_details = [&](const auto& fields) {
      for (unsigned i = 0; i < std::size(fields); ++i)
        if ((bits >> i & 1) != 0 && fields[i] != nullptr) zero_[p].*fields[i] = now.*fields[i];
    };
    if (attr == ib::kAttrPortCountersExtended) clear_selected(kExtendedSelect);
    else if (attr == ib::kAttrPortCounters) {
      clear_selected(kPortCountersSelect);
      if ((bits2 & 1) != 0) zero_[p].xmit_wait = now.xmit_wait;
    }
    else if (attr == ib::kAttrPortRcvErrorDetails) clear_details(kRcvErrorDetails);
    else clear_details(kXmitDiscardDetails);
  }
}

bool Pma::process(const uint8_t* req, uint8_t* resp) {
  ib::MadHeader h;
  if (!ib::decode(req, h) || (h.method & ib::kMethodResponseBit) != 0) return false;
  std::memcpy(resp, req, ib::kMadBytes);
  uint8_t* data = resp + ib::kPmaDataOffset;
  const uint8_t method = h.method;
  h.method = ib::kMethodGetResp;
  h.status = ib::kStatusOk;
  if (method != ib::kMethodGet && method != ib::kMethodSet) {
    h.status = ib::kStatusUnsupportedMethod;
  } else if (h.attr_id == ib::kAttrPmaClassPortInfo) {
    std::memset(data, 0, ib::kMadBytes - ib::kPmaDataOffset);
    data[0] = ib::kMadBaseVersion;
    data[1] = 1;  // ClassVersion
    ib::put_be16(data + 2, ib::kPmaCapAllPortSelect | ib::kPmaCapExtendedWidth | ib::kPmaCapXmitWait);
    ib::put_be32(data + 4, kRespTimeValue);
  } else if (h.attr_id == ib::kAttrPortCounters || h.attr_id == ib::kAttrPortCountersExtended ||
             h.attr_id == ib::kAttrPortRcvErrorDetails || h.attr_id == ib::kAttrPortXmitDiscardDetails) {
    const unsigned select = req[ib::kPmaDataOffset + 1];
    if (!valid(select)) {
      h.status = ib::kStatusInvalidAttribute;
    } else {
      if (method == ib::kMethodSet)
        clear(select, ib::get_be16(req + ib::kPmaDataOffset + 2), req[ib::kPmaDataOffset + 18], h.attr_id);
      const PortCounts c = counts(select);
      std::memset(data, 0, ib::kMadBytes - ib::kPmaDataOffset);
      if (h.attr_id == ib::kAttrPortRcvErrorDetails || h.attr_id == ib::kAttrPortXmitDiscardDetails) {
        ib::PortDetails d;
        d.port_select = static_cast<uint8_t>(select);
        d.counter_select = ib::get_be16(req + ib::kPmaDataOffset + 2);
        if (h.attr_id == ib::kAttrPortRcvErrorDetails) encode_details(kRcvErrorDetails, c, d);
        else encode_details(kXmitDiscardDetails, c, d);
        d.encode(data);
      } else if (h.attr_id == ib::kAttrPortCountersExtended) {
        ib::PortCountersExtended e;
        e.port_select = static_cast<uint8_t>(select);
        e.counter_select = ib::get_be16(req + ib::kPmaDataOffset + 2);
        e.xmit_data = c.xmit_data;
        e.rcv_data = c.rcv_data;
        e.xmit_pkts = c.xmit_pkts;
        e.rcv_pkts = c.rcv_pkts;
        e.unicast_xmit_pkts = c.unicast_xmit_pkts;
        e.unicast_rcv_pkts = c.unicast_rcv_pkts;
        e.encode(data);
      } else {
        ib::PortCounters pc;
        pc.port_select = static_cast<uint8_t>(select);
        pc.counter_select = ib::get_be16(req + ib::kPmaDataOffset + 2);
        pc.counter_select2 = req[ib::kPmaDataOffset + 18];
        pc.rcv_errors = static_cast<uint16_t>(ib::saturated(c.rcv_errors, 16));
        pc.rcv_switch_relay_errors = static_cast<uint16_t>(ib::saturated(c.rcv_switch_relay_errors, 16));
        pc.xmit_discards = static_cast<uint16_t>(ib::saturated(c.xmit_discards, 16));
        pc.vl15_dropped = static_cast<uint16_t>(ib::saturated(c.vl15_dropped, 16));
        pc.xmit_data = static_cast<uint32_t>(ib::saturated(c.xmit_data, 32));
        pc.rcv_data = static_cast<uint32_t>(ib::saturated(c.rcv_data, 32));
        pc.xmit_pkts = static_cast<uint32_t>(ib::saturated(c.xmit_pkts, 32));
        pc.rcv_pkts = static_cast<uint32_t>(ib::saturated(c.rcv_pkts, 32));
        pc.xmit_wait = static_cast<uint32_t>(ib::saturated(c.xmit_wait, 32));
        pc.encode(data);
      }
    }
  } else {
    h.status = ib::kStatusUnsupportedMethodAttr;
  }
  std::array<uint8_t, ib::kMadBytes> head{};  // encode() writes a whole MAD: the header alone is copied
  ib::encode(h, head.data());
  std::memcpy(resp, head.data(), ib::kMadHeaderBytes);
  return true;
}

}  // namespace hcasim::mgmt
