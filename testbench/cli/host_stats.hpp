#pragma once
// stats.json's "hosts" section: per HCA with host activity, its PCIe link
// (TLPs, bytes and wire bytes per direction and kind, utilisation, DMA read
// latency), its host memory, its driver (posts, doorbells, BlueFlame writes,
// polls, interrupts, CPU time), its front end (doorbells, WQE fetches, CQEs,
// interrupts, errors) and its DMA by purpose. An HCA with no QP, no DMA and
// no MMIO (raw traffic only) is left out.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"

namespace hcasim {

nlohmann::json hosts_json(const fabric::Fabric& f, uint64_t sim_ps);

}  // namespace hcasim
