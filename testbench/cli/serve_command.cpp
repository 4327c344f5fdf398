#include "testbench/cli/serve_command.hpp"

#include <systemc>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/trace/port_stats_json.hpp"
#include "testbench/cli/fast_exit.hpp"
#include "testbench/cli/output_folder.hpp"
#include "testbench/cli/scenario_file.hpp"
#include "testbench/cli/scenario_setup.hpp"
#include "testbench/serve/ibsim_server.hpp"

namespace hcasim {

namespace {

constexpr const char* kServeUsage =
    "usage: hcasim serve SCENARIO.json [--ibsim NAME] [--out DIR] [--set path=value ...] [--trace] [--quiet MS]\n"
    "\n"
    "Builds the scenario's fabric (management.mode external: no built-in SM) and serves ibsim's client\n"
    "protocol, so that Debian's opensm and infiniband-diags run against it unmodified through\n"
    "libumad2sim.so (docs/real-tools.md). Runs until SIGINT or SIGTERM, then writes DIR/stats.json.\n"
    "\n"
    "options:\n"
    "  --ibsim NAME       the sockets' base name, as IBSIM_SOCKNAME gives it to the tools (default sim)\n"
    "  --out DIR          output folder (default out/<scenario name>)\n"
    "  --set path=value   change one scenario parameter (repeatable)\n"
    "  --trace            one line per MAD on stderr: client, simulated time, class, method, attribute, LIDs, QPs\n"
    "  --quiet MS         wall time without a datagram after which work further than 1 ms of simulated time\n"
    "                     ahead (a link event) runs (default 1000)\n"
    "  --help             this text\n"
    "\n"
    "exit codes: 0 stopped by a signal, outputs written; 2 bad input (one line on stderr)\n";

volatile std::sig_atomic_t g_serve_stop = 0;

extern "C" void on_serve_stop_signal(int) { g_serve_stop = 1; }

struct ServeArgs {
  std::string scenario, out, base = serve::ibsim::kDefaultBase;
  std::vector<std::string> sets;
  bool help = false;
  bool trace = false;
  unsigned quiet_ms = serve::ServeOptions{}.quiet_ms;
};

unsigned parse_quiet(const std::string& v) {
  std::size_t used = 0;
  unsigned long ms = 0;
  try {
    ms = std::stoul(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || ms < 1 || ms > 600000)
    throw std::invalid_argument("serve: --quiet '" + v + "': accepted: milliseconds from 1 to 600000");
  return static_cast<unsigned>(ms);
}

ServeArgs parse_serve_args(int argc, char* argv[]) {
  ServeArgs a;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* name) {
      if (i + 1 >= argc) throw std::invalid_argument(std::string("serve: ") + name + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--help" || arg == "-h") a.help = true;
    else if (arg == "--ibsim") a.base = value("--ibsim");
    else if (arg == "--out") a.out = value("--out");
    else if (arg == "--set") a.sets.push_back(value("--set"));
    else if (arg == "--trace") a.trace = true;
    else if (arg == "--quiet") a.quiet_ms = parse_quiet(value("--quiet"));
    else if (!arg.empty() && arg[0] == '-') throw std::invalid_argument("serve: unknown option '" + arg + "'; see hcasim serve --help");
    else if (a.scenario.empty()) a.scenario = arg;
    else throw std::invalid_argument("serve: one SCENARIO.json only ('" + arg + "' is a second)");
  }
  if (!a.help && a.scenario.empty()) throw std::invalid_argument("serve: missing SCENARIO.json");
  if (a.base.empty() || a.base.size() > 64 || a.base.find('\0') != std::string::npos)
    throw std::invalid_argument("serve: --ibsim NAME must be 1 to 64 characters");
  return a;
}

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_serve_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: poll() returns at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

int serve_command(int argc, char* argv[]) {
  try {
    const ServeArgs a = parse_serve_args(argc, argv);
    if (a.help) {
      std::cout << kServeUsage;
      return 0;
    }
    nlohmann::json root;
    const config::Scenario s = load_scenario_file(ScenarioArgs{a.scenario, a.sets, std::nullopt, false, false}, root);
    if (s.management.mode != config::ManagementMode::External)
      throw config::ConfigError("management.mode", "hcasim serve needs an outside SM; accepted: external");
    const std::string out = a.out.empty() ? "out/" + s.name : a.out;
    claim_output_folder(out, ".hcasim-output", "hcasim");
    SimulationSetup setup = setup_from(s, out, true);
    ib::PacketPool pool;
    fabric::Fabric fabric(std::move(setup.fabric), pool);
    serve::ServeOptions options;
    options.base = a.base;
    options.trace = a.trace;
    options.quiet_ms = a.quiet_ms;
    serve::IbsimServer server(fabric, options);
    install_stop_handlers();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    std::cout << "hcasim serve: " << fabric.spec().nodes.size() << " nodes, ibsim sockets '" << a.base
              << ":ctl'; stop with SIGINT or SIGTERM" << std::endl;
    server.serve(g_serve_stop);
    const uint64_t now = sc_core::sc_time_stamp().value();
    nlohmann::json ports = nlohmann::json::object();
    for (const link::Port* p : fabric.ports()) ports[p->name()] = trace::port_stats_json(*p, now);
    nlohmann::json stats = {{"run", {{"scenario", s.name}, {"command", "serve"}, {"sim_time_ps", now}}},
                            {"management", {{"mode", "external"}, {"external", server.json()}}},
                            {"ports", ports}};
    std::ofstream(std::filesystem::path(out) / "stats.json") << stats.dump(2) << "\n";
    std::cout << "hcasim serve: stopped at " << now << " ps of simulated time; results in " << out << std::endl;
    return exit_without_teardown(0);
  } catch (const config::ConfigError& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace hcasim
