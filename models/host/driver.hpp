#pragma once
// The verbs-like API as host software: a driver on one CPU thread that keeps
// its work queues, completion queues and doorbell records in host memory in
// the HCA's formats (models/hca/host_formats.hpp), rings doorbells over MMIO,
// and polls CQEs. Control commands (create / modify / destroy, memory
// registration) are calls to the HCA's command interface.
//
// Rules:
// - post_send writes each WR's WQE into the send ring and the send counter
//   into the doorbell record, then rings the send doorbell (an 8-byte MMIO
//   write) once for the whole list; with doorbell "blueflame", a list of one
//   WR whose WQE fits the BlueFlame buffer is written there instead (no WQE
//   fetch). A message of at most inline_threshold bytes, or a WR flagged
//   send_inline (up to max_inline bytes), carries its bytes in the WQE (no
//   gather read).
// - post_recv writes the receive WQE and the receive counter into the
//   doorbell record; no doorbell (the HCA reads the record when it needs a WQE).
// - Errors come back at once, as libibverbs reports them (a full queue, too
//   many scatter/gather entries, an opcode the QP type lacks, a QP not yet in
//   RTS: the text the transport engines use); posting to a QP in ERR posts
//   (the HCA flushes it).
// - CPU time: each CPU thread does one thing at a time. A CQ belongs to the
//   thread given at create_cq (0 by default), a QP to its send CQ's thread.
//   A post costs its QP's thread post_ps per WR, then doorbell_ps or
//   blueflame_ps, and its MMIO write leaves when that is done (an event at
//   that time, not an annotated delay); later posts wait for the thread.
//   MMIO writes of different threads leave in the order of their times. A
//   completion reaches the code that polls for it (on_cq_event) poll_ps
//   after its CQE is visible in host memory and its CQ's thread is free.
//   The thread pays poll_ps per poll_cq call that finds CQEs on such a CQ,
//   not per CQE that lands: a CQE it takes when it wakes for it cost the
//   poll that ended then, one that waited (the code was polling another CQ)
//   costs a poll when taken, and a wake-up that takes nothing costs
//   nothing (a spinning thread's empty polls hold up no work). An
//   interrupt reaches its handler (on_cq_interrupt) interrupt_ps after its
//   MSI-X write lands, on thread 0. With every cost 0 and a link of no cost,
//   these happen at once, in the HCA's call.
// - poll_cq hands out only CQEs already visible in host memory; it maps each
//   CQE's WQE index back to the wr_id posted, adds the completion's WrTimes
//   (model tracing the HCA keeps beside the CQE; cqe_ps: when its CQE, or
//   the block's last entry, was visible), frees the ring slots, and
//   writes the CQ's consumer counter (ring entries consumed) into its
//   doorbell record. A compressed block (host_formats.hpp) is read whole once
//   all its entries are visible and expanded into its completions, title
//   first; those poll_cq does not hand out yet wait for the next call.
// - req_notify_cq arms the CQ by its CQ doorbell (MMIO); the CQ's interrupt
//   comes on its own MSI-X vector, which the driver programs (an MMIO write of
//   the vector's table entry) when it creates the vector's first CQ.
//   Interrupts of one vector that land before its handler runs are taken
//   once, as one interrupt (stats count each message).
// - A receive posted to a QP already in ERR completes flushed when the HCA
//   next reads the QP's receive ring; the HCA has no receive doorbell
//   (ConnectX neither), and it reads the ring when a request needs a WQE or
//   when the QP enters ERR.
// - A post list with a WR the QP cannot take posts none of it (libibverbs
//   posts the WRs before it and reports the bad one).
// - MMIO needs the simulation to have started: doorbells rung during
//   elaboration go out, in order, when it starts.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/hca/hca.hpp"
#include "models/host/host_memory.hpp"
#include "models/link/timeline.hpp"
#include "models/transport/verbs.hpp"

