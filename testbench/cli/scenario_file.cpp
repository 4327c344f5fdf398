#include "testbench/cli/scenario_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/config/config_error.hpp"
#include "models/config/overrides.hpp"

namespace hcasim {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    const std::string what = e.what();
    throw std::invalid_argument(path + ": not valid JSON: " + what.substr(what.find(']') + 2));
  }
}

config::Scenario load_scenario_file(const ScenarioArgs& a, nlohmann::json& root) {
  root = read_json_file(a.path);
  for (const std::string& s : a.sets) config::apply_override(root, s);
  if (a.seed) root["run"]["seed"] = *a.seed;
  if (a.pcap) root["outputs"]["pcap"] = true;
  if (a.vcd) root["outputs"]["vcd"] = true;
  return config::load_scenario(root, std::filesystem::path(a.path).parent_path().string());
}

}  // namespace hcasim
