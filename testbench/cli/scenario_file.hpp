#pragma once
// A scenario as `hcasim run` and `hcasim validate` read it: the file, then the
// --set overrides in order, then --seed, --pcap and --vcd. The sweep reads its
// points the same way, so a point's config hash is the one its run reports.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"

namespace hcasim {

struct ScenarioArgs {
  std::string path;               // the scenario file; relative files it names are relative to it
  std::vector<std::string> sets;  // "path=value", applied in order
  std::optional<uint64_t> seed;   // run.seed
  bool pcap = false;              // outputs.pcap
  bool vcd = false;               // outputs.vcd
};

// A file's text; "" when it cannot be read (a log a run did not write).
std::string file_text(const std::string& path);

// A JSON file's contents. Throws std::invalid_argument, one line naming the
// file, when it cannot be opened or is not JSON.
nlohmann::json read_json_file(const std::string& path);

// The scenario file with the arguments applied, as the JSON the loader read
// (`root`) and the loaded scenario. Throws config::ConfigError, or
// std::invalid_argument for the file itself.
config::Scenario load_scenario_file(const ScenarioArgs& a, nlohmann::json& root);

}  // namespace hcasim
