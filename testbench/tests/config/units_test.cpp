// Unit parsing and formatting: exact values for every form, every error, and
// parse(format(x)) == x over many values.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "models/config/config_error.hpp"
#include "models/config/units.hpp"

using hcasim::config::ConfigError;
using nlohmann::json;
namespace config = hcasim::config;

namespace {

constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();

// The error `call` throws: one line, at `path`, naming what is wrong and what is accepted.
template <class Call>
std::string error_of(Call call, const std::string& path = "p") {
  try {
    call();
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    CHECK(e.path() == path);
    CHECK(what.rfind(path + ": ", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find("; accepted: ") != std::string::npos);
    return what;
  }
  FAIL("no ConfigError thrown");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("sizes: integers and every unit give exact bytes") {
  CHECK(config::parse_bytes(json(4096), "p") == 4096);
  CHECK(config::parse_bytes(json(0), "p") == 0);
  CHECK(config::parse_bytes(json(kMax64), "p") == kMax64);
  CHECK(config::parse_bytes(json("4096B"), "p") == 4096);
  CHECK(config::parse_bytes(json("64KiB"), "p") == 65536);
  CHECK(config::parse_bytes(json("1.5MiB"), "p") == 1572864);
  CHECK(config::parse_bytes(json("2GiB"), "p") == 2147483648ull);
  CHECK(config::parse_bytes(json("2KB"), "p") == 2000);
  CHECK(config::parse_bytes(json("1.5MB"), "p") == 1500000);
  CHECK(config::parse_bytes(json("3GB"), "p") == 3000000000ull);
  CHECK(config::parse_bytes(json("0.5KiB"), "p") == 512);
  CHECK(config::parse_bytes(json("0B"), "p") == 0);
  CHECK(config::parse_bytes(json("1e3B"), "p") == 1000);
  CHECK(config::parse_bytes(json("64 KiB"), "p") == 65536);
  CHECK(config::parse_bytes(json("007KiB"), "p") == 7168);
  CHECK(config::parse_bytes(json("18446744073709551615B"), "p") == kMax64);
}

TEST_CASE("sizes: errors name the path and the accepted forms") {
  CHECK(contains(error_of([] { config::parse_bytes(json(-1), "p"); }), "-1 is negative"));
  CHECK(contains(error_of([] { config::parse_bytes(json("-4KiB"), "p"); }), "\"-4KiB\" is negative"));
  CHECK(contains(error_of([] { config::parse_bytes(json("64"), "p"); }), "\"64\" has no unit"));
  CHECK(contains(error_of([] { config::parse_bytes(json("64kb"), "p"); }), "unknown unit 'kb'"));
  CHECK(contains(error_of([] { config::parse_bytes(json("64KiB/s"), "p"); }), "unknown unit 'KiB/s'"));
  CHECK(contains(error_of([] { config::parse_bytes(json("0.3B"), "p"); }), "not a whole number of bytes"));
  CHECK(contains(error_of([] { config::parse_bytes(json("1.1KiB"), "p"); }), "not a whole number of bytes"));
  CHECK(contains(error_of([] { config::parse_bytes(json(3.5), "p"); }), "expected an integer, got number 3.5"));
  CHECK(contains(error_of([] { config::parse_bytes(json(true), "p"); }), "got true"));
  CHECK(contains(error_of([] { config::parse_bytes(json("KiB"), "p"); }), "not a number with a unit"));
  CHECK(contains(error_of([] { config::parse_bytes(json("18446744073709551616B"), "p"); }), "too large"));
  CHECK(contains(error_of([] { config::parse_bytes(json("20000000000GiB"), "p"); }), "too large"));
  CHECK(contains(error_of([] { config::parse_bytes(json("1e30B"), "p"); }), "too large"));
  const std::string e = error_of([] { config::parse_bytes(json("64kb"), "ports.0.buffer"); }, "ports.0.buffer");
  CHECK(contains(e, "B, KiB, MiB, GiB, KB, MB, GB"));
}

TEST_CASE("times: every unit gives exact picoseconds from the decimal digits") {
  CHECK(config::parse_time_ps(json("90ns"), "p") == 90000);
  CHECK(config::parse_time_ps(json("4.096us"), "p") == 4096000);
  CHECK(config::parse_time_ps(json("4.096\xC2\xB5s"), "p") == 4096000);
  CHECK(config::parse_time_ps(json("1ms"), "p") == 1000000000);
  CHECK(config::parse_time_ps(json("0ns"), "p") == 0);
  CHECK(config::parse_time_ps(json("1s"), "p") == 1000000000000ull);
  CHECK(config::parse_time_ps(json("7ps"), "p") == 7);
  CHECK(config::parse_time_ps(json("2.5ns"), "p") == 2500);
  CHECK(config::parse_time_ps(json("0.001ns"), "p") == 1);
  CHECK(config::parse_time_ps(json("1e3ns"), "p") == 1000000);
  CHECK(config::parse_time_ps(json("1.5E-3s"), "p") == 1500000000);
  CHECK(config::parse_time_ps(json("0.1s"), "p") == 100000000000ull);  // 0.1 is not a binary fraction
  CHECK(config::parse_time_ps(json("18446744.073709551615s"), "p") == kMax64);
}

TEST_CASE("times: errors name the path and the accepted forms") {
  CHECK(contains(error_of([] { config::parse_time_ps(json(90), "p"); }), "90 has no unit (units are required)"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("90"), "p"); }), "has no unit"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("0.5ps"), "p"); }), "not a whole number of picoseconds"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("18446744.073709551616s"), "p"); }),
                 "too large (at most 18446744.073709551615s)"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("1e100000s"), "p"); }), "too large"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("90nsec"), "p"); }), "unknown unit 'nsec'"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("1.2.3ns"), "p"); }), "unknown unit '.3ns'"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("-1ns"), "p"); }), "negative"));
  CHECK(contains(error_of([] { config::parse_time_ps(json(""), "p"); }), "not a number with a unit"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("1e+ns"), "p"); }), "not a number with a unit"));
  CHECK(contains(error_of([] { config::parse_time_ps(json::array(), "p"); }),
                 "expected a string with a unit, got a list"));
  CHECK(contains(error_of([] { config::parse_time_ps(json("90ns"), "p"); config::parse_time_ps(json("1h"), "p"); }),
                 "ps, ns, us, ms, s"));
}

