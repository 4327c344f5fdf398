#pragma once
// Student's t distribution for integer degrees of freedom: its distribution
// function in closed form (Abramowitz & Stegun 26.7.3 and 26.7.4: finite sums
// of powers of cos(atan(t / sqrt(df)))), and its quantile by bisection on it,
// exact to double precision for any df.

namespace hcasim::trace {

// P(T <= t) for T with `df` >= 1 degrees of freedom.
double student_t_cdf(double t, unsigned df);
// The t with P(T <= t) = p, for 0 < p < 1 and `df` >= 1.
double student_t_quantile(double p, unsigned df);

}  // namespace hcasim::trace
