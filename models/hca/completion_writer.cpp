#include "models/hca/completion_writer.hpp"

#include <algorithm>

#include "models/hca/host_formats.hpp"

namespace hcasim::hca {

CompletionWriter::CompletionWriter(const HcaConfig& config, DmaEngine& dma, const std::vector<MsixEntry>& msix)
    : config_(config), dma_(dma), msix_(msix) {}

uint32_t CompletionWriter::add(const CqRing& ring) {
  const auto cqn = static_cast<uint32_t>(cqs_.size());
  cqs_.push_back(std::make_unique<Cq>(*this, cqn));
  cqs_.back()->ring = ring;
  return cqn;
}

void CompletionWriter::remove(uint32_t cqn) {
  if (exists(cqn)) cqs_[cqn].reset();
}

void CompletionWriter::write(uint32_t cqn, const transport::WorkCompletion& wc, uint32_t wqe_index, bool solicited,
                             uint64_t not_before_ps) {
  if (!exists(cqn)) return;
  Cq& cq = *cqs_[cqn];
  const CqRing& r = cq.ring;
  uint64_t issue = std::max(link::now_ps(), not_before_ps);
  if (!cq.overrun && cq.produced - cq.consumed >= r.depth) {
    uint8_t record[4];
    issue = dma_.read(r.doorbell_record, record, sizeof record, DmaPurpose::DoorbellRecord, issue);
    ++stats_.record_reads;
    cq.consumed = get_u32(record);
    if (cq.produced - cq.consumed >= r.depth) {
      cq.overrun = true;
      if (on_overrun_) on_overrun_(cqn);
    }
  }
  if (cq.overrun) {
    ++stats_.lost;
    return;
  }
  encode_cqe(wc, wqe_index, cq.produced, r.entries, cqe_);
  dma_.write(r.addr + uint64_t{cq.produced & (r.entries - 1)} * kCqeBytes, cqe_, kCqeBytes, DmaPurpose::Cqe, issue);
  ++cq.produced;
  ++stats_.cqes;
  const bool matches = cq.armed == kCqArmNext ||
                       (cq.armed == kCqArmSolicited && (solicited || wc.status != transport::WcStatus::Success));
  if (!matches) return;
  if (++cq.pending >= config_.msix_moderation_count) raise(cq);
  else if (cq.pending == 1 && config_.msix_moderation_ps > 0) cq.timer.notify_in(config_.msix_moderation_ps);
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
