#pragma once
// The scenario's DMA tests (workload.dma), in the spirit of pcie-bench: an
// HCA's DMA engine reads or writes host memory over its PCIe link, so the
// link and host memory are measured without the fabric. What they do at run
// time is testbench/workloads/dma_test.hpp.
//
// Rules:
// - A test names an HCA ("hca", a node name), the operation (read or write),
//   the transfer size, how many transfers (count; 0 = until run.duration),
//   how many are kept outstanding, and where they go: within a window of
//   host memory, one after another (sequential) or at random size-aligned
//   offsets (random, from run.seed).
// - check_dma_tests (after the topology is known): the HCA exists; the window
//   holds at least one transfer; count 0 needs a run duration. Errors name
//   the JSON path.

#include <cstdint>
#include <string>

#include "models/config/config_io.hpp"

namespace hcasim::config {

struct Scenario;

enum class DmaOp { Read, Write };
enum class DmaPattern { Sequential, Random };

struct DmaTestConfig {
  std::string name;                    // "" = "dma<index>"
  std::string hca = "hca0";            // the HCA whose DMA engine runs it
  DmaOp op = DmaOp::Read;
  uint64_t size = 64;                  // bytes per transfer
  uint64_t count = 10000;              // transfers; 0 = until run.duration
  uint32_t outstanding = 32;           // transfers in flight at once
  DmaPattern pattern = DmaPattern::Sequential;
  uint64_t window = 8ull << 20;        // host memory the transfers fall in, bytes (pcie-bench: 8 MiB by default)
  uint64_t start_ps = 0;               // when the first transfer is issued
};

template <class Io>
void describe(Io& io, DmaTestConfig& c) {
  io.string("name", c.name, "test name in stats.json; empty = dma<index>");
  io.string("hca", c.hca, "the HCA (node name) whose DMA engine runs the test");
  io.choice("op", c.op, Names<DmaOp>{{"read", DmaOp::Read}, {"write", DmaOp::Write}},
            "DMA reads of host memory (to the HCA) or writes (to host memory)");
  io.bytes("size", c.size, 1, uint64_t{1} << 30, "bytes per transfer");
  io.uint64("count", c.count, 0, uint64_t{1} << 40, "transfers; 0 = until run.duration");
  io.uint("outstanding", c.outstanding, 1, 1u << 16, "transfers kept in flight at once");
  io.choice("pattern", c.pattern,
            Names<DmaPattern>{{"sequential", DmaPattern::Sequential}, {"random", DmaPattern::Random}},
            "sequential addresses through the window, or random size-aligned ones (from run.seed)");
  io.bytes("window", c.window, 1, uint64_t{1} << 40, "host memory the transfers fall in (pcie-bench's window)");
  io.time("start", c.start_ps, 0, UINT64_MAX, "when the first transfer is issued");
}

void check_dma_tests(Scenario& s);

}  // namespace hcasim::config
