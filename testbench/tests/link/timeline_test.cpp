// The model's event queue: AlarmQueue order (pure) and Timeline/Alarm
// semantics under SystemC (sc_event's notification rules, same-time order).
#include <catch2/catch.hpp>

#include <systemc>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "models/link/alarm_queue.hpp"
#include "models/link/spawn.hpp"
#include "models/link/timeline.hpp"

using namespace hcasim::link;

namespace {
struct Tag : AlarmHook {
  int id = 0;
};
}  // namespace

TEST_CASE("alarm queue pops by time and keeps push order among equal times") {
  AlarmQueue q;
  std::vector<Tag> tags(2000);
  std::vector<std::pair<uint64_t, int>> expected;  // (time, push index)
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    tags[i].id = i;
    const uint64_t t = rng() % 50;  // many ties
    q.push(&tags[i], t);
    expected.emplace_back(t, i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [t, i] : expected) {
    REQUIRE_FALSE(q.empty());
    REQUIRE(q.front_time() == t);
    const auto* e = static_cast<Tag*>(q.pop());
    REQUIRE(e->id == i);
    REQUIRE_FALSE(e->queued());
  }
  REQUIRE(q.empty());
}

TEST_CASE("alarm queue re-queues and removes and stays in order") {
  // A reference model: the same operations on a sorted list of (time, order).
  AlarmQueue q;
  std::vector<Tag> tags(300);
  std::vector<uint64_t> order(tags.size(), 0);  // push order of each queued tag
  uint64_t pushes = 0;
  std::mt19937_64 rng(11);
  uint64_t now = 0;
  for (int round = 0; round < 20000; ++round) {
    Tag& t = tags[rng() % tags.size()];
    const int op = static_cast<int>(rng() % 4);
    if (op == 0 && t.queued()) {
      q.remove(&t);
    } else if (op <= 2) {
      if (t.queued()) q.remove(&t);
      q.push(&t, now + rng() % 200);
      order[static_cast<std::size_t>(&t - tags.data())] = ++pushes;
    } else if (!q.empty()) {
      // The front is the earliest queued tag, the first pushed among equals.
      const Tag* best = nullptr;
      for (const Tag& c : tags) {
        if (!c.queued()) continue;
        const auto oc = order[static_cast<std::size_t>(&c - tags.data())];
        if (best == nullptr || c.at_ps < best->at_ps ||
            (c.at_ps == best->at_ps && oc < order[static_cast<std::size_t>(best - tags.data())]))
          best = &c;
      }
      REQUIRE(q.front() == best);
      REQUIRE(q.front_time() == best->at_ps);
      now = q.front_time();
      q.pop();
    }
  }
  std::size_t queued = 0;
  for (const Tag& c : tags) queued += c.queued();
  REQUIRE(q.size() == queued);
  while (!q.empty()) {
    REQUIRE(q.front_time() >= now);
    now = q.front_time();
    q.pop();
  }
}

TEST_CASE("alarms run at their time in notification order and follow sc_event's rules") {
  std::vector<std::pair<std::string, uint64_t>> log;
  auto record = [&log](const char* what) { log.emplace_back(what, sc_core::sc_time_stamp().value()); };
  Alarm later([&] { record("later"); });
  Alarm again([&] { record("again"); });
  Alarm cancelled([&] { record("cancelled"); });
  Alarm tie_b([&] { record("tie_b"); });
  Alarm chained([&] { record("chained"); });
  Alarm tie_a([&] {
    record("tie_a");
    chained.notify_now();  // same time, after the handlers already due
  });
  later.notify_at(5000);
  again.notify_at(3000);
  again.notify_at(4000);  // a later notification keeps the earlier one
  again.notify_at(1000);  // an earlier one replaces it
  cancelled.notify_at(2000);
  cancelled.cancel();
  tie_a.notify_at(2000);
  tie_b.notify_at(2000);
  sc_core::sc_start();
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"again", 1000}, {"tie_a", 2000}, {"tie_b", 2000}, {"chained", 2000}, {"later", 5000}};
  REQUIRE(log == expected);
  REQUIRE(Timeline::current().dispatched() == 5);
}

namespace {
// A plain SystemC process that notifies an alarm from outside the timeline.
class Poker : public sc_core::sc_module {
 public:
  Poker(const sc_core::sc_module_name& name, Alarm& target) : sc_module(name), target_(target) {
    spawn_method("poke", tick_, [this] { target_.notify_in(250); });
  }
  void start_of_simulation() override { tick_.notify(1, sc_core::SC_NS); }

 private:
  Alarm& target_;
  sc_core::sc_event tick_{"tick"};
};
}  // namespace

TEST_CASE("an alarm notified by another SystemC process wakes the timeline") {
  std::vector<uint64_t> at;
  Alarm a([&] { at.push_back(sc_core::sc_time_stamp().value()); });
  Poker poker("poker", a);
  sc_core::sc_start();
  REQUIRE(at == std::vector<uint64_t>{1250});
}

TEST_CASE("a partition's timeline runs the alarms due before a window's end, in order, on its own clock") {
  Timeline part{Timeline::Standalone{}};
  std::vector<std::pair<std::string, uint64_t>> log;
  const Timeline::Building on_part(part);
  REQUIRE(&Timeline::current() == &part);
  auto record = [&log](const char* what) { log.emplace_back(what, now_ps()); };
  Alarm at_end([&] { record("at_end"); });
  Alarm tie_b([&] { record("tie_b"); });
  Alarm chained([&] { record("chained"); });
  Alarm tie_a([&] {
    record("tie_a");
    chained.notify_in(500);  // before the window's end: runs in this window
  });
  Alarm first([&] { record("first"); });
  at_end.notify_at(3000);
  tie_a.notify_at(2000);
  tie_b.notify_at(2000);
  first.notify_at(1000);
  REQUIRE(part.next_due_ps() == 1000);
  part.run_until(3000);  // [.., 3000): the alarm due at 3000 waits
  const std::vector<std::pair<std::string, uint64_t>> want = {
      {"first", 1000}, {"tie_a", 2000}, {"tie_b", 2000}, {"chained", 2500}};
  REQUIRE(log == want);
  REQUIRE(part.clock_ps() == 2500);
  REQUIRE(part.next_due_ps() == 3000);
  REQUIRE(part.dispatched() == 4);
  part.run_until(10000);
  REQUIRE(log.back() == std::pair<std::string, uint64_t>{"at_end", 3000});
  REQUIRE(part.next_due_ps() == UINT64_MAX);
  // Outside run_until this thread reads the kernel's clock again; advance_to
  // moves the partition's on, and OnClock reads it.
  REQUIRE(now_ps() == 0);
  part.advance_to(7000);
  const Timeline::OnClock on_clock(part);
  REQUIRE(now_ps() == 7000);
}

TEST_CASE("alarms made outside a Building scope stay on the simulation's timeline") {
  Timeline part{Timeline::Standalone{}};
  bool ran = false;
  Alarm kernel_alarm([&] { ran = true; });
  {
    const Timeline::Building on_part(part);
    Alarm inside([] {});
    inside.notify_at(10);
    REQUIRE(part.next_due_ps() == 10);
  }
  REQUIRE(&Timeline::current() != &part);
  kernel_alarm.notify_at(1000);
  REQUIRE(part.next_due_ps() == UINT64_MAX);  // `inside` cancelled itself when it went
  sc_core::sc_start(sc_core::sc_time::from_value(2000));
  REQUIRE(ran);
}
