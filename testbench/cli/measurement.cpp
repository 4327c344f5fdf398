#include "testbench/cli/measurement.hpp"

#include <algorithm>

#include "models/config/units.hpp"

namespace hcasim {

Measurement::Measurement(const config::MeasureSettings& settings, std::vector<workloads::FlowResult>& results,
                         std::vector<workloads::FlowRecorder*> recorders,
                         std::vector<workloads::RawGenerator*> generators)
    : settings_(settings),
      results_(results),
      recorders_(std::move(recorders)),
      generators_(std::move(generators)),
      steady_(settings.threshold) {
  for (workloads::FlowRecorder* r : recorders_) r->on_measured([this] { measured_delivered(); });
  // Until start(): nothing is measured if a warm-up or window is asked for.
  if (settings_.windowed()) set_window({UINT64_MAX, UINT64_MAX});
}

void Measurement::set_window(const workloads::MeasureWindow& w) {
  window_ = w;
  for (workloads::FlowRecorder* r : recorders_) r->use_window(w);
  for (workloads::RawGenerator* g : generators_) g->use_window(w);
}

void Measurement::start(uint64_t now_ps) {
  if (!settings_.windowed()) return;
  if (settings_.warmup.automatic) {
    for (workloads::FlowRecorder* r : recorders_) r->take_period();
    for (workloads::RawGenerator* g : generators_) g->take_period_offered();
    sampler_.notify_at(now_ps + settings_.period_ps);
    return;
  }
  if (settings_.warmup.ps == 0) open(now_ps);
  else closer_.notify_at(now_ps + settings_.warmup.ps);  // close() opens the window first
}

void Measurement::open(uint64_t now_ps) {
  const uint64_t end = settings_.measure_ps != 0 ? now_ps + settings_.measure_ps : UINT64_MAX;
  set_window({now_ps, end});
  if (opened_) opened_(now_ps);
  if (end != UINT64_MAX) closer_.notify_at(end);
}

void Measurement::sample() {
  workloads::PeriodSample s;
  for (workloads::FlowRecorder* r : recorders_) {
    const workloads::PeriodSample p = r->take_period();
    s.packets += p.packets;
    s.latency_sum_ps += p.latency_sum_ps;
    s.bytes += p.bytes;
  }
  for (workloads::RawGenerator* g : generators_) s.offered_bytes += g->take_period_offered();
  steady_reached_ = steady_.add(s);
  if (steady_reached_ || steady_.periods() >= settings_.max_periods) {
    open(link::now_ps());
    return;
  }
  sampler_.notify_in(settings_.period_ps);
}

void Measurement::close() {
  const uint64_t now = link::now_ps();
  if (window_.start_ps == UINT64_MAX) {  // the fixed warm-up is over
    open(now);
    return;
  }
  closed_ = true;
  if (closed_hook_) closed_hook_(now);
  remaining_ = outstanding();
  if (remaining_ == 0) {
    end_drain(true);
    return;
  }
  drain_limit_.notify_at(now + (settings_.drain_limit_ps != 0 ? settings_.drain_limit_ps : settings_.measure_ps));
}

void Measurement::measured_delivered() {
  if (!closed_ || drained_ || remaining_ == 0) return;
  if (--remaining_ != 0) return;
  remaining_ = outstanding();  // exact: a measured packet may also have been dropped at its source
  if (remaining_ == 0) end_drain(true);
}

void Measurement::drain_over() { end_drain(outstanding() == 0); }

void Measurement::end_drain(bool drained) {
  drained_ = drained;
  drain_end_ps_ = link::now_ps();
  drain_limit_.cancel();
  if (done_) done_();
}

uint64_t Measurement::outstanding() const {
  uint64_t n = 0;
  for (const workloads::FlowResult& r : results_) {
    const uint64_t gone = r.offered_lost + r.measured_delivered;
    n += r.offered > gone ? r.offered - gone : 0;
  }
  return n;
}

nlohmann::json Measurement::json(uint64_t run_end_ps) const {
  nlohmann::json out = nlohmann::json::object();
  out["warmup"] = settings_.warmup.automatic ? nlohmann::json("auto") : nlohmann::json(config::format_time_ps(settings_.warmup.ps));
  out["measure"] = config::format_time_ps(settings_.measure_ps);
  const bool opened = window_.start_ps != UINT64_MAX;
  out["window_start_ps"] = opened ? window_.start_ps : run_end_ps;
  out["window_end_ps"] = opened ? window_end(run_end_ps) : run_end_ps;
  if (settings_.warmup.automatic) {
    out["steady_state"] = steady_reached_;
    out["sample_periods"] = steady_.periods();
    out["last_latency_change"] = steady_.latency_change();
    out["last_throughput_change"] = steady_.throughput_change();
  }
  if (settings_.measure_ps != 0) {
    out["drained"] = drained_;
    out["drain_end_ps"] = drained_ || closed_ ? drain_end_ps_ : run_end_ps;
    out["measured_packets_outstanding"] = outstanding();
  }
  return out;
}

}  // namespace hcasim
