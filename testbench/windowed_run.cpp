#include "testbench/windowed_run.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

#include "models/link/port.hpp"

namespace hcasim {

namespace {

// A barrier for a few threads that spins (a window is short), then yields, so
// that on a busy machine a waiting thread does not hold a core its partner
// needs.
class SpinBarrier {
 public:
  explicit SpinBarrier(unsigned threads) : threads_(threads) {}
  void wait() {
    const unsigned generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_release);
      return;
    }
    for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < kSpins) relax();
      else std::this_thread::yield();
    }
  }

 private:
  static constexpr unsigned kSpins = 20000;
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  const unsigned threads_;
  std::atomic<unsigned> arrived_{0};
  std::atomic<unsigned> generation_{0};
};

}  // namespace

uint64_t run_windows(const std::vector<link::Partition*>& parts, const WindowedRunConfig& config,
                     const std::function<void(unsigned q)>& inbound, const std::function<void(uint64_t now_ps)>& between) {
  const auto count = static_cast<unsigned>(parts.size());
  const unsigned threads = std::clamp(config.threads, 1u, std::max(count, 1u));
  const uint64_t window = std::max<uint64_t>(config.window_ps, 1);
  // Each partition's next alarm after its inbound packets, written by its own
  // thread between the barriers and read by every thread after them.
  std::vector<uint64_t> next(count);
  SpinBarrier barrier(threads);
  uint64_t last_end = 0;  // thread 0's
  bool reached_end = false;

  const auto work = [&](unsigned t) {
    for (;;) {
      for (unsigned q = t; q < count; q += threads) {
        for (unsigned p = 0; p < count; ++p) {
          link::Outbox& box = parts[p]->outbox[q];
          for (const link::Handover& h : box) link::Port::hand_over(h);
          box.clear();
        }
        inbound(q);
        next[q] = parts[q]->timeline.next_due_ps();
      }
      barrier.wait();
      const uint64_t start = *std::min_element(next.begin(), next.end());
      if (start == UINT64_MAX) return;
      if (config.end_ps != 0 && start >= config.end_ps) {
        if (t == 0) reached_end = true;
        return;
      }
      uint64_t end = start > UINT64_MAX - window ? UINT64_MAX : start + window;
      if (config.end_ps != 0) end = std::min(end, config.end_ps);
      for (unsigned q = t; q < count; q += threads) parts[q]->timeline.run_until(end);
      if (t == 0) last_end = end;
      barrier.wait();
      if (t == 0) between(last_end);
    }
  };
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads; ++t) others.emplace_back(work, t);
  work(0);
  for (std::thread& th : others) th.join();
  if (reached_end) return config.end_ps;
  uint64_t last = 0;
  for (const link::Partition* p : parts) last = std::max(last, p->timeline.clock_ps());
  return last;
}

}  // namespace hcasim
