#pragma once
// Completion queues in host memory: the HCA writes each completion as a CQE
// (host_formats.hpp) by DMA into its CQ's ring, and raises the CQ's MSI-X
// interrupt when software armed it.
//
// Rules:
// - CQE n of a CQ goes to ring entry n mod entries, with the owner bit of its
//   pass; the CQE write is a posted DMA write, so it lands after the data
//   writes of its message (the link keeps posted writes in order).
// - A CQ holds `depth` completions (ibv_create_cq): when depth CQEs are
//   written and not known to be polled, the HCA reads the CQ's doorbell
//   record (the consumer counter) and writes the CQE when that read is done;
//   if the CQ is still full it is overrun: the completion is lost, the CQ is
//   in error from then on (every later completion is lost too) and the HCA
//   raises IBV_EVENT_CQ_ERR once.
// - Arming (a CQ doorbell: arm for the next completion, or the next solicited
//   one) takes effect at its arrival; when CQEs beyond the consumer counter
//   it names are already written, the interrupt is raised at once. An armed
//   CQ counts the completions that match (every one, or solicited receive
//   completions and errors); at its moderation count of them, or its
//   moderation period after the first (when set), it raises its vector's
//   MSI-X message and disarms. A masked vector raises nothing (counted).
//   Count and period start as the HCA's msix_moderation_count and
//   msix_moderation_ps; modify_cq changes them for one CQ (ibv_modify_cq's
//   cq_count and cq_period; a count of 0 means every completion, as 1).
// - CQE compression (the CQ's compression, from create_cq or the HCA's
//   cqe_compression): a completion that can join the CQ's open block
//   (host_formats.hpp joins_block: same QP, plain success) is held in it; one
//   that cannot first writes the open block. A block is written as one DMA
//   write (two when it wraps the ring's end) when it holds
//   cqe_compression_max completions (at most as many as fit in depth ring
//   entries), or cqe_compression_wait_ps after its first completion, or when
//   a completion that cannot join arrives (an error or a completion with
//   immediate data is then written alone, at once). A block of one
//   completion is a plain CQE. Without compression every completion is a
//   block of one, written at once.
// - Ring entries are what the CQ holds: a block of n completions needs
//   cqe_block_entries(n) of them; the room check and the overrun above
//   apply to the block as a whole (an overrun loses all of its completions).
//   Moderation counts the block's completions when it is written.
// - Latency parts (model tracing, not in the CQE): the WrTimes of each
//   completion written are kept, in the order written, until the driver takes
//   them by their number (times()); at most kTracedPerEntry per ring entry
//   are kept, the oldest dropped first, so a CQ nobody polls holds a bounded
//   number.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_config.hpp"
#include "models/hca/host_formats.hpp"
#include "models/ib/ring_fifo.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::hca {

constexpr uint32_t kMaxCqModerationCount = 0xFFFF;  // ibv_modify_cq's cq_count is 16 bits

// Where a CQ's ring is (the command interface's create_cq).
struct CqRing {
  uint64_t addr = 0;              // entries x 64 bytes
  uint32_t entries = 0;           // a power of two, at least depth
  uint32_t depth = 0;             // completions it holds (ibv_create_cq's cqe)
  uint64_t doorbell_record = 0;   // 8 bytes: consumer counter
  uint32_t vector = 0;            // MSI-X vector of its interrupts
  enum class Compression : uint8_t { Default, On, Off };
  Compression compression = Compression::Default;  // Default: the HCA's cqe_compression
};

struct MsixEntry {
  uint64_t address = 0;
  uint32_t data = 0;
  bool masked = true;             // PCIe: vectors start masked
};

struct CompletionStats {
  uint64_t cqes = 0;              // ring entries written (CQEs and mini-CQE arrays)
  uint64_t completions = 0;       // completions written (a compressed block holds several)
  uint64_t blocks = 0;            // compressed blocks written (a title with mini CQEs)
  uint64_t mini_cqes = 0;         // completions written as mini CQEs
  uint64_t lost = 0;              // completions lost to an overrun
  uint64_t record_reads = 0;      // reads of CQ doorbell records (the CQ looked full)
  uint64_t arms = 0;              // arm doorbells handled
  uint64_t interrupts = 0;        // MSI-X messages sent
  uint64_t masked = 0;            // interrupts a masked vector swallowed
};

class CompletionWriter {
 public:
  CompletionWriter(const HcaConfig& config, DmaEngine& dma, const std::vector<MsixEntry>& msix);
  CompletionWriter(const CompletionWriter&) = delete;
  CompletionWriter& operator=(const CompletionWriter&) = delete;

