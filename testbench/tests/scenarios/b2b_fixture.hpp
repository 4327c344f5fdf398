#pragma once
// Helpers for back-to-back link scenarios driven from C++ (no JSON).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "testbench/cli/simulation.hpp"

namespace hcasim::test {

inline workloads::FlowSpec flow(uint8_t sl, uint32_t payload, uint64_t count, unsigned src = 0, unsigned dst = 1) {
  workloads::FlowSpec f;
  f.name = "sl" + std::to_string(sl);
  f.src_node = src;
  f.dst_node = dst;
  f.sl = sl;
  f.payload = payload;
  f.count = count;
  return f;
}

inline std::unique_ptr<Simulation> run_b2b(const link::PortConfig& a, const link::PortConfig& b,
                                           const link::LinkConfig& l, std::vector<workloads::FlowSpec> flows,
                                           uint64_t duration_ps = 0) {
  RunOptions o;
  o.duration_ps = duration_ps;
  auto sim = std::make_unique<Simulation>(config::back_to_back(a, b, l), std::move(flows), o);
  sim->run();
  return sim;
}

// Wire bytes of the generator's UD SEND-only packet: LRH 8 + BTH 12 + DETH 8 +
// payload + pad + ICRC 4 + VCRC 2 (iba-facts 1).
// No RTL block of the run diverged from the model or broke its pin contract
// (trivially so when every port uses the model's C++).
inline void require_no_rtl_failure(const Simulation& sim) {
  std::string failures;
  for (const std::string& m : sim.rtl_failures()) failures += m + "\n";
  INFO(failures);
  REQUIRE(sim.rtl_failures().empty());
}

inline uint32_t ud_wire_bytes(uint32_t payload) { return 8 + 12 + 8 + payload + ((4 - payload % 4) % 4) + 4 + 2; }

struct Bound {
  double data_bps;      // payload throughput bound
  double fc_per_packet; // flow-control packets per data packet on the data direction
};

// The sender sends a flow-control packet for its VL when its FCTBS has changed
// and fc_period has passed: the first packet boundary after each period, so one
// every ceil(period / slot) data packets (one per packet when a packet outlasts
// the period).
inline Bound analytic_bound(const link::LinkConfig& l, uint32_t payload) {
  const double rate = link::data_rate_bps(l.speed, l.width);
  const double slot_bytes = ud_wire_bytes(payload) + l.framing_bytes;
  const double slot_ps = slot_bytes * 8.0 * 1e12 / rate;
  const double packets_per_fc = std::ceil(static_cast<double>(l.fc_period_ps) / slot_ps);
  const double fc_bytes = 6 + l.framing_bytes;
  return {rate * payload / (slot_bytes + fc_bytes / packets_per_fc), 1.0 / packets_per_fc};
}

// Payload throughput of a flow from its first to its last delivery.
inline double steady_bps(const workloads::FlowResult& r, uint32_t payload) {
  if (r.delivered < 2) return 0;
  return 8.0 * payload * static_cast<double>(r.delivered - 1) * 1e12 /
         static_cast<double>(r.last_delivery_ps - r.first_delivery_ps);
}

inline uint64_t total_drops(const link::VlStats& v) {
  uint64_t n = 0;
  for (uint64_t d : v.drops) n += d;
  return n;
}

// Packets the fabric's ports dropped for one reason.
inline uint64_t drops_of(const Simulation& sim, link::DropReason why) {
  uint64_t n = 0;
  for (const link::Port* p : sim.fabric().ports())
    for (const link::VlStats& v : p->stats().vl) n += v.drops[static_cast<std::size_t>(why)];
  return n;
}

// After the run every sender holds all the credit its peer's buffer gives:
// nothing leaked (through discarded packets, or across a cut link).
inline void check_credits_whole(const Simulation& sim) {
  for (const link::Port* p : sim.fabric().ports()) {
    if (p->peer() == nullptr) continue;
    for (unsigned vl = 0; vl < p->vl_count(); ++vl) {
      INFO(p->name() << " VL" << vl);
      CHECK(p->credits_available(vl) == std::min(p->peer()->rx_capacity_blocks(vl), link::kMaxAdvertisedBlocks));
    }
  }
}

}  // namespace hcasim::test
