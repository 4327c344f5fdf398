#include "models/hca/hca.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/ib/layout.hpp"
#include "models/ib/mad.hpp"

namespace hcasim::hca {

Hca::Hca(const sc_core::sc_module_name& name, const std::vector<link::PortConfig>& ports,
         const std::vector<uint16_t>& lids, ib::PacketPool& pool, const transport::TransportConfig& transport)
    : sc_module(name), ports_(ports.size()), pool_(pool) {
  std::vector<transport::TransportEngine::PortBinding> bindings;
  for (unsigned i = 0; i < ports.size(); ++i) {
    HostPort& h = ports_.emplace_back(*this, i, ports[i], lids.at(i), pool);
    h.port.on_rx_ready([this, i] { drain(i); });
    // One pointer: the handler fits std::function's own storage (no heap hop).
    // It reads the record's first line.
    h.port.on_tx_space([host = &h] { host->hca.tx_space(*host); }, &h);
    bindings.push_back({&h.port, h.lid});
  }
  transport_ = std::make_unique<transport::TransportEngine>(transport, std::move(bindings), regions_, pool);
  transport_->on_room_wanted([this](bool wanted) {
    for (HostPort& h : ports_) h.transport_waiting = wanted;
  });
  transport_->on_completion([this](transport::Qp& qp, bool send_queue, const transport::WorkCompletion& wc) {
    const uint32_t n = send_queue ? qp.init.send_cq : qp.init.recv_cq;
    cqs_.at(n)->push(wc);
    if (cq_handlers_.at(n)) cq_handlers_[n]();
  });
  transport_->on_async_event(
      [this](transport::Qp& qp, const char* event) { async_events_.emplace_back(qp.qpn, event); });
}

uint32_t Hca::create_cq(uint32_t depth) {
  cqs_.push_back(std::make_unique<CompletionQueue>(depth));
  cq_handlers_.emplace_back();
  return static_cast<uint32_t>(cqs_.size() - 1);
}

CompletionQueue* Hca::existing_cq(uint32_t n) const {
  if (n >= cqs_.size() || cqs_[n] == nullptr) throw std::out_of_range("no CQ " + std::to_string(n));
  return cqs_[n].get();
}

std::string Hca::destroy_cq(uint32_t n) {
  if (n >= cqs_.size() || cqs_[n] == nullptr) return "no CQ " + std::to_string(n);
  for (const transport::Qp* qp : transport_->qps())
    if (qp->init.send_cq == n || qp->init.recv_cq == n)
      return "CQ " + std::to_string(n) + " is in use by QP " + std::to_string(qp->qpn);
  cqs_[n].reset();
  cq_handlers_[n] = nullptr;
  return "";
}

std::size_t Hca::poll_cq(uint32_t n, std::size_t max, std::vector<transport::WorkCompletion>& out) {
  return existing_cq(n)->poll(static_cast<uint32_t>(std::min<std::size_t>(max, UINT32_MAX)), out);
}

transport::Qp& Hca::create_qp(const transport::QpInit& init) {
  for (uint32_t n : {init.send_cq, init.recv_cq})
    if (n >= cqs_.size() || cqs_[n] == nullptr)
      throw std::invalid_argument("create_qp: send_cq " + std::to_string(init.send_cq) + " / recv_cq " +
                                  std::to_string(init.recv_cq) + ": no CQ " + std::to_string(n));
  return transport_->create_qp(init);
}

int Hca::next_vl(HostPort& h) {
  const link::Port& p = h.port;
  const uint32_t ready = p.rx_ready_vls();
  if (ready & (1u << link::kVl15)) return link::kVl15;
  const uint32_t data = ready & ((1u << link::kVl15) - 1);
  if (data == 0) return -1;
  const unsigned vl = link::first_vl_from(data, h.next_vl);
  h.next_vl = (vl + 1) % p.vl_count();
  return static_cast<int>(vl);
}

void Hca::tx_space(HostPort& h) {
  if (h.transport_waiting) transport_->port_has_room(h.index);
  if (h.agent != nullptr) h.agent->tx_space(h.index + 1);
  if (h.on_tx_space) h.on_tx_space();
}

link::SubmitResult Hca::send_mad(unsigned i, ib::Packet* p) {
  if (i >= ports_.size()) throw std::out_of_range(std::string(name()) + ": no port index " + std::to_string(i));
  link::Port& port = ports_[i].port;
  return p->hdr.bth.dest_qp == ib::kQp0 ? port.submit_on_vl(p, link::kVl15) : port.submit(p);
}

void Hca::take(ib::Packet* p, unsigned index, uint64_t now) {
  link::ManagementAgent* agent = ports_[index].agent;
  if (agent != nullptr && p->hdr.bth.dest_qp <= ib::kQp1 && ib::is_iba_transport(p->hdr.lrh.lnh)) {
    agent->deliver(p, index + 1);
    return;
  }
  if (sink_ != nullptr && !transport_->owns(p->hdr.bth.dest_qp)) sink_->deliver(p, index, now);
  else transport_->deliver(p, index);  // a packet for no QP is counted there (unknown_qp_drops)
}

void Hca::drain(unsigned index) {
  HostPort& h = ports_[index];
  const uint64_t now = link::now_ps();
  for (;;) {
    if (h.draining_vl >= 0) {
      if (now < h.busy_until_ps) return;  // still reading the current packet
      ib::Packet* p = h.port.rx_pop(static_cast<unsigned>(h.draining_vl));
      h.draining_vl = -1;
      take(p, index, now);
    }
    const int vl = next_vl(h);
    if (vl < 0) return;
    if (h.drain_rate_bps == 0) {
      take(h.port.rx_pop(static_cast<unsigned>(vl)), index, now);
      continue;
    }
    const double bits = 8.0 * h.port.rx_front(static_cast<unsigned>(vl))->wire_len;
    const auto read_ps = static_cast<uint64_t>(std::llround(bits * 1e12 / static_cast<double>(h.drain_rate_bps)));
    h.draining_vl = vl;
    h.busy_until_ps = now + read_ps;
    h.done.notify_at(h.busy_until_ps);
    return;
  }
}

}  // namespace hcasim::hca