TEST_CASE("rates: every unit - bits and bytes") {
  CHECK(config::parse_rate_bps(json("200Gb/s"), "p") == 200e9);
  CHECK(config::parse_rate_bps(json("56Gb/s"), "p") == 56e9);
  CHECK(config::parse_rate_bps(json("10Mb/s"), "p") == 10e6);
  CHECK(config::parse_rate_bps(json("1Tb/s"), "p") == 1e12);
  CHECK(config::parse_rate_bps(json("100kb/s"), "p") == 100e3);
  CHECK(config::parse_rate_bps(json("9b/s"), "p") == 9.0);
  CHECK(config::parse_rate_bps(json("25GB/s"), "p") == 200e9);
  CHECK(config::parse_rate_bps(json("1B/s"), "p") == 8.0);
  CHECK(config::parse_rate_bps(json("2.5Gb/s"), "p") == 2.5e9);
  CHECK(config::parse_rate_bps(json("14.0625Gb/s"), "p") == 14.0625e9);
  CHECK(config::parse_rate_bps(json("0.1Gb/s"), "p") == 1e8);
  CHECK(config::parse_rate_bps(json("0Gb/s"), "p") == 0.0);
}

TEST_CASE("rates: errors name the path and the accepted forms") {
  CHECK(contains(error_of([] { config::parse_rate_bps(json(200), "p"); }), "units are required"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("200"), "p"); }), "has no unit"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("200Gbps"), "p"); }), "unknown unit 'Gbps'"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("200gb/s"), "p"); }), "unknown unit 'gb/s'"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("-1Gb/s"), "p"); }), "negative"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("1e400Gb/s"), "p"); }), "too large"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("1e-400Gb/s"), "p"); }), "too small"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json(nullptr), "p"); }), "got null"));
  CHECK(contains(error_of([] { config::parse_rate_bps(json("1x"), "p"); }), "Gb/s"));
}

TEST_CASE("lengths: every unit") {
  CHECK(config::parse_length_m(json("3m"), "p") == 3.0);
  CHECK(config::parse_length_m(json("50cm"), "p") == 0.5);
  CHECK(config::parse_length_m(json("2.5m"), "p") == 2.5);
  CHECK(config::parse_length_m(json("300mm"), "p") == 0.3);
  CHECK(config::parse_length_m(json("0.1m"), "p") == 0.1);
  CHECK(config::parse_length_m(json("2km"), "p") == 2000.0);
  CHECK(config::parse_length_m(json("1.2km"), "p") == 1200.0);
  CHECK(config::parse_length_m(json("0.05km"), "p") == 50.0);
  CHECK(config::parse_length_m(json("150cm"), "p") == 1.5);
  CHECK(contains(error_of([] { config::parse_length_m(json("3Km"), "p"); }), "unknown unit 'Km'; accepted: a string"));
  CHECK(contains(error_of([] { config::parse_length_m(json("3ft"), "p"); }), "unit km, m, cm, mm"));
  CHECK(contains(error_of([] { config::parse_length_m(json(3), "p"); }), "units are required"));
  CHECK(contains(error_of([] { config::parse_length_m(json("3ft"), "p"); }), "unknown unit 'ft'; accepted: a string"));
  CHECK(contains(error_of([] { config::parse_length_m(json("-3m"), "p"); }), "negative"));
}

