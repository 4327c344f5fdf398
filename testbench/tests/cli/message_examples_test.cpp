// Every example an error message or the help gives runs (issue 36: error
// messages teach only what works). Each example is listed with the source
// line that gives it and an hcasim command that uses exactly it and must
// succeed; a scan of the sources finds every "e.g." and "such as" in a string
// and fails on one no entry claims, so a new example cannot go untested.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

namespace fs = std::filesystem;
using hcasim::test::CommandResult;
using hcasim::test::run_command;
using hcasim::test::run_shell;
using hcasim::test::write_file;

namespace {

const std::string kRoot = HCASIM_SOURCE_DIR;
const std::string kConfigs = kRoot + "/configs/";

struct Example {
  const char* file;    // source file, from the repository's root
  const char* source;  // text of the source line that gives the example
  std::string args;    // hcasim arguments that use it; {dir} is the test's folder
};

// Scenarios the examples are tried on.
const std::string kB2b = kConfigs + "verbs_script.json";    // back_to_back, verbs connections
const std::string kSwitch = kConfigs + "incast_8to1.json";  // single_switch sw0 with hca0..hca8
const std::string kFlow = kConfigs + "b2b_hdr.json";        // back_to_back, raw flows

std::string on(const std::string& base, const std::string& sets) { return "validate " + base + " " + sets; }

// An explicit fabric whose names and GUID are the messages' examples.
const std::string kGraph =
    R"('topology={"pattern":"explicit","graph":{"nodes":[{"name":"sw0","kind":"switch","ports":3,"guid":"0xe41d2d0300a1b2c0"},)"
    R"({"name":"hca0","kind":"hca"},{"name":"hca1","kind":"hca"}],"links":[{"a":"sw0.p1","b":"hca0.p1"},{"a":"sw0.p3","b":"hca1.p1"}]}}')";

// An ibnetdiscover dump written with the importer's examples: the rate
// 4xHDR, the GUID key caguid=0x0c42a10300d4e5f0 and the node id
// "S-e41d2d0300a1b2c0".
const std::string kDump =
    "vendid=0x2c9\ndevid=0xcf08\nsysimgguid=0xe41d2d0300a1b2c0\nswitchguid=0xe41d2d0300a1b2c0(e41d2d0300a1b2c0)\n"
    "Switch\t8 \"S-e41d2d0300a1b2c0\"\t\t# \"leaf\" enhanced port 0 lid 1 lmc 0\n"
    "[1]\t\"H-0c42a10300d4e5f0\"[1](c42a10300d4e5f1) \t\t# \"host0 HCA-1\" lid 2 4xHDR\n\n"
    "vendid=0x2c9\ndevid=0x101b\nsysimgguid=0x0c42a10300d4e5f0\ncaguid=0x0c42a10300d4e5f0\n"
    "Ca\t1 \"H-0c42a10300d4e5f0\"\t\t# \"host0 HCA-1\"\n"
    "[1](c42a10300d4e5f1) \t\"S-e41d2d0300a1b2c0\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xHDR\n";

const std::vector<Example>& examples() {
  static const std::vector<Example> list = {
      // --set, in the help and in a malformed --set's error.
      {"models/config/overrides.cpp", "e.g. --set port.mtu=2048", on(kB2b, "--set port.mtu=2048")},
      {"testbench/cli/hcasim.cpp", "e.g. --set link.speed=EDR", on(kB2b, "--set link.speed=EDR")},
      // Units.
      {"models/config/units.hpp", "e.g. \\\"64KiB\\\"", on(kB2b, "--set port.vl_buffer=64KiB")},
      {"models/config/units.hpp", "e.g. \\\"90ns\\\" or \\\"4.096us\\\"",
       on(kB2b, "--set transport.receive_parse=90ns --set run.duration=4.096us")},
      {"models/config/units.hpp", "e.g. \\\"200Gb/s\\\"", on(kB2b, "--set port.drain_rate=200Gb/s")},
      {"models/config/units.hpp", "e.g. \\\"3m\\\"", on(kB2b, "--set link.propagation=3m")},
      // Links, ports and faults.
      {"models/config/link_config_io.hpp", "a cable length such as \\\"3m\\\"",
       on(kB2b, "--set link.propagation=3m --set 'link_overrides=[{\"port\": \"hca0.p1\", \"propagation\": \"15ns\"}]'")},
      {"models/config/link_config_io.cpp", "a length such as \\\"3m\\\"", on(kB2b, "--set link.propagation=50cm")},
      {"models/config/link_config_io.cpp", "\\\"50cm\\\", \\\"1.2km\\\" or a time such as \\\"15ns\\\"",
       on(kB2b, "--set link.propagation=1.2km --set 'link_overrides=[{\"port\": \"hca0.p1\", \"propagation\": \"15ns\"}]'")},
      {"models/config/link_config_io.cpp", "a rate such as \\\"50Gb/s\\\"", on(kB2b, "--set port.drain_rate=50Gb/s")},
      {"models/config/link_config_io.cpp", "a list of sizes such as [\\\"64KiB\\\", \\\"32KiB\\\"]",
       on(kB2b, "--set port.data_vls=2 --set 'port.vl_buffers=[\"64KiB\", \"32KiB\"]'")},
      {"models/config/link_config_io.hpp", "a time such as \\\"5us\\\"",
       on(kB2b, "--set 'link.faults.drops=[{\"action\": \"delay\", \"delay\": \"5us\"}]'")},
      {"models/config/link_config_io.hpp", "an opcode name such as \\\"RC_ACK\\\" or \\\"RC_SEND_ONLY\\\"",
       on(kB2b, "--set 'link.faults.drops=[{\"opcode\": \"RC_ACK\"}, {\"opcode\": \"RC_SEND_ONLY\"}]'")},
      {"models/config/link_config_io.cpp", "an opcode name such as \\\"RC_ACK\\\", \\\"RC_SEND_ONLY\\\" or \\\"UD_SEND_ONLY\\\"",
       on(kB2b, "--set 'link.faults.drops=[{\"opcode\": \"UD_SEND_ONLY\"}]'")},
      {"models/config/link_config_io.cpp", "a hexadecimal string such as \\\"0x81\\\"",
       on(kB2b, "--set 'link.faults.drops=[{\"mad_method\": \"0x81\"}]'")},
      {"models/config/link_config_io.hpp", "a hexadecimal string such as \\\"0x",
       on(kB2b, "--set 'link.faults.drops=[{\"mad_method\": \"0x01\", \"mad_attribute\": \"0x0001\"}]'")},
      {"models/config/scenario.cpp", "a port name such as \\\"hca1.p1\\\"",
       on(kB2b, "--set 'port_overrides=[{\"port\": \"hca1.p1\", \"mtu\": 2048}]'")},
      {"models/config/scenario.cpp", "an HCA name such as \\\"hca1\\\"",
       on(kB2b, "--set 'hca_overrides=[{\"hca\": \"hca1\", \"page_size\": \"4KiB\"}]'")},
      {"models/config/scenario.cpp", "a list of names such as [\\\"hca0.p1\\\"]",
       on(kB2b, "--set 'outputs.pcap_ports=[\"hca0.p1\"]'")},
      {"models/config/scenario.cpp", "e.g. \\\"sw0.p3\\\"",
       on(kSwitch, "--set 'link_events=[{\"link\": \"sw0.p3\", \"down\": \"10us\"}]'")},
      // Topology.
      {"models/config/topology_json.cpp", "e.g. \\\"sw0.p1\\\"", on(kB2b, "--set " + kGraph)},
      {"models/config/topology_json.cpp", "e.g. \\\"0xe41d2d0300a1b2c0\\\"", on(kB2b, "--set " + kGraph)},
      {"models/config/ibnetdiscover.cpp", "e.g. 4xHDR", "import {dir}/fabric.ibnd"},
      {"models/config/ibnetdiscover.cpp", "e.g. caguid=0x0c42a10300d4e5f0", "import {dir}/fabric.ibnd"},
      {"models/config/ibnetdiscover.cpp", "a quoted id such as \\\"S-e41d2d0300a1b2c0\\\"", "import {dir}/fabric.ibnd"},
      // Workloads.
      {"models/config/scenario.cpp", "a rate such as \\\"50Gb/s\\\", or a share of the link such as \\\"25%\\\"",
       on(kFlow, "--set workload.flows.0.rate=50Gb/s --set workload.flows.1.src=hca1.p1 --set workload.flows.1.dst=hca0.p1 "
                 "--set workload.flows.1.rate=25% --set workload.flows.1.count=10")},
      {"models/config/scenario.cpp", "a time such as \\\"20us\\\"", on(kFlow, "--set run.warmup=20us")},
      {"models/config/verbs_workload_config.hpp", "a list of sizes such as [\\\"64KiB\\\"]",
       on(kConfigs + "perftest_write_bw.json", "--set 'workload.perftest.0.sizes=[\"64KiB\"]'")},
      {"models/config/verbs_workload_config.cpp", "a list such as [\\\"64KiB\\\", 8]",
       on(kConfigs + "perftest_write_bw.json", "--set 'workload.perftest.0.sizes=[\"64KiB\", 8]'")},
      {"models/config/verbs_workload_config.hpp", "or a time such as \\\"10us\\\"",
       on(kConfigs + "perftest_write_bw.json", "--set workload.perftest.0.start=10us")},
      {"models/config/verbs_workload_config.cpp", "or a time such as \\\"10us\\\"",
       on(kConfigs + "perftest_write_bw.json", "--set workload.perftest.0.start=10us")},
      // Management.
      {"models/config/management_config.cpp", "an HCA port name such as hca0.p1",
       on(kB2b, "--set management.mode=in_band --set management.sm=hca0.p1")},
      {"models/config/management_config.hpp", "e.g. \\\"Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full, ",
       on(kB2b, "--set 'management.partitions.rules=Default=0x7fff : ALL=full ; P1=0x8001 : hca0.p1=full, hca1.p1 ;'")},
      // Comparisons, suites and sweeps.
      {"testbench/cli/stats_compare.cpp", "e.g. flows.*.data_throughput_bps=0.02",
       "compare {dir}/run {dir}/run --tol flows.*.data_throughput_bps=0.02"},
      {"testbench/cli/compare_command.cpp", "e.g. flows.*.data_throughput_bps=0.02",
       "compare {dir}/run {dir}/run --tol flows.*.data_throughput_bps=0.02"},
      {"testbench/cli/regress_suite.cpp", "e.g. {\\\"flows.*.latency.p99_ns\\\": 0.01}", "regress {dir}/suite"},
      {"testbench/cli/sweep_spec.cpp", "e.g. \\\"run.duration=20us\\\"", "sweep {dir}/sweep.json --out {dir}/sweep --quiet"},
      {"testbench/cli/sweep_spec.cpp", "a --set path, e.g. \\\"link.speed\\\"", "sweep {dir}/sweep.json --out {dir}/sweep --quiet"},
      {"testbench/cli/sweep_spec.cpp", "a path into stats.json, e.g. \\\"flows.*.data_throughput_bps\\\"",
       "sweep {dir}/sweep.json --out {dir}/sweep --quiet"},
  };
  return list;
}

std::string expand(std::string args, const std::string& dir) {
  for (std::size_t at; (at = args.find("{dir}")) != std::string::npos;) args.replace(at, 5, dir);
  return args;
}

// The files some examples read: a dump, a run to compare, a suite, a sweep.
void prepare(const fs::path& dir) {
  write_file(dir / "fabric.ibnd", kDump);
  REQUIRE(run_command("run " + kFlow + " --quiet --out " + (dir / "run").string(), dir).exit_code == 0);
  fs::create_directories(dir / "suite");
  fs::copy_file(kFlow, dir / "suite" / "b2b_hdr.json");
  REQUIRE(run_command("regress " + (dir / "suite").string() + " --update", dir).exit_code == 0);
  write_file(dir / "suite" / "tolerances.json", R"({"flows.*.latency.p99_ns": 0.01})");
  write_file(dir / "sweep.json", R"({"name": "examples", "scenario": ")" + kFlow + R"(",
    "set": ["run.duration=20us"],
    "axes": [{"path": "link.speed", "values": ["EDR", "HDR"]}],
    "metrics": [{"path": "flows.*.data_throughput_bps"}]})");
}

}  // namespace

