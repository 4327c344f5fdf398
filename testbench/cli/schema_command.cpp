#include "testbench/cli/schema_command.hpp"

#include <iostream>
#include <string>

#include "models/config/scenario.hpp"

namespace hcasim {
namespace {

constexpr const char* kSchemaHelp =
    "usage: hcasim schema\n"
    "\n"
    "Prints the JSON Schema (draft 2020-12) of scenario files on stdout: every parameter of\n"
    "hcasim params with its type, units, allowed values, range, default and meaning. Editors\n"
    "check scenarios with it as they are typed (docs/scenario-schema.md); hcasim validate checks\n"
    "more (names of ports and nodes, ranges of quantities written as strings, rules across fields).\n"
    "\n"
    "  hcasim schema > docs/scenario.schema.json\n"
    "\n"
    "options:\n"
    "  --help    this text\n";

}  // namespace

int schema_command(int argc, char* argv[]) {
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kSchemaHelp;
      return 0;
    }
    std::cerr << "hcasim: unexpected argument '" << arg << "' for schema; accepted: --help\n";
    return 2;
  }
  std::cout << config::scenario_schema().dump(2) << "\n";
  return 0;
}

}  // namespace hcasim
