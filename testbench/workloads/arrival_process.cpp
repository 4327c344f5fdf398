#include "testbench/workloads/arrival_process.hpp"

#include <cmath>
#include <stdexcept>

namespace hcasim::workloads {

ArrivalProcess::ArrivalProcess(const config::SourceSettings& s, double interval_ps, double peak_interval_ps,
                               uint64_t seed)
    : kind_(s.arrival), interval_(interval_ps), peak_(peak_interval_ps) {
  if (kind_ != config::Arrival::Deterministic) rng_ = std::make_unique<std::mt19937_64>(seed);
  if (kind_ != config::Arrival::OnOff) return;
  if (interval_ps < peak_interval_ps)
    throw std::invalid_argument("on_off arrivals need an offered load of at most the link's rate");
  // A burst of geometric length with mean b: each packet is followed by
  // another of its burst with probability 1 - 1/b.
  continue_burst_ = 1.0 - 1.0 / s.burst;
  mean_gap_ = s.burst * (interval_ps - peak_interval_ps);
}

double ArrivalProcess::uniform() { return static_cast<double>(((*rng_)() >> 11) + 1) * 0x1.0p-53; }

uint64_t ArrivalProcess::rounded(double ps) {
  const double want = ps + carry_;
  const double whole = std::floor(want + 0.5);
  carry_ = want - whole;
  return whole > 0 ? static_cast<uint64_t>(whole) : 0;
}

uint64_t ArrivalProcess::next_gap() {
  switch (kind_) {
    case config::Arrival::Deterministic: return rounded(interval_);
    case config::Arrival::Poisson: return rounded(-interval_ * std::log(uniform()));
    case config::Arrival::OnOff:
      if (uniform() <= continue_burst_) return rounded(peak_);
      return rounded(peak_ - mean_gap_ * std::log(uniform()));
  }
  return rounded(interval_);
}

}  // namespace hcasim::workloads
