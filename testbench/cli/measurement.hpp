#pragma once
// When a raw-traffic run takes its statistics (BookSim's method; run.warmup,
// run.measure): a warm-up whose packets are not measured, a measured window,
// and a drain that delivers the packets made in the window.
//
// Rules:
// - No warm-up and no window: everything from time 0 to the run's end is
//   measured, as without this class.
// - A fixed warm-up W: the window starts W after the workloads start (time 0,
//   or the end of the SM's sweep in band).
// - warmup auto: every warmup_period the mean latency and the accepted
//   throughput of that period's deliveries go to the steady-state test
//   (workloads/steady_state.hpp); the window starts when it passes, or after
//   warmup_max_periods anyway (steady_state false).
// - measure M: the window closes M after it opened; the sources go on (the
//   network stays loaded) and the run ends when every packet made in the
//   window has been delivered or dropped at its source (drained), or
//   drain_limit after the close (not drained), or at run.duration, whichever
//   is first. Without M the window lasts to the run's end.
// - One SystemC timeline only (run.partitions 1; the scenario checks it).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "models/config/raw_traffic_settings.hpp"
#include "models/link/timeline.hpp"
#include "testbench/workloads/flow_recorder.hpp"
#include "testbench/workloads/measure_window.hpp"
#include "testbench/workloads/raw_generator.hpp"
#include "testbench/workloads/steady_state.hpp"

namespace hcasim {

class Measurement {
 public:
  Measurement(const config::MeasureSettings& settings, std::vector<workloads::FlowResult>& results,
              std::vector<workloads::FlowRecorder*> recorders, std::vector<workloads::RawGenerator*> generators);
  Measurement(const Measurement&) = delete;
  Measurement& operator=(const Measurement&) = delete;
  // The workloads start now (time 0, or the end of the sweep in band).
  void start(uint64_t now_ps);
  const workloads::MeasureWindow& window() const { return window_; }
  // Called once when the run should stop (the drain is over).
  void on_done(std::function<void()> f) { done_ = std::move(f); }
  // Called when the window opens and when it closes, with the time.
  void on_window(std::function<void(uint64_t)> opened, std::function<void(uint64_t)> closed) {
    opened_ = std::move(opened);
    closed_hook_ = std::move(closed);
  }
  // The measured window as it ended (end_ps: the close, or the run's end).
  uint64_t window_end(uint64_t run_end_ps) const { return std::min(window_.end_ps, run_end_ps); }
  // stats.json's run.measurement.
  nlohmann::json json(uint64_t run_end_ps) const;

 private:
  void open(uint64_t now_ps);
  void sample();
  void close();
  void drain_over();
  void end_drain(bool drained);  // the run stops now
  void measured_delivered();
  uint64_t outstanding() const;
  void set_window(const workloads::MeasureWindow& w);

  config::MeasureSettings settings_;
  std::vector<workloads::FlowResult>& results_;
  std::vector<workloads::FlowRecorder*> recorders_;
  std::vector<workloads::RawGenerator*> generators_;
  workloads::MeasureWindow window_;
  workloads::SteadyStateTest steady_;
  bool steady_reached_ = false;
  bool closed_ = false;
  bool drained_ = false;
  uint64_t drain_end_ps_ = 0;
  uint64_t remaining_ = 0;  // measured packets not yet delivered, counted down after the close
  std::function<void()> done_;
  std::function<void(uint64_t)> opened_, closed_hook_;
  link::Alarm sampler_ = link::Alarm::method<&Measurement::sample>(this);
  link::Alarm closer_ = link::Alarm::method<&Measurement::close>(this);
  link::Alarm drain_limit_ = link::Alarm::method<&Measurement::drain_over>(this);
};

}  // namespace hcasim
