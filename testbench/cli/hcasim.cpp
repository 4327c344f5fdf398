// hcasim: the command-line program.
//
//   hcasim run SCENARIO.json [--out DIR] [--seed N] [--set path=value ...] [--pcap] [--vcd] [--quiet] [--threads N]
//     [--junit FILE]  the checker's verdict and every perftest / verbs expectation as JUnit (run_checks.hpp)
//     --threads: threads for a scenario with run.partitions > 1 (default: one per partition, at most the
//     machine's cores); the results do not depend on it
//   hcasim validate SCENARIO.json [--set path=value ...] [--dump DIR] [--timings]   also routes the fabric and
//     checks for credit loops; --timings: the wall time of each
//   hcasim import FABRIC.ibnd [--out FILE.json]  an ibnetdiscover dump as an explicit topology (nodes and links)
//   hcasim sweep SWEEP.json ...     many runs of one scenario, one table (sweep_command.hpp)
//   hcasim plot sweep|run|timeseries ...  pictures (plot_command.hpp, scripts/hcasim_plot.py)
//   hcasim compare GOLDEN NEW ...   two stats.json value by value (compare_command.hpp)
//   hcasim regress SUITE_DIR ...    a folder of scenarios against their goldens (regress_command.hpp)
//   hcasim params                  print every scenario parameter with its default (Markdown)
//   hcasim tables                  print the tables and columns of results.db (Markdown)
//   hcasim schema                  print the JSON Schema of scenario files (schema_command.hpp)
//   hcasim calibrate [--events N]  cost of one timed SC_METHOD notification on this machine
//   hcasim --help, hcasim COMMAND --help, hcasim --version
//
// Exit codes (DESIGN.md): 0 ran and every check passed; 1 a checker failed
// (validate: the routes have a credit loop); 2 bad input. Errors are one line on stderr, naming the JSON path.

#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "models/config/resource_limits.hpp"
#include "models/config/routing_dump.hpp"
#include "models/config/config_error.hpp"
#include "models/config/ibnetdiscover.hpp"
#include "models/config/notices.hpp"
#include "models/config/scenario.hpp"
#include "models/config/topology_json.hpp"
#include "models/fabric/partitioning.hpp"
#include "testbench/cli/compare_command.hpp"
#include "testbench/cli/detail_tables.hpp"
#include "testbench/cli/details_output.hpp"
#include "testbench/cli/event_cost.hpp"
#include "testbench/cli/fast_exit.hpp"
#include "testbench/cli/huge_page_heap.hpp"
#include "testbench/cli/junit.hpp"
#include "testbench/cli/output_folder.hpp"
#include "testbench/cli/plot_command.hpp"
#include "testbench/cli/regress_command.hpp"
#include "testbench/cli/serve_command.hpp"
#include "testbench/cli/run_checks.hpp"
#include "testbench/cli/scenario_file.hpp"
#include "testbench/cli/scenario_setup.hpp"
#include "testbench/cli/schema_command.hpp"
#include "testbench/cli/stats_document.hpp"
#include "testbench/cli/sweep_command.hpp"
#include "testbench/cli/version.hpp"

namespace fs = std::filesystem;
using namespace hcasim;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;
constexpr int kExitBadInput = 2;
constexpr const char* kOutputMarker = ".hcasim-output";  // marks a folder hcasim wrote

constexpr const char* kCommands =
    "run, validate, import, sweep, plot, compare, regress, serve, params, tables, schema or calibrate";

