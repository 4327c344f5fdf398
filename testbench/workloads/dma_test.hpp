#pragma once
// A DMA test in the spirit of pcie-bench: an HCA's DMA engine reads or writes
// host memory over its PCIe link, `outstanding` transfers in flight, and the
// test measures bandwidth, transfers per second and the latency of each.
//
// Rules:
// - At the start, `outstanding` transfers are issued; each transfer done
//   issues the next, at its completion time, until `count` are issued (count
//   0: until the run ends). The link and host memory time them
//   (hca::Hca::test_dma_read / test_dma_write, counted as DMA purpose "test").
// - Addresses: the window is cut into slots, each starting on a 64-byte
//   cache line, and a transfer of at most 4 KiB never straddles a 4 KiB page
//   (as pcie-bench lays out its DMA buffers): slots of size rounded up to 64
//   bytes, as many as fit in each page, page after page (larger transfers:
//   whole pages). Transfer k of a sequential test takes slot k modulo the
//   slots; a random test picks slots from run.seed and the test's index. The
//   window starts at a per-test address in host memory.
// - Latency: from a transfer's issue to the last byte at the HCA (read) or in
//   host memory (write). Bandwidth: bytes of completed transfers over the time
//   from the first issue to the last completion.

#include <systemc>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "models/config/dma_workload_config.hpp"
#include "models/hca/hca.hpp"
#include "models/link/timeline.hpp"
#include "models/trace/latency_record.hpp"

namespace hcasim::workloads {

struct DmaTestSpec {
  config::DmaTestConfig config;  // names resolved (check_dma_tests)
  unsigned hca = 0;              // HCA index
  unsigned index = 0;            // the test's index: its window's address
  uint64_t seed = 1;             // run.seed
};

struct DmaTestResult {
  uint64_t issued = 0;
  uint64_t completed = 0;
  uint64_t bytes = 0;            // of completed transfers
  uint64_t first_issue_ps = 0;
  uint64_t last_done_ps = 0;
  trace::LatencyRecord latency_ps;
};

class DmaTest : public sc_core::sc_module {
 public:
  DmaTest(const sc_core::sc_module_name& name, const DmaTestSpec& spec, hca::Hca& hca);
  DmaTest() = delete;
  DmaTest(const DmaTest&) = delete;
  DmaTest& operator=(const DmaTest&) = delete;
  // A fabric managed in band: hold the start until the SM is done, then begin
  // at the current time, the start counted from `offset_ps`.
  void defer_start() { deferred_ = true; }
  void begin(uint64_t offset_ps) { start_.notify_at(offset_ps + spec_.config.start_ps); }

  const DmaTestSpec& spec() const { return spec_; }
  const DmaTestResult& result() const { return result_; }
  bool done() const { return spec_.config.count != 0 && result_.completed == spec_.config.count; }

 private:
  void start_of_simulation() override;
  void start();
  void due();
  void issue(uint64_t now);
  uint64_t next_address();

  DmaTestSpec spec_;
  hca::Hca& hca_;
  bool deferred_ = false;
  uint64_t base_ = 0;
  uint64_t rng_ = 0;
  std::vector<uint8_t> buffer_;
  struct InFlight {
    uint64_t done_ps, issued_ps;
    bool operator>(const InFlight& o) const { return done_ps > o.done_ps; }
  };
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> in_flight_;
  DmaTestResult result_;
  link::Alarm start_ = link::Alarm::method<&DmaTest::start>(this);
  link::Alarm due_ = link::Alarm::method<&DmaTest::due>(this);
};

}  // namespace hcasim::workloads
