#include "models/config/service_level.hpp"

#include "models/config/config_error.hpp"
#include "models/config/config_schema.hpp"

namespace hcasim::config {

uint32_t parse_sl(const nlohmann::json& v, const std::string& path) {
  const char* accepted = "accepted: an integer from 0 to 15, or \"path\"";
  if (v.is_string() && v.get<std::string>() == "path") return kPathSl;
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 15)
    throw ConfigError(path, v.dump() + " is not a service level; " + accepted);
  return static_cast<uint32_t>(v.get<int64_t>());
}

nlohmann::json format_sl(uint32_t sl) { return sl == kPathSl ? nlohmann::json("path") : nlohmann::json(sl); }

nlohmann::json sl_schema() { return schema::any_of({schema::integer(0, 15), {{"const", "path"}}}); }

}  // namespace hcasim::config
