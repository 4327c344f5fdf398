#pragma once
// Command-line overrides of a scenario's JSON: --set path=value (how sweeps are driven).
//
// Rules:
// - The assignment is "<path>=<value>", split at the first '='.
// - <path> is dotted; a segment that is all digits indexes a list: workload.flows.0.sl.
//   Into an object every segment is a key (validation rejects unknown ones later).
// - <value> is taken as JSON when it parses as JSON (3, true, "EDR", [1,2], {"a":1}),
//   otherwise as a plain string, so speed=EDR and duration=2ms need no quotes.
// - Missing intermediate objects are created. Nothing else is created: an index beyond a
//   list's end, a path through a number, string or boolean, an empty path or segment and a
//   missing '=' are ConfigErrors with path "--set" that say the accepted form.

#include <string>

#include <nlohmann/json.hpp>

namespace hcasim::config {

void apply_override(nlohmann::json& root, const std::string& assignment);

}  // namespace hcasim::config
