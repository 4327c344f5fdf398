// Student's t: the quantiles with closed forms (df 1 and 2), the normal
// quantile as df grows, and the distribution function against a numerical
// integral of the density for every df a batch-means interval uses.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/trace/student_t.hpp"

using hcasim::trace::student_t_cdf;
using hcasim::trace::student_t_quantile;

namespace {

constexpr double kPi = 3.14159265358979323846;

double density(double t, unsigned df) {
  const double v = df;
  return std::exp(std::lgamma((v + 1) / 2) - std::lgamma(v / 2)) / std::sqrt(v * kPi) *
         std::pow(1 + t * t / v, -(v + 1) / 2);
}

// P(0 <= T <= t) by Simpson's rule.
double integral(double t, unsigned df) {
  const int n = 20'000;
  const double h = t / n;
  double sum = density(0, df) + density(t, df);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * density(i * h, df);
  return sum * h / 3;
}

}  // namespace

TEST_CASE("Student t: quantiles of 1 and 2 degrees of freedom equal their closed forms", "[student_t]") {
  // df 1 (Cauchy): tan(pi (p - 1/2)); df 2: (2p - 1) sqrt(2 / (1 - (2p - 1)^2)).
  CHECK(student_t_quantile(0.975, 1) == Approx(std::tan(kPi * 0.475)).epsilon(1e-12));
  const double a = 0.95;
  CHECK(student_t_quantile(0.975, 2) == Approx(a * std::sqrt(2 / (1 - a * a))).epsilon(1e-12));
  CHECK(student_t_quantile(0.025, 2) == Approx(-a * std::sqrt(2 / (1 - a * a))).epsilon(1e-12));
  CHECK(student_t_quantile(0.5, 7) == 0.0);
}

TEST_CASE("Student t: the quantile tends to the normal one as df grows", "[student_t]") {
  const double z = 1.959963984540054;  // the standard normal's 0.975 quantile
  CHECK(student_t_quantile(0.975, 100'000) == Approx(z).epsilon(1e-4));
  // and decreases towards it
  for (unsigned df = 1; df < 64; ++df) CHECK(student_t_quantile(0.975, df) > student_t_quantile(0.975, df + 1));
}

TEST_CASE("Student t: the distribution function equals the integral of the density", "[student_t]") {
  for (unsigned df = 1; df <= 64; ++df)
    for (double t : {0.3, 1.0, 2.0, 2.1, 4.0}) {
      INFO("df " << df << " t " << t);
      CHECK(student_t_cdf(t, df) - 0.5 == Approx(integral(t, df)).epsilon(1e-9));
      CHECK(student_t_cdf(-t, df) == Approx(1 - student_t_cdf(t, df)).epsilon(1e-12));
    }
}
