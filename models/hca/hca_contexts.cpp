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
    case ContextKind::QpcL1: return "qpc_l1";
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

HcaContexts::HcaContexts(const HcaConfig& config, DmaEngine& dma, WqeCache::RingsOf rings_of, uint64_t hca_key)
    : dma_(dma),
      bytes_(entry_bytes(config)),
      mtt_per_line_(std::max<uint32_t>(1, config.caches.mtt.entry_bytes / kMttBytes)),
      configs_(config.caches),
      prefetch_depth_(config.wqe_prefetch),
      prefetch_batch_(config.wqe_fetch_batch),
      reads_kept_(config.wqe_reads_kept),
      rings_of_(std::move(rings_of)),
      hca_key_(hca_key) {
  // Refused now, as when the caches were made with the HCA.
  for (const ContextCacheConfig* c : {&configs_.qpc, &configs_.cqc, &configs_.mpt, &configs_.mtt, &configs_.wqe})
    ContextCache::check(*c);
  if (configs_.qpc_l1.on()) ContextCache::check(configs_.qpc_l1.store);
}

uint8_t* HcaContexts::scratch(std::size_t bytes) const {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return scratch_.data();
}

ContextCache& HcaContexts::at(ContextKind kind) const {
  std::unique_ptr<ContextCache>& made = caches_[static_cast<std::size_t>(kind)];
  if (made != nullptr) return *made;
  const std::array<const ContextCacheConfig*, 4> configs{&configs_.qpc, &configs_.cqc, &configs_.mpt, &configs_.mtt};
  const ContextCacheConfig& c = *configs[static_cast<std::size_t>(kind)];
  const auto purpose = static_cast<DmaPurpose>(static_cast<unsigned>(DmaPurpose::Qpc) + static_cast<unsigned>(kind));
  const uint32_t bytes = c.entry_bytes;
  // const_cast: the caches are made on first use, from const readers too; the
  // transfers run only from the non-const lookups.
  auto* self = const_cast<HcaContexts*>(this);
  made = std::make_unique<ContextCache>(
      c,
      [self, kind, purpose, bytes](uint64_t key, uint64_t start) {
        return self->dma_.read(self->address(kind, key), self->scratch(bytes), bytes, purpose, start);
      },
      [self, kind, bytes](uint64_t key, uint64_t start) {
        uint8_t* zeros = self->scratch(bytes);
        std::fill_n(zeros, bytes, 0);
        return self->dma_.write(self->address(kind, key), zeros, bytes, DmaPurpose::ContextWriteBack, start);
      });
  return *made;
}

WqeCache& HcaContexts::wqes() const {
  if (wqes_ == nullptr) {
    auto* self = const_cast<HcaContexts*>(this);
    wqes_ = std::make_unique<WqeCache>(configs_.wqe, rings_of_, [self](uint64_t addr, uint32_t bytes, uint64_t start) {
      return self->dma_.read(addr, self->scratch(bytes), bytes, DmaPurpose::WqeRefetch, start);
    });
  }
  return *wqes_;
}

UnitContextStore& HcaContexts::first_level() const {
  if (first_level_ == nullptr) first_level_ = std::make_unique<UnitContextStore>(configs_.qpc_l1, hca_key_);
  return *first_level_;
}

uint64_t HcaContexts::unit_context_load(uint32_t qpn, uint64_t now_ps) {
  if (!has_icm_ || !configs_.qpc_l1.on()) return 0;
  return first_level().load(qpn, now_ps);
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
    case ContextKind::QpcL1:
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
  if (ContextCache* c = caches_[static_cast<std::size_t>(ContextKind::Cqc)].get()) c->invalidate(cqn);
}

void HcaContexts::forget_qp(uint32_t qpn) {
  if (ContextCache* c = caches_[static_cast<std::size_t>(ContextKind::Qpc)].get()) c->invalidate(qpn);
  if (first_level_ != nullptr) first_level_->forget(qpn);
  forget_wqes(qpn);
}

uint64_t HcaContexts::wqe(uint32_t qpn, bool send_queue, uint64_t wr_id, uint64_t now_ps) {
  if (!has_icm_) return now_ps;
  return wqes().lookup(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, static_cast<uint32_t>(wr_id), now_ps);
}

void HcaContexts::wqe_prefetch(uint32_t qpn, uint64_t wr_id, uint32_t posted, uint64_t now_ps) {
  if (has_icm_)
    wqes().prefetch(qpn, WqeRing::Send, static_cast<uint32_t>(wr_id), std::min(posted, prefetch_batch_), now_ps);
}

void HcaContexts::read_sent(uint32_t qpn, uint64_t wr_id, uint32_t outstanding) {
  if (has_icm_ && reads_kept_ != 0 && outstanding > reads_kept_)
    wqes().release(qpn, WqeRing::Send, static_cast<uint32_t>(wr_id));
}

void HcaContexts::wqe_done(uint32_t qpn, bool send_queue, uint64_t wr_id) {
  if (has_icm_) wqes().done(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, static_cast<uint32_t>(wr_id));
}

bool HcaContexts::wqe_fetched(uint32_t qpn, bool send_queue, uint32_t counter, uint32_t bytes, uint64_t ready_ps,
                              bool pinned) {
  if (!has_icm_) return true;
  return wqes().insert(qpn, send_queue ? WqeRing::Send : WqeRing::Receive, counter, bytes, ready_ps, pinned);
}

void HcaContexts::forget_mr(const MemoryRegion& mr) {
  if (ContextCache* c = caches_[static_cast<std::size_t>(ContextKind::Mpt)].get()) c->invalidate(mr.lkey >> 8);
  ContextCache* mtt = caches_[static_cast<std::size_t>(ContextKind::Mtt)].get();
  if (mr.mtt_count == 0 || mtt == nullptr) return;
  const uint64_t first_line = mr.mtt_first / mtt_per_line_;
  mtt->invalidate_range(first_line, (mr.mtt_first + mr.mtt_count - 1) / mtt_per_line_ - first_line + 1);
}

}  // namespace hcasim::hca
