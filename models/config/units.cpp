#include "models/config/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "models/config/config_error.hpp"
#include "models/config/json_value.hpp"
#include "models/config/notices.hpp"

namespace hcasim::config {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A decimal number as written: value = digits x 10^exp10, digits without leading or trailing
// zeros (empty for zero).
struct Decimal {
  std::string digits;
  long exp10 = 0;
};

// Splits "<number>[ ]<unit>". False when the text does not start with a well-formed number.
bool split_quantity(const std::string& text, Decimal& number, std::string& unit) {
  std::size_t i = 0;
  std::string digits;
  long exp10 = 0;
  bool any_digit = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    digits += text[i];
    any_digit = true;
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && is_digit(text[i]); ++i) {
      digits += text[i];
      --exp10;
      any_digit = true;
    }
  }
  if (!any_digit) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    const bool negative = j < text.size() && text[j] == '-';
    if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
    if (j >= text.size() || !is_digit(text[j])) return false;
    long e = 0;
    for (; j < text.size() && is_digit(text[j]); ++j) {
      if (e < 100000) e = e * 10 + (text[j] - '0');  // beyond this every result over- or underflows
    }
    exp10 += negative ? -e : e;
    i = j;
  }
  if (i < text.size() && text[i] == ' ') ++i;
  unit = text.substr(i);

  const std::size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "" : digits.substr(first);
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exp10;
  }
  number = Decimal{digits, exp10};
  return true;
}

// The number and unit of a string quantity; errors for everything that is not one.
Decimal read_quantity(const nlohmann::json& v, const std::string& path, const char* forms, std::string& unit) {
  if (v.is_number()) {
    throw ConfigError(path, json_excerpt(v) + " has no unit (units are required); accepted: " + forms);
  }
  if (!v.is_string()) {
    throw ConfigError(path, "expected a string with a unit, got " + describe_json_type(v) + "; accepted: " + forms);
  }
  const std::string& text = v.get_ref<const std::string&>();
  if (!text.empty() && text[0] == '-') throw ConfigError(path, json_excerpt(v) + " is negative; accepted: " + forms);
  Decimal number;
  if (!split_quantity(text, number, unit)) {
    throw ConfigError(path, json_excerpt(v) + " is not a number with a unit; accepted: " + forms);
  }
  if (unit.empty()) throw ConfigError(path, json_excerpt(v) + " has no unit; accepted: " + forms);
  return number;
}

[[noreturn]] void unknown_unit(const nlohmann::json& v, const std::string& path, const std::string& unit,
                               const char* forms) {
  throw ConfigError(path, json_excerpt(v) + " has unknown unit '" + unit + "'; accepted: " + forms);
}

// ---- whole-number quantities (bytes, picoseconds) ----

struct IntUnit {
  const char* name;
  uint64_t scale;
};

constexpr IntUnit kByteUnits[] = {{"B", 1},           {"KiB", 1ull << 10},  {"MiB", 1ull << 20},
                                  {"GiB", 1ull << 30}, {"KB", 1000},        {"MB", 1000000},
                                  {"GB", 1000000000}};
constexpr IntUnit kTimeUnits[] = {{"ps", 1},
                                  {"ns", 1000},
                                  {"us", 1000000},
                                  {"\xC2\xB5s", 1000000},  // µs, MICRO SIGN
                                  {"\xCE\xBCs", 1000000},  // μs, GREEK SMALL LETTER MU
                                  {"ms", 1000000000},
                                  {"s", 1000000000000}};

enum class Whole { Ok, Fraction, Overflow };

// digits x 10^exp10 x scale as uint64, exactly. scale <= 10^12 and at most 26 significant
// digits keep every intermediate below 2^128.
Whole to_whole(const Decimal& d, uint64_t scale, uint64_t& out) {
  using u128 = unsigned __int128;
  constexpr u128 kMax = std::numeric_limits<uint64_t>::max();
  out = 0;
  if (d.digits.empty()) return Whole::Ok;
  if (d.digits.size() > 26) {
    // Too many digits to carry exactly: whole results this long do not fit anyway.
    const long magnitude = static_cast<long>(d.digits.size()) + d.exp10;
    return magnitude > 7 ? Whole::Overflow : Whole::Fraction;
  }
  u128 n = 0;
  for (char c : d.digits) n = n * 10 + static_cast<unsigned>(c - '0');
  n *= scale;
  for (long e = d.exp10; e < 0; ++e) {
    if (n % 10 != 0) return Whole::Fraction;
    n /= 10;
  }
  for (long e = d.exp10; e > 0; --e) {
    if (n > kMax) return Whole::Overflow;
    n *= 10;
  }
  if (n > kMax) return Whole::Overflow;
  out = static_cast<uint64_t>(n);
  return Whole::Ok;
}

