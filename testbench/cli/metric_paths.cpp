#include "testbench/cli/metric_paths.hpp"

#include <cctype>

namespace hcasim {

std::vector<std::string> split_dotted(const std::string& path) {
  std::vector<std::string> out(1);
  for (char c : path) {
    if (c == '.') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string label_of(const nlohmann::json& element, const std::string& fallback) {
  if (element.is_object()) {
    const auto it = element.find("name");
    if (it != element.end() && it->is_string()) return it->get<std::string>();
  }
  return fallback;
}

void walk(const nlohmann::json& at, const std::vector<std::string>& segs, std::size_t i,
          std::vector<std::string>& labels, const std::string& name, std::vector<MetricCell>& out) {
  if (i == segs.size()) {
    std::string column = name;
    for (std::size_t k = 0; k < labels.size(); ++k) column += (k == 0 ? "[" : ",") + labels[k];
    if (!labels.empty()) column += "]";
    out.push_back({column, at});
    return;
  }
  const std::string& s = segs[i];
  if (s == "*") {
    if (at.is_array()) {
      for (std::size_t k = 0; k < at.size(); ++k) {
        labels.push_back(label_of(at[k], std::to_string(k)));
        walk(at[k], segs, i + 1, labels, name, out);
        labels.pop_back();
      }
    } else if (at.is_object()) {
      for (auto it = at.begin(); it != at.end(); ++it) {
        labels.push_back(label_of(it.value(), it.key()));
        walk(it.value(), segs, i + 1, labels, name, out);
        labels.pop_back();
      }
    }
    return;
  }
  if (at.is_object()) {
    const auto it = at.find(s);
    if (it != at.end()) walk(*it, segs, i + 1, labels, name, out);
  } else if (at.is_array() && all_digits(s) && s.size() < 10) {
    const std::size_t k = std::stoul(s);
    if (k < at.size()) walk(at[k], segs, i + 1, labels, name, out);
  }
}

}  // namespace

std::vector<MetricCell> pick_metric(const nlohmann::json& doc, const std::string& name, const std::string& path) {
  std::vector<MetricCell> out;
  std::vector<std::string> labels;
  walk(doc, split_dotted(path), 0, labels, name, out);
  return out;
}

}  // namespace hcasim
