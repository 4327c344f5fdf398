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
#include "models/link/timeline.hpp"

using namespace hcasim::link;

namespace {
struct Tag {
  int id;
};
}  // namespace

TEST_CASE("alarm queue pops by time and keeps push order among equal times") {
  AlarmQueue<Tag> q;
  std::vector<Tag> tags(2000);
  std::vector<std::pair<uint64_t, int>> expected;  // (time, push index)
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    tags[i].id = i;
    const uint64_t t = rng() % 50;  // many ties
    q.push(t, &tags[i]);
    expected.emplace_back(t, i);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [t, i] : expected) {
    REQUIRE_FALSE(q.empty());
    const auto e = q.pop();
    REQUIRE(e.time_ps == t);
    REQUIRE(e.target->id == i);
  }
  REQUIRE(q.empty());
}

TEST_CASE("alarm queue interleaves pushes and pops in order") {
  AlarmQueue<Tag> q;
  Tag tag{0};
  std::mt19937_64 rng(11);
  uint64_t now = 0;
  for (int round = 0; round < 5000; ++round) {
    q.push(now + rng() % 1000, &tag);
    if (round % 3 == 2) {
      const auto e = q.pop();
      REQUIRE(e.time_ps >= now);
      now = e.time_ps;
    }
  }
  while (!q.empty()) {
    const auto e = q.pop();
    REQUIRE(e.time_ps >= now);
    now = e.time_ps;
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
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.set_sensitivity(&tick_);
    o.dont_initialize();
    sc_core::sc_spawn([this] { target_.notify_in(250); }, "poke", &o);
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
