#include "models/hca/hca.hpp"

#include <cmath>


namespace hcasim::hca {

Hca::Hca(const sc_core::sc_module_name& name, const std::vector<link::PortConfig>& ports,
         const std::vector<uint16_t>& lids, ib::PacketPool& pool)
    : sc_module(name), pool_(pool) {
  for (unsigned i = 0; i < ports.size(); ++i) {
    auto h = std::make_unique<HostPort>(*this, i);
    const std::string port_name = "p" + std::to_string(i + 1);
    h->port = std::make_unique<link::Port>(port_name.c_str(), ports[i], pool);
    h->lid = lids.at(i);
    h->drain_rate_bps = ports[i].drain_rate_bps;
    h->port->on_rx_ready([this, i] { drain(i); });
    ports_.push_back(std::move(h));
  }
}

int Hca::next_vl(HostPort& h) {
  link::Port& p = *h.port;
  if (!p.rx_empty(link::kVl15)) return link::kVl15;
  const unsigned n = p.vl_count();
  for (unsigned k = 0; k < n; ++k) {
    const unsigned vl = (h.next_vl + k) % n;
    if (!p.rx_empty(vl)) {
      h.next_vl = (vl + 1) % n;
      return static_cast<int>(vl);
    }
  }
  return -1;
}

void Hca::drain(unsigned index) {
  HostPort& h = *ports_[index];
  const uint64_t now = sc_core::sc_time_stamp().value();
  for (;;) {
    if (h.draining_vl >= 0) {
      if (now < h.busy_until_ps) return;  // still reading the current packet
      ib::Packet* p = h.port->rx_pop(static_cast<unsigned>(h.draining_vl));
      h.draining_vl = -1;
      if (sink_) sink_->deliver(p, index, now);
      else pool_.release(p);
    }
    const int vl = next_vl(h);
    if (vl < 0) return;
    if (h.drain_rate_bps == 0) {
      ib::Packet* p = h.port->rx_pop(static_cast<unsigned>(vl));
      if (sink_) sink_->deliver(p, index, now);
      else pool_.release(p);
      continue;
    }
    const double bits = 8.0 * h.port->rx_front(static_cast<unsigned>(vl))->wire_len;
    const auto read_ps = static_cast<uint64_t>(std::llround(bits * 1e12 / static_cast<double>(h.drain_rate_bps)));
    h.draining_vl = vl;
    h.busy_until_ps = now + read_ps;
    h.done.notify_at(h.busy_until_ps);
    return;
  }
}

}  // namespace hcasim::hca
