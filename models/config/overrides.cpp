#include "models/config/overrides.hpp"

#include <vector>

#include "models/config/config_error.hpp"
#include "models/config/json_value.hpp"

namespace hcasim::config {
namespace {

constexpr const char* kForm =
    "accepted: --set <path>=<value>, path dotted with numeric list indices, e.g. --set port.mtu=2048";

[[noreturn]] void bad(const std::string& what) { throw ConfigError("--set", what + "; " + kForm); }

bool all_digits(const std::string& segment) {
  for (char c : segment) {
    if (c < '0' || c > '9') return false;
  }
  return !segment.empty();
}

std::vector<std::string> split_path(const std::string& path, const std::string& assignment) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    segments.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (segments.back().empty()) bad("empty path segment in '" + assignment + "'");
    if (dot == std::string::npos) return segments;
    start = dot + 1;
  }
}

// The slot `segment` names inside `node`, which must be a list or an object (null becomes one).
nlohmann::json& step(nlohmann::json& node, const std::string& segment, const std::string& walked) {
  if (node.is_null()) node = nlohmann::json::object();
  if (node.is_object()) return node[segment];
  if (!node.is_array()) {
    bad("cannot set '" + segment + "' inside " + (walked.empty() ? "the top level" : "'" + walked + "'") +
        ", which is " + describe_json_type(node) + ", not an object or list");
  }
  const std::string list = walked.empty() ? "the top-level list" : "the list '" + walked + "'";
  if (!all_digits(segment)) bad("'" + segment + "' is not an index into " + list);
  // More than 9 digits is past the end of any list that fits in memory.
  const std::size_t index = segment.size() > 9 ? node.size() : std::stoul(segment);
  if (index >= node.size()) {
    const std::string count = node.size() == 1 ? "1 element" : std::to_string(node.size()) + " elements";
    bad("index " + segment + " is beyond the end of " + list + " (" + count + ")");
  }
  return node[index];
}

}  // namespace

void apply_override(nlohmann::json& root, const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos) bad("missing '=' in '" + assignment + "'");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (path.empty()) bad("empty path in '" + assignment + "'");

  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text;

  nlohmann::json* node = &root;
  std::string walked;
  for (const std::string& segment : split_path(path, assignment)) {
    node = &step(*node, segment, walked);
    walked = join_path(walked, segment);
  }
  *node = std::move(value);
}

}  // namespace hcasim::config
