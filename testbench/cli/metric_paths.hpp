#pragma once
// Values picked out of a JSON document by dotted paths with wildcards: how a
// sweep names the metrics it collects from stats.json.
//
// Rules:
// - A path is dotted; a segment is an object key, a list index (all digits),
//   or "*": every element of a list or every member of an object, in order.
// - A path without "*" gives one column, the metric's name. Each "*" adds a
//   label to the name, "name[label]" ("name[a,b]" for two): the element's
//   "name" member when it is an object that has a string one (a flow, a port),
//   else the list index or the member's key.
// - A path that leads nowhere gives no column (a run that failed, a flow some
//   points do not have); a path that ends on an object or list gives it whole.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcasim {

struct MetricCell {
  std::string column;
  nlohmann::json value;
};

// A dotted path's segments: "a.b.0" -> {"a", "b", "0"}; "" -> {""}.
std::vector<std::string> split_dotted(const std::string& path);

std::vector<MetricCell> pick_metric(const nlohmann::json& doc, const std::string& name, const std::string& path);

}  // namespace hcasim
