#include "models/hca/hca_contexts.hpp"

#include <algorithm>

namespace hcasim::hca {

const char* to_string(ContextKind k) {
  switch (k) {
    case ContextKind::Qpc: return "qpc";
    case ContextKind::Cqc: return "cqc";
    case ContextKind::Mpt: return "mpt";
    case ContextKind::Mtt: return "mtt";
    case ContextKind::Wqe: return "wqe";
    case ContextKind::kCount: break;
  }
  return "unknown";
}

IcmEntryBytes HcaContexts::entry_bytes(const HcaConfig& config) {
  IcmEntryBytes b;
  b.qpc = config.caches.qpc.entry_bytes;
  b.cqc = config.caches.cqc.entry_bytes;
  b.mpt = config.caches.mpt.entry_bytes;
  b.mtt = kMttBytes;  // the table's entries; a cache line holds entry_bytes / kMttBytes of them
  return b;
}

HcaContexts::HcaContexts(const HcaConfig& config, DmaEngine& dma, WqeCache::RingsOf rings_of)
    : dma_(dma),
      bytes_(entry_bytes(config)),
      mtt_per_line_(std::max<uint32_t>(1, config.caches.mtt.entry_bytes / kMttBytes)),
      wqes_(config.caches.wqe, std::move(rings_of), [this](uint64_t addr, uint32_t bytes, uint64_t start) {
        return dma_.read(addr, scratch_.data(), bytes, DmaPurpose::WqeRefetch, start);
      }) {
  const std::array<std::pair<ContextKind, const ContextCacheConfig*>, 4> kinds{
      {{ContextKind::Qpc, &config.caches.qpc},
       {ContextKind::Cqc, &config.caches.cqc},
       {ContextKind::Mpt, &config.caches.mpt},
       {ContextKind::Mtt, &config.caches.mtt}}};
  uint32_t largest = config.caches.wqe.entry_bytes;
  for (const auto& entry : kinds) {
    // Copies, not structured bindings: C++17 lambdas cannot capture those (clang refuses).
    const ContextKind kind = entry.first;
    const ContextCacheConfig* c = entry.second;
    largest = std::max(largest, c->entry_bytes);
    const auto purpose = static_cast<DmaPurpose>(static_cast<unsigned>(DmaPurpose::Qpc) + static_cast<unsigned>(kind));
    const uint32_t bytes = c->entry_bytes;
    caches_[static_cast<std::size_t>(kind)] = std::make_unique<ContextCache>(
        *c,
        [this, kind, purpose, bytes](uint64_t key, uint64_t start) {
          return dma_.read(address(kind, key), scratch_.data(), bytes, purpose, start);
        },
        [this, kind, bytes](uint64_t key, uint64_t start) {
          std::fill_n(scratch_.begin(), bytes, 0);
          return dma_.write(address(kind, key), scratch_.data(), bytes, DmaPurpose::ContextWriteBack, start);
        });
  }
  scratch_.assign(largest, 0);
}

void HcaContexts::init_icm(uint64_t base) {
  layout_ = IcmLayout(base, bytes_);
  has_icm_ = true;
}

uint64_t HcaContexts::address(ContextKind k, uint64_t key) const {
  switch (k) {
    case ContextKind::Qpc: return layout_.qpc(static_cast<uint32_t>(key));
    case ContextKind::Cqc: return layout_.cqc(static_cast<uint32_t>(key));
    case ContextKind::Mpt: return layout_.mpt(static_cast<uint32_t>(key));
    case ContextKind::Mtt: return layout_.mtt(key * mtt_per_line_);
    case ContextKind::Wqe:
    case ContextKind::kCount: break;
  }
  return 0;
}

uint64_t HcaContexts::qp_context(uint32_t qpn, uint64_t now_ps) {
  return has_icm_ ? at(ContextKind::Qpc).access(qpn, true, now_ps) : now_ps;
}

uint64_t HcaContexts::cq_context(uint32_t cqn, uint64_t now_ps) {
  return has_icm_ ? at(ContextKind::Cqc).access(cqn, true, now_ps) : now_ps;
}

uint64_t HcaContexts::translate(const MemoryRegion& mr, uint64_t addr, uint64_t length, uint64_t now_ps) {
  if (!has_icm_ || length == 0) return now_ps;
  const uint64_t mpt_ready = at(ContextKind::Mpt).access(mr.lkey >> 8, false, now_ps);
  const uint64_t region_page = mr.addr >> mr.page_shift;
  const uint64_t first = (addr >> mr.page_shift) - region_page;
  const uint64_t last = ((addr + length - 1) >> mr.page_shift) - region_page;
  uint64_t ready = mpt_ready;
  ContextCache& mtt = at(ContextKind::Mtt);
  const uint64_t first_line = (mr.mtt_first + first) / mtt_per_line_;
  const uint64_t last_line = (mr.mtt_first + last) / mtt_per_line_;
  for (uint64_t line = first_line; line <= last_line; ++line) ready = std::max(ready, mtt.access(line, false, mpt_ready));
  return ready;
}

void HcaContexts::forget_cq(uint32_t cqn) {
  at(ContextKind::Cqc).invalidate(cqn);
}

void HcaContexts::forget_qp(uint32_t qpn) {
  at(ContextKind::Qpc).invalidate(qpn);
  wqes_.forget(qpn);
}

uint64_t HcaContexts::wqe(uint32_t qpn, bool send_queue, uint64_t wr_id, uint64_t now_ps) {
  if (!has_icm_) return now_ps;
  return wqes_.lookup(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, static_cast<uint32_t>(wr_id), now_ps);
}

void HcaContexts::wqe_done(uint32_t qpn, bool send_queue, uint64_t wr_id) {
  if (has_icm_) wqes_.done(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, static_cast<uint32_t>(wr_id));
}

void HcaContexts::wqe_fetched(uint32_t qpn, bool send_queue, uint32_t counter, uint32_t bytes, uint64_t ready_ps) {
  if (has_icm_) wqes_.insert(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, counter, bytes, ready_ps);
}

void HcaContexts::forget_mr(const MemoryRegion& mr) {
  at(ContextKind::Mpt).invalidate(mr.lkey >> 8);
  if (mr.mtt_count == 0) return;
  const uint64_t first_line = mr.mtt_first / mtt_per_line_;
  at(ContextKind::Mtt).invalidate_range(first_line, (mr.mtt_first + mr.mtt_count - 1) / mtt_per_line_ - first_line + 1);
}

}  // namespace hcasim::hca
