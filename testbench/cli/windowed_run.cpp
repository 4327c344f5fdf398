#include "testbench/cli/windowed_run.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>

#include "models/link/port.hpp"

namespace hcasim {

namespace {

constexpr unsigned kWindowsPerEpoch = 16;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins while `waiting()` (a step is short), then yields, so that on a busy
// machine a waiting thread does not hold a core its partner needs.
template <typename Waiting>
void wait_while(Waiting waiting) {
  constexpr unsigned kSpins = 20000;
  for (unsigned spins = 0; waiting(); ++spins) {
    if (spins < kSpins) relax();
    else std::this_thread::yield();
  }
}

// A barrier for a few threads.
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
    wait_while([&] { return generation_.load(std::memory_order_acquire) == generation; });
  }

 private:
  const unsigned threads_;
  std::atomic<unsigned> arrived_{0};
  std::atomic<unsigned> generation_{0};
};

// Steps a partition has finished, on a line of its own: its thread writes it
// after every step, the others read it.
struct alignas(64) PartitionProgress {
  std::atomic<uint64_t> steps{0};
};

uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

}  // namespace

uint64_t run_windows(const std::vector<link::Partition*>& parts, const WindowedRunConfig& config,
                     const WindowHooks& hooks) {
  const auto count = static_cast<unsigned>(parts.size());
  const unsigned threads = std::clamp(config.threads, 1u, std::max(count, 1u));
  const uint64_t window = std::max<uint64_t>(config.window_ps, 1);
  const uint64_t steps = std::max(config.steps, 1u);
  const uint64_t step = window == UINT64_MAX ? window : std::max<uint64_t>(window / steps, 1);
  const unsigned slots = mail_slots(config);
  // The mail from partition p to q sealed in slot s: mail[(p * count + q) * slots + s].
  std::vector<link::Outbox> mail(std::size_t(count) * count * slots);
  const auto mail_of = [&](unsigned p, unsigned q, uint64_t global_step) -> link::Outbox& {
    return mail[(std::size_t(p) * count + q) * slots + global_step % slots];
  };
  const std::unique_ptr<PartitionProgress[]> done(new PartitionProgress[count]);
  // Each partition's next alarm at an epoch's start, written by its own
  // thread between the barriers and read by every thread after them.
  std::vector<uint64_t> next(count);
  SpinBarrier barrier(threads);
  bool reached_end = false;  // thread 0's

  // Partition q takes what every other partition sent in global step g.
  const auto take = [&](unsigned q, uint64_t g) {
    for (unsigned p = 0; p < count; ++p) {
      if (p == q) continue;
      link::Outbox& box = mail_of(p, q, g);
      for (const link::Handover& h : box) link::Port::hand_over(h);
      box.clear();
      if (hooks.take) hooks.take(q, p, static_cast<unsigned>(g % slots));
    }
  };
  const auto seal = [&](unsigned q, uint64_t g) {
    for (unsigned r = 0; r < count; ++r)
      if (r != q) mail_of(q, r, g).swap(parts[q]->outbox[r]);
    if (hooks.seal) hooks.seal(q, static_cast<unsigned>(g % slots));
  };

  const auto work = [&](unsigned t) {
    uint64_t base = 0;  // global steps before this epoch
    for (;;) {
      for (unsigned q = t; q < count; q += threads) next[q] = parts[q]->timeline.next_due_ps();
      barrier.wait();
      const uint64_t start = *std::min_element(next.begin(), next.end());
      if (start == UINT64_MAX) return;
      if (config.end_ps != 0 && start >= config.end_ps) {
        if (t == 0) reached_end = true;
        return;
      }
      uint64_t epoch_steps = kWindowsPerEpoch * steps;
      if (config.end_ps != 0) {
        const uint64_t left = config.end_ps - start;
        epoch_steps = std::min(epoch_steps, left / step + (left % step != 0));
      }
      uint64_t end = start;
      for (uint64_t k = 0; k < epoch_steps; ++k) {
        const uint64_t g = base + k;
        end = k + 1 > UINT64_MAX / step ? UINT64_MAX : saturating_add(start, (k + 1) * step);
        if (config.end_ps != 0) end = std::min(end, config.end_ps);
        for (unsigned q = t; q < count; q += threads) {
          if (k >= steps) {
            for (unsigned p = 0; p < count; ++p)
              if (p != q) wait_while([&] { return done[p].steps.load(std::memory_order_acquire) < g - steps + 1; });
            take(q, g - steps);
          }
          parts[q]->timeline.run_until(end);
          seal(q, g);
          done[q].steps.store(g + 1, std::memory_order_release);
        }
      }
      barrier.wait();
      if (t == 0 && hooks.between) hooks.between(end);
      const uint64_t first_untaken = base + (epoch_steps > steps ? epoch_steps - steps : 0);
      for (unsigned q = t; q < count; q += threads)
        for (uint64_t g = first_untaken; g < base + epoch_steps; ++g) take(q, g);
      base += epoch_steps;
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