namespace hcasim::host {

enum class DoorbellMode : uint8_t { Mmio, BlueFlame };

struct DriverConfig {
  DoorbellMode doorbell = DoorbellMode::BlueFlame;  // a post of one WR: BlueFlame (libmlx5's default), or always an MMIO doorbell
  uint32_t inline_threshold = 0;   // messages of at most this many bytes go inline in the WQE; 0 = only send_inline WRs
  uint32_t max_inline = 236;       // the largest inline message (sizes the send stride; perftest asks 236 B for send_lat)
  // CPU costs. Model values of the order a Xeon host shows: writing a WQE is a
  // few cached stores; an MMIO doorbell is an uncached store and a store fence,
  // several times that (Kalia et al., ATC 2016: batching doorbells doubles the
  // small-message rate); a BlueFlame write copies 64 bytes write-combined.
  uint64_t post_ps = 40'000;       // per WR posted (its WQE and the doorbell record)
  uint64_t doorbell_ps = 150'000;  // per doorbell MMIO write
  uint64_t blueflame_ps = 200'000; // per BlueFlame write
  uint64_t poll_ps = 50'000;       // from a CQE visible in memory to the code that polled it
  uint64_t interrupt_ps = 2'000'000;  // from an MSI-X message to the completion handler (interrupt and wakeup)
};

struct DriverStats {
  uint64_t posts = 0;              // send WRs posted
  uint64_t recv_posts = 0;
  uint64_t doorbells = 0;          // send doorbell MMIO writes
  uint64_t blueflame_writes = 0;
  uint64_t inline_wqes = 0;
  uint64_t cq_polls = 0;           // poll_cq calls that found completions
  uint64_t cqes = 0;               // completions polled
  uint64_t arms = 0;               // req_notify_cq calls
  uint64_t interrupts = 0;         // MSI-X messages taken
  uint64_t mmio_errors = 0;        // MMIO writes the HCA answered with an error
  uint64_t cpu_busy_ps = 0;        // the threads' time on the costs above, summed
  std::vector<uint64_t> thread_busy_ps = {0};  // the same per CPU thread (create_cq's thread numbers)
};

// Where the driver keeps what it allocates in host memory (its own region,
// apart from the application's buffers): above 2^47, where no user-space
// address of x86-64 Linux falls, so the buffers of a program outside the model
// (hcasim serve --verbs) never overlap it.
constexpr uint64_t kDriverArea = 0xFF00'0000'0000ull;
// A region of more pages than this gets its MPT entry but its MTT entries
// are not written (they read as 0): the HCA's checks and translation use its
// own region table, the MTT bytes are only fetched, and the workloads
// register regions of 2^40 bytes (2^28 pages of 4 KiB).
constexpr uint64_t kMttWriteLimit = uint64_t{1} << 20;
constexpr uint64_t kIcmArea = 0xFE00'0000'0000ull;  // the HCA's context tables (icm_layout.hpp), below the driver's area
constexpr uint64_t kInterruptArea = 0xFEE0'0000ull;  // MSI-X message addresses (x86's interrupt window)

class Driver : public sc_core::sc_module {
 public:
  Driver(const sc_core::sc_module_name& name, const DriverConfig& config, HostMemory& memory, hca::Hca& hca);
  Driver() = delete;
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;
  ~Driver() override;

  tlm_utils::simple_initiator_socket<Driver> mmio{"mmio"};  // to the HCA's BAR0 over the PCIe link

  // Verbs (libibverbs' namesakes; errors as a one-line reason, "" = done).
  // thread: the CPU thread that polls it and posts to the QPs whose send CQ it is.
  // compression: the CQ's CQE compression (Default: the HCA's cqe_compression).
  uint32_t create_cq(uint32_t depth, unsigned thread = 0,
                     hca::CqRing::Compression compression = hca::CqRing::Compression::Default);
  // ibv_modify_cq's moderation: an interrupt after count completions or period_ps after the first.
  std::string modify_cq(uint32_t cq, uint32_t count, uint64_t period_ps);
  std::string destroy_cq(uint32_t cq);
  // Throws std::invalid_argument as Hca::create_qp does.
  uint32_t create_qp(const transport::QpInit& init);
  std::string modify_qp(uint32_t qpn, const transport::QpAttr& attr, uint32_t mask);
  std::string destroy_qp(uint32_t qpn);
  std::string post_send(uint32_t qpn, const transport::SendWr& wr);
  // A chained list: one doorbell for all (ibv_post_send with wr->next).
  std::string post_send(uint32_t qpn, const std::vector<transport::SendWr>& list);
  std::string post_recv(uint32_t qpn, const transport::RecvWr& wr);
  std::size_t poll_cq(uint32_t cq, std::size_t max, std::vector<transport::WorkCompletion>& out);
  std::string req_notify_cq(uint32_t cq, bool solicited_only);
  // Registers with the HCA, then writes the region's MPT entry and MTT
  // entries (identity mapping) into the ICM (host_formats.hpp); dereg_mr
  // marks them invalid there.
  hca::MemoryRegion reg_mr(uint64_t addr, uint64_t length, uint32_t access);
  // Send WRs posted to the QP whose ring slots are not yet free (post_send's
  // room check counts these); 0 for no such QP.
  uint32_t send_queue_used(uint32_t qpn);
  bool dereg_mr(uint32_t lkey);

