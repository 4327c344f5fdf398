// libFuzzer harness: the scenario loader (models/config/scenario.hpp) with
// --set overrides (overrides.hpp), as `hcasim run` / `hcasim validate` use it.
//
// Input: the scenario's JSON text, then optionally "\n--set " followed by
// overrides "path=value" separated by NUL bytes (at most 4). Text that is not
// JSON is skipped (nlohmann's parser, not ours); so is text naming a device
// file (/dev, /proc, /sys), since topology.file and partitions files are read.
// Relative files are taken from configs/ (HCASIM_SOURCE_DIR).
// Asserts:
// - an override or a scenario that is refused is a ConfigError (no other
//   exception) with a non-empty one-line message;
// - an accepted scenario's resolved JSON (what `hcasim run` writes as
//   scenario.resolved.json) loads again, and resolves to the same JSON.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/config/config_error.hpp"
#include "models/config/overrides.hpp"
#include "models/config/scenario.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim;

namespace {

void check_message(const config::ConfigError& e) {
  const std::string what = e.what();
  FUZZ_CHECK(!what.empty(), "a refusal has a message");
  FUZZ_CHECK(what.find('\n') == std::string::npos, "a refusal is one line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  if (input.find("/dev") != std::string::npos || input.find("/proc") != std::string::npos ||
      input.find("/sys") != std::string::npos) {
    return 0;
  }
  const std::string marker = "\n--set ";
  const size_t at = input.find(marker);
  std::vector<std::string> sets;
  if (at != std::string::npos) {
    std::string rest = input.substr(at + marker.size());
    size_t from = 0;
    while (sets.size() < 4) {
      const size_t nul = rest.find('\0', from);
      sets.push_back(rest.substr(from, nul == std::string::npos ? std::string::npos : nul - from));
      if (nul == std::string::npos) break;
      from = nul + 1;
    }
  }
  nlohmann::json root = nlohmann::json::parse(input.substr(0, at), nullptr, false);
  if (root.is_discarded()) return 0;

  const std::string base_dir = std::string(HCASIM_SOURCE_DIR) + "/configs";
  nlohmann::json resolved;
  try {
    for (const std::string& s : sets) config::apply_override(root, s);
    resolved = config::resolved_json(config::load_scenario(root, base_dir));
  } catch (const config::ConfigError& e) {
    check_message(e);
    return 0;
  }
  nlohmann::json again;
  try {
    again = config::resolved_json(config::load_scenario(resolved, base_dir));
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "resolved scenario refused: %s\n", e.what());
    FUZZ_CHECK(false, "a resolved scenario loads again");
  }
  if (again != resolved) {
    std::fprintf(stderr, "first:\n%s\nagain:\n%s\n", resolved.dump(1).c_str(), again.dump(1).c_str());
    FUZZ_CHECK(false, "a resolved scenario resolves to the same JSON");
  }
  return 0;
}
