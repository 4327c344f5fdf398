#pragma once
// `hcasim serve SCENARIO.json [--ibsim NAME] [--out DIR] [--set path=value ...]`:
// builds the scenario's fabric with management external and serves ibsim's
// client protocol (testbench/serve/ibsim_server.hpp) until SIGINT or SIGTERM,
// then writes DIR/stats.json (the ports' counters and management.external) and
// exits 0. docs/real-tools.md is the guide.
// Exit codes: 0 stopped by a signal, outputs written; 2 bad input (a scenario
// error, management.mode not external, the socket name in use).

namespace hcasim {

int serve_command(int argc, char* argv[]);

}  // namespace hcasim
