#pragma once
// Small helpers for talking about JSON values in configuration errors.
//
// Rules:
// - Paths join with dots; list elements are numeric indices; a root-level key has no dot.
// - A value echoed in a message is its JSON text on one line, cut to 40 characters.
// - An unsigned integer field accepts JSON integers >= 0 only: no floats (not even 4096.0),
//   no strings, no booleans. Anything else is a ConfigError naming the path, what was found
//   and the accepted text the caller passes in.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcasim::config {

std::string join_path(const std::string& path, const std::string& key);
std::string join_path(const std::string& path, std::size_t index);

// Items separated by ", ".
std::string join_list(const std::vector<std::string>& items);

// The JSON text of v on one line, cut to 40 characters ("...") if longer.
std::string json_excerpt(const nlohmann::json& v);

// What v is, for "expected X, got Y" messages: `string "abc"`, `number 3.5`, `true`, `null`,
// `an object`, `a list`.
std::string describe_json_type(const nlohmann::json& v);

// v as an unsigned integer, or ConfigError(path, "... ; accepted: <accepted>").
uint64_t json_unsigned(const nlohmann::json& v, const std::string& path, const std::string& accepted);

}  // namespace hcasim::config
