#pragma once
// A JSON Schema (draft 2020-12) of a config struct, made from its one describe() (config_io.hpp),
// so that an editor checks a scenario as it is typed with what `hcasim params` documents.
//
// Rules:
// - ConfigSchema has the members of ConfigReader. Each field becomes a property with its type
//   (integer, number, boolean, string, object, array), range (minimum, maximum), allowed values
//   (enum), list lengths (minItems, maxItems), its default as ConfigWriter writes it, and a
//   description: the help text and the accepted text of `hcasim params`.
// - Sizes: a JSON integer in range, or a string matching units.hpp's bytes_pattern(). Times,
//   rates and lengths: a string matching their pattern. A pattern checks the form; the range of
//   a quantity written as a string is checked by hcasim alone (its description states it).
// - Every described object has additionalProperties false: the reader rejects unknown keys.
// - custom: the Accepted's schema when it has one; without one the property constrains nothing
//   and its description states what is accepted.
// - present() is false and fail() does nothing: rules across fields are checked by hcasim;
//   where a caller can state one as a schema it adds it to the result (scenario_schema()).
// - Keys of the output are sorted (nlohmann::json objects), so the text is deterministic.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config/config_io.hpp"

namespace hcasim::config {

class ConfigSchema {
 public:
  bool present(const std::string& /*key*/) const { return false; }
  void fail(const std::string& /*key*/, const std::string& /*message*/) const {}

  void uint(const std::string& key, uint32_t& value, uint32_t min, uint32_t max, const std::string& help);
  void uint64(const std::string& key, uint64_t& value, uint64_t min, uint64_t max, const std::string& help);
  void uint_of(const std::string& key, uint32_t& value, const std::vector<uint32_t>& allowed,
               const std::string& help);
  void real(const std::string& key, double& value, double min, double max, const std::string& help);
  void boolean(const std::string& key, bool& value, const std::string& help);
  void string(const std::string& key, std::string& value, const std::string& help);
  void bytes(const std::string& key, uint64_t& value, uint64_t min, uint64_t max, const std::string& help);
  void time(const std::string& key, uint64_t& ps, uint64_t min, uint64_t max, const std::string& help);
  void rate(const std::string& key, double& bps, double min, double max, const std::string& help);
  void length(const std::string& key, double& meters, double min, double max, const std::string& help);
  void uint_list(const std::string& key, std::vector<uint32_t>& values, uint32_t min, uint32_t max,
                 std::size_t min_len, std::size_t max_len, const std::string& help);

  template <class E>
  void choice(const std::string& key, E& value, const Names<E>& names, const std::string& help) {
    const std::vector<std::string> labels = labels_of(names);
    nlohmann::json label;
    for (const auto& n : names)
      if (n.second == value) label = n.first;
    add(key, {{"type", "string"}, {"enum", labels}}, label, accepted::names(labels), help);
  }

  template <class T>
  void object(const std::string& key, T& value, const std::string& help) {
    ConfigSchema sub;
    describe(sub, value);
    nlohmann::json s = sub.take();
    s["description"] = help;
    properties_[key] = std::move(s);
  }

  template <class T>
  void list(const std::string& key, std::vector<T>& values, const std::string& help) {
    list(key, values, 0, kNoLimit, help);
  }
  template <class T>
  void list(const std::string& key, std::vector<T>& values, std::size_t min_len, std::size_t max_len,
            const std::string& help) {
    ConfigSchema element;
    T defaults{};
    describe(element, defaults);
    nlohmann::json written = nlohmann::json::array();
    for (const T& v : values) written.push_back(write_config(v));
    add(key, list_schema(element.take(), min_len, max_len), written, accepted::list_of("objects", min_len, max_len),
        help);
  }

  template <class T, class ParseFn, class FormatFn>
  void custom(const std::string& key, T& value, ParseFn /*parse*/, FormatFn format, const Accepted& accepted,
              const std::string& help) {
    add(key, accepted.schema ? accepted.schema() : nlohmann::json::object(), format(value), accepted.text, help);
  }

  // {"type": "object", "properties": {...}, "additionalProperties": false}
  nlohmann::json take();

  // A list of `items`, with minItems / maxItems where the lengths are bounded.
  static nlohmann::json list_schema(nlohmann::json items, std::size_t min_len, std::size_t max_len);

 private:
  void add(const std::string& key, nlohmann::json schema, nlohmann::json default_value,
           const std::string& accepted_text, const std::string& help);

  nlohmann::json properties_ = nlohmann::json::object();
};

template <class T>
nlohmann::json config_schema() {
  ConfigSchema schema;
  T defaults{};
  describe(schema, defaults);
  return schema.take();
}

// Pieces for the schemas of custom fields (Accepted) and of what callers add.
namespace schema {
nlohmann::json integer(uint64_t min, uint64_t max);
nlohmann::json pattern(const std::string& regex);  // a string matching regex
nlohmann::json names(const std::vector<std::string>& labels);  // one of these strings
nlohmann::json null();
nlohmann::json any_of(std::vector<nlohmann::json> alternatives);
nlohmann::json bytes(uint64_t min, uint64_t max);  // an integer in range or a size string
nlohmann::json time();
nlohmann::json rate();
nlohmann::json length();
// A regular expression of the decimal integers from 0 to max (leading zeros allowed).
std::string integer_regex(unsigned max);
}  // namespace schema

}  // namespace hcasim::config
