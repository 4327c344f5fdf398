// Histogram: exact below 2^kSubBits, a reported percentile never below the true
// sample and at most 1/2^kSubBits above it, merge equal to adding every sample to
// one histogram, and storage only for the powers of two the samples span.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "models/trace/histogram.hpp"

using hcasim::trace::Histogram;

namespace {

constexpr unsigned kSub = 1u << Histogram::kSubBits;  // buckets per power of two

// The q-quantile by the histogram's definition: the sample of rank ceil(q * n), at least 1.
uint64_t true_quantile(std::vector<uint64_t> samples, double q) {
  std::sort(samples.begin(), samples.end());
  const auto rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(samples.size()))));
  return samples[rank - 1];
}

const double kQuantiles[] = {0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0};

}  // namespace

TEST_CASE("Histogram: values below 2^kSubBits are counted exactly", "[histogram]") {
  Histogram h;
  for (uint64_t v = 0; v < kSub; ++v) h.add(v);
  for (uint64_t k = 1; k <= kSub; ++k) CHECK(h.quantile(static_cast<double>(k) / kSub) == k - 1);
  CHECK(h.count() == kSub);
  CHECK(h.min() == 0);
  CHECK(h.max() == kSub - 1);
  CHECK(h.mean() == Approx((kSub - 1) / 2.0));
  CHECK(h.stored_buckets() == kSub);
}

TEST_CASE("Histogram: percentiles within 1/2^kSubBits above the true sample", "[histogram]") {
  // Latencies from 1 ns to 1 s in ps, log-uniform: 30 powers of two.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(std::log(1e3), std::log(1e12));
  std::vector<uint64_t> samples;
  Histogram h;
  for (int i = 0; i < 100'000; ++i) {
    samples.push_back(static_cast<uint64_t>(std::exp(exponent(rng))));
    h.add(samples.back());
  }
  for (double q : kQuantiles) {
    const uint64_t truth = true_quantile(samples, q);
    INFO("q " << q << " true " << truth << " reported " << h.quantile(q));
    CHECK(h.quantile(q) >= truth);
    CHECK(static_cast<double>(h.quantile(q)) <= static_cast<double>(truth) * (1.0 + 1.0 / kSub));
  }
  CHECK(h.min() == *std::min_element(samples.begin(), samples.end()));
  CHECK(h.max() == *std::max_element(samples.begin(), samples.end()));
  CHECK(h.quantile(1.0) == h.max());
}

TEST_CASE("Histogram: merge equals adding every sample to one histogram", "[histogram]") {
  // Disjoint ranges, so the merge widens the target at both ends.
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<uint64_t> low(1'000, 4'000), middle(50'000, 60'000), high(1'000'000, 9'000'000);
  Histogram all, a, b;
  for (int i = 0; i < 20'000; ++i) {
    const uint64_t lo = low(rng), mid = middle(rng), hi = high(rng);
    a.add(mid);
    b.add(lo);
    b.add(hi);
    all.add(mid);
    all.add(lo);
    all.add(hi);
  }
  a.merge(b);
  a.merge(Histogram{});  // an empty one changes nothing
  CHECK(a.count() == all.count());
  CHECK(a.min() == all.min());
  CHECK(a.max() == all.max());
  CHECK(a.mean() == all.mean());
  for (double q : kQuantiles) CHECK(a.quantile(q) == all.quantile(q));

  Histogram empty;
  empty.merge(all);
  for (double q : kQuantiles) CHECK(empty.quantile(q) == all.quantile(q));
}

TEST_CASE("Histogram: buckets only for the powers of two spanned", "[histogram]") {
  Histogram h;
  CHECK(h.stored_buckets() == 0);
  CHECK(h.quantile(0.5) == 0);
  // 1.05 us to 8 us in ps: within [2^20, 2^23), three powers of two.
  h.add(8'000'000);
  CHECK(h.stored_buckets() == kSub);
  h.add(1'050'000);  // grows downwards, keeping the count above
  CHECK(h.stored_buckets() == 3 * kSub);
  CHECK(h.quantile(1.0) == 8'000'000);
  CHECK(h.quantile(0.5) >= 1'050'000);
  CHECK(h.quantile(0.5) <= 1'050'000 + 1'050'000 / kSub);
  h.add(UINT64_MAX);  // up to the top: every power of two from 2^20 to 2^63
  CHECK(h.stored_buckets() == (63 - 20 + 1) * kSub);
  CHECK(h.max() == UINT64_MAX);
}
