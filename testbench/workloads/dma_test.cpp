#include "testbench/workloads/dma_test.hpp"

#include <algorithm>

namespace hcasim::workloads {

namespace {
constexpr uint64_t kDmaArea = uint64_t{0x50} << 40;  // apart from perftest's and the verbs scripts' buffers

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

DmaTest::DmaTest(const sc_core::sc_module_name& name, const DmaTestSpec& spec, hca::Hca& hca)
    : sc_module(name), spec_(spec), hca_(hca) {
  base_ = kDmaArea + (uint64_t{spec_.index} << 36);
  rng_ = spec_.seed * 0x100000001B3ull + spec_.index;
  buffer_.assign(spec_.config.size, 0xA5);
}

void DmaTest::start_of_simulation() {
  if (!deferred_) begin(0);
}

uint64_t DmaTest::next_address() {
  const config::DmaTestConfig& c = spec_.config;
  constexpr uint64_t kLine = 64, kPage = 4096;
  const uint64_t stride = c.size <= kPage ? (c.size + kLine - 1) / kLine * kLine : (c.size + kPage - 1) / kPage * kPage;
  const uint64_t per_page = c.size <= kPage ? kPage / stride : 1;
  const uint64_t page_span = c.size <= kPage ? kPage : stride;
  const uint64_t slots = std::max<uint64_t>(1, c.window / page_span * per_page);
  const uint64_t slot = c.pattern == config::DmaPattern::Sequential ? result_.issued % slots : splitmix64(rng_) % slots;
  return base_ + slot / per_page * page_span + slot % per_page * stride;
}

void DmaTest::issue(uint64_t now) {
  const config::DmaTestConfig& c = spec_.config;
  const uint64_t addr = next_address();
  const uint64_t done = c.op == config::DmaOp::Read ? hca_.test_dma_read(addr, buffer_.data(), c.size, now)
                                                    : hca_.test_dma_write(addr, buffer_.data(), c.size, now);
  if (result_.issued++ == 0) result_.first_issue_ps = now;
  in_flight_.push({done, now});
}

void DmaTest::start() {
  const uint64_t now = link::now_ps();
  const config::DmaTestConfig& c = spec_.config;
  for (uint32_t i = 0; i < c.outstanding && (c.count == 0 || result_.issued < c.count); ++i) issue(now);
  if (!in_flight_.empty()) due_.notify_at(in_flight_.top().done_ps);
}

void DmaTest::due() {
  const uint64_t now = link::now_ps();
  const config::DmaTestConfig& c = spec_.config;
  while (!in_flight_.empty() && in_flight_.top().done_ps <= now) {
    const InFlight t = in_flight_.top();
    in_flight_.pop();
    ++result_.completed;
    result_.bytes += c.size;
    result_.last_done_ps = t.done_ps;
    result_.latency_ps.add(t.done_ps - t.issued_ps, t.done_ps);
    if (c.count == 0 || result_.issued < c.count) issue(now);
  }
  if (!in_flight_.empty()) due_.notify_at(in_flight_.top().done_ps);
}

}  // namespace hcasim::workloads