TEST_CASE("every example an error message or the help gives runs", "[cli][examples]") {
  const auto scratch = hcasim::test::scratch("message_examples");
  const fs::path& dir = scratch;
  prepare(dir);
  for (const Example& e : examples()) {
    const std::string args = expand(e.args, dir.string());
    INFO(e.file << ": " << e.source << "\n  hcasim " << args);
    const CommandResult r = run_command(args, dir);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
  }
  // The sweep's metric is a real path: every point has a throughput above 0.
  const std::string table = hcasim::test::slurp(dir / "sweep" / "results.csv");
  INFO(table);
  CHECK(hcasim::test::count_lines(table) == 3);
  CHECK(table.find(",0,\n") != std::string::npos);
  CHECK(table.find(",,") == std::string::npos);  // no empty metric
}

TEST_CASE("every e.g. and such as in a message is one of the tested examples", "[cli][examples]") {
  // A string literal that says "e.g." or "such as"; comments are not messages.
  const std::regex marker(R"re("[^"]*(e\.g\.|such as) )re");
  std::vector<std::string> unclaimed;
  std::size_t found = 0;
  for (const char* folder : {"models", "testbench/cli"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot + "/" + folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string file = fs::relative(entry.path(), kRoot).string();
      std::ifstream in(entry.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const std::string code = line.substr(0, line.find("// "));
        if (code.find_first_not_of(' ') == std::string::npos || !std::regex_search(code, marker)) continue;
        ++found;
        bool claimed = false;
        for (const Example& e : examples()) claimed = claimed || (file == e.file && line.find(e.source) != std::string::npos);
        if (!claimed) unclaimed.push_back(file + ":" + std::to_string(n) + ": " + line);
      }
    }
  }
  std::string report = "lines with an example no entry of message_examples_test.cpp runs:";
  for (const std::string& u : unclaimed) report += "\n" + u;
  INFO(report);
  CHECK(found >= 30);
  CHECK(unclaimed.empty());
}