  // CQ numbers: 24 bits (the CQ doorbell's field), handed out in turn; a
  // destroyed number is taken again only after the range wraps
  // (transport/cyclic_numbers.hpp).
  static constexpr uint32_t kMaxCqn = 0xFFFFFF;
  // The CQ's number (0, 1, ... in turn); throws std::invalid_argument when every number is in use.
  uint32_t add(const CqRing& ring);
  void remove(uint32_t cqn);
  bool exists(uint32_t cqn) const { return cqn < cqs_.size() && cqs_[cqn] != nullptr; }
  const CqRing& ring(uint32_t cqn) const { return cqs_.at(cqn)->ring; }
  bool overrun(uint32_t cqn) const { return cqs_.at(cqn)->overrun; }
  // Runs once when a CQ is overrun (the HCA's asynchronous event).
  void on_overrun(std::function<void(uint32_t cqn)> f) { on_overrun_ = std::move(f); }

  // A completion for CQ cqn; wqe_index is the counter of the WQE it reports.
  // not_before_ps: when the CQ's context is on chip. Until then the
  // completion waits on chip in its CQ's queue (with any that came after it:
  // a CQ's completions stay in order) and is written when it is.
  void write(uint32_t cqn, const transport::WorkCompletion& wc, uint32_t wqe_index, bool solicited,
             uint64_t not_before_ps = 0);
  // A CQ doorbell arriving at at_ps: arm (kCqArmNext / kCqArmSolicited) with the consumer counter.
  void arm(uint32_t cqn, uint8_t command, uint32_t consumer, uint64_t at_ps);
  // Interrupt moderation of one CQ from now on (count 0 = 1: every completion; period 0 = no timer).
  void moderate(uint32_t cqn, uint32_t count, uint64_t period_ps);
  bool compressing(uint32_t cqn) const { return cqs_.at(cqn)->compress; }
  // The WrTimes of CQ cqn's completion number `seq` (0, 1, ... in the order
  // written); forgets those before it. Empty when not kept (or no such CQ).
  transport::WrTimes times(uint32_t cqn, uint64_t seq);
  static constexpr uint32_t kTracedPerEntry = kMiniCqesPerEntry + 1;

  const CompletionStats& stats() const { return stats_; }

 private:
  struct Cq {
    Cq(CompletionWriter& owner, uint32_t cqn) : owner(owner), cqn(cqn) {}
    void on_timer() { owner.raise(*this); }
    void on_arm() { owner.arm_now(*this); }
    void on_block_due() { owner.flush(*this); }
    void on_context_due() { owner.take_waiting(*this); }
    CompletionWriter& owner;
    uint32_t cqn;
    CqRing ring;
    bool compress = false;
    uint32_t block_max = 1;       // completions a block holds at most
    uint32_t moderation_count = 1;
    uint64_t moderation_ps = 0;
    struct Held {
      transport::WorkCompletion wc;
      uint32_t wqe_index;
      bool solicited;
    };
    std::vector<Held> block;      // the open block's completions
    std::vector<Held> waiting;    // completions waiting for the CQ's context, in order
    uint64_t context_ps = 0;      // when the CQ's context is on chip for them
    uint32_t produced = 0;        // ring entries written
    struct Traced {
      uint64_t seq;
      transport::WrTimes times;
    };
    ib::RingFifo<Traced, 1> traced;  // latency parts: the times of completions written, in order
    uint64_t written = 0;         // completions written
    uint32_t consumed = 0;        // consumer counter last read
    bool overrun = false;
    uint8_t armed = 0;            // 0, kCqArmNext or kCqArmSolicited
    uint32_t pending = 0;         // matching completions since armed
    uint8_t arm_command = 0;      // the arm doorbell waiting for its time
    uint32_t arm_consumer = 0;
    link::Alarm timer = link::Alarm::method<&Cq::on_timer>(this);
    link::Alarm arm_due = link::Alarm::method<&Cq::on_arm>(this);
    link::Alarm block_due = link::Alarm::method<&Cq::on_block_due>(this);
    link::Alarm context_due = link::Alarm::method<&Cq::on_context_due>(this);
  };
  void take(Cq& cq, const Cq::Held& h);  // a completion whose CQ context is on chip
  void take_waiting(Cq& cq);
  void arm_now(Cq& cq);
  void raise(Cq& cq);
  void flush(Cq& cq);  // writes the open block
  void count_for_interrupt(Cq& cq, const Cq::Held& h);

  HcaConfig config_;
  DmaEngine& dma_;
  const std::vector<MsixEntry>& msix_;
  std::vector<std::unique_ptr<Cq>> cqs_;  // by CQ number; null where none
  uint32_t next_cqn_ = 0;
  std::function<void(uint32_t)> on_overrun_;
  std::vector<uint8_t> entries_;  // the block being written
  CompletionStats stats_;
};

}  // namespace hcasim::hca
