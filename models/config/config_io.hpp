#pragma once
// Configuration structs described once; read, written and documented from that description.
//
// Rules:
// - A config struct T is described by one free function, found by argument-dependent lookup
//   (so declare it in T's namespace):
//       template <class Io> void describe(Io& io, T& c);
//   It names every field once: key, kind, range or accepted values, one-line help. The default
//   is the struct's in-class initializer and is stated nowhere else.
// - ConfigReader reads strictly. An absent key keeps the default. A present key is parsed and
//   range-checked. After describe, a key the description did not name is an error listing the
//   accepted keys. Every error is one ConfigError: "<json path>: <what is wrong>; accepted: ...".
// - ConfigWriter writes every field with its current value (units formatted by units.hpp), so
//   its output reads back to an equal struct.
// - ConfigDoc collects one row per field: path (list elements as "[]"), accepted values,
//   default, help; render_markdown() turns rows into a table.
// - ConfigSchema (config_schema.hpp) makes a JSON Schema of the same fields.
// - All four have the same members, so describe is written once:
//   uint, uint64, uint_of, real, boolean, string, bytes, time, rate, length, choice, object,
//   list, uint_list, custom; present(key) (true only on the reader, for a key in the input) and
//   fail(key, message) (the reader throws a ConfigError at path.key; writer and doc ignore it).
// - list elements start from T{} and are read completely from their own object.
// - custom takes its accepted values as an Accepted: the text errors and documentation show,
//   and optionally a function making its JSON Schema (only ConfigSchema calls it).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config/config_error.hpp"
#include "models/config/json_value.hpp"

namespace hcasim::config {

// The names of a choice, in the order errors and documentation list them.
template <class E>
using Names = std::vector<std::pair<std::string, E>>;

inline constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

template <class T>
T read_config(const nlohmann::json& j, const std::string& path = "");
template <class T>
void read_config_into(const nlohmann::json& j, T& out, const std::string& path = "");
template <class T>
nlohmann::json write_config(const T& c);

// The accepted-values texts, shared by reader errors and documentation.
namespace accepted {
std::string uint_range(uint64_t min, uint64_t max, uint64_t type_max);
std::string uint_set(const std::vector<uint32_t>& allowed);
std::string real_range(double min, double max);
std::string bytes_range(uint64_t min, uint64_t max);
std::string time_range(uint64_t min, uint64_t max);
std::string rate_range(double min, double max);
std::string length_range(double min, double max);
std::string names(const std::vector<std::string>& labels);
std::string list_of(const std::string& items, std::size_t min_len, std::size_t max_len);
}  // namespace accepted

// What a custom field accepts. A plain string converts to an Accepted without a schema: the
// JSON Schema then documents the text and constrains nothing.
struct Accepted {
  std::string text;
  std::function<nlohmann::json()> schema;  // the JSON Schema of the accepted values; empty = none

  Accepted(std::string t) : text(std::move(t)) {}                   // NOLINT: implicit on purpose
  Accepted(const char* t) : text(t) {}                              // NOLINT: implicit on purpose
  Accepted(std::string t, std::function<nlohmann::json()> s) : text(std::move(t)), schema(std::move(s)) {}
};

template <class E>
std::vector<std::string> labels_of(const Names<E>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(n.first);
  return out;
}

class ConfigReader {
 public:
  // `object` must be a JSON object; it must outlive the reader.
  ConfigReader(const nlohmann::json& object, std::string path);

  bool present(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

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
  void choice(const std::string& key, E& value, const Names<E>& names, const std::string& /*help*/) {
    if (const nlohmann::json* v = take(key)) value = names[pick(*v, key, labels_of(names))].second;
  }

  template <class T>
  void object(const std::string& key, T& value, const std::string& /*help*/) {
    if (const nlohmann::json* v = take(key)) read_config_into(*v, value, key_path(key));
  }

  template <class T>
  void list(const std::string& key, std::vector<T>& values, const std::string& help) {
    list(key, values, 0, kNoLimit, help);
  }
  template <class T>
  void list(const std::string& key, std::vector<T>& values, std::size_t min_len, std::size_t max_len,
            const std::string& /*help*/) {
    const nlohmann::json* v = take(key);
    if (!v) return;
    check_list(*v, key, accepted::list_of("objects", min_len, max_len), min_len, max_len);
    std::vector<T> out(v->size());
    for (std::size_t i = 0; i < out.size(); ++i) read_config_into((*v)[i], out[i], join_path(key_path(key), i));
    values = std::move(out);
  }

  // parse: (const nlohmann::json&, const std::string& path) -> T, throwing ConfigError.
  template <class T, class ParseFn, class FormatFn>
  void custom(const std::string& key, T& value, ParseFn parse, FormatFn /*format*/, const Accepted& /*accepted*/,
              const std::string& /*help*/) {
    if (const nlohmann::json* v = take(key)) value = parse(*v, key_path(key));
  }

  // Throws for the first key of the object that no member call named.
  void finish() const;
  // The keys named so far, in description order.
  const std::vector<std::string>& known_keys() const { return known_; }

 private:
  const nlohmann::json* take(const std::string& key);
  // An unsigned integer in [min, max]; type_max names the field's own limit in errors.
  void read_unsigned(const std::string& key, uint64_t& value, uint64_t min, uint64_t max, uint64_t type_max);
  std::string key_path(const std::string& key) const { return join_path(path_, key); }
  std::size_t pick(const nlohmann::json& v, const std::string& key, const std::vector<std::string>& labels) const;
  // A unit quantity (bytes, time, rate, length): parse, range-check, assign. Defined in the .cpp.
  template <class V>
  void quantity(const std::string& key, V& value, V min, V max,
                V (*parse)(const nlohmann::json&, const std::string&), std::string (*range)(V, V));
  void check_list(const nlohmann::json& v, const std::string& key, const std::string& accepted_text,
                  std::size_t min_len, std::size_t max_len) const;

  const nlohmann::json& object_;
  std::string path_;
  std::vector<std::string> known_;
};

// What ConfigWriter and ConfigDoc share: every scalar field becomes a JSON value (the form the
// writer writes and the doc shows as default) plus its accepted text, handed to put().
class ValueEmitter {
 public:
  virtual ~ValueEmitter() = default;

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
    for (const auto& n : names) {
      if (n.second == value) return put(key, n.first, accepted::names(labels), help);
    }
    unnamed_choice(key);
  }

