#pragma once
// A host's memory as a TLM-2.0 target of the base protocol: the application's
// buffers, the work-queue and completion-queue rings, the doorbell records and
// the HCA's context memory all live here, at addresses the driver allocates.
// The HCA reaches it only through its DMA socket, over the PCIe link.
//
// Rules:
// - Storage is a SparseMemory: byte-addressable, 64-bit, pages made on first
//   write; bytes never written read as 0.
// - Timing (b_transport, loosely timed, never wait()): an access issued at
//   now + delay takes length x 8 / bandwidth_bps of the memory's busy time,
//   in the first free gap at or after its issue (link/bookings.hpp: reads
//   and writes share it; one issued for a later time holds up no earlier
//   one), and is done latency_ps after
//   that; the returned delay says when (reads: the data is ready; writes: the
//   data is visible). bandwidth_bps 0 is unlimited; latency 0 and bandwidth 0
//   cost nothing.
// - A write into a watched range (watch_writes) calls the watcher with the
//   range written and the time it is visible, at the call (the watcher
//   schedules what it does for that time): how software polling memory sees
//   a CQE land, how an MSI-X write reaches the interrupt controller.
// - Errors: byte enables are not supported (TLM_BYTE_ENABLE_ERROR_RESPONSE),
//   a streaming width below the length is a burst error; ignore commands are
//   answered OK.
// - External ranges (map_external): the bytes of [begin, end) live outside the
//   model (an application's registered memory under hcasim serve --verbs) and
//   every access wholly inside one goes to its ExternalMemory instead of the
//   SparseMemory, with the same timing; one that fails there, or that only
//   partly overlaps an external range, is answered TLM_ADDRESS_ERROR_RESPONSE
//   (counted in external_errors) and moves nothing. No DMI is granted for a
//   page an external range touches. A device write there reaches the outside
//   memory when it is visible (its returned delay), not before: the process
//   outside sees the bytes no earlier in simulated time than the model says
//   (an alarm at that time writes what is due, in the order written); reads
//   in between see them.
// - transport_dbg moves the bytes with no time and no watchers.
// - DMI is granted page by page (4 KiB, read and write, the access latency
//   annotated): host software (the driver, a user's CPU model) may read and
//   write its own memory directly. Writes through DMI reach no watcher; the
//   PCIe link never passes DMI on (its timing must be charged), so every
//   device write is seen.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "models/host/sparse_memory.hpp"
#include "models/link/bookings.hpp"
#include "models/link/timeline.hpp"

namespace hcasim::host {

struct HostMemoryConfig {
  // DRAM as a DMA sees it at the root complex: about 80 ns for a DDR4 row
  // access behind the memory controller (a load-to-use figure of Xeon
  // Scalable hosts; pcie-bench's measured DMA read latency includes it).
  uint64_t latency_ps = 80'000;
  // Six DDR4-3200 channels (a Xeon Scalable socket): 6 x 25.6 GB/s.
  double bandwidth_bps = 6 * 25.6e9 * 8;
};

// Memory outside the model, reached by the model's DMA: false when the
// access failed (the process is gone, the range is not mapped there).
class ExternalMemory {
 public:
  virtual ~ExternalMemory() = default;
  virtual bool read(uint64_t addr, uint8_t* out, uint64_t length) = 0;
  virtual bool write(uint64_t addr, const uint8_t* data, uint64_t length) = 0;
};

// What a watcher is told: a device wrote [addr, addr + length), visible at visible_ps.
using WriteWatcher = std::function<void(uint64_t addr, uint64_t length, uint64_t visible_ps)>;

class HostMemory : public sc_core::sc_module {
 public:
  HostMemory(const sc_core::sc_module_name& name, const HostMemoryConfig& config);
  HostMemory() = delete;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  tlm_utils::simple_target_socket<HostMemory> socket{"socket"};

  // The bytes, for host software (the driver's own accesses, like DMI).
  SparseMemory& memory() { return memory_; }
  const SparseMemory& memory() const { return memory_; }

  // Watches device writes to [begin, end); returns an id for unwatch.
  unsigned watch_writes(uint64_t begin, uint64_t end, WriteWatcher watcher);
  void unwatch(unsigned id);

  // [begin, end) lives in `memory` (not owned; it must outlive the mapping)
  // until unmap_external(id).
  unsigned map_external(uint64_t begin, uint64_t end, ExternalMemory* memory);
  void unmap_external(unsigned id);
  // Host software's read of its own bytes (a driver copying inline data):
  // external ranges included, no time. False when an external read failed.
  bool peek(uint64_t addr, uint8_t* out, uint64_t length) const;
  uint64_t external_errors() const { return external_errors_; }
  // Writes out the staged external writes whose visible time has come (the
  // alarm does it at that time too; the driver calls it before telling a
  // watcher of a write visible now, since the alarm may run after it in the
  // same instant).
  void flush_due();

  const HostMemoryConfig& config() const { return config_; }
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t busy_ps() const { return busy_ps_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  // Moves the bytes; false (with the response set) when the payload is not
  // supported. stage: a write into an external range is staged, not written.
  bool move(tlm::tlm_generic_payload& trans, bool stage);

  struct External {
    uint64_t begin = 0, end = 0;
    ExternalMemory* memory = nullptr;  // null once unmapped
  };
  // The external range holding [addr, addr + length); nullptr for none.
  // *partial is set when one overlaps it without holding it.
  const External* external_for(uint64_t addr, uint64_t length, bool* partial) const;
  // Reads [addr, addr + length) of an external range, the writes not yet out laid over it.
  bool read_external(const External& e, uint64_t addr, uint8_t* out, uint64_t length) const;
  struct StagedWrite {
    uint64_t visible_ps = 0;
    uint64_t addr = 0;
    std::vector<uint8_t> bytes;
    ExternalMemory* memory = nullptr;
  };

  struct Watch {
    uint64_t begin = 0, end = 0;
    WriteWatcher watcher;  // empty once unwatched
  };

  HostMemoryConfig config_;
  SparseMemory memory_;
  std::vector<Watch> watches_;
  link::Bookings busy_;
  uint64_t reads_ = 0, writes_ = 0, bytes_read_ = 0, bytes_written_ = 0, busy_ps_ = 0;
  // External ranges (hcasim serve --verbs), after what every access uses.
  unsigned externals_mapped_ = 0;
  std::vector<External> externals_;
  std::vector<StagedWrite> staged_;  // in the order written; flushed in that order
  link::Alarm flush_alarm_ = link::Alarm::method<&HostMemory::flush_due>(this);
  uint64_t external_errors_ = 0;
};

}  // namespace hcasim::host
