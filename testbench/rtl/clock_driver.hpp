#pragma once
// The clock and reset of one Verilated block, driven in delta cycles by its
// transactor, and only while it has work: an idle block costs nothing.
//
// Rules:
// - Work is a queue of jobs. A job sets the block's inputs before a rising
//   edge (drive); after each rising edge, once the block's outputs show it,
//   finished() reads them and says whether the job is done, or may change the
//   inputs and ask for another clock.
// - A job that wakes (a question someone waits for) starts the clock; other
//   jobs (configuration writes, posted events) wait in the queue and run, in
//   order, ahead of the next job that wakes. The clock stops when no waking job
//   is left.
// - One clock cycle is two delta cycles at the current simulated time: the
//   rising edge (the block evaluates), then the falling edge (the transactor
//   reads the outputs and drives the next inputs with the next rising edge).
//   Simulated time never advances inside a job.
// - Before each job the block's inputs go back to their idle values
//   (idle_inputs), so a job drives only what it uses. When the clock stops
//   they stay as they are: without an edge nothing samples them, and the
//   block's delta cycles end with the answer (timeline.hpp counts them).
// - The first jobs are a reset cycle (rst_n low for one clock).
// - Each edge is written to the RTL waves when they are on.

#include <systemc>

#include <deque>
#include <functional>

#include "testbench/rtl/rtl_waves.hpp"

namespace hcasim::rtl {

class ClockDriver : public sc_core::sc_module {
 public:
  struct Job {
    std::function<void()> drive;
    std::function<bool()> finished;  // null = done after one clock
    bool wakes = false;
  };

  ClockDriver(const sc_core::sc_module_name& name, std::function<void()> idle_inputs, RtlWaves* waves);
  ClockDriver() = delete;
  ClockDriver(const ClockDriver&) = delete;
  ClockDriver& operator=(const ClockDriver&) = delete;

  void post(Job job);
  uint64_t cycles() const { return cycles_; }

  sc_core::sc_signal<bool> clk{"clk", false};
  sc_core::sc_signal<bool> rst_n{"rst_n", true};

 private:
  void tick();
  void rise();

  std::function<void()> idle_inputs_;
  RtlWaves* waves_;
  std::deque<Job> jobs_;
  unsigned waking_ = 0;   // waking jobs in the queue
  bool active_ = false;   // the clock runs (tick is scheduled)
  bool running_ = false;  // the queue's front job has been driven
  bool clk_high_ = false;
  uint64_t cycles_ = 0;
  sc_core::sc_event kick_;
};

}  // namespace hcasim::rtl