// hcasim --help: one line per command.
const char* kUsage =
    "usage: hcasim COMMAND [ARGUMENTS]\n"
    "       hcasim COMMAND --help    that command's usage and options\n"
    "       hcasim --version         version and git revision\n"
    "\n"
    "commands:\n"
    "  run        run a scenario: stats.json, results.db, the resolved config, optional pcap and VCD\n"
    "  validate   check a scenario and route its fabric, without running it\n"
    "  import     turn an ibnetdiscover dump into an explicit topology (JSON)\n"
    "  sweep      run a scenario over a grid of parameters, locally or on Slurm; one table\n"
    "  plot       PNG and SVG from a sweep's table, a run's stats.json or its time series\n"
    "  compare    compare two stats.json value by value, within tolerances; JUnit XML\n"
    "  regress    run a folder of scenarios against their golden stats.json; JUnit XML\n"
    "  serve      keep a fabric running for opensm and infiniband-diags (ibsim's protocol), or with --verbs\n"
    "             for unmodified verbs programs (libhcasim-rdmav34.so)\n"
    "  params     print every scenario parameter with its default (Markdown)\n"
    "  tables     print the tables and columns of results.db (Markdown)\n"
    "  schema     print the JSON Schema of scenario files, for editors\n"
    "  calibrate  measure the cost of one timed SystemC event on this machine\n";

constexpr const char* kExitCodes =
    "\nexit codes: 0 ran and every check passed; 1 a checker failed; 2 bad input (one line on stderr)\n";

// hcasim COMMAND --help.
std::string command_help(const std::string& command) {
  if (command == "run")
    return std::string(
               "usage: hcasim run SCENARIO.json [--out DIR] [--seed N] [--set path=value ...] [--pcap] [--vcd]\n"
               "                  [--quiet] [--threads N] [--junit FILE]\n"
               "\n"
               "Runs a scenario; writes DIR/stats.json (the summary), DIR/results.db (the detail: one row per\n"
               "port, VL, switch, flow, QP, ...; outputs.details) and DIR/scenario.resolved.json (every default\n"
               "explicit).\n"
               "\n"
               "options:\n"
               "  --out DIR          output folder (default out/<scenario name>); a folder holding files\n"
               "                     hcasim did not write is refused\n"
               "  --seed N           random seed (run.seed)\n"
               "  --set path=value   change one scenario parameter, e.g. --set link.speed=EDR (repeatable)\n"
               "  --pcap             write DIR/packets.pcap (outputs.pcap)\n"
               "  --vcd              write DIR/waves.vcd (outputs.vcd)\n"
               "  --quiet            no summary on stdout\n"
               "  --threads N        threads for run.partitions > 1 (default: one per partition, at most the\n"
               "                     cores); the results do not depend on it\n"
               "  --junit FILE       also write the checks (link checker, each perftest size, each verbs\n"
               "                     operation) as JUnit XML\n"
               "  --help             this text\n") +
           kExitCodes;
  if (command == "validate")
    return std::string(
               "usage: hcasim validate SCENARIO.json [--set path=value ...] [--dump DIR] [--timings]\n"
               "\n"
               "Checks a scenario without running it: every parameter, the topology, the workload; routes\n"
               "the fabric and checks the routes for credit loops. Prints a one-line summary.\n"
               "\n"
               "options:\n"
               "  --set path=value   change one scenario parameter first (repeatable)\n"
               "  --dump DIR         write the LFTs, LIDs and SL2VL tables in OpenSM's dump formats\n"
               "                     (opensm-lfts.dump, opensm-subnet.lst, opensm-sl2vl.dump) into DIR\n"
               "  --timings          also print how long routing and the credit-loop check took (wall time)\n"
               "  --help             this text\n"
               "\n"
               "exit codes: 0 valid; 1 the routes have a credit loop; 2 bad input (one line on stderr)\n");
  if (command == "import")
    return "usage: hcasim import FABRIC.ibnd [--out FILE.json]\n"
           "\n"
           "Reads an ibnetdiscover dump and prints it as an explicit topology {\"nodes\": [...], \"links\": [...]},\n"
           "for a scenario's topology.file (pattern explicit).\n"
           "\n"
           "options:\n"
           "  --out FILE.json    write to this new file instead of stdout (an existing file is refused)\n"
           "  --help             this text\n";
  if (command == "params")
    return "usage: hcasim params\n"
           "\n"
           "Prints every scenario parameter with its accepted values, default and meaning, as Markdown\n"
           "(docs/scenario-reference.md is its output).\n"
           "\n"
           "options:\n"
           "  --help             this text\n";
  if (command == "tables")
    return "usage: hcasim tables\n"
           "\n"
           "Prints every table of a run's results.db with its columns, their types, units and meaning, as\n"
           "Markdown (docs/results-db.md is its output).\n"
           "\n"
           "options:\n"
           "  --help             this text\n";
  if (command == "calibrate")
    return "usage: hcasim calibrate [--events N]\n"
           "\n"
           "Measures the wall-clock cost of one timed SC_METHOD notification on this machine (benchmarks\n"
           "report a packet-hop's cost as a multiple of it).\n"
           "\n"
           "options:\n"
           "  --events N         notifications to time (default 2000000)\n"
           "  --help             this text\n";
  return kUsage;
}

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string command;
  bool help = false;  // COMMAND --help
  std::string scenario;
  std::string out;
  std::string junit;  // run: JUnit XML of the checks
  std::vector<std::string> sets;
  bool seed_given = false;
  uint64_t seed = 0;
  bool pcap = false;
  std::string dump;  // validate --dump DIR
  bool timings = false;  // validate --timings
  bool vcd = false;
  bool quiet = false;
  unsigned threads = 0;  // 0 = one per partition, at most the cores
  uint64_t events = 2000000;
};

