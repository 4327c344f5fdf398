#include "testbench/cli/event_cost.hpp"

#include <systemc>

#include <chrono>

#include "models/link/spawn.hpp"

namespace hcasim {

namespace {
class EventProbe : public sc_core::sc_module {
 public:
  EventProbe(const sc_core::sc_module_name& name, uint64_t count) : sc_module(name), left_(count) {
    link::spawn_method("tick", tick_, [this] {
      if (--left_ > 0) tick_.notify(1, sc_core::SC_NS);
    });
  }
  void start_of_simulation() override { tick_.notify(1, sc_core::SC_NS); }

 private:
  uint64_t left_;
  sc_core::sc_event tick_{"tick_event"};
};
}  // namespace

double timed_event_cost_ns(uint64_t count) {
  EventProbe probe("event_probe", count);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s * 1e9 / static_cast<double>(count);
}

}  // namespace hcasim
