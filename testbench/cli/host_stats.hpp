#pragma once
// The hosts' objects (detail kind "hosts"): per HCA with host activity, its PCIe link
// (TLPs, bytes and wire bytes per direction and kind, utilisation, DMA read
// latency), its host memory, its driver (posts, doorbells, BlueFlame writes,
// polls, interrupts, CPU time), its front end (doorbells, WQE fetches, CQEs,
// interrupts, errors) and its DMA by purpose. An HCA with no QP, no DMA and
// no MMIO (raw traffic only) is left out.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"
#include "testbench/cli/json_sink.hpp"
#include "testbench/workloads/dma_test.hpp"

namespace hcasim {

// Each such HCA's object, in HCA order.
void each_host_json(const fabric::Fabric& f, uint64_t sim_ps, const JsonSink& sink);

// stats.json's "dma" section: per DMA test (workload.dma), what it did,
// its bandwidth, transfers per second and latency percentiles.
nlohmann::json dma_tests_json(const std::vector<std::unique_ptr<workloads::DmaTest>>& tests, const fabric::Fabric& f);
// The run summary's lines for the DMA tests of a stats document.
std::string dma_summary(const nlohmann::json& stats);

}  // namespace hcasim