uint64_t parse_count(const std::string& flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-')
    throw BadInput(flag + ": '" + text + "' is not a non-negative integer");
  return v;
}

Args parse_args(int argc, char* argv[]) {
  Args a;
  if (argc < 2) throw BadInput(std::string("missing command; expected ") + kCommands);
  a.command = argv[1];
  if (a.command == "--help" || a.command == "-h" || a.command == "--version") return a;
  if (a.command != "run" && a.command != "validate" && a.command != "import" && a.command != "params" &&
      a.command != "tables" && a.command != "calibrate")
    throw BadInput("unknown command '" + a.command + "'; expected " + kCommands);
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      a.help = true;
      return a;
    }
  }
  const bool takes_file = a.command == "run" || a.command == "validate" || a.command == "import";
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) throw BadInput(std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (arg == "--out" && (a.command == "run" || a.command == "import")) a.out = value("--out");
    else if (arg == "--seed" && a.command == "run") { a.seed = parse_count("--seed", value("--seed")); a.seed_given = true; }
    else if (arg == "--set" && (a.command == "run" || a.command == "validate")) a.sets.push_back(value("--set"));
    else if (arg == "--pcap" && a.command == "run") a.pcap = true;
    else if (arg == "--dump" && a.command == "validate") a.dump = value("--dump");
    else if (arg == "--timings" && a.command == "validate") a.timings = true;
    else if (arg == "--vcd" && a.command == "run") a.vcd = true;
    else if (arg == "--quiet" && a.command == "run") a.quiet = true;
    else if (arg == "--junit" && a.command == "run") a.junit = value("--junit");
    else if (arg == "--threads" && a.command == "run") {
      const uint64_t n = parse_count("--threads", value("--threads"));
      if (n < 1 || n > config::kMaxPartitions)
        throw BadInput("--threads: " + std::to_string(n) + "; accepted: 1 to " +
                       std::to_string(config::kMaxPartitions));
      a.threads = static_cast<unsigned>(n);
    }
    else if (arg == "--events" && a.command == "calibrate") a.events = std::max<uint64_t>(1, parse_count("--events", value("--events")));
    else if (!arg.empty() && arg[0] != '-' && a.scenario.empty() && takes_file) a.scenario = arg;
    else throw BadInput("unexpected argument '" + arg + "' for " + a.command);
  }
  if (takes_file && a.scenario.empty())
    throw BadInput(a.command + (a.command == "import" ? ": missing FABRIC file" : ": missing SCENARIO.json"));
  return a;
}

// The scenario; how it was read (config/notices.hpp) goes to stderr, one line each.
config::Scenario load(const Args& a, nlohmann::json& root) {
  ScenarioArgs sa{a.scenario, a.sets, std::nullopt, a.pcap, a.vcd};
  if (a.seed_given) sa.seed = a.seed;
  const config::NoticeCollector notices;
  config::Scenario s = load_scenario_file(sa, root);
  for (const std::string& line : config::notice_lines(notices.notices(), "hcasim: note: ")) std::cerr << line << "\n";
  return s;
}

