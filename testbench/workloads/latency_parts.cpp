#include "testbench/workloads/latency_parts.hpp"

#include <algorithm>

namespace hcasim::workloads {

const std::array<const char*, kLatencyParts>& latency_part_names() {
  static const std::array<const char*, kLatencyParts> kNames = {
      "cpu_post", "doorbell", "wqe_fetch", "requester", "to_port", "request_network",
      "responder", "response_network", "completion", "poll"};
  return kNames;
}

std::array<uint64_t, kLatencyParts> split_latency(uint64_t start_ps, const transport::WrTimes& t, uint64_t end_ps) {
  const uint64_t stages[kLatencyParts - 1] = {t.mmio_ps,        t.at_hca_ps,   t.on_chip_ps,
                                              t.built_ps,       t.sent_ps,     t.at_responder_ps,
                                              t.response_ps,    t.response_in_ps, t.cqe_ps};
  end_ps = std::max(end_ps, start_ps);
  std::array<uint64_t, kLatencyParts> parts{};
  uint64_t cut = start_ps;
  for (std::size_t i = 0; i + 1 < kLatencyParts; ++i) {
    const uint64_t next = stages[i] == 0 ? cut : std::clamp(stages[i], cut, end_ps);
    parts[i] = next - cut;
    cut = next;
  }
  parts[kLatencyParts - 1] = end_ps - cut;
  return parts;
}

void LatencyParts::add(uint64_t start_ps, const transport::WrTimes& times, uint64_t end_ps) {
  const auto parts = split_latency(start_ps, times, end_ps);
  for (std::size_t i = 0; i < kLatencyParts; ++i) sum_ps[i] += parts[i];
  ++samples;
}

uint64_t LatencyParts::total_ps() const {
  uint64_t total = 0;
  for (const uint64_t p : sum_ps) total += p;
  return total;
}

}  // namespace hcasim::workloads
