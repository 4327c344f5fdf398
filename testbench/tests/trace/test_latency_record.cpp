// LatencyRecord and its stats.json object: every key in ns, estimates that are
// undefined as null, and a merge equal to adding every sample to one record.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "models/trace/latency_record.hpp"
#include "models/trace/port_stats_json.hpp"

using hcasim::trace::LatencyRecord;
using hcasim::trace::latency_json;

TEST_CASE("LatencyRecord: latency_json reports count, min, mean with its interval, percentiles and max in ns",
          "[latency_record]") {
  LatencyRecord r;
  nlohmann::json empty = latency_json(r);
  CHECK(empty["count"] == 0);
  CHECK(empty["mean_ci95_ns"].is_null());
  CHECK(empty["batch_lag1_autocorrelation"].is_null());
  // 1,000 samples of 100..1,099 ns (uniform, so each percentile is known), one per 10 ns.
  for (uint64_t i = 0; i < 1000; ++i) r.add(100'000 + (i * 389 % 1000) * 1000, 1'000'000 + i * 10'000);
  const nlohmann::json j = latency_json(r);
  CHECK(j["count"] == 1000);
  CHECK(j["min_ns"] == 100.0);
  CHECK(j["max_ns"] == 1099.0);
  CHECK(j["mean_ns"].get<double>() == Approx(599.5));
  CHECK(j["batches"].get<unsigned>() >= 16);
  CHECK(j["mean_ci95_ns"].get<double>() > 0);
  CHECK(j["batch_lag1_autocorrelation"].is_number());
  // The sample of rank ceil(q n): (ceil(q 1000) - 1) + 100 ns, within 0.1 %.
  for (auto [key, ns] : {std::pair{"p50_ns", 599.0}, {"p90_ns", 999.0}, {"p99_ns", 1089.0}, {"p999_ns", 1098.0},
                         {"p9999_ns", 1099.0}}) {
    INFO(key);
    CHECK(j[key].get<double>() == Approx(ns).epsilon(0.001));
  }
}

TEST_CASE("LatencyRecord: merge equals adding every sample to one record", "[latency_record]") {
  LatencyRecord all, a, b;
  for (uint64_t i = 0; i < 5000; ++i) {
    const uint64_t v = 200'000 + (i * 7919) % 300'000, t = 10'000'000 + i * 3'000;
    (i % 3 ? a : b).add(v, t);
    all.add(v, t);
  }
  a.merge(b);
  CHECK(latency_json(a).dump() == latency_json(all).dump());
}

TEST_CASE("LatencyRecord: a flow of 44 packets over five powers of two takes at most 640 bytes of heap",
          "[latency_record]") {
  // fat_tree3_1331's flows: 44 latencies from 842 ns to 11.8 us (2^19 .. 2^23 ps) over 20 us.
  LatencyRecord r;
  for (uint64_t i = 0; i < 44; ++i) r.add(842'000 + i * 250'000, 1'000'000 + i * 450'000);
  CHECK(r.histogram().stored_buckets() == 0);       // bucket numbers: 2 bytes a sample, 64 held
  CHECK(r.histogram().memory_bytes() <= 64 * 2);
  CHECK(r.batch_means().memory_bytes() == 32 * 16);  // kMaxBatches batches of a sum and a count
  CHECK(r.memory_bytes() <= 640);
}