  template <class T, class ParseFn, class FormatFn>
  void custom(const std::string& key, T& value, ParseFn /*parse*/, FormatFn format, const Accepted& accepted,
              const std::string& help) {
    put(key, format(value), accepted.text, help);
  }

 protected:
  virtual void put(const std::string& key, nlohmann::json value, const std::string& accepted_text,
                   const std::string& help) = 0;

 private:
  [[noreturn]] static void unnamed_choice(const std::string& key);
};

class ConfigWriter : public ValueEmitter {
 public:
  template <class T>
  void object(const std::string& key, T& value, const std::string& /*help*/) {
    out_[key] = write_config(value);
  }

  template <class T>
  void list(const std::string& key, std::vector<T>& values, const std::string& help) {
    list(key, values, 0, kNoLimit, help);
  }
  template <class T>
  void list(const std::string& key, std::vector<T>& values, std::size_t /*min_len*/, std::size_t /*max_len*/,
            const std::string& /*help*/) {
    nlohmann::json out = nlohmann::json::array();
    for (const T& v : values) out.push_back(write_config(v));
    out_[key] = std::move(out);
  }

  nlohmann::json take() { return std::move(out_); }

 protected:
  void put(const std::string& key, nlohmann::json value, const std::string& accepted_text,
           const std::string& help) override;

 private:
  nlohmann::json out_ = nlohmann::json::object();
};

struct DocRow {
  std::string path;           // "links[].speed"
  std::string accepted;       // "one of SDR, HDR"
  std::string default_value;  // JSON text: "\"HDR\"", "4096"; empty for objects
  std::string help;
};

class ConfigDoc : public ValueEmitter {
 public:
  ConfigDoc(std::vector<DocRow>& rows, std::string prefix) : rows_(rows), prefix_(std::move(prefix)) {}

  template <class T>
  void object(const std::string& key, T& value, const std::string& help) {
    rows_.push_back({join_path(prefix_, key), "an object", "", help});
    ConfigDoc sub(rows_, join_path(prefix_, key));
    describe(sub, value);
  }

  template <class T>
  void list(const std::string& key, std::vector<T>& values, const std::string& help) {
    list(key, values, 0, kNoLimit, help);
  }
  template <class T>
  void list(const std::string& key, std::vector<T>& values, std::size_t min_len, std::size_t max_len,
            const std::string& help) {
    nlohmann::json defaults = nlohmann::json::array();
    for (const T& v : values) defaults.push_back(write_config(v));
    rows_.push_back({join_path(prefix_, key), accepted::list_of("objects", min_len, max_len), defaults.dump(), help});
    ConfigDoc sub(rows_, join_path(prefix_, key) + "[]");
    T element{};
    describe(sub, element);
  }

 protected:
  void put(const std::string& key, nlohmann::json value, const std::string& accepted_text,
           const std::string& help) override;

 private:
  std::vector<DocRow>& rows_;
  std::string prefix_;
};

// A Markdown section: title, a table (key, accepted, default, meaning), the unit forms.
std::string render_markdown(const std::string& title, const std::vector<DocRow>& rows);

// ---- top level ----

template <class T>
void read_config_into(const nlohmann::json& j, T& out, const std::string& path) {
  if (!j.is_object()) {
    const nlohmann::json empty = nlohmann::json::object();
    ConfigReader probe(empty, path);
    T scratch{};
    describe(probe, scratch);
    throw ConfigError(path, "expected an object, got " + describe_json_type(j) +
                                "; accepted: an object with keys " + join_list(probe.known_keys()));
  }
  ConfigReader reader(j, path);
  describe(reader, out);
  reader.finish();
}

template <class T>
T read_config(const nlohmann::json& j, const std::string& path) {
  T out{};
  read_config_into(j, out, path);
  return out;
}

template <class T>
nlohmann::json write_config(const T& c) {
  T copy = c;  // describe takes T&; the writer only reads it
  ConfigWriter writer;
  describe(writer, copy);
  return writer.take();
}

template <class T>
std::vector<DocRow> document_rows() {
  std::vector<DocRow> rows;
  ConfigDoc doc(rows, "");
  T defaults{};
  describe(doc, defaults);
  return rows;
}

template <class T>
std::string document_config(const std::string& title) {
  return render_markdown(title, document_rows<T>());
}

}  // namespace hcasim::config
