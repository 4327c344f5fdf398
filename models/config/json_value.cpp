#include "models/config/json_value.hpp"

#include "models/config/config_error.hpp"

namespace hcasim::config {

std::string join_path(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string join_path(const std::string& path, std::size_t index) {
  return join_path(path, std::to_string(index));
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string json_excerpt(const nlohmann::json& v) {
  constexpr std::size_t kMax = 40;
  std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= kMax) return text;
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 boundary
  return text.substr(0, cut) + "...";
}

std::string describe_json_type(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "a list";
  if (v.is_string()) return "string " + json_excerpt(v);
  if (v.is_number()) return "number " + json_excerpt(v);
  return json_excerpt(v);  // true, false, null
}

uint64_t json_unsigned(const nlohmann::json& v, const std::string& path, const std::string& accepted) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) {
    const int64_t n = v.get<int64_t>();
    if (n < 0) throw ConfigError(path, json_excerpt(v) + " is negative; accepted: " + accepted);
    return static_cast<uint64_t>(n);
  }
  throw ConfigError(path, "expected an integer, got " + describe_json_type(v) + "; accepted: " + accepted);
}

}  // namespace hcasim::config