TEST_CASE("formatting gives the exact short form") {
  CHECK(config::format_bytes(65536) == "64KiB");
  CHECK(config::format_bytes(4100) == "4100B");
  CHECK(config::format_bytes(0) == "0B");
  CHECK(config::format_bytes(1536) == "1536B");
  CHECK(config::format_bytes(3u << 20) == "3MiB");
  CHECK(config::format_bytes(1ull << 30) == "1GiB");
  CHECK(config::format_bytes(1ull << 40) == "1024GiB");
  CHECK(config::format_time_ps(4096000) == "4.096us");
  CHECK(config::format_time_ps(90000) == "90ns");
  CHECK(config::format_time_ps(0) == "0ns");
  CHECK(config::format_time_ps(1) == "1ps");
  CHECK(config::format_time_ps(999) == "999ps");
  CHECK(config::format_time_ps(1500) == "1.5ns");
  CHECK(config::format_time_ps(1000000000) == "1ms");
  CHECK(config::format_time_ps(1000000000001ull) == "1.000000000001s");
  CHECK(config::format_time_ps(kMax64) == "18446744.073709551615s");
  CHECK(config::format_rate_bps(200e9) == "200Gb/s");
  CHECK(config::format_rate_bps(56.25e9) == "56.25Gb/s");
  CHECK(config::format_rate_bps(1e12) == "1Tb/s");
  CHECK(config::format_rate_bps(100e3) == "100kb/s");
  CHECK(config::format_rate_bps(10e6) == "10Mb/s");
  CHECK(config::format_rate_bps(0.0) == "0b/s");
  CHECK(config::format_rate_bps(0.5) == "0.5b/s");
  CHECK(config::format_length_m(3.0) == "3m");
  CHECK(config::format_length_m(2.5) == "2.5m");
  CHECK(config::format_length_m(0.5) == "50cm");
  CHECK(config::format_length_m(0.3) == "30cm");
  CHECK(config::format_length_m(0.001) == "1mm");
  CHECK(config::format_length_m(0.0) == "0m");
  CHECK(config::format_length_m(1000.0) == "1km");
  CHECK(config::format_length_m(1500.0) == "1.5km");
  CHECK(config::format_length_m(999.0) == "999m");
}

TEST_CASE("sizes and times: parse(format(x)) == x over many values") {
  std::mt19937_64 rng(12345);
  std::vector<uint64_t> values = {0, 1, 999, 1000, 1023, 1024, 4096, 65536, 1ull << 30, 1ull << 40,
                                  kMax64, kMax64 - 1, kMax64 / 1024 * 1024, 1000000000000ull};
  for (int shift = 0; shift < 64; ++shift) {
    values.push_back(1ull << shift);
    values.push_back((1ull << shift) * 3 / 2);
  }
  for (uint64_t p = 1; p <= 10000000000000000000ull / 10; p *= 10) {
    for (uint64_t d : {1ull, 7ull, 25ull, 4096ull}) values.push_back(p * d);
  }
  for (int i = 0; i < 20000; ++i) values.push_back(rng() >> (rng() % 64));
  for (uint64_t v : values) {
    INFO(v);
    REQUIRE(config::parse_bytes(json(config::format_bytes(v)), "p") == v);
    REQUIRE(config::parse_time_ps(json(config::format_time_ps(v)), "p") == v);
  }
}

TEST_CASE("rates and lengths: parse(format(x)) == x over many values") {
  std::mt19937_64 rng(777);
  std::vector<double> values = {0.0, 1.0, 0.1, 0.3, 2.5, 8.0, 1e-3, 1e-4, 56.25e9, 53.125e9, 1e12, 1e13, 1e300,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::denorm_min()};
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int i = 0; i < 5000; ++i) {
    values.push_back(unit(rng) * std::pow(10.0, static_cast<int>(rng() % 30) - 10));  // 1e-10 .. 1e20
    values.push_back(std::round(unit(rng) * 1000) * 1e6);                            // multiples of 1 Mb/s
    uint64_t bits = rng() & ~(1ull << 63);                                          // any positive double
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
  }
  for (double v : values) {
    INFO(v);
    REQUIRE(config::parse_rate_bps(json(config::format_rate_bps(v)), "p") == v);
    REQUIRE(config::parse_length_m(json(config::format_length_m(v)), "p") == v);
  }
}
