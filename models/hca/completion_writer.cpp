#include "models/hca/completion_writer.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/hca/host_formats.hpp"
#include "models/transport/cyclic_numbers.hpp"

namespace hcasim::hca {

CompletionWriter::CompletionWriter(const HcaConfig& config, DmaEngine& dma, const std::vector<MsixEntry>& msix)
    : config_(config), dma_(dma), msix_(msix) {}

uint32_t CompletionWriter::add(const CqRing& ring) {
  const std::optional<uint32_t> taken =
      transport::take_cyclic(next_cqn_, 0, kMaxCqn, [this](uint32_t n) { return exists(n); });
  if (!taken)
    throw std::invalid_argument("create_cq: every CQ number from 0 to " + std::to_string(kMaxCqn) +
                                " is in use; accepted: destroy a CQ first");
  const uint32_t cqn = *taken;
  if (cqs_.size() <= cqn) cqs_.resize(cqn + 1);
  cqs_[cqn] = std::make_unique<Cq>(*this, cqn);
  Cq& cq = *cqs_[cqn];
  cq.ring = ring;
  cq.compress = ring.compression == CqRing::Compression::On ||
                (ring.compression == CqRing::Compression::Default && config_.cqe_compression);
  if (cq.compress) {  // a block fits in the CQ's depth of ring entries
    const uint64_t fits = 1 + uint64_t{kMiniCqesPerEntry} * (std::max<uint32_t>(ring.depth, 1) - 1);
    cq.block_max = static_cast<uint32_t>(
        std::min<uint64_t>({config_.cqe_compression_max, fits, uint64_t{kMaxMiniCqes} + 1}));
  }
  moderate(cqn, config_.msix_moderation_count, config_.msix_moderation_ps);
  return cqn;
}

void CompletionWriter::remove(uint32_t cqn) {
  if (exists(cqn)) cqs_[cqn].reset();
}

void CompletionWriter::moderate(uint32_t cqn, uint32_t count, uint64_t period_ps) {
  if (!exists(cqn)) return;
  Cq& cq = *cqs_[cqn];
  cq.moderation_count = std::max<uint32_t>(count, 1);
  cq.moderation_ps = period_ps;
}

void CompletionWriter::write(uint32_t cqn, const transport::WorkCompletion& wc, uint32_t wqe_index, bool solicited,
                             uint64_t not_before_ps) {
  if (!exists(cqn)) return;
  Cq& cq = *cqs_[cqn];
  if (not_before_ps > link::now_ps() || !cq.waiting.empty()) {
    cq.waiting.push_back({wc, wqe_index, solicited});
    cq.context_ps = std::max(cq.context_ps, not_before_ps);
    cq.context_due.notify_at(cq.context_ps);
    return;
  }
  take(cq, {wc, wqe_index, solicited});
}

void CompletionWriter::take(Cq& cq, const Cq::Held& h) {
  if (!cq.block.empty() && !joins_block(cq.block.front().wc, h.wc)) flush(cq);
  cq.block.push_back(h);
  if (!cq.compress || cq.block.size() >= cq.block_max || !joins_block(h.wc, h.wc)) flush(cq);
  else if (cq.block.size() == 1) cq.block_due.notify_in(config_.cqe_compression_wait_ps);
}

void CompletionWriter::take_waiting(Cq& cq) {
  if (link::now_ps() < cq.context_ps) {  // a later completion's fill moved it on
    cq.context_due.notify_at(cq.context_ps);
    return;
  }
  for (const Cq::Held& h : cq.waiting) take(cq, h);
  cq.waiting.clear();
}

void CompletionWriter::flush(Cq& cq) {
  cq.block_due.cancel();
  if (cq.block.empty()) return;
  const CqRing& r = cq.ring;
  const auto n = static_cast<uint32_t>(cq.block.size());
  const uint32_t need = cqe_block_entries(n);
  uint64_t issue = link::now_ps();
  if (!cq.overrun && cq.produced + need - cq.consumed > r.depth) {
    uint8_t record[4];
    issue = dma_.read(r.doorbell_record, record, sizeof record, DmaPurpose::DoorbellRecord, issue);
    ++stats_.record_reads;
    cq.consumed = get_u32(record);
    if (cq.produced + need - cq.consumed > r.depth) {
      cq.overrun = true;
      if (on_overrun_) on_overrun_(cq.cqn);
    }
  }
  if (cq.overrun) {
    stats_.lost += n;
    cq.block.clear();
    return;
  }
  // The title, then the mini-CQE arrays, each at its ring entry's index (for the owner bit).
  entries_.resize(uint64_t{need} * kCqeBytes);
  encode_cqe(cq.block[0].wc, cq.block[0].wqe_index, cq.produced, r.entries, entries_.data());
  set_mini_count(entries_.data(), static_cast<uint8_t>(n - 1));
  MiniCqe minis[kMiniCqesPerEntry];
  for (uint32_t e = 1; e < need; ++e) {
    uint32_t k = 0;
    for (uint32_t i = 1 + (e - 1) * kMiniCqesPerEntry; i < n && k < kMiniCqesPerEntry; ++i, ++k)
      minis[k] = {static_cast<uint16_t>(cq.block[i].wqe_index), cq.block[i].wc.opcode, cq.block[i].wc.byte_len};
    encode_mini_array(minis, k, cq.produced + e, r.entries, entries_.data() + uint64_t{e} * kCqeBytes);
  }
  // One write, or two where the block wraps the ring's end.
  const uint32_t first = cq.produced & (r.entries - 1);
  const uint32_t before_end = std::min(need, r.entries - first);
  dma_.write(r.addr + uint64_t{first} * kCqeBytes, entries_.data(), uint64_t{before_end} * kCqeBytes, DmaPurpose::Cqe,
             issue);
  if (before_end < need)
    dma_.write(r.addr, entries_.data() + uint64_t{before_end} * kCqeBytes, uint64_t{need - before_end} * kCqeBytes,
               DmaPurpose::Cqe, issue);
  cq.produced += need;
  stats_.cqes += need;
  stats_.completions += n;
  if (n > 1) {
    ++stats_.blocks;
    stats_.mini_cqes += n - 1;
  }
  const std::size_t keep = std::size_t{r.entries} * kTracedPerEntry;
  for (const Cq::Held& h : cq.block) {
    if (cq.traced.size() == keep) cq.traced.pop_front();
    cq.traced.push_back({cq.written++, h.wc.times});
  }
  for (const Cq::Held& h : cq.block) count_for_interrupt(cq, h);
  cq.block.clear();
}

transport::WrTimes CompletionWriter::times(uint32_t cqn, uint64_t seq) {
  if (!exists(cqn)) return {};
  Cq& cq = *cqs_[cqn];
  while (!cq.traced.empty() && cq.traced.front().seq < seq) cq.traced.pop_front();
  if (cq.traced.empty() || cq.traced.front().seq != seq) return {};
  const transport::WrTimes t = cq.traced.front().times;
  cq.traced.pop_front();
  return t;
}

void CompletionWriter::count_for_interrupt(Cq& cq, const Cq::Held& h) {
  const bool matches = cq.armed == kCqArmNext ||
                       (cq.armed == kCqArmSolicited && (h.solicited || h.wc.status != transport::WcStatus::Success));
  if (!matches) return;
  if (++cq.pending >= cq.moderation_count) raise(cq);
  else if (cq.pending == 1 && cq.moderation_ps > 0) cq.timer.notify_in(cq.moderation_ps);
}

void CompletionWriter::arm(uint32_t cqn, uint8_t command, uint32_t consumer, uint64_t at_ps) {
  if (!exists(cqn)) return;
  Cq& cq = *cqs_[cqn];
  cq.arm_command = command;
  cq.arm_consumer = consumer;
  if (at_ps <= link::now_ps()) arm_now(cq);
  else cq.arm_due.notify_at(at_ps);
}

void CompletionWriter::arm_now(Cq& cq) {
  ++stats_.arms;
  cq.consumed = cq.arm_consumer;
  cq.armed = cq.arm_command;
  cq.pending = 0;
  if (cq.produced != cq.arm_consumer) raise(cq);  // completions are waiting already
}

void CompletionWriter::raise(Cq& cq) {
  cq.timer.cancel();
  if (cq.armed == 0) return;
  cq.armed = 0;
  cq.pending = 0;
  const uint32_t v = cq.ring.vector;
  if (v >= msix_.size() || msix_[v].masked) {
    ++stats_.masked;
    return;
  }
  dma_.msix(msix_[v].address, msix_[v].data, v, link::now_ps());
  ++stats_.interrupts;
}

}  // namespace hcasim::hca
