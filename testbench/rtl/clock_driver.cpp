#include "testbench/rtl/clock_driver.hpp"

#include "models/link/spawn.hpp"

namespace hcasim::rtl {

ClockDriver::ClockDriver(const sc_core::sc_module_name& name, std::function<void()> idle_inputs, RtlWaves* waves)
    : sc_module(name), idle_inputs_(std::move(idle_inputs)), waves_(waves), kick_("kick") {
  link::spawn_method("tick", kick_, [this] { tick(); });
  // A reset cycle is the first job.
  post({[this] { rst_n.write(false); }, nullptr, false});
  post({[this] { rst_n.write(true); }, nullptr, false});
}

void ClockDriver::post(Job job) {
  const bool wakes = job.wakes;
  jobs_.push_back(std::move(job));
  if (!wakes) return;
  ++waking_;
  if (!active_) {
    active_ = true;
    kick_.notify(sc_core::SC_ZERO_TIME);
  }
}

void ClockDriver::rise() {
  clk.write(true);
  clk_high_ = true;
  ++cycles_;
  kick_.notify(sc_core::SC_ZERO_TIME);
}

void ClockDriver::tick() {
  if (waves_ != nullptr) waves_->dump_now();
  if (clk_high_) {
    clk.write(false);
    clk_high_ = false;
    kick_.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  // The outputs show the last rising edge now.
  if (running_) {
    Job& job = jobs_.front();  // a finished() that posts jobs keeps this reference valid (deque)
    if (job.finished && !job.finished()) {
      rise();
      return;
    }
    if (jobs_.front().wakes) --waking_;
    jobs_.pop_front();
    running_ = false;
  }
  if (waking_ == 0) {
    // The clock stops; the inputs stay (no edge comes to sample them), so the
    // block is not woken again after the answer.
    active_ = false;
    return;
  }
  idle_inputs_();
  jobs_.front().drive();
  running_ = true;
  rise();
}

}  // namespace hcasim::rtl
