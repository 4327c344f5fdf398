#include "models/config/config_schema.hpp"

#include <cmath>
#include <limits>

#include "models/config/units.hpp"

namespace hcasim::config {
namespace {

std::string uint_words(uint32_t min, uint32_t max) {
  return accepted::uint_range(min, max, std::numeric_limits<uint32_t>::max());
}

// "[3-7]", or "5" for one digit.
std::string digit_class(int lo, int hi) {
  if (lo == hi) return std::string(1, static_cast<char>('0' + lo));
  return "[" + std::string(1, static_cast<char>('0' + lo)) + "-" + std::string(1, static_cast<char>('0' + hi)) + "]";
}

std::string any_digits(std::size_t n) {
  if (n == 0) return "";
  return n == 1 ? "[0-9]" : "[0-9]{" + std::to_string(n) + "}";
}

}  // namespace

// ---- ConfigSchema ----

void ConfigSchema::add(const std::string& key, nlohmann::json schema, nlohmann::json default_value,
                       const std::string& accepted_text, const std::string& help) {
  schema["description"] = help + " (accepted: " + accepted_text + ")";
  schema["default"] = std::move(default_value);
  properties_[key] = std::move(schema);
}

nlohmann::json ConfigSchema::take() {
  return {{"type", "object"}, {"properties", std::move(properties_)}, {"additionalProperties", false}};
}

nlohmann::json ConfigSchema::list_schema(nlohmann::json items, std::size_t min_len, std::size_t max_len) {
  nlohmann::json s = {{"type", "array"}, {"items", std::move(items)}};
  if (min_len > 0) s["minItems"] = min_len;
  if (max_len != kNoLimit) s["maxItems"] = max_len;
  return s;
}

void ConfigSchema::uint(const std::string& key, uint32_t& value, uint32_t min, uint32_t max,
                        const std::string& help) {
  add(key, schema::integer(min, max), value, uint_words(min, max), help);
}

void ConfigSchema::uint64(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                          const std::string& help) {
  add(key, schema::integer(min, max), value,
      accepted::uint_range(min, max, std::numeric_limits<uint64_t>::max()), help);
}

void ConfigSchema::uint_of(const std::string& key, uint32_t& value, const std::vector<uint32_t>& allowed,
                           const std::string& help) {
  add(key, {{"type", "integer"}, {"enum", allowed}}, value, accepted::uint_set(allowed), help);
}

void ConfigSchema::real(const std::string& key, double& value, double min, double max, const std::string& help) {
  nlohmann::json s = {{"type", "number"}};
  if (std::isfinite(min) && min > std::numeric_limits<double>::lowest()) s["minimum"] = min;
  if (std::isfinite(max) && max < std::numeric_limits<double>::max()) s["maximum"] = max;
  add(key, std::move(s), value, accepted::real_range(min, max), help);
}

void ConfigSchema::boolean(const std::string& key, bool& value, const std::string& help) {
  add(key, {{"type", "boolean"}}, value, "true or false", help);
}

void ConfigSchema::string(const std::string& key, std::string& value, const std::string& help) {
  add(key, {{"type", "string"}}, value, "a string", help);
}

void ConfigSchema::bytes(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                         const std::string& help) {
  add(key, schema::bytes(min, max), format_bytes(value), accepted::bytes_range(min, max) + "; " + kBytesForms, help);
}

void ConfigSchema::time(const std::string& key, uint64_t& ps, uint64_t min, uint64_t max, const std::string& help) {
  add(key, schema::time(), format_time_ps(ps), accepted::time_range(min, max) + "; " + kTimeForms, help);
}

void ConfigSchema::rate(const std::string& key, double& bps, double min, double max, const std::string& help) {
  add(key, schema::rate(), format_rate_bps(bps), accepted::rate_range(min, max) + "; " + kRateForms, help);
}

void ConfigSchema::length(const std::string& key, double& meters, double min, double max, const std::string& help) {
  add(key, schema::length(), format_length_m(meters), accepted::length_range(min, max) + "; " + kLengthForms, help);
}

void ConfigSchema::uint_list(const std::string& key, std::vector<uint32_t>& values, uint32_t min, uint32_t max,
                             std::size_t min_len, std::size_t max_len, const std::string& help) {
  add(key, list_schema(schema::integer(min, max), min_len, max_len), values,
      accepted::list_of("integers (each " + uint_words(min, max) + ")", min_len, max_len), help);
}

// ---- pieces ----

namespace schema {

nlohmann::json integer(uint64_t min, uint64_t max) {
  return {{"type", "integer"}, {"minimum", min}, {"maximum", max}};
}

nlohmann::json pattern(const std::string& regex) { return {{"type", "string"}, {"pattern", regex}}; }

nlohmann::json names(const std::vector<std::string>& labels) { return {{"type", "string"}, {"enum", labels}}; }

nlohmann::json null() { return {{"type", "null"}}; }

nlohmann::json any_of(std::vector<nlohmann::json> alternatives) { return {{"anyOf", std::move(alternatives)}}; }

nlohmann::json bytes(uint64_t min, uint64_t max) { return any_of({integer(min, max), pattern(bytes_pattern())}); }

nlohmann::json time() { return pattern(time_pattern()); }

nlohmann::json rate() { return pattern(rate_pattern()); }

nlohmann::json length() { return pattern(length_pattern()); }

std::string integer_regex(unsigned max) {
  const std::string m = std::to_string(max);
  const std::size_t n = m.size();
  std::vector<std::string> alternatives;
  // Shorter numbers than max: any.
  for (std::size_t len = 1; len < n; ++len)
    alternatives.push_back(len == 1 ? "[0-9]" : "[1-9]" + any_digits(len - 1));
  // As long as max: max's first i digits, a smaller digit, then any.
  for (std::size_t i = 0; i < n; ++i) {
    const int lo = (i == 0 && n > 1) ? 1 : 0;
    const int hi = m[i] - '0' - 1;
    if (hi >= lo) alternatives.push_back(m.substr(0, i) + digit_class(lo, hi) + any_digits(n - i - 1));
  }
  alternatives.push_back(m);
  std::string out;
  for (const std::string& a : alternatives) out += (out.empty() ? "" : "|") + a;
  return "0*(" + out + ")";
}

}  // namespace schema

}  // namespace hcasim::config
