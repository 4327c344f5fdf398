#pragma once
// A transport operation's latency in parts (docs/latency-parts.md): the time
// from the application's post call to the application acting on the
// operation's completion, cut at the stages its send WR passed
// (transport::WrTimes).
//
// Rules:
// - Ten parts, in the order of the trip; each runs from the cut before it to
//   its own cut:
//     cpu_post          post call -> the doorbell or BlueFlame write leaves the CPU (mmio_ps)
//     doorbell          -> that write reaches the HCA (at_hca_ps)
//     wqe_fetch         -> the WQE is on chip (on_chip_ps)
//     requester         -> a transmit unit built the last request packet (built_ps)
//     to_port           -> that packet, its data gathered, went to the port (sent_ps)
//     request_network   -> the request reached the responder's QP (at_responder_ps)
//     responder         -> the answer went to the responder's port (response_ps)
//     response_network  -> the answer reached the requester's QP (response_in_ps)
//     completion        -> data placed and the CQE visible in host memory (cqe_ps)
//     poll              -> the application acts on it (the end)
// - A cut is clamped between the cut before it and the end; a stage not
//   passed (time 0: an unreliable QP has no answer, a WR posted without the
//   HCA's front end no doorbell) takes the cut before it, so its part is 0
//   and its time is counted in the next part. The parts are never negative
//   and sum to end - start exactly.

#include <array>
#include <cstddef>
#include <cstdint>

#include "models/transport/verbs.hpp"

namespace hcasim::workloads {

constexpr std::size_t kLatencyParts = 10;

// Each part's name, in the order of the trip (the rules above say where each ends).
const std::array<const char*, kLatencyParts>& latency_part_names();

// The parts of one operation posted at start_ps and acted on at end_ps.
std::array<uint64_t, kLatencyParts> split_latency(uint64_t start_ps, const transport::WrTimes& times, uint64_t end_ps);

// Parts summed over operations (exact: their sum is the sum of the latencies).
struct LatencyParts {
  std::array<uint64_t, kLatencyParts> sum_ps{};
  uint64_t samples = 0;
  void add(uint64_t start_ps, const transport::WrTimes& times, uint64_t end_ps);
  uint64_t total_ps() const;  // the sum of the latencies added
};

}  // namespace hcasim::workloads