template <std::size_t N>
uint64_t parse_whole(const nlohmann::json& v, const std::string& path, const IntUnit (&units)[N], const char* forms,
                     const char* unit_noun, const std::string& limit) {
  std::string unit;
  const Decimal number = read_quantity(v, path, forms, unit);
  for (const IntUnit& u : units) {
    if (unit != u.name) continue;
    uint64_t out = 0;
    switch (to_whole(number, u.scale, out)) {
      case Whole::Ok:
        return out;
      case Whole::Fraction:
        throw ConfigError(path, json_excerpt(v) + " is not a whole number of " + unit_noun + "; accepted: " + forms);
      case Whole::Overflow:
        throw ConfigError(path, json_excerpt(v) + " is too large (at most " + limit + "); accepted: " + forms);
    }
  }
  unknown_unit(v, path, unit, forms);
}

// ---- real quantities (rates, lengths) ----

struct RealUnit {
  const char* name;
  int exp10;      // value = number x 10^exp10 x factor
  double factor;  // a power of two, so the multiplication is exact
};

constexpr RealUnit kRateUnits[] = {{"b/s", 0, 1},  {"kb/s", 3, 1},  {"Mb/s", 6, 1},  {"Gb/s", 9, 1},
                                   {"Tb/s", 12, 1}, {"B/s", 0, 8},   {"KB/s", 3, 8},  {"MB/s", 6, 8},
                                   {"GB/s", 9, 8},  {"TB/s", 12, 8}};
constexpr RealUnit kLengthUnits[] = {{"km", 3, 1}, {"m", 0, 1}, {"cm", -2, 1}, {"mm", -3, 1}};

template <std::size_t N>
double parse_real(const nlohmann::json& v, const std::string& path, const RealUnit (&units)[N], const char* forms) {
  std::string unit;
  const Decimal number = read_quantity(v, path, forms, unit);
  for (const RealUnit& u : units) {
    if (unit != u.name) continue;
    if (number.digits.empty()) return 0.0;
    // strtod rounds the exact decimal correctly; no '.' in the text, so no locale involved.
    const std::string text = number.digits + "e" + std::to_string(number.exp10 + u.exp10);
    const double value = std::strtod(text.c_str(), nullptr) * u.factor;
    if (!std::isfinite(value)) throw ConfigError(path, json_excerpt(v) + " is too large; accepted: " + forms);
    if (value == 0.0) throw ConfigError(path, json_excerpt(v) + " is too small to represent; accepted: " + forms);
    return value;
  }
  unknown_unit(v, path, unit, forms);
}

// x with `digits` significant digits: fixed notation ("100", "0.0025") for moderate exponents,
// else scientific ("1.5e+300"). Both round at the same decimal place, so they are equal.
std::string significant(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -6 || exponent > 20) return buf;
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), x);
  return buf;
}

// The shortest "<number><unit>" that parses back to exactly x, in the largest of `units` (bit
// or metre units, factor 1, largest first) that x reaches.
template <std::size_t N>
std::string format_real(double x, const RealUnit (&units)[N], const char* zero,
                        double (*parse)(const nlohmann::json&, const std::string&)) {
  if (x == 0.0) return zero;
  const auto reads_back = [&](const std::string& text) {
    try {
      return parse(nlohmann::json(text), "") == x;
    } catch (const ConfigError&) {
      return false;  // rounded up past the largest double
    }
  };
  std::size_t first = 0;
  while (first + 1 < N && x < std::pow(10.0, units[first].exp10)) ++first;
  for (std::size_t i = first; i < N; ++i) {
    const int e = units[i].exp10;
    const double scaled = e >= 0 ? x / std::pow(10.0, e) : x * std::pow(10.0, -e);
    for (int digits = 1; digits <= 17; ++digits) {
      const std::string text = significant(scaled, digits) + units[i].name;
      if (reads_back(text)) return text;
    }
  }
  // 17 significant digits in the unit of exponent 0 always read back exactly.
  for (const RealUnit& u : units) {
    if (u.exp10 == 0) return significant(x, 17) + u.name;
  }
  return "";  // unreachable: both tables have a unit of exponent 0
}

// A number as split_quantity reads it (digits with an optional fraction, at least one digit,
// an optional exponent), then one optional space.
constexpr const char* kNumberPattern = "([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)? ?";

std::string regex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::strchr("\\^$.|?*+()[]{}", c) != nullptr) out += '\\';
    out += c;
  }
  return out;
}

// "^<number>(unit|unit|...)$" over a unit table.
template <class Unit, std::size_t N>
std::string quantity_pattern(const Unit (&units)[N]) {
  std::string alternatives;
  for (const Unit& u : units) alternatives += (alternatives.empty() ? "" : "|") + regex_escape(u.name);
  return std::string("^") + kNumberPattern + "(" + alternatives + ")$";
}

}  // namespace

