#pragma once
// The HCA's front end for work queues in host memory: what it knows of each
// QP's send and receive rings, how doorbells reach it, and how it fetches
// WQEs by DMA and hands them to the transport engines (host_formats.hpp has
// the bytes).
//
// Rules:
// - A send doorbell (or a BlueFlame write) arrives at its time on the PCIe
//   link; nothing waits for it: the work is stamped and handled then (at
//   once when it is due now and nothing else waits).
// - Send: the doorbell's send counter says how many WQEs were ever posted.
//   The fetcher reads the new WQEs from the send ring, wqe_fetch_batch per DMA
//   read and never across the ring's end, all batches at once (they come back
//   in order), and posts each one to the transport engine when its batch
//   arrives, with the send counter as its wr_id. It fetches only while the QP
//   is in RTS, SQD, SQE or ERR (ERR and SQE flush what they get); a QP that
//   reaches RTS later is fetched then (kick).
// - BlueFlame: a write carrying the QP's next WQE, with no fetch under way
//   and nothing else posted, is taken as it is (no DMA) and held in the WQE
//   cache, pinned until the transmit unit first uses it, so a BlueFlame WQE
//   is never read over PCIe for its first use. When the cache has no room
//   to pin it (a set it needs holds only pinned lines), the HCA drops the
//   write's copy (blueflame_refused): the WQE is posted uncached and read
//   from its ring by the prefetch (hca.wqe_prefetch) or when a unit first
//   needs it (a WQE cache miss, off the units). Any other BlueFlame write
//   counts as a doorbell for its WQE and the ring is read (an index more
//   than a ring ahead of the WQEs fetched is a wrong counter, as below).
// - Receive: WQEs are fetched when a request needs one and the QP holds none
//   (transport::RecvWqeSource): the doorbell record's receive counter is read
//   when every known WQE is fetched, then up to wqe_fetch_batch WQEs; the
//   request waits until they are posted. When a QP enters ERR, every receive
//   WQE posted is fetched (after a fresh read of the record) so that the
//   engine completes it flushed.
// - A WQE that does not decode (an unknown opcode, a bad size, a control
//   segment naming another QP or index) or that the engine refuses takes its
//   place in the send queue; when its turn comes it completes with
//   loc_qp_op_err (vendor_err says which) and the QP goes to its error state
//   (transport::Requester::queue_unusable). A doorbell whose counter runs
//   more than a ring ahead is counted and ignored.
// - Every WQE fetched (and every BlueFlame WQE taken) goes into the WQE cache
//   (hca_contexts.hpp) as it is posted. A request about to use a receive WQE
//   the cache no longer holds waits until the cache has read it again
//   (recv_wqe_missing), then goes on (resume_requests).

#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

#include "models/hca/dma_engine.hpp"
#include "models/hca/hca_config.hpp"
#include "models/hca/hca_contexts.hpp"
#include "models/hca/qp_rings.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/transport_engine.hpp"

namespace hcasim::hca {

// vendor_err codes of a bad WQE's completion.
enum BadWqe : uint32_t { kBadWqeOpcode = 1, kBadWqeSize = 2, kBadWqeHeader = 3, kBadWqeRefused = 4 };

struct FetchStats {
  uint64_t doorbells = 0;         // send doorbells handled
  uint64_t blueflame_writes = 0;
  uint64_t blueflame_wqes = 0;    // WQEs taken from a BlueFlame write (no fetch)
  uint64_t blueflame_refused = 0; // BlueFlame writes of the next WQE whose copy was dropped (read when wanted)
  uint64_t sq_fetches = 0;        // DMA reads of send rings
  uint64_t send_wqes = 0;         // send WQEs posted to the engines
  uint64_t record_reads = 0;      // DMA reads of doorbell records (receive counters)
  uint64_t rq_fetches = 0;        // DMA reads of receive rings
  uint64_t recv_wqes = 0;         // receive WQEs posted to the engines
  uint64_t bad_doorbells = 0;
  uint64_t bad_wqes = 0;
};

class WqeFetcher : public transport::RecvWqeSource {
 public:
  WqeFetcher(const HcaConfig& config, transport::TransportEngine& engine, DmaEngine& dma, HcaContexts& contexts);
  WqeFetcher(const WqeFetcher&) = delete;
  WqeFetcher& operator=(const WqeFetcher&) = delete;

