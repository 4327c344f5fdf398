// Timeline::hold / release: a handler that waits for another SystemC process
// (an RTL transactor answering in delta cycles) stops the dispatch, which goes
// on at the same time and in the same order after the release; the delta
// cycles in between are counted apart (timeline.hpp).
#include <catch2/catch.hpp>

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "models/link/spawn.hpp"
#include "models/link/timeline.hpp"

using namespace hcasim::link;

namespace {

// Answers a held handler after `deltas` delta cycles, as a transactor does.
class Answerer {
 public:
  explicit Answerer(unsigned deltas) : deltas_(deltas), wake_("answerer_wake") {
    spawn_method("answerer", wake_, [this] { step(); });
  }
  void ask(std::function<void()> answer) {
    answer_ = std::move(answer);
    left_ = deltas_;
    wake_.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  void step() {
    if (--left_ > 0) return wake_.notify(sc_core::SC_ZERO_TIME);
    auto a = std::move(answer_);
    a();
  }
  unsigned deltas_;
  unsigned left_ = 0;
  std::function<void()> answer_;
  sc_core::sc_event wake_;
};

struct Log {
  std::vector<std::string> events;
  void add(const std::string& what) {
    events.push_back(what + "@" + std::to_string(sc_core::sc_time_stamp().value()));
  }
};

}  // namespace

TEST_CASE("a held handler's answer comes before the alarms after it - at the same time and in order") {
  Log log;
  Answerer answerer(5);
  Timeline& t = Timeline::current();
  Alarm later([&] { log.add("later"); });
  Alarm after([&] { log.add("after"); });
  Alarm now_from_answer([&] { log.add("now_from_answer"); });
  Alarm held([&] {
    log.add("held");
    t.hold();
    answerer.ask([&] {
      log.add("answer");
      now_from_answer.notify_now();  // queued behind the alarms already due now
      t.release();
    });
  });
  held.notify_at(1000);
  after.notify_at(1000);
  later.notify_at(2000);
  sc_core::sc_start();
  REQUIRE(log.events ==
          std::vector<std::string>{"held@1000", "answer@1000", "after@1000", "now_from_answer@1000", "later@2000"});
  // The answerer's five delta cycles and the one that resumed the dispatch.
  REQUIRE(t.held_delta_cycles() == 6);
}

TEST_CASE("a hold released within the handler costs no delta cycle") {
  Log log;
  Timeline& t = Timeline::current();
  Alarm after([&] { log.add("after"); });
  Alarm held([&] {
    t.hold();
    log.add("held");
    t.release();
  });
  held.notify_at(10);
  after.notify_at(10);
  sc_core::sc_start();
  REQUIRE(log.events == std::vector<std::string>{"held@10", "after@10"});
  REQUIRE(t.held_delta_cycles() == 0);
}

TEST_CASE("a hold released with nothing else due at that time counts only the delta cycles held") {
  Log log;
  Answerer answerer(3);
  Timeline& t = Timeline::current();
  Alarm later([&] { log.add("later"); });
  Alarm held([&] {
    t.hold();
    answerer.ask([&] {
      log.add("answer");
      t.release();
    });
  });
  held.notify_at(10);
  later.notify_at(20);
  sc_core::sc_start();
  REQUIRE(log.events == std::vector<std::string>{"answer@10", "later@20"});
  REQUIRE(t.held_delta_cycles() == 3);
}
