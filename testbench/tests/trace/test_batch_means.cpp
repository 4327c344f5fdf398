// Batch means: for independent samples the 95 % interval covers the true mean
// in about 95 % of independent runs, its half-width shrinks as 1 / sqrt(n) and
// equals t(k - 1) sigma / sqrt(n) on average; batches stay between half and
// all of kMaxBatches over any span (17 to 32); merge equals adding every sample to one;
// the lag-1 autocorrelation tells independent batches from a drift.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>

#include "models/trace/batch_means.hpp"
#include "models/trace/student_t.hpp"

using hcasim::trace::BatchMeans;

namespace {

constexpr double kMean = 5000.0;  // exponential samples: sigma = mean

struct Run {
  double mean = 0;
  BatchMeans batches;
};

// n exponential samples, one every `gap` ps from `start`.
Run exponential_run(uint64_t seed, unsigned n, uint64_t gap = 1000, uint64_t start = 123'456) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> draw(1.0 / kMean);
  Run r;
  double sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    const double v = draw(rng);
    sum += v;
    r.batches.add(v, start + i * gap);
  }
  r.mean = sum / n;
  return r;
}

}  // namespace

TEST_CASE("BatchMeans: the 95% interval covers the true mean in about 95% of 200 seeds", "[batch_means]") {
  const int seeds = 200;
  int covered = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const Run r = exponential_run(seed, 20'000);
    if (std::fabs(r.mean - kMean) <= r.batches.ci95_half_width()) ++covered;
  }
  // Binomial(200, 0.95): standard deviation 3.1 runs; allow about 3 of them.
  INFO("covered " << covered << " of " << seeds);
  CHECK(covered >= 180);
  CHECK(covered <= 199);
}

TEST_CASE("BatchMeans: the half-width shrinks as 1/sqrt(n) and equals t sigma/sqrt(n) on average", "[batch_means]") {
  // The same span, 16 times the samples: a quarter of the half-width.
  const int seeds = 50;
  double small = 0, large = 0, expected_small = 0, expected_large = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const Run a = exponential_run(seed, 4'000, 16'000);
    const Run b = exponential_run(seed + 1000, 64'000, 1'000);
    small += a.batches.ci95_half_width() / seeds;
    large += b.batches.ci95_half_width() / seeds;
    auto expected = [](const Run& r, unsigned n) {
      const unsigned k = static_cast<unsigned>(r.batches.batches());
      return hcasim::trace::student_t_quantile(0.975, k - 1) * kMean / std::sqrt(static_cast<double>(n));
    };
    expected_small += expected(a, 4'000) / seeds;
    expected_large += expected(b, 64'000) / seeds;
  }
  INFO("mean half-widths " << small << " and " << large << ", expected " << expected_small << " and " << expected_large);
  CHECK(small / large == Approx(4.0).epsilon(0.1));
  // E[s] is a little under sigma for k of 16 to 32 (c4 > 0.98): within 10 %.
  CHECK(small == Approx(expected_small).epsilon(0.1));
  CHECK(large == Approx(expected_large).epsilon(0.1));
}

TEST_CASE("BatchMeans: between half and all of kMaxBatches batches over any span", "[batch_means]") {
  BatchMeans b;
  CHECK(b.batches() == 0);
  CHECK(std::isnan(b.ci95_half_width()));
  b.add(1.0, 5'000);
  CHECK(b.batches() == 1);
  CHECK(std::isnan(b.ci95_half_width()));
  for (uint64_t t = 5'001; t < 100'000'000; t += 997) {
    b.add(1.0 + static_cast<double>(t % 7), t);
    REQUIRE(b.batches() <= BatchMeans::kMaxBatches);
    if (t > 5'000 + 2 * BatchMeans::kMaxBatches * 997) REQUIRE(b.batches() >= BatchMeans::kMaxBatches / 2 + 1);
  }
  // Width: a power of two ps, the smallest that fits the span in kMaxBatches slots.
  const uint64_t span = 100'000'000;
  CHECK(b.batch_width_ps() * BatchMeans::kMaxBatches >= span / 2);
  CHECK(b.batch_width_ps() <= span / (BatchMeans::kMaxBatches / 2));
  CHECK(b.memory_bytes() <= BatchMeans::kMaxBatches * 16);
}

TEST_CASE("BatchMeans: merge equals adding every sample to one", "[batch_means]") {
  // Two flows over overlapping and disjoint times, one of them much shorter.
  std::mt19937_64 rng(3);
  std::exponential_distribution<double> draw(1.0 / kMean);
  BatchMeans all, a, b;
  for (uint64_t t = 1'000'000; t < 9'000'000; t += 1'500) {
    const double v = draw(rng);
    a.add(v, t);
    all.add(v, t);
  }
  for (uint64_t t = 8'000'000; t < 8'400'000; t += 700) {
    const double v = draw(rng);
    b.add(v, t);
    all.add(v, t);
  }
  BatchMeans b_then_a = b;
  b_then_a.merge(a);
  a.merge(b);
  a.merge(BatchMeans{});
  for (const BatchMeans* m : {&a, &b_then_a}) {
    CHECK(m->batch_width_ps() == all.batch_width_ps());
    CHECK(m->batches() == all.batches());
    CHECK(m->ci95_half_width() == Approx(all.ci95_half_width()).epsilon(1e-12));
    CHECK(m->lag1_autocorrelation() == Approx(all.lag1_autocorrelation()).epsilon(1e-12));
  }
}

TEST_CASE("BatchMeans: lag-1 autocorrelation near 0 for independent batches, near 1 for a drift", "[batch_means]") {
  double sum = 0;
  for (int seed = 1; seed <= 50; ++seed) sum += exponential_run(seed, 20'000).batches.lag1_autocorrelation();
  // For k independent means its expectation is about -1/k: near 0.
  CHECK(std::fabs(sum / 50) < 0.1);
  BatchMeans drift;
  for (uint64_t t = 0; t < 1'000'000; t += 100) drift.add(static_cast<double>(t), t);  // a latency that keeps growing
  CHECK(drift.lag1_autocorrelation() > 0.8);
}
