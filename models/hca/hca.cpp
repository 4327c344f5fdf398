#include "models/hca/hca.hpp"

#include "models/ib/opcodes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/hca/host_formats.hpp"
#include "models/ib/layout.hpp"
#include "models/ib/mad.hpp"
#include "models/ib/opcodes.hpp"
#include "models/link/splitmix.hpp"

namespace hcasim::hca {

Hca::Hca(const sc_core::sc_module_name& name, const std::vector<link::PortConfig>& ports,
         const std::vector<uint16_t>& lids, ib::PacketPool& pool, const transport::TransportConfig& transport,
         const HcaConfig& config, uint64_t requester_id)
    : sc_module(name), ports_(ports.size()), pool_(pool), config_(config), msix_(config.msix_vectors) {
  mmio.register_b_transport(this, &Hca::mmio_b_transport);
  mmio.register_transport_dbg(this, &Hca::mmio_transport_dbg);
  dma_ = std::make_unique<DmaEngine>(dma.get_base_port(), requester_id);
  contexts_ = std::make_unique<HcaContexts>(
      config_, *dma_, [this](uint32_t qpn) { return fetcher_ != nullptr ? fetcher_->rings(qpn) : nullptr; },
      link::fnv1a(basename()));
  memory_ = std::make_unique<HostMemoryAccess>(regions_, *dma_, *contexts_);
  std::vector<transport::TransportEngine::PortBinding> bindings;
  for (unsigned i = 0; i < ports.size(); ++i) {
    HostPort& h = ports_.emplace_back(*this, i, ports[i], lids.at(i), pool);
    h.port.on_rx_ready([this, i] { drain(i); });
    h.port.stamp_injections();
    // One pointer: the handler fits std::function's own storage (no heap hop).
    // It reads the record's first line.
    h.port.on_tx_space([host = &h] { host->hca.tx_space(*host); }, &h);
    bindings.push_back({&h.port, h.lid});
  }
  transport_ = std::make_unique<transport::TransportEngine>(transport, std::move(bindings), *memory_, pool);
  fetcher_ = std::make_unique<WqeFetcher>(config_, *transport_, *dma_, *contexts_);
  transport_->set_recv_source(fetcher_.get());
  transport_->set_context_lookups(contexts_.get());
  completions_ = std::make_unique<CompletionWriter>(config_, *dma_, msix_);
  completions_->on_overrun([this](uint32_t cqn) { async_events_.emplace_back(cqn, "IBV_EVENT_CQ_ERR"); });
  transport_->on_room_wanted([this](bool wanted) {
    for (HostPort& h : ports_) h.transport_waiting = wanted;
  });
  transport_->on_completion([this](transport::Qp& qp, bool send_queue, const transport::WorkCompletion& wc) {
    const uint32_t cqn = send_queue ? qp.init.send_cq : qp.init.recv_cq;
    completions_->write(cqn, wc, static_cast<uint32_t>(wc.wr_id), wc.solicited,
                        contexts_->cq_context(cqn, link::now_ps()));
  });
  transport_->on_async_event(
      [this](transport::Qp& qp, const char* event) { async_events_.emplace_back(qp.qpn, event); });
}

// The engines go before the fetcher and writer they call, the DMA last.
Hca::~Hca() {
  transport_.reset();
  fetcher_.reset();
  completions_.reset();
}

namespace {
bool power_of_two(uint32_t n) { return n != 0 && (n & (n - 1)) == 0; }
}  // namespace

uint32_t Hca::create_cq(const CqRing& ring) {
  if (ring.depth == 0 || !power_of_two(ring.entries) || ring.entries < ring.depth)
    throw std::invalid_argument("create_cq: a ring of " + std::to_string(ring.entries) + " entries for depth " +
                                std::to_string(ring.depth) + "; accepted: a power of two of at least depth >= 1");
  if (ring.vector >= msix_.size())
    throw std::invalid_argument("create_cq: vector " + std::to_string(ring.vector) + "; accepted: 0 to " +
                                std::to_string(msix_.size() - 1));
  const uint32_t n = completions_->add(ring);
  if (cq_users_.size() <= n) cq_users_.resize(n + 1);
  return n;
}

std::string Hca::modify_cq(uint32_t n, uint32_t count, uint64_t period_ps) {
  if (!completions_->exists(n)) return "no CQ " + std::to_string(n);
  if (count > kMaxCqModerationCount)
    return "modify_cq: cq_count " + std::to_string(count) + "; accepted: 0 to " +
           std::to_string(kMaxCqModerationCount);
  completions_->moderate(n, count, period_ps);
  return "";
}

std::string Hca::destroy_cq(uint32_t n) {
  if (!completions_->exists(n)) return "no CQ " + std::to_string(n);
  if (cq_users_[n] > 0)  // the scan only names the QP
    for (const transport::Qp* qp : transport_->qps())
      if (qp->init.send_cq == n || qp->init.recv_cq == n)
        return "CQ " + std::to_string(n) + " is in use by QP " + std::to_string(qp->qpn);
  completions_->remove(n);
  contexts_->forget_cq(n);
  return "";
}

uint32_t Hca::create_qp(const transport::QpInit& init, const QpRings& rings) {
  for (uint32_t n : {init.send_cq, init.recv_cq})
    if (!completions_->exists(n))
      throw std::invalid_argument("create_qp: send_cq " + std::to_string(init.send_cq) + " / recv_cq " +
                                  std::to_string(init.recv_cq) + ": no CQ " + std::to_string(n));
  const auto ring = [](const char* what, uint32_t entries, uint32_t wrs, uint32_t stride, uint32_t need) {
    if (!power_of_two(entries) || entries < wrs)
      throw std::invalid_argument(std::string("create_qp: ") + what + " ring of " + std::to_string(entries) +
                                  " entries for " + std::to_string(wrs) + " WRs; accepted: a power of two, at least that");
    if (stride < need)
      throw std::invalid_argument(std::string("create_qp: ") + what + " stride " + std::to_string(stride) +
                                  "; accepted: at least " + std::to_string(need) + " bytes");
  };
  ring("send", rings.sq_entries, init.max_send_wr, rings.sq_stride, send_stride(init.type, init.max_send_sge, 0));
  ring("receive", rings.rq_entries, init.max_recv_wr, rings.rq_stride, recv_stride(init.max_recv_sge));
  if (rings.uar < 1 || rings.uar > config_.uar_pages)
    throw std::invalid_argument("create_qp: UAR " + std::to_string(rings.uar) + "; accepted: 1 to " +
                                std::to_string(config_.uar_pages));
  const uint32_t qpn = transport_->create_qp(init).qpn;
  fetcher_->add(qpn, init.type, rings);
  for (uint32_t cq : {init.send_cq, init.recv_cq}) ++cq_users_[cq];
  return qpn;
}

MemoryRegion Hca::reg_mr(uint64_t addr, uint64_t length, uint32_t access) {
  const MemoryRegion mr = regions_.reg_mr(addr, length, access);
  const auto shift = static_cast<uint8_t>(__builtin_ctzll(config_.page_bytes));
  const uint64_t pages = length == 0 ? 1 : ((addr + length - 1) >> shift) - (addr >> shift) + 1;
  if (next_mtt_ + pages > IcmLayout::kMttEntries) {
    regions_.dereg_mr(mr.lkey);
    throw std::invalid_argument("reg_mr: " + std::to_string(pages) + " MTT entries needed, " +
                                std::to_string(IcmLayout::kMttEntries - next_mtt_) + " left; accepted: larger pages");
  }
  regions_.set_translation(mr.lkey, next_mtt_, pages, shift);
  next_mtt_ += pages;
  return *regions_.find_lkey(mr.lkey);
}

bool Hca::dereg_mr(uint32_t lkey) {
  const MemoryRegion* mr = regions_.find_lkey(lkey);
  if (mr == nullptr) return false;
  contexts_->forget_mr(*mr);
  return regions_.dereg_mr(lkey);
}

std::string Hca::destroy_qp(uint32_t qpn) {
  const transport::Qp* qp = transport_->find(qpn);
  if (qp == nullptr) return "no QP " + std::to_string(qpn);
  for (uint32_t cq : {qp->init.send_cq, qp->init.recv_cq}) --cq_users_[cq];
  transport_->destroy_qp(qpn);
  contexts_->forget_qp(qpn);
  fetcher_->remove(qpn);
  return "";
}

std::string Hca::modify_qp(uint32_t qpn, const transport::QpAttr& attr, uint32_t mask) {
  std::string why = transport_->modify_qp(qpn, attr, mask);
  if (!why.empty() || !(mask & transport::kAttrState)) return why;
  if (attr.qp_state == transport::QpState::Reset) {
    fetcher_->reset(qpn);
    contexts_->forget_wqes(qpn);
  }
  else fetcher_->kick(qpn);  // WQEs posted before RTS go now
  return "";
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
  // IBA 10.9.3: every packet but an SMP (QP0) must carry a P_Key of the port's table.
  if (ib::is_iba_transport(p->hdr.lrh.lnh) && p->hdr.bth.dest_qp != ib::kQp0 &&
      !ports_[index].port.pkey_accepts(p->hdr.bth.p_key)) {
    ports_[index].port.reject_pkey(p);
    return;
  }
  // Congestion control first: a CNP's DestQP may be 0 or 1 (a raw flow's).
  if (ports_[index].cc != nullptr && ib::is_iba_transport(p->hdr.lrh.lnh) && congestion_arrival(p, ports_[index]))
    return;
  if (agent != nullptr && p->hdr.bth.dest_qp <= ib::kQp1 && ib::is_iba_transport(p->hdr.lrh.lnh)) {
    agent->deliver(p, index + 1);
    return;
  }
  if (sink_ != nullptr && !transport_->owns(p->hdr.bth.dest_qp)) sink_->deliver(p, index, now);
  else transport_->deliver(p, index);  // a packet for no QP is counted there (unknown_qp_drops)
}

CaCongestionControl& Hca::congestion_control(unsigned i) {
  HostPort& h = ports_[i];
  if (h.cc == nullptr) {
    h.cc = std::make_unique<CaCongestionControl>();
    transport_->set_congestion(i, h.cc.get());  // the QPs' BECNs and injection delay
  }
  return *h.cc;
}

// A raw-traffic packet's QP is its flow (ca_congestion.hpp); a transport QP's
// is its number.
bool Hca::congestion_arrival(ib::Packet* p, HostPort& h) {
  CaCongestionControl& cc = *h.cc;
  const uint64_t now = link::now_ps();
  const ib::Bth& bth = p->hdr.bth;
  if (bth.opcode == ib::op::kCnp) {
    ++cc.stats().cnps_received;
    const uint32_t qp = transport_->owns(bth.dest_qp) ? bth.dest_qp : p->flow;
    cc.becn(cc.key_of(qp, p->hdr.lrh.sl), p->hdr.lrh.sl, now);
    pool_.release(p);
    return true;
  }
  if ((bth.resv8a & ib::kBthBecn) != 0 && ib::op::is_rc_response(bth.opcode) && transport_->owns(bth.dest_qp)) {
    ++cc.stats().becns_received;  // the BECN of an ACK: the requester's QP slows down
    cc.becn(cc.key_of(bth.dest_qp, p->hdr.lrh.sl), p->hdr.lrh.sl, now);
  }
  if ((bth.resv8a & ib::kBthFecn) == 0) return false;
  ++cc.stats().fecn_received;
  if (CaCongestionControl::fecn_answer(bth.opcode) != FecnAnswer::Cnp) return false;  // RC request: BECN in its ACK
  send_cnp(*p, h);
  return false;
}

// The CNP goes to the packet's source QP: a UD packet names it (DETH), a
// connected QP's is its destination QP (none when the QP is unknown here).
void Hca::send_cnp(const ib::Packet& p, HostPort& h) {
  uint32_t source_qp = p.hdr.deth.src_qp;
  if ((p.hdr.bth.opcode & 0xE0) != ib::op::kUdPrefix) {
    const transport::Qp* qp = transport_->find(p.hdr.bth.dest_qp);
    if (qp == nullptr) return;
    source_qp = qp->attr.dest_qp_num;
  }
  ib::Packet* c = pool_.acquire();
  c->hdr.lrh.sl = p.hdr.lrh.sl;
  c->hdr.lrh.lnh = ib::Lnh::IbaLocal;
  c->hdr.lrh.dlid = p.hdr.lrh.slid;
  c->hdr.lrh.slid = h.lid;
  c->hdr.bth.opcode = ib::op::kCnp;
  c->hdr.bth.p_key = p.hdr.bth.p_key;
  c->hdr.bth.resv8a = ib::kBthBecn;
  c->hdr.bth.dest_qp = source_qp;
  c->payload_len = 0;
  c->finalize_lengths();
  c->flow = p.flow;
  c->created_ps = link::now_ps();
  if (h.port.submit(c) == link::SubmitResult::Busy) {
    ++h.cnps_refused;
    pool_.release(c);
  } else {
    ++h.cc->stats().cnps_sent;
  }
}

bool Hca::rx_backlogged(uint64_t now) {
  if (memory_->backlog_bytes(now) < config_.rx_buffer_bytes) return false;
  rx_resume_.notify_at(memory_->backlog_drained_ps(now));
  return true;
}

void Hca::rx_resume() {
  for (unsigned i = 0; i < ports_.size(); ++i) drain(i);
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
    if (rx_backlogged(now)) return;
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

tlm::tlm_response_status Hca::register_access(tlm::tlm_generic_payload& trans) {
  const uint64_t offset = trans.get_address();
  const unsigned length = trans.get_data_length();
  uint8_t* data = trans.get_data_ptr();
  if (offset >= kMsixTable) {  // the MSI-X table: any aligned access inside it
    const uint64_t at = offset - kMsixTable;
    if (at + length > sizeof(MsixBytes) || (length != 4 && length != 8 && length != 16) || at % length != 0)
      return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    if (trans.is_read()) {
      if (msix_bytes_ != nullptr) std::memcpy(data, msix_bytes_->data() + at, length);
      else std::memset(data, 0, length);
      return tlm::TLM_OK_RESPONSE;
    }
    if (msix_bytes_ == nullptr) msix_bytes_ = std::make_unique<MsixBytes>();  // zeros
    std::memcpy(msix_bytes_->data() + at, data, length);
    const uint64_t v = at / kMsixEntryBytes;
    if (v < msix_.size()) {
      const uint8_t* e = msix_bytes_->data() + v * kMsixEntryBytes;
      msix_[v] = {get_u64(e), get_u32(e + 8), (get_u32(e + 12) & 1) != 0};
    }
    return tlm::TLM_OK_RESPONSE;
  }
  uint64_t value = 0;
  switch (offset) {
    case kRegDeviceId: value = kDeviceId; break;
    case kRegUarPages: value = config_.uar_pages; break;
    case kRegMsixVectors: value = msix_.size(); break;
    default: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  }
  if (!trans.is_read() || (length != 4 && length != 8)) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  for (unsigned i = 0; i < length; ++i) data[i] = static_cast<uint8_t>(value >> (8 * i));
  return tlm::TLM_OK_RESPONSE;
}

tlm::tlm_response_status Hca::uar_write(uint32_t uar, uint64_t offset, const uint8_t* data, unsigned length,
                                        uint64_t at_ps) {
  const auto qp_ok = [&](uint32_t qpn) {
    const QpRings* r = fetcher_->rings(qpn);
    return r != nullptr && r->uar == uar;
  };
  if (offset == kUarSendDoorbell && length == 8) {
    const uint32_t qpn = get_u32(data + 4) & 0xFFFFFF;
    if (!qp_ok(qpn)) return tlm::TLM_GENERIC_ERROR_RESPONSE;
    fetcher_->send_doorbell(qpn, get_u32(data), at_ps);
    return tlm::TLM_OK_RESPONSE;
  }
  if (offset == kUarCqDoorbell && length == 8) {
    const uint32_t word = get_u32(data);
    const uint32_t cqn = word & 0xFFFFFF;
    const auto command = static_cast<uint8_t>(word >> 24);
    if (!completions_->exists(cqn) || (command != kCqArmNext && command != kCqArmSolicited))
      return tlm::TLM_GENERIC_ERROR_RESPONSE;
    completions_->arm(cqn, command, get_u32(data + 4), at_ps);
    return tlm::TLM_OK_RESPONSE;
  }
  if (offset == kUarBlueFlame && length >= kSegmentBytes && length <= kBlueFlameBytes && length % kSegmentBytes == 0) {
    const uint32_t qpn = read_send_header(data).qpn;
    if (!qp_ok(qpn)) return tlm::TLM_GENERIC_ERROR_RESPONSE;
    fetcher_->blueflame(qpn, data, length, at_ps);
    return tlm::TLM_OK_RESPONSE;
  }
  return tlm::TLM_ADDRESS_ERROR_RESPONSE;
}

void Hca::mmio_b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  tlm::tlm_response_status status = tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (trans.get_byte_enable_ptr() != nullptr) {
    status = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  } else if (trans.get_streaming_width() < trans.get_data_length()) {
    status = tlm::TLM_BURST_ERROR_RESPONSE;
  } else if (trans.is_read() || trans.is_write()) {
    (trans.is_read() ? mmio_stats_.reads : mmio_stats_.writes) += 1;
    const uint64_t offset = trans.get_address();
    const uint64_t page = offset / kPageBytes;
    if (page == 0) status = register_access(trans);
    else if (page <= config_.uar_pages && trans.is_write())
      status = uar_write(static_cast<uint32_t>(page), offset % kPageBytes, trans.get_data_ptr(),
                         trans.get_data_length(), link::now_ps() + delay.value());
  } else {
    status = tlm::TLM_OK_RESPONSE;  // TLM_IGNORE_COMMAND
  }
  if (status != tlm::TLM_OK_RESPONSE) ++mmio_stats_.errors;
  trans.set_response_status(status);
}

unsigned int Hca::mmio_transport_dbg(tlm::tlm_generic_payload& trans) {
  // Reads of the register page only: they change nothing.
  if (!trans.is_read() || trans.get_address() >= kPageBytes) return 0;
  return register_access(trans) == tlm::TLM_OK_RESPONSE ? trans.get_data_length() : 0;
}

}  // namespace hcasim::hca
