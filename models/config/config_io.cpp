#include "models/config/config_io.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "models/config/units.hpp"

namespace hcasim::config {
namespace {

// " from LO to HI", " of at least LO" or "" when there is no upper bound and the lower one is
// the natural zero.
std::string bounds(bool has_lo, const std::string& lo, bool has_hi, const std::string& hi) {
  if (has_hi) return " from " + lo + " to " + hi;
  if (has_lo) return " of at least " + lo;
  return "";
}

std::string number_text(double x) { return nlohmann::json(x).dump(); }

bool real_has_lo(double min) { return min > 0.0; }
bool real_has_hi(double max) { return max < std::numeric_limits<double>::max(); }

std::string uint_words(uint64_t min, uint64_t max, uint64_t type_max) {
  return bounds(min > 0, std::to_string(min), max < type_max, std::to_string(max));
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// " (did you mean 'speed'?)" when one known key is close to the unknown one, else "".
std::string suggestion(const std::string& key, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  std::size_t best_distance = std::max<std::size_t>(1, key.size() / 3) + 1;
  for (const std::string& k : known) {
    const std::size_t d = edit_distance(key, k);
    if (d < best_distance) {
      best = &k;
      best_distance = d;
    }
  }
  return best ? " (did you mean '" + *best + "'?)" : "";
}

bool equal_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

[[noreturn]] void out_of_range(const std::string& path, const nlohmann::json& v, const std::string& accepted_text) {
  throw ConfigError(path, json_excerpt(v) + " is out of range; accepted: " + accepted_text);
}

std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

// ---- accepted texts ----

namespace accepted {

std::string uint_range(uint64_t min, uint64_t max, uint64_t type_max) {
  const std::string words = uint_words(min, max, type_max);
  return words.empty() ? "a non-negative integer" : "an integer" + words;
}

std::string uint_set(const std::vector<uint32_t>& allowed) {
  std::vector<std::string> items;
  for (uint32_t a : allowed) items.push_back(std::to_string(a));
  return join_list(items);
}

std::string real_range(double min, double max) {
  const bool has_lo = min > std::numeric_limits<double>::lowest();
  if (has_lo && real_has_hi(max)) return "a number from " + number_text(min) + " to " + number_text(max);
  if (has_lo) return "a number of at least " + number_text(min);
  if (real_has_hi(max)) return "a number of at most " + number_text(max);
  return "a number";
}

std::string bytes_range(uint64_t min, uint64_t max) {
  return "a size" + bounds(min > 0, format_bytes(min), max < std::numeric_limits<uint64_t>::max(), format_bytes(max));
}

std::string time_range(uint64_t min, uint64_t max) {
  return "a time" +
         bounds(min > 0, format_time_ps(min), max < std::numeric_limits<uint64_t>::max(), format_time_ps(max));
}

std::string rate_range(double min, double max) {
  return "a rate" + bounds(real_has_lo(min), format_rate_bps(std::max(min, 0.0)), real_has_hi(max),
                           real_has_hi(max) ? format_rate_bps(max) : "");
}

std::string length_range(double min, double max) {
  return "a length" + bounds(real_has_lo(min), format_length_m(std::max(min, 0.0)), real_has_hi(max),
                             real_has_hi(max) ? format_length_m(max) : "");
}

std::string names(const std::vector<std::string>& labels) { return join_list(labels); }

std::string list_of(const std::string& items, std::size_t min_len, std::size_t max_len) {
  std::string count;
  if (min_len == max_len) {
    count = "exactly " + std::to_string(min_len) + " ";
  } else if (max_len != kNoLimit) {
    count = std::to_string(min_len) + " to " + std::to_string(max_len) + " ";
  } else if (min_len > 0) {
    count = "at least " + std::to_string(min_len) + " ";
  }
  return "a list of " + count + items;
}

}  // namespace accepted

// ---- ConfigReader ----

ConfigReader::ConfigReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {}

bool ConfigReader::present(const std::string& key) const { return object_.contains(key); }

void ConfigReader::fail(const std::string& key, const std::string& message) const {
  throw ConfigError(key_path(key), message);
}

const nlohmann::json* ConfigReader::take(const std::string& key) {
  known_.push_back(key);
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

void ConfigReader::finish() const {
  for (const auto& item : object_.items()) {
    const std::string& key = item.key();
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    throw ConfigError(key_path(key), "unknown key '" + key + "'" + suggestion(key, known_) +
                                         "; accepted keys: " + (known_.empty() ? "none" : join_list(known_)));
  }
}

std::size_t ConfigReader::pick(const nlohmann::json& v, const std::string& key,
                               const std::vector<std::string>& labels) const {
  const std::string text = accepted::names(labels);
  if (!v.is_string()) {
    throw ConfigError(key_path(key), "expected a string, got " + describe_json_type(v) + "; accepted: " + text);
  }
  const std::string& name = v.get_ref<const std::string&>();
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == name) return i;
  }
  for (const std::string& label : labels) {
    if (equal_ignoring_case(label, name)) {
      throw ConfigError(key_path(key), json_excerpt(v) + " is not a known name (names are case-sensitive: '" +
                                           label + "'); accepted: " + text);
    }
  }
  throw ConfigError(key_path(key), json_excerpt(v) + " is not a known name; accepted: " + text);
}

void ConfigReader::check_list(const nlohmann::json& v, const std::string& key, const std::string& accepted_text,
                              std::size_t min_len, std::size_t max_len) const {
  if (!v.is_array()) {
    throw ConfigError(key_path(key), "expected a list, got " + describe_json_type(v) + "; accepted: " + accepted_text);
  }
  if (v.size() < min_len || v.size() > max_len) {
    const std::string bound = v.size() < min_len ? "fewer than " + std::to_string(min_len)
                                                 : "more than " + std::to_string(max_len);
    throw ConfigError(key_path(key), "has " + std::to_string(v.size()) + " elements, " + bound +
                                         "; accepted: " + accepted_text);
  }
}

void ConfigReader::uint(const std::string& key, uint32_t& value, uint32_t min, uint32_t max,
                        const std::string& /*help*/) {
  uint64_t wide = value;
  read_unsigned(key, wide, min, max, std::numeric_limits<uint32_t>::max());
  value = static_cast<uint32_t>(wide);
}

void ConfigReader::uint64(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                          const std::string& /*help*/) {
  read_unsigned(key, value, min, max, std::numeric_limits<uint64_t>::max());
}

void ConfigReader::read_unsigned(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                                 uint64_t type_max) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  const std::string text = accepted::uint_range(min, max, type_max);
  const uint64_t n = json_unsigned(*v, key_path(key), text);
  if (n < min || n > max) out_of_range(key_path(key), *v, text);
  value = n;
}

void ConfigReader::uint_of(const std::string& key, uint32_t& value, const std::vector<uint32_t>& allowed,
                           const std::string& /*help*/) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  const std::string text = accepted::uint_set(allowed);
  const uint64_t n = json_unsigned(*v, key_path(key), text);
  if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) {
    throw ConfigError(key_path(key), json_excerpt(*v) + " is not an allowed value; accepted: " + text);
  }
  value = static_cast<uint32_t>(n);
}

