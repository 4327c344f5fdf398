#include "models/config/guid_file.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "models/config/config_error.hpp"

namespace hcasim::config {

std::vector<uint64_t> parse_guid_file(const std::string& text, const std::string& file, const std::string& json_path) {
  std::vector<uint64_t> guids;
  std::istringstream in(text);
  std::string line;
  for (unsigned number = 1; std::getline(in, line); ++number) {
    const char* p = line.c_str();
    while (std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (*p == '\0' || *p == '#') continue;
    char* end = nullptr;
    errno = 0;
    const unsigned long long guid = std::strtoull(p, &end, 0);
    const bool ends = *end == '\0' || *end == '#' || std::isspace(static_cast<unsigned char>(*end));
    if (end == p || !ends || errno == ERANGE || *p == '-')
      throw ConfigError(json_path, "'" + file + "' line " + std::to_string(number) + ": '" + line +
                                       "' is not a GUID; accepted: one GUID per line (0x-prefixed hex, "
                                       "optionally followed by a name), blank lines and # comments");
    guids.push_back(guid);
  }
  return guids;
}

}  // namespace hcasim::config