  void add(uint32_t qpn, transport::QpType type, const QpRings& rings);
  void remove(uint32_t qpn);
  // The QP went to RESET: the counters start again at 0.
  void reset(uint32_t qpn);
  // The QP may fetch now (it reached RTS): fetch what is posted.
  void kick(uint32_t qpn);
  // The QP's rings, or null when the QP has none.
  const QpRings* rings(uint32_t qpn) const;

  // MMIO arrivals at at_ps (>= now), checked by the caller (the QP exists, on its UAR).
  void send_doorbell(uint32_t qpn, uint32_t counter, uint64_t at_ps);
  void blueflame(uint32_t qpn, const uint8_t* wqe, uint32_t bytes, uint64_t at_ps);

  bool need_recv_wqes(transport::Qp& qp) override;
  bool recv_wqe_missing(transport::Qp& qp) override;
  void flush_recv_wqes(transport::Qp& qp) override;

  const FetchStats& stats() const { return stats_; }

 private:
  enum class Kind : uint8_t { Doorbell, BlueFlame, SendWqes, RecvRecord, RecvWqes, RecvWqeOnChip };
  struct Event {
    uint64_t at_ps;
    uint64_t seq;
    Kind kind;
    uint32_t qpn;
    uint32_t first;   // Doorbell: the counter; SendWqes / RecvWqes: the first WQE's counter
    uint32_t count;   // SendWqes / RecvWqes: WQEs in the buffer
    uint32_t buffer;  // BlueFlame, SendWqes, RecvWqes, RecvRecord: index into buffers_
    uint32_t generation;  // the QP's at scheduling (QpHost::generation)
    // Doorbell, BlueFlame: when the MMIO write left the CPU; SendWqes: the
    // times of the doorbell the read is for (WrTimes mmio_ps, at_hca_ps).
    uint64_t mmio_ps = 0;
    uint64_t rung_ps = 0;
    bool operator>(const Event& o) const { return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq; }
  };
  struct QpHost {
    transport::QpType type = transport::QpType::Rc;
    QpRings rings;
    uint32_t sq_posted = 0;    // send counter from the latest doorbell
    uint32_t sq_fetched = 0;   // send WQEs whose read is issued
    uint32_t sq_in_flight = 0; // batches under way
    uint32_t rq_posted = 0;    // receive counter last read from the doorbell record
    uint32_t rq_fetched = 0;
    uint32_t rq_reads = 0;     // reads of the record or the receive ring under way
    bool rq_flush = false;     // fetch every receive WQE posted (the QP is in ERR)
    bool rq_record_due = false;  // ERR came while reads were under way: read the record afresh after them
    uint32_t generation = 0;   // new at add and reset (generations_): events of an older one are dropped
    uint64_t rung_mmio_ps = 0;   // the latest doorbell's (or BlueFlame write's) WrTimes mmio_ps
    uint64_t rung_at_hca_ps = 0; // and at_hca_ps
  };

  void schedule(Event e);
  void due();
  void handle(const Event& e);
  bool may_fetch(uint32_t qpn) const;
  void fetch_send(uint32_t qpn, QpHost& q);
  void post_send_wqes(const Event& e, QpHost& q);
  // cached: the WQE is in the WQE cache already (a BlueFlame WQE pinned there).
  void post_send_wqe(uint32_t qpn, QpHost& q, const uint8_t* wqe, uint32_t bytes, uint32_t counter, bool cached,
                     const transport::WrTimes& rung);
  // The bytes a send WQE takes: its control segment's size, at most what was read.
  static uint32_t wqe_bytes(const SendWqeHeader& h, uint32_t bytes);
  void fail_wqe(uint32_t qpn, uint32_t counter, uint32_t vendor_err);
  void fetch_recv(uint32_t qpn, QpHost& q);  // one batch
  void read_recv_record(uint32_t qpn, QpHost& q);
  void recv_reads_done(uint32_t qpn, QpHost& q);
  uint32_t take_buffer(std::size_t bytes);
  QpHost* find(uint32_t qpn) { return qpn < qps_.size() ? qps_[qpn].get() : nullptr; }

  HcaConfig config_;
  transport::TransportEngine& engine_;
  DmaEngine& dma_;
  HcaContexts& contexts_;
  std::vector<std::unique_ptr<QpHost>> qps_;  // by QP number
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<uint32_t> free_buffers_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t next_seq_ = 0;
  uint32_t generations_ = 0;  // QpHost::generation's last value, over all QPs (a QP number may come back)
  link::Alarm alarm_ = link::Alarm::method<&WqeFetcher::due>(this);
  FetchStats stats_;
};

}  // namespace hcasim::hca
