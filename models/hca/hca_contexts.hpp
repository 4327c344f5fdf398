#pragma once
// The HCA's context caches (QPC, CQC, MPT, MTT: context_cache.hpp) over its
// ICM tables in host memory (icm_layout.hpp): a miss is a DMA read of one
// entry over the host link, a dirty eviction a DMA write of one entry, each
// counted by its DmaPurpose (qpc, cqc, mpt, mtt, context_write_back); and its
// WQE cache (wqe_cache.hpp) over the QPs' rings, whose misses are DMA reads of
// the WQE's lines from its ring (wqe_refetch).
//
// Rules:
// - Until the driver gives the ICM's base (init_icm), contexts are always on
//   chip and nothing is counted: an HCA without a host (raw traffic, a test
//   rig without a driver) works as before.
// - qp_context: the QPC of the QP a packet is built or received for,
//   written (the packet changes the QP's state). cq_context: the CQC of the
//   CQ a completion goes to, written (its producer counter moves).
// - translate(key, addr, length, now): the MPT entry of the key's region,
//   then (once it is on chip: the MPT says where the region's MTT entries
//   are) the MTT cache line of every page [addr, addr + length) touches
//   (a line holds entry_bytes / 8 consecutive MTT entries: one fill reads
//   them all); returns when the last is on chip. A key no region has costs nothing (the check
//   before it failed).
// - forget_qp, forget_cq, forget_mr: the entries are gone (destroy_qp,
//   destroy_cq, dereg_mr); their cached lines are invalidated without a
//   write-back (forget_qp: the QP's WQE lines too; forget_wqes: those only,
//   when the QP goes to RESET).
// - wqe(qpn, send, wr_id, now): the WQE the HCA's front end posted with that
//   wr_id (its counter) is looked up in the WQE cache; wqe_fetched puts one
//   the fetcher brought in; wqe_done drops a completed one.
// - unit_context_load: with a first level (caches.qpc_l1, entries > 0), a
//   lookup there (fully associative or set-associative, as configured); a
//   context it does not hold costs its load time and takes a line. Without
//   one, or before init_icm, 0. forget_qp drops the QP's line there too.
//   present(QpcL1) is false without a first level (its statistics are not
//   reported).

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/hca/context_cache.hpp"
#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_config.hpp"
#include "models/hca/host_formats.hpp"
#include "models/hca/icm_layout.hpp"
#include "models/hca/memory_regions.hpp"
#include "models/hca/unit_context_store.hpp"
#include "models/hca/wqe_cache.hpp"
#include "models/transport/context_lookups.hpp"

namespace hcasim::hca {

enum class ContextKind : uint8_t { Qpc, Cqc, Mpt, Mtt, Wqe, QpcL1, kCount };
const char* to_string(ContextKind k);  // "qpc", "cqc", "mpt", "mtt", "wqe", "qpc_l1"

class HcaContexts : public transport::ContextLookups {
 public:
  // rings_of: where a QP's rings are (the WQE cache's refetches read them).
  // hca_key: the HCA's hash key (the first level's hashed index).
  HcaContexts(const HcaConfig& config, DmaEngine& dma, WqeCache::RingsOf rings_of = nullptr, uint64_t hca_key = 0);
  HcaContexts(const HcaContexts&) = delete;
  HcaContexts& operator=(const HcaContexts&) = delete;

  void init_icm(uint64_t base);
  bool has_icm() const { return has_icm_; }
  const IcmLayout& layout() const { return layout_; }
  static IcmEntryBytes entry_bytes(const HcaConfig& config);

  uint64_t qp_context(uint32_t qpn, uint64_t now_ps) override;
  uint64_t cq_context(uint32_t cqn, uint64_t now_ps);
  uint64_t translate(const MemoryRegion& mr, uint64_t addr, uint64_t length, uint64_t now_ps);
  void forget_qp(uint32_t qpn);
  void forget_cq(uint32_t cqn);
  void forget_wqes(uint32_t qpn) {
    if (wqes_ != nullptr) wqes_->forget(qpn);
  }
  void forget_mr(const MemoryRegion& mr);
  uint64_t wqe(uint32_t qpn, bool send_queue, uint64_t wr_id, uint64_t now_ps) override;
  void wqe_done(uint32_t qpn, bool send_queue, uint64_t wr_id) override;
  uint64_t unit_context_load(uint32_t qpn, uint64_t now_ps) override;
  uint32_t wqe_prefetch_depth() const override { return has_icm_ ? prefetch_depth_ : 0; }
  void wqe_prefetch(uint32_t qpn, uint64_t wr_id, uint32_t posted, uint64_t now_ps) override;
  uint32_t wqe_reads_kept() const override { return has_icm_ ? reads_kept_ : 0; }
  void read_sent(uint32_t qpn, uint64_t wr_id, uint32_t outstanding) override;
  // pinned: a BlueFlame WQE, kept until its first use; false when the cache had no room to pin it.
  bool wqe_fetched(uint32_t qpn, bool send_queue, uint32_t counter, uint32_t bytes, uint64_t ready_ps,
                   bool pinned = false);

  // A cache is made at its first use (an HCA whose host posts no work, or that
  // has no host, makes none); reading one makes it as it would have started.
  const ContextCache& cache(ContextKind k) const {
    return k == ContextKind::Wqe ? wqes().cache() : k == ContextKind::QpcL1 ? first_level().cache() : at(k);
  }
  bool present(ContextKind k) const { return k != ContextKind::QpcL1 || configs_.qpc_l1.on(); }
  // Refetches of WQEs a BlueFlame write carried (wqe_cache.hpp).
  uint64_t blueflame_wqe_reads() const { return wqes_ ? wqes_->blueflame_reads() : 0; }
  // READ and atomic WQEs that left the cache between request and response (wqe_reads_kept).
  uint64_t read_wqes_released() const { return wqes_ ? wqes_->released() : 0; }

 private:
  ContextCache& at(ContextKind k) const;
  WqeCache& wqes() const;
  UnitContextStore& first_level() const;  // caches.qpc_l1 (only with entries > 0)
  uint64_t address(ContextKind k, uint64_t key) const;
  uint8_t* scratch(std::size_t bytes) const;  // at least bytes long

  DmaEngine& dma_;
  IcmEntryBytes bytes_;
  uint64_t mtt_per_line_;  // MTT entries per MTT cache line (its entry_bytes / kMttBytes)
  IcmLayout layout_;
  bool has_icm_ = false;
  ContextCachesConfig configs_;
  uint32_t prefetch_depth_;
  uint32_t prefetch_batch_;  // WQEs one prefetch reads at most (wqe_fetch_batch)
  uint32_t reads_kept_;      // wqe_reads_kept (0: no limit)
  WqeCache::RingsOf rings_of_;
  uint64_t hca_key_;  // the first level's hashed index
  // Made at the first use (at(), wqes(), scratch()).
  mutable std::array<std::unique_ptr<ContextCache>, static_cast<std::size_t>(ContextKind::Wqe)> caches_;  // the ICM's
  mutable std::vector<uint8_t> scratch_;  // fills land here (the model keeps the contents in C++); write-backs send zeros
  mutable std::unique_ptr<WqeCache> wqes_;
  mutable std::unique_ptr<UnitContextStore> first_level_;
};

}  // namespace hcasim::hca