// stats.json's routing.refusals: [{"engine", "why"}] in the chain's order.
nlohmann::json refusals_json(const std::vector<routing::Routes::Refusal>& refusals) {
  nlohmann::json out = nlohmann::json::array();
  for (const routing::Routes::Refusal& r : refusals) out.push_back({{"engine", routing::engine_name(r.engine)}, {"why", r.why}});
  return out;
}

// What f returns; the notes it reports (routing engines that refused the fabric) go to stderr.
template <class F>
auto with_notes(F f) {
  const config::NoticeCollector notices;
  auto result = f();
  for (const std::string& line : config::notice_lines(notices.notices(), "hcasim: note: ")) std::cerr << line << "\n";
  return result;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) throw BadInput(p.string() + ": cannot write");
}

int run(const Args& a) {
  nlohmann::json root;
  const config::Scenario s = load(a, root);
  if (s.management.mode == config::ManagementMode::External)
    throw config::ConfigError("management.mode", "external waits for an outside SM, which only hcasim serve attaches; "
                                                 "accepted for hcasim run: preconfigured or in_band");
  const std::string out = a.out.empty() ? "out/" + s.name : a.out;
  // The ports alone may be too many for details.json: refused before the fabric is routed.
  if (const std::string why = details_refusal(s.outputs.details, config::port_names(s).size(), 0); !why.empty())
    throw BadInput(why);
  if (!a.junit.empty()) check_junit_target(a.junit);
  claim_output_folder(out, kOutputMarker, "hcasim");
  const nlohmann::json resolved = config::resolved_json(s);
  write_file(fs::path(out) / "scenario.resolved.json", resolved.dump(2) + "\n");
  const auto build_start = std::chrono::steady_clock::now();
  SimulationSetup setup = with_notes([&] { return setup_from(s, out, a.quiet); });
  setup.options.threads = a.threads;
  if (a.threads > 1 && s.run.partitions == 1)
    std::cerr << "hcasim: warning: --threads " << a.threads
              << " has no effect with run.partitions 1; set run.partitions to split the fabric over threads\n";
  if (setup.credit_loops.loop)
    std::cerr << "hcasim: warning: " << setup.credit_loops.describe(s.graph) << "; the fabric can deadlock\n";
  if (const std::string why = details_refusal(s.outputs.details, config::port_names(s).size(), setup.flows.size());
      !why.empty())
    throw BadInput(why);
  // The spec and flows move into the simulation: a copy of a large fabric's spec is a lot of memory.
  Simulation sim(std::move(setup.fabric), std::move(setup.flows), setup.options, setup.transport);
  const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - build_start).count();
  sim.run();
  RunMetadata meta{s.name, s.run.seed, config_hash(resolved)};
  nlohmann::json stats = stats_document(sim, meta);
  stats.update(write_details(sim, meta, s.outputs.details, out));
  stats["wall"]["build_seconds"] = build_seconds;  // routing, credit-loop check and elaboration
  stats["routing"] = {{"algorithm", resolved["routing"]["algorithm"]},
                      {"engine", routing::engine_name(setup.routing_engine)},
                      {"refusals", refusals_json(setup.routing_refusals)},
                      {"virtual_layers", setup.routing_layers},
                      {"lmc", s.routing.lmc},
                      {"credit_loops_checked", setup.credit_loops_checked},
                      {"credit_loop", setup.credit_loops.loop},
                      {"credit_loop_report", setup.credit_loops_checked ? setup.credit_loops.describe(s.graph) : ""}};
  write_file(fs::path(out) / "stats.json", stats.dump(2) + "\n");
  if (s.outputs.routing_dump) config::write_opensm_dumps(sim.fabric().installed_tables(), out);
  if (!a.quiet) std::cout << human_summary(stats);
  std::cout << "  results in " << out << "\n";
  const bool ok = print_check_failures(sim, std::cerr);
  if (!a.junit.empty()) write_junit(a.junit, {{"hcasim run " + s.name, run_check_cases(sim, s.name)}});
  sim.close_outputs();
  return exit_without_teardown(ok ? kExitOk : kExitCheckFailed);  // fast_exit.hpp says why
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int validate(const Args& a) {
  for (const char* name : {"opensm-lfts.dump", "opensm-subnet.lst", "opensm-sl2vl.dump", config::kPathSlDump})
    if (!a.dump.empty() && fs::exists(fs::path(a.dump) / name))
      throw BadInput("--dump " + a.dump + ": " + name + " exists; accepted: a folder without OpenSM dumps "
                     "(hcasim never overwrites them)");
  nlohmann::json root;
  const config::Scenario s = load(a, root);
  const auto routing_start = std::chrono::steady_clock::now();
  const config::RoutedFabric routed = with_notes([&s] { return config::route_fabric(s); });
  const double routing_seconds = seconds_since(routing_start);
  unsigned switches = 0;
  for (const topology::TopoNode& n : s.graph.nodes) switches += n.kind == topology::NodeKind::Switch;
  std::cout << a.scenario << ": ok (" << s.workload.flows.size() << " flows, " << s.workload.patterns.size()
            << " patterns, " << s.workload.perftest.size() << " perftest tests, " << s.workload.verbs.size()
            << " verbs connections, " << s.graph.nodes.size() - switches << " HCAs, " << switches << " switches, "
            << config::port_names(s).size() << " ports, LIDs 1-" << routed.lids.top << ")\n";
  std::cout << a.scenario << ": memory " << config::memory_summary(s) << "\n";
  const auto counts = [](const auto& v) {
    std::string out;
    for (auto n : v) out += " " + std::to_string(static_cast<int>(n));
    return out;
  };
  if (const routing::SwitchPairSls& sls = routed.routes.sls; !sls.sl.empty()) {
    std::cout << a.scenario << ": " << routing::engine_name(routed.routes.algorithm) << ": " << sls.layers
              << " virtual layers (SL " << unsigned{sls.local} << " to " << sls.local + sls.layers - 1
              << "); paths per layer" << counts(sls.lanes_before) << ", balanced" << counts(sls.lanes_after) << "\n";
  } else if (const std::vector<uint8_t>& layer = routed.routes.dlid_sls; !layer.empty()) {  // nue
    std::vector<unsigned> per_layer;
    for (unsigned lid = 1; lid < layer.size(); ++lid)
      if (routed.lids.owner[lid].node != topology::kNoNode) {
        if (layer[lid] >= per_layer.size()) per_layer.resize(layer[lid] + 1u, 0);
        ++per_layer[layer[lid]];
      }
    std::cout << a.scenario << ": nue: " << per_layer.size() << " virtual layers (SL 0 to " << per_layer.size() - 1
              << "); destination LIDs per layer" << counts(per_layer) << "\n";
  } else if (!routed.routes.lid_sls.empty()) {  // dfsssp: per VL, as OpenSM's log has them
    std::cout << a.scenario << ": " << routing::engine_name(routed.routes.algorithm) << ": " << sls.layers
              << " virtual layers of " << sls.lanes_before.size() << " VLs; paths per VL" << counts(sls.lanes_before)
              << ", balanced" << counts(sls.lanes_after) << "; SL spread" << counts(routed.routes.lid_sls.spread)
              << "\n";
  }
  std::size_t faulty = 0;
  for (const config::LinkSpec& l : routed.spec.links) faulty += l.config.faults.enabled();
  if (faulty != 0)
    std::cout << a.scenario << ": link faults on " << faulty << " of " << routed.spec.links.size()
              << " links (see link.faults in the resolved config)\n";
  if (s.run.partitions > 1) {
    const std::vector<unsigned> of_node = fabric::partition_nodes(routed.spec, s.run.partitions);
    std::vector<unsigned> nodes(s.run.partitions, 0);
    for (unsigned p : of_node) ++nodes[p];
    std::cout << a.scenario << ": " << s.run.partitions << " partitions of";
    for (unsigned p = 0; p < s.run.partitions; ++p) std::cout << (p ? "," : "") << " " << nodes[p];
    std::cout << " nodes, " << fabric::cut_links(routed.spec, of_node) << " of " << routed.spec.links.size()
              << " links cut\n";
  }
  const auto check_start = std::chrono::steady_clock::now();
  const routing::CreditLoopReport loops = check_credit_loops(s, routed);
  const double check_seconds = seconds_since(check_start);
  std::cout << a.scenario << ": " << loops.describe(s.graph) << "\n";
  if (a.timings)
    std::cout << a.scenario << ": timings: routing " << routing_seconds
              << " s (LIDs, forwarding tables, fabric description), credit-loop check " << check_seconds << " s\n";
  if (!a.dump.empty()) {
    config::write_opensm_dumps(routed.spec, a.dump);
    const std::string sls = config::path_sl_dump(s.graph, routed.lids, routed.routes);
    if (!sls.empty()) write_file(fs::path(a.dump) / config::kPathSlDump, sls);
    std::cout << a.scenario << ": OpenSM dumps (opensm-lfts.dump, opensm-subnet.lst, opensm-sl2vl.dump"
              << (sls.empty() ? "" : std::string(", ") + config::kPathSlDump) << ") in " << a.dump << "\n";
  }
  return loops.loop ? kExitCheckFailed : kExitOk;
}

