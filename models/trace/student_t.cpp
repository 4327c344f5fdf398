#include "models/trace/student_t.hpp"

#include <cmath>

namespace hcasim::trace {

namespace {

constexpr double kPi = 3.14159265358979323846;

// A(t|df) = P(|T| <= t) for t >= 0 (A & S 26.7.3 for odd df, 26.7.4 for even).
double central_mass(double t, unsigned df) {
  const double theta = std::atan(t / std::sqrt(static_cast<double>(df)));
  const double s = std::sin(theta), c = std::cos(theta), c2 = c * c;
  if (df % 2 == 1) {
    // (2/pi) (theta + sin cos (1 + 2/3 cos^2 + (2 4)/(3 5) cos^4 + ... up to cos^(df-3)))
    double term = 1.0, sum = df > 1 ? 1.0 : 0.0;
    for (unsigned j = 1; 2 * j + 3 <= df; ++j) {
      term *= c2 * (2.0 * j) / (2.0 * j + 1.0);
      sum += term;
    }
    return 2.0 / kPi * (theta + s * c * sum);
  }
  // sin (1 + 1/2 cos^2 + (1 3)/(2 4) cos^4 + ... up to cos^(df-2))
  double term = 1.0, sum = 1.0;
  for (unsigned j = 1; 2 * j + 2 <= df; ++j) {
    term *= c2 * (2.0 * j - 1.0) / (2.0 * j);
    sum += term;
  }
  return s * sum;
}

}  // namespace

double student_t_cdf(double t, unsigned df) {
  const double a = central_mass(std::fabs(t), df);
  return t >= 0 ? 0.5 + 0.5 * a : 0.5 - 0.5 * a;
}

double student_t_quantile(double p, unsigned df) {
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  double lo = 0.0, hi = 1.0;
  while (student_t_cdf(hi, df) < p) {
    lo = hi;
    hi *= 2.0;
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace hcasim::trace
