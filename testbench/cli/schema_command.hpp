#pragma once
// hcasim schema: prints the JSON Schema (draft 2020-12) of scenario files, made from the
// parameter descriptions that `hcasim params` prints (config_schema.hpp, scenario_schema()).
// docs/scenario.schema.json is its output; docs/scenario-schema.md tells how an editor uses it.

namespace hcasim {

// argv[0] = "hcasim", argv[1] = "schema". Exit code 0, or 2 for a bad argument.
int schema_command(int argc, char* argv[]);

}  // namespace hcasim