// Writes an ibnetdiscover dump as the explicit topology form, to stdout or to
// a new file (an existing one is never overwritten).
int import_fabric(const Args& a) {
  std::ifstream in(a.scenario);
  if (!in) throw BadInput(a.scenario + ": cannot open: " + std::strerror(errno));
  const topology::Topology t = config::read_ibnetdiscover(in, a.scenario);
  if (const std::string why = topology::check_topology(t); !why.empty()) throw BadInput(a.scenario + ": " + why);
  const std::string text = config::topology_to_json(t).dump(2) + "\n";
  if (a.out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  std::error_code ec;
  if (fs::exists(a.out, ec)) throw BadInput("--out " + a.out + ": exists; choose a new file name");
  write_file(a.out, text);
  return kExitOk;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  if (argc >= 2 && std::strcmp(argv[1], "sweep") == 0) return sweep_command(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "plot") == 0) return plot_command(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "compare") == 0) return compare_command(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "regress") == 0) return regress_command(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "serve") == 0) return serve_command(argc, argv);
  try {
    if (argc > 1 && std::strcmp(argv[1], "schema") == 0) return schema_command(argc, argv);
    const Args a = parse_args(argc, argv);
    if (a.command == "--help" || a.command == "-h") {
      std::cout << kUsage;
      return kExitOk;
    }
    if (a.command == "--version") {
      std::cout << version_line() << "\n";
      return kExitOk;
    }
    if (a.help) {
      std::cout << command_help(a.command);
      return kExitOk;
    }
    if (a.command == "run") return run(a);
    if (a.command == "validate") return validate(a);
    if (a.command == "import") return import_fabric(a);
    if (a.command == "params") {
      std::cout << config::scenario_reference();
      return kExitOk;
    }
    if (a.command == "tables") {
      std::cout << detail_tables_reference();
      return kExitOk;
    }
    std::printf("timed SC_METHOD notification: %.2f ns\n", timed_event_cost_ns(a.events));
    return kExitOk;
  } catch (const config::ConfigError& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
  } catch (const BadInput& e) {
    std::cerr << "hcasim: " << e.what() << "\n" << (std::strstr(e.what(), "command") ? kUsage : "");
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcasim: " << e.what() << "\n";
  }
  return kExitBadInput;
}

// SystemC's own main would print its banner first; ours silences it and then
// runs the usual elaboration entry point, which calls sc_main.
int main(int argc, char* argv[]) {
  reexec_with_deep_tcache(argv);  // see huge_page_heap.hpp
  reserve_huge_page_heap(std::size_t(4) << 30);  // address space only; see huge_page_heap.hpp
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