void ConfigReader::real(const std::string& key, double& value, double min, double max, const std::string& /*help*/) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  const std::string text = accepted::real_range(min, max);
  if (!v->is_number()) {
    throw ConfigError(key_path(key), "expected a number, got " + describe_json_type(*v) + "; accepted: " + text);
  }
  const double x = v->get<double>();
  if (x < min || x > max) out_of_range(key_path(key), *v, text);
  value = x;
}

void ConfigReader::boolean(const std::string& key, bool& value, const std::string& /*help*/) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  if (!v->is_boolean()) {
    throw ConfigError(key_path(key), "expected true or false, got " + describe_json_type(*v) +
                                         "; accepted: true or false");
  }
  value = v->get<bool>();
}

void ConfigReader::string(const std::string& key, std::string& value, const std::string& /*help*/) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  if (!v->is_string()) {
    throw ConfigError(key_path(key), "expected a string, got " + describe_json_type(*v) + "; accepted: a string");
  }
  value = v->get<std::string>();
}

template <class V>
void ConfigReader::quantity(const std::string& key, V& value, V min, V max,
                            V (*parse)(const nlohmann::json&, const std::string&), std::string (*range)(V, V)) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  const V x = parse(*v, key_path(key));
  if (x < min || x > max) out_of_range(key_path(key), *v, range(min, max));
  value = x;
}

void ConfigReader::bytes(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                         const std::string& /*help*/) {
  quantity(key, value, min, max, parse_bytes, accepted::bytes_range);
}

void ConfigReader::time(const std::string& key, uint64_t& ps, uint64_t min, uint64_t max,
                        const std::string& /*help*/) {
  quantity(key, ps, min, max, parse_time_ps, accepted::time_range);
}

void ConfigReader::rate(const std::string& key, double& bps, double min, double max, const std::string& /*help*/) {
  quantity(key, bps, min, max, parse_rate_bps, accepted::rate_range);
}

