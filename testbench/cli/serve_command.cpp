#include "testbench/cli/serve_command.hpp"

#include <systemc>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/config/units.hpp"
#include "testbench/cli/fast_exit.hpp"
#include "testbench/cli/output_folder.hpp"
#include "testbench/cli/run_checks.hpp"
#include "testbench/cli/scenario_file.hpp"
#include "testbench/cli/scenario_setup.hpp"
#include "testbench/cli/details_output.hpp"
#include "testbench/cli/simulation.hpp"
#include "testbench/cli/stats_document.hpp"
#include "testbench/serve/ibsim_server.hpp"
#include "testbench/serve/verbs_server.hpp"

namespace hcasim {

namespace {

constexpr const char* kServeUsage =
    "usage: hcasim serve SCENARIO.json [--ibsim NAME] [--out DIR] [--set path=value ...] [--trace] [--quiet MS]\n"
    "                    [--until-done] [--udp [HOST:]PORT] [--verbs [--grace MS]]\n"
    "\n"
    "Builds the scenario's fabric (management.mode external: no built-in SM) and serves ibsim's client\n"
    "protocol, so that Debian's opensm and infiniband-diags run against it unmodified through\n"
    "libumad2sim.so (docs/real-tools.md). The scenario's workloads start when the subnet is up. Runs until\n"
    "SIGINT or SIGTERM, then writes DIR/stats.json (and results.db) as hcasim run does.\n"
    "With --verbs it serves verbs programs instead (docs/verbs-apps.md): Debian's libibverbs loads\n"
    "libhcasim-rdmav34.so and every verb of an unmodified program (ibv_rc_pingpong, ib_write_bw) goes to one\n"
    "of the scenario's HCAs; the built-in SM configures the fabric (management.mode in_band).\n"
    "\n"
    "options:\n"
    "  --ibsim NAME       the sockets' base name, as IBSIM_SOCKNAME gives it to the tools (default sim)\n"
    "  --udp [HOST:]PORT  serve on UDP instead, as ibsim -r -l PORT: control on PORT, client n on PORT+1+n;\n"
    "                     the tools find it through IBSIM_SERVER_NAME=HOST IBSIM_SERVER_PORT=PORT (HOST: the\n"
    "                     address to bind, default 127.0.0.1; 0.0.0.0 for tools on other machines)\n"
    "  --out DIR          output folder (default out/<scenario name>)\n"
    "  --set path=value   change one scenario parameter (repeatable)\n"
    "  --trace            one line per MAD on stderr: client, simulated time, class, method, attribute, LIDs, QPs\n"
    "  --quiet MS         wall time without a datagram after which work further than 1 ms of simulated time\n"
    "                     ahead (a link event) runs (default 1000)\n"
    "  --until-done       stop by itself once the workloads have finished (they start when the outside SM has\n"
    "                     made every linked port Active: management.start_workloads)\n"
    "  --verbs            serve libibverbs programs through libhcasim-rdmav34.so (socket hcasim-verbs:NAME, NAME\n"
    "                     from --ibsim) and write the sysfs tree they read to DIR/sysfs\n"
    "  --grace MS         --verbs: wall time without a verb after which a program counts as idle, so that the\n"
    "                     model runs for the others (default 200)\n"
    "  --help             this text\n"
    "\n"
    "exit codes: 0 stopped, outputs written, every check held; 1 a check failed (a workload unfinished or its\n"
    "data wrong, the link checker); 2 bad input (one line on stderr)\n";

volatile std::sig_atomic_t g_serve_stop = 0;

extern "C" void on_serve_stop_signal(int) { g_serve_stop = 1; }

struct ServeArgs {
  std::string scenario, out, base = serve::ibsim::kDefaultBase;
  std::optional<serve::IbsimSockets> udp;
  std::vector<std::string> sets;
  bool help = false;
  bool trace = false;
  bool until_done = false;
  bool verbs = false;
  unsigned quiet_ms = serve::ServeOptions{}.quiet_ms;
  unsigned grace_ms = serve::VerbsOptions{}.grace_ms;
};

unsigned parse_ms(const std::string& option, const std::string& v) {
  std::size_t used = 0;
  unsigned long ms = 0;
  try {
    ms = std::stoul(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || ms < 1 || ms > 600000)
    throw std::invalid_argument("serve: " + option + " '" + v + "': accepted: milliseconds from 1 to 600000");
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
    else if (arg == "--until-done") a.until_done = true;
    else if (arg == "--udp") {
      const std::string v = value("--udp");
      a.udp = serve::parse_udp(v);
      if (!a.udp)
        throw std::invalid_argument("serve: --udp '" + v + "': accepted: [HOST:]PORT, HOST an IPv4 address (default "
                                    "127.0.0.1; 0.0.0.0 for every one), PORT from 1 to 65524");
    }
    else if (arg == "--quiet") a.quiet_ms = parse_ms(arg, value("--quiet"));
    else if (arg == "--verbs") a.verbs = true;
    else if (arg == "--grace") a.grace_ms = parse_ms(arg, value("--grace"));
    else if (!arg.empty() && arg[0] == '-') throw std::invalid_argument("serve: unknown option '" + arg + "'; see hcasim serve --help");
    else if (a.scenario.empty()) a.scenario = arg;
    else throw std::invalid_argument("serve: one SCENARIO.json only ('" + arg + "' is a second)");
  }
  if (!a.help && a.scenario.empty()) throw std::invalid_argument("serve: missing SCENARIO.json");
  if (a.verbs && a.udp) throw std::invalid_argument("serve: --verbs and --udp: verbs programs connect on this machine only");
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

// Writes stats.json, says where the results are, and exits 0, or 1 when a check failed.
int finish_serve(Simulation& sim, const nlohmann::json& stats, const std::string& out) {
  std::ofstream(std::filesystem::path(out) / "stats.json") << stats.dump(2) << "\n";
  std::cout << "hcasim serve: stopped at " << config::format_time_ps(sim.sim_time_ps())
            << " of simulated time; results in " << out << std::endl;
  const bool ok = print_check_failures(sim, std::cerr);
  sim.close_outputs();
  return exit_without_teardown(ok ? 0 : 1);
}

// The directory this program is in, where the provider is built and installed beside it.
std::string program_dir() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

int serve_verbs(const ServeArgs& a, const config::Scenario& s, const nlohmann::json& resolved, const std::string& out,
                Simulation& sim) {
  serve::VerbsOptions options;
  options.base = a.base;
  options.sysfs_dir = std::filesystem::absolute(std::filesystem::path(out) / "sysfs").string();
  options.grace_ms = a.grace_ms;
  options.trace = a.trace;
  serve::VerbsServer server(sim.fabric(), options);
  sim.run_served([&] {
    server.prepare();
    const unsigned n = sim.fabric().hca_count();
    std::cout << "hcasim serve: " << n << " HCAs for verbs programs (hcasim0" << (n > 1 ? "..hcasim" + std::to_string(n - 1) : "")
              << ") at '" << server.socket_name() << "', simulated time " << config::format_time_ps(sc_core::sc_time_stamp().value())
              << "; stop with SIGINT or SIGTERM" << std::endl;
    std::cout << "hcasim serve: run programs with SYSFS_PATH=" << options.sysfs_dir << " RDMAV_DRIVERS=" << program_dir()
              << "/libhcasim HCASIM_DEVICE=<n> (and /dev/infiniband/uverbs0.." << n - 1
              << ": scripts/verbs_devices.sh " << n << ")" << std::endl;
    server.serve(g_serve_stop);
  });
  const RunMetadata meta{s.name, s.run.seed, config_hash(resolved)};
  nlohmann::json stats = stats_document(sim, meta);
  stats.update(write_details(sim, meta, s.outputs.details, out));
  stats["run"]["command"] = "serve";
  stats["verbs_programs"] = server.json();
  server.print_report(std::cout);
  return finish_serve(sim, stats, out);
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
    if (a.verbs && s.management.mode != config::ManagementMode::InBand)
      throw config::ConfigError("management.mode", "hcasim serve --verbs configures the fabric with the built-in SM; "
                                                   "accepted: in_band");
    if (!a.verbs && s.management.mode != config::ManagementMode::External)
      throw config::ConfigError("management.mode", "hcasim serve needs an outside SM; accepted: external");
    const std::string out = a.out.empty() ? "out/" + s.name : a.out;
    claim_output_folder(out, ".hcasim-output", "hcasim");
    const nlohmann::json resolved = config::resolved_json(s);
    std::ofstream(std::filesystem::path(out) / "scenario.resolved.json") << resolved.dump(2) << "\n";
    SimulationSetup setup = setup_from(s, out, true);
    if (a.verbs) setup.fabric.hosts = true;  // the programs' verbs are its drivers' calls
    Simulation sim(std::move(setup.fabric), std::move(setup.flows), setup.options, setup.transport);
    install_stop_handlers();
    if (a.verbs) return serve_verbs(a, s, resolved, out, sim);
    serve::ServeOptions options;
    options.sockets = a.udp ? *a.udp : serve::IbsimSockets{};
    options.sockets.base = a.base;
    options.trace = a.trace;
    options.quiet_ms = a.quiet_ms;
    serve::IbsimServer server(sim.fabric(), options);
    const bool has_workloads = !sim.flows().empty() || !sim.perftests().empty() || !sim.dma_tests().empty();
    bool told_up = false, told_done = false;
    // One line each when the subnet comes up and when the workloads have finished.
    const auto report = [&] {
      const uint64_t up = sim.fabric().subnet_up_ps();
      if (!told_up && up != 0) {
        told_up = true;
        std::cout << "hcasim serve: subnet up at " << config::format_time_ps(up) << " (every linked port Active)"
                  << (has_workloads ? "; workloads started" : "") << std::endl;
      }
      const bool near_work = sc_core::sc_pending_activity() &&
                             sc_core::sc_time_to_pending_activity().value() <= options.near_ps;
      if (told_up && has_workloads && !told_done && !near_work && sim.workloads_finished()) {
        told_done = true;
        std::cout << "hcasim serve: workloads finished at " << config::format_time_ps(sc_core::sc_time_stamp().value())
                  << (a.until_done ? "; stopping" : "; stop with SIGINT or SIGTERM for the results") << std::endl;
        if (a.until_done) g_serve_stop = 1;
      }
    };
    sim.run_served([&] {
      std::cout << "hcasim serve: " << sim.fabric().spec().nodes.size() << " nodes, ibsim "
                << (a.udp ? "UDP port '" : "sockets '") << serve::describe(serve::server_ctl(options.sockets))
                << "'; stop with SIGINT or SIGTERM" << std::endl;
      server.serve(g_serve_stop, report);
    });
    const RunMetadata meta{s.name, s.run.seed, config_hash(resolved)};
    nlohmann::json stats = stats_document(sim, meta);
    stats.update(write_details(sim, meta, s.outputs.details, out));
    stats["run"]["command"] = "serve";
    stats["management"] = {{"mode", "external"},
                           {"subnet_up_us", static_cast<double>(sim.fabric().subnet_up_ps()) / 1e6},
                           {"external", server.json()}};
    return finish_serve(sim, stats, out);
  } catch (const config::ConfigError& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace hcasim
