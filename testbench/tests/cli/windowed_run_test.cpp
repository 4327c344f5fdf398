// run_windows (testbench/cli/windowed_run.hpp) on bare partitions: the mail of a
// step is taken after its sender's step and no later than the receiver's step
// `steps` after it, exactly once; no partition gets more than `steps` steps
// ahead of another, and on two threads a partition whose partner is slow does
// run ahead; idle time is skipped; the run ends at end_ps or when idle.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "models/link/partition.hpp"
#include "models/link/timeline.hpp"
#include "testbench/cli/windowed_run.hpp"

using namespace hcasim;

namespace {

constexpr unsigned kParts = 2;
constexpr unsigned kSteps = 4;
constexpr uint64_t kWindowPs = 4000;  // steps of 1,000 ps

// Two partitions, each with an alarm every `period_ps` from `first_ps` up to `last_ps`.
struct Rig {
  std::array<std::unique_ptr<link::Partition>, kParts> parts;
  std::vector<std::unique_ptr<link::Alarm>> ticks;
  std::array<uint64_t, kParts> ran{};

  Rig(uint64_t first_ps, uint64_t period_ps, uint64_t last_ps, std::chrono::microseconds slow_part1 = {}) {
    for (unsigned q = 0; q < kParts; ++q) {
      parts[q] = std::make_unique<link::Partition>(kParts);
      const link::Timeline::Building on(parts[q]->timeline);
      ticks.push_back(std::make_unique<link::Alarm>([this, q, period_ps, last_ps, slow_part1] {
        ++ran[q];
        if (q == 1 && slow_part1.count() > 0) std::this_thread::sleep_for(slow_part1);
        if (link::now_ps() + period_ps <= last_ps) ticks[q]->notify_in(period_ps);
      }));
      ticks.back()->notify_at(first_ps);
    }
  }
  std::vector<link::Partition*> list() const {
    std::vector<link::Partition*> l;
    for (const auto& p : parts) l.push_back(p.get());
    return l;
  }
};

// What the hooks saw: steps sealed per partition, and per (sender, slot) the
// step sealed there.
struct Mail {
  std::array<std::atomic<uint64_t>, kParts> sealed{};
  std::array<std::array<uint64_t, 2 * kSteps>, kParts> step_in_slot{};
  std::array<std::array<uint64_t, kParts>, kParts> taken{};  // [from][q]
  std::atomic<uint64_t> max_lead{0};
  std::atomic<bool> ok{true};

  WindowHooks hooks() {
    WindowHooks h;
    h.seal = [this](unsigned from, unsigned slot) {
      step_in_slot[from][slot] = sealed[from].load();
      const uint64_t mine = sealed[from].fetch_add(1) + 1;
      const uint64_t other = sealed[1 - from].load();
      if (mine > other) {
        uint64_t lead = max_lead.load();
        while (mine - other > lead && !max_lead.compare_exchange_weak(lead, mine - other)) {
        }
        if (mine - other > kSteps) ok = false;
      }
    };
    h.take = [this](unsigned q, unsigned from, unsigned slot) {
      const uint64_t step = step_in_slot[from][slot];
      const uint64_t next_of_q = sealed[q].load();  // the step q runs next
      if (!(step < sealed[from].load() && next_of_q <= step + kSteps)) ok = false;
      ++taken[from][q];
    };
    h.between = [](uint64_t) {};
    return h;
  }
};

}  // namespace

TEST_CASE("run_windows: a step's mail is taken once, before the receiver's step `steps` later", "[parallel]") {
  for (unsigned threads : {1u, 2u}) {
    INFO(threads << " threads");
    Rig rig(0, 250, 1'000'000);
    Mail mail;
    WindowedRunConfig c;
    c.window_ps = kWindowPs;
    c.steps = kSteps;
    c.threads = threads;
    c.end_ps = 200'000;  // 200 steps
    REQUIRE(run_windows(rig.list(), c, mail.hooks()) == 200'000);
    CHECK(mail.ok);
    CHECK(mail.max_lead <= kSteps);
    for (unsigned q = 0; q < kParts; ++q) {
      CHECK(mail.sealed[q] == 200);
      CHECK(rig.ran[q] == 800);  // alarms at 0, 250, ... 199,750: none at end_ps
      CHECK(mail.taken[q][1 - q] == 200);
    }
  }
}

TEST_CASE("run_windows: on two threads a partition runs ahead of a slow partner, by at most `steps` steps", "[parallel]") {
  Rig rig(0, 1000, 1'000'000, std::chrono::microseconds(300));
  Mail mail;
  WindowedRunConfig c;
  c.window_ps = kWindowPs;
  c.steps = kSteps;
  c.threads = 2;
  c.end_ps = 60'000;  // 60 steps, 18 ms of partition 1's sleeping
  run_windows(rig.list(), c, mail.hooks());
  CHECK(mail.ok);
  // Lockstep windows of a whole lookahead would allow a lead of one step.
  CHECK(mail.max_lead >= 2);
  CHECK(mail.max_lead <= kSteps);
}

TEST_CASE("run_windows: idle time is skipped and the run ends when no alarm is due", "[parallel]") {
  // One alarm at 100 ps, the next at 10 ms: 10 million steps of 1,000 ps if idle
  // time were stepped through.
  Rig rig(100, 10'000'000'000, 10'000'000'100);
  Mail mail;
  WindowedRunConfig c;
  c.window_ps = kWindowPs;
  c.steps = kSteps;
  c.threads = 2;
  REQUIRE(run_windows(rig.list(), c, mail.hooks()) == 10'000'000'100);
  CHECK(mail.ok);
  for (unsigned q = 0; q < kParts; ++q) {
    CHECK(rig.ran[q] == 2);
    CHECK(mail.sealed[q] <= 2 * 16 * kSteps);  // two epochs of 16 windows
  }
}
