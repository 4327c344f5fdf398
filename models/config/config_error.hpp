#pragma once
// The one error type of configuration reading.
//
// Rules:
// - Every configuration problem (scenario file, --set override) is a ConfigError.
// - what() is exactly one line: "<json path>: <what is wrong>; <what is accepted>".
//   The path uses dots and numeric list indices ("workload.flows.2.sl"); root-level keys have
//   no leading dot; overrides use the path "--set". An empty path leaves just the message.
// - Line breaks in the message are replaced by spaces, so a value echoed from the input can
//   never split the line.

#include <stdexcept>
#include <string>

namespace hcasim::config {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& path, const std::string& message)
      : std::runtime_error(one_line(path.empty() ? message : path + ": " + message)), path_(path) {}

  const std::string& path() const { return path_; }

 private:
  static std::string one_line(std::string text) {
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
  }

  std::string path_;
};

}  // namespace hcasim::config