void ConfigReader::length(const std::string& key, double& meters, double min, double max,
                          const std::string& /*help*/) {
  quantity(key, meters, min, max, parse_length_m, accepted::length_range);
}

void ConfigReader::uint_list(const std::string& key, std::vector<uint32_t>& values, uint32_t min, uint32_t max,
                             std::size_t min_len, std::size_t max_len, const std::string& /*help*/) {
  const nlohmann::json* v = take(key);
  if (!v) return;
  const std::string words = uint_words(min, max, std::numeric_limits<uint32_t>::max());
  check_list(*v, key, accepted::list_of("integers" + words, min_len, max_len), min_len, max_len);
  const std::string element_text = accepted::uint_range(min, max, std::numeric_limits<uint32_t>::max());
  std::vector<uint32_t> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string path = join_path(key_path(key), i);
    const uint64_t n = json_unsigned((*v)[i], path, element_text);
    if (n < min || n > max) out_of_range(path, (*v)[i], element_text);
    out.push_back(static_cast<uint32_t>(n));
  }
  values = std::move(out);
}

// ---- ValueEmitter, ConfigWriter, ConfigDoc ----

void ValueEmitter::uint(const std::string& key, uint32_t& value, uint32_t min, uint32_t max, const std::string& help) {
  put(key, value, accepted::uint_range(min, max, std::numeric_limits<uint32_t>::max()), help);
}

void ValueEmitter::uint64(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                          const std::string& help) {
  put(key, value, accepted::uint_range(min, max, std::numeric_limits<uint64_t>::max()), help);
}

void ValueEmitter::uint_of(const std::string& key, uint32_t& value, const std::vector<uint32_t>& allowed,
                           const std::string& help) {
  put(key, value, accepted::uint_set(allowed), help);
}

void ValueEmitter::real(const std::string& key, double& value, double min, double max, const std::string& help) {
  put(key, value, accepted::real_range(min, max), help);
}

void ValueEmitter::boolean(const std::string& key, bool& value, const std::string& help) {
  put(key, value, "true or false", help);
}

void ValueEmitter::string(const std::string& key, std::string& value, const std::string& help) {
  put(key, value, "a string", help);
}

void ValueEmitter::bytes(const std::string& key, uint64_t& value, uint64_t min, uint64_t max,
                         const std::string& help) {
  put(key, format_bytes(value), accepted::bytes_range(min, max), help);
}

void ValueEmitter::time(const std::string& key, uint64_t& ps, uint64_t min, uint64_t max, const std::string& help) {
  put(key, format_time_ps(ps), accepted::time_range(min, max), help);
}

void ValueEmitter::rate(const std::string& key, double& bps, double min, double max, const std::string& help) {
  put(key, format_rate_bps(bps), accepted::rate_range(min, max), help);
}

void ValueEmitter::length(const std::string& key, double& meters, double min, double max, const std::string& help) {
  put(key, format_length_m(meters), accepted::length_range(min, max), help);
}

void ValueEmitter::uint_list(const std::string& key, std::vector<uint32_t>& values, uint32_t min, uint32_t max,
                             std::size_t min_len, std::size_t max_len, const std::string& help) {
  const std::string words = uint_words(min, max, std::numeric_limits<uint32_t>::max());
  put(key, values, accepted::list_of("integers" + words, min_len, max_len), help);
}

void ValueEmitter::unnamed_choice(const std::string& key) {
  throw std::logic_error("config field '" + key + "' holds a value that its describe() gives no name");
}

void ConfigWriter::put(const std::string& key, nlohmann::json value, const std::string& /*accepted_text*/,
                       const std::string& /*help*/) {
  out_[key] = std::move(value);
}

void ConfigDoc::put(const std::string& key, nlohmann::json value, const std::string& accepted_text,
                    const std::string& help) {
  rows_.push_back({join_path(prefix_, key), accepted_text, value.dump(), help});
}

std::string render_markdown(const std::string& title, const std::vector<DocRow>& rows) {
  std::string out = "## " + title + "\n\n| key | accepted | default | meaning |\n|---|---|---|---|\n";
  for (const DocRow& r : rows) {
    const std::string default_cell = r.default_value.empty() ? "" : "`" + cell(r.default_value) + "`";
    out += "| `" + cell(r.path) + "` | " + cell(r.accepted) + " | " + default_cell + " | " + cell(r.help) + " |\n";
  }
  out += std::string("\nSizes: ") + kBytesForms + ".\nTimes: " + kTimeForms + ".\nRates: " + kRateForms +
         ".\nLengths: " + kLengthForms + ".\n";
  return out;
}

}  // namespace hcasim::config