std::string bytes_pattern() { return quantity_pattern(kByteUnits); }
std::string time_pattern() { return quantity_pattern(kTimeUnits); }
std::string rate_pattern() { return quantity_pattern(kRateUnits); }
std::string length_pattern() { return quantity_pattern(kLengthUnits); }

namespace {
// A size written with a decimal prefix (KB, MB, GB) means powers of 1000, as the unit
// table says; binary prefixes (KiB, ...) are the usual choice for buffers, so the
// reading is stated once in a notice: "64KB" read as 64,000 bytes; "64KiB" is 65,536.
void notice_decimal_prefix(const nlohmann::json& v, const std::string& path, uint64_t bytes) {
  struct Prefix {
    const char* decimal;
    const char* binary;
    const char* name;
    uint64_t binary_scale;
  };
  constexpr Prefix kPrefixes[] = {{"KB", "KiB", "kilo", 1ull << 10}, {"MB", "MiB", "mega", 1ull << 20},
                                  {"GB", "GiB", "giga", 1ull << 30}};
  const std::string& text = v.get_ref<const std::string&>();
  Decimal number;
  std::string unit;
  if (bytes == 0 || !split_quantity(text, number, unit)) return;
  for (const Prefix& p : kPrefixes) {
    if (unit != p.decimal) continue;
    const std::string binary_text = text.substr(0, text.size() - unit.size()) + p.binary;
    uint64_t binary = 0;
    const bool whole = to_whole(number, p.binary_scale, binary) == Whole::Ok;
    notice(path, "\"" + text + "\" read as " + grouped(bytes) + " bytes (decimal " + p.name + "); " +
                     (whole ? "write \"" + binary_text + "\" for " + grouped(binary)
                            : std::string(p.binary) + " would be " + grouped(p.binary_scale) + " bytes each"));
  }
}
}  // namespace

uint64_t parse_bytes(const nlohmann::json& v, const std::string& path) {
  if (v.is_number()) return json_unsigned(v, path, kBytesForms);
  const uint64_t bytes =
      parse_whole(v, path, kByteUnits, kBytesForms, "bytes", format_bytes(std::numeric_limits<uint64_t>::max()));
  notice_decimal_prefix(v, path, bytes);
  return bytes;
}

uint64_t parse_time_ps(const nlohmann::json& v, const std::string& path) {
  return parse_whole(v, path, kTimeUnits, kTimeForms, "picoseconds",
                     format_time_ps(std::numeric_limits<uint64_t>::max()));
}

double parse_rate_bps(const nlohmann::json& v, const std::string& path) {
  return parse_real(v, path, kRateUnits, kRateForms);
}

double parse_length_m(const nlohmann::json& v, const std::string& path) {
  return parse_real(v, path, kLengthUnits, kLengthForms);
}

std::string format_bytes(uint64_t bytes) {
  constexpr IntUnit kBinary[] = {{"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const IntUnit& u : kBinary) {
    if (bytes != 0 && bytes % u.scale == 0) return std::to_string(bytes / u.scale) + u.name;
  }
  return std::to_string(bytes) + "B";
}

std::string format_time_ps(uint64_t ps) {
  struct Step {
    const char* name;
    uint64_t scale;
    int decimals;
  };
  constexpr Step kSteps[] = {{"s", 1000000000000, 12}, {"ms", 1000000000, 9}, {"us", 1000000, 6}, {"ns", 1000, 3}};
  if (ps == 0) return "0ns";
  for (const Step& s : kSteps) {
    if (ps < s.scale) continue;
    std::string out = std::to_string(ps / s.scale);
    if (const uint64_t rest = ps % s.scale; rest != 0) {
      std::string frac = std::to_string(rest);
      frac.insert(0, static_cast<std::size_t>(s.decimals) - frac.size(), '0');
      frac.erase(frac.find_last_not_of('0') + 1);
      out += "." + frac;
    }
    return out + s.name;
  }
  return std::to_string(ps) + "ps";
}

std::string format_rate_bps(double bps) {
  constexpr RealUnit kBits[] = {{"Tb/s", 12, 1}, {"Gb/s", 9, 1}, {"Mb/s", 6, 1}, {"kb/s", 3, 1}, {"b/s", 0, 1}};
  return format_real(bps, kBits, "0b/s", parse_rate_bps);
}

std::string format_length_m(double meters) {
  constexpr RealUnit kMeters[] = {{"km", 3, 1}, {"m", 0, 1}, {"cm", -2, 1}, {"mm", -3, 1}};
  return format_real(meters, kMeters, "0m", parse_length_m);
}

}  // namespace hcasim::config
