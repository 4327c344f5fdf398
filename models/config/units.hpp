#pragma once
// Quantities with units, as scenario files write them.
//
// Rules:
// - <number> is decimal digits with an optional fraction and exponent: "64", "1.5", "2e3".
//   No sign: a leading '-' is reported as negative. One space may sit before the unit.
// - Size: a JSON integer >= 0 (bytes) or "<number><unit>", unit B, KiB, MiB, GiB (1024^n) or
//   KB, MB, GB (1000^n). The result must be a whole number of bytes ("0.3B" is an error).
//   A non-zero size with a decimal prefix is reported as a notice (notices.hpp) naming the
//   bytes understood and the binary spelling: "64KB" read as 64,000 bytes; "64KiB" is 65,536.
// - Time: "<number><unit>", unit ps, ns, us (also "µs"), ms, s. The result is whole
//   picoseconds, computed from the decimal digits, never through binary floating point, so
//   "4.096us" is exactly 4096000 ps. A bare number is an error: units are required.
// - Rate: "<number><unit>", unit b/s, kb/s, Mb/s, Gb/s, Tb/s, or bytes per second B/s, KB/s,
//   MB/s, GB/s, TB/s (x8). Length: "<number><unit>", unit km, m, cm, mm. Both are doubles, the
//   correctly rounded value of the decimal written. Bare numbers are errors.
// - Values too large for the result type are errors, as is a non-zero value that underflows.
// - Every error is a ConfigError "<path>: <what is wrong>; accepted: <forms>".
// - *_pattern give a regular expression (ECMA-262, anchored) of the string forms the parser
//   takes, built from the same unit tables; a JSON Schema checks the form with it. Ranges, and
//   whole bytes or picoseconds, are beyond a pattern: the parsers check those.
// - format_* give the exact, short form in the largest unit the value reaches, and
//   parse(format(x)) == x for every x (for rates and lengths: every finite x >= 0).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hcasim::config {

// The accepted forms, as error messages and documentation state them.
inline constexpr const char* kBytesForms =
    "an integer number of bytes or a string \"<number><unit>\" with unit B, KiB, MiB, GiB, KB, MB, GB, "
    "e.g. \"64KiB\"";
inline constexpr const char* kTimeForms =
    "a string \"<number><unit>\" with unit ps, ns, us, ms, s, e.g. \"90ns\" or \"4.096us\"";
inline constexpr const char* kRateForms =
    "a string \"<number><unit>\" with unit b/s, kb/s, Mb/s, Gb/s, Tb/s or B/s, KB/s, MB/s, GB/s, TB/s, "
    "e.g. \"200Gb/s\"";
inline constexpr const char* kLengthForms = "a string \"<number><unit>\" with unit km, m, cm, mm, e.g. \"3m\"";

uint64_t parse_bytes(const nlohmann::json& v, const std::string& path);
uint64_t parse_time_ps(const nlohmann::json& v, const std::string& path);
double parse_rate_bps(const nlohmann::json& v, const std::string& path);
double parse_length_m(const nlohmann::json& v, const std::string& path);

std::string bytes_pattern();   // "64KiB", "1.5 MB" (JSON integers are sizes too)
std::string time_pattern();    // "90ns", "4.096us"
std::string rate_pattern();    // "200Gb/s", "25GB/s"
std::string length_pattern();  // "3m", "50cm", "1.2km"

std::string format_bytes(uint64_t bytes);    // 65536 -> "64KiB", 4100 -> "4100B"
std::string format_time_ps(uint64_t ps);     // 4096000 -> "4.096us", 90000 -> "90ns", 0 -> "0ns"
std::string format_rate_bps(double bps);     // 200e9 -> "200Gb/s"; bps finite and >= 0
std::string format_length_m(double meters);  // 0.5 -> "50cm", 1500 -> "1.5km"; meters finite and >= 0

}  // namespace hcasim::config