  // A thread busy-polling CQ cq: handler runs when a completion is there to poll.
  void on_cq_event(uint32_t cq, std::function<void()> handler);
  // The CQ's interrupt (after req_notify_cq): handler runs in the completion channel's thread.
  void on_cq_interrupt(uint32_t cq, std::function<void()> handler);
  // f(addr, length) runs when a device write to [begin, end) is visible:
  // software polling memory (in an external range the bytes are out by then). Returns an id for unwatch_memory, after which f
  // never runs again (landings still due included).
  unsigned watch_memory(uint64_t begin, uint64_t end, std::function<void(uint64_t, uint64_t)> f);
  void unwatch_memory(unsigned id);

  SparseMemory& memory() { return memory_.memory(); }
  HostMemory& host_memory() { return memory_; }
  hca::Hca& hca() { return hca_; }
  uint16_t lid(unsigned port) const { return hca_.lid(port); }
  const DriverConfig& config() const { return config_; }
  const DriverStats& stats() const { return stats_; }
  // A CPU thread's busy time up to end_ps: DriverStats counts a cost when the
  // thread takes it on, so the part of its booked work after end_ps is left
  // out (a thread's utilization stays <= 1).
  uint64_t thread_busy_ps_until(unsigned thread, uint64_t end_ps) const {
    const uint64_t free = cpu_free_ps_[thread];
    return stats_.thread_busy_ps[thread] - (free > end_ps ? free - end_ps : 0);
  }

 private:
  struct Qp;
  struct Cq;
  struct Watch;

  void start_of_simulation() override;
  uint64_t allocate(uint64_t bytes, uint64_t align);
  uint64_t cpu(uint64_t cost_ps, unsigned thread);  // runs a cost on a thread; returns when it is done
  void take_cpu(uint64_t cost_ps, unsigned thread);  // a cost whose alarm, set for when it ends, fired now
  void write_translation(const hca::MemoryRegion& mr, bool valid);
  void mmio_write(uint64_t offset, const uint8_t* data, unsigned length, uint64_t at_ps);
  void send_mmio(uint64_t offset, const uint8_t* data, unsigned length);
  void cqe_visible(Cq& cq, uint64_t visible_ps, uint32_t entries);
  // Reads the block at the consumer counter into cq.expanded when all of it is
  // visible by now; false when there is none (yet).
  bool expand_block(Cq& cq, uint64_t now);
  // The wr_id of the WQE a completion reports, and the ring slots it frees.
  void resolve(transport::WorkCompletion& wc, uint16_t wqe_index);
  void cq_due(Cq& cq);
  void pay_poll(Cq& cq, uint64_t now);  // the CPU cost of a busy-polled CQ's poll_cq that found CQEs
  void program_vector(uint32_t v);
  void interrupt(uint32_t vector, uint64_t visible_ps);
  void interrupt_due(uint32_t vector);
  Qp* find_qp(uint32_t qpn);

  DriverConfig config_;
  HostMemory& memory_;
  hca::Hca& hca_;
  uint64_t next_free_ = kDriverArea;
  std::vector<uint64_t> cpu_free_ps_ = {0};  // by CPU thread: when it is free
  bool started_ = false;
  struct Pending {
    uint64_t at_ps;
    uint64_t offset;
    std::vector<uint8_t> data;
  };
  // MMIO writes waiting for their time (the thread's time when it makes them)
  // or for the simulation to start, in order. They go out at that time, not
  // before with a delay: the PCIe link serves calls in the order they are
  // made, and a write annotated far ahead would hold back the HCA's earlier traffic.
  std::deque<Pending> mmio_queue_;
  void send_due();
  link::Alarm mmio_alarm_ = link::Alarm::method<&Driver::send_due>(this);
  tlm::tlm_generic_payload trans_;
  std::vector<std::unique_ptr<Qp>> qps_;
  std::vector<std::unique_ptr<Cq>> cqs_;
  std::vector<std::unique_ptr<Watch>> watches_;
  std::vector<std::vector<uint32_t>> vector_cqs_;  // by MSI-X vector: its CQs
  std::vector<std::unique_ptr<link::Alarm>> vector_alarms_;
  std::vector<uint64_t> vector_due_;
  std::vector<uint8_t> wqe_;
  DriverStats stats_;
};

}  // namespace hcasim::host
