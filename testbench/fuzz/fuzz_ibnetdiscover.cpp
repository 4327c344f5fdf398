// libFuzzer harness: the ibnetdiscover importer (models/config/ibnetdiscover.hpp),
// as `hcasim import` runs it.
//
// Input: the text of a dump.
// Asserts:
// - a refused dump is a ConfigError (no other exception) whose message is
//   one non-empty line naming the source and line ("fuzz.ibnd:<line>: ...");
// - an accepted dump that passes check_topology (what `hcasim import`
//   requires) exports to the explicit JSON form, which imports back to an
//   equal topology and exports to the same JSON (topology_json.hpp).

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "models/config/config_error.hpp"
#include "models/config/ibnetdiscover.hpp"
#include "models/config/topology_json.hpp"
#include "testbench/fuzz/fuzz_check.hpp"

using namespace hcasim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  topology::Topology t;
  try {
    t = config::read_ibnetdiscover(in, "fuzz.ibnd");
  } catch (const config::ConfigError& e) {
    const std::string what = e.what();
    FUZZ_CHECK(what.rfind("fuzz.ibnd:", 0) == 0, "an error names the source and line");
    FUZZ_CHECK(what.find('\n') == std::string::npos, "an error is one line");
    return 0;
  }
  if (!topology::check_topology(t).empty()) return 0;
  const nlohmann::json j = config::topology_to_json(t);
  topology::Topology back;
  try {
    back = config::topology_from_json(j, "topology");
  } catch (const config::ConfigError& e) {
    std::fprintf(stderr, "re-import: %s\n%s\n", e.what(), j.dump(2).c_str());
    FUZZ_CHECK(false, "the exported JSON imports again");
  }
  FUZZ_CHECK(back == t, "the exported JSON imports to an equal topology");
  FUZZ_CHECK(config::topology_to_json(back) == j, "and exports to the same JSON");
  return 0;
}
