// The command line: strict validation with one-line errors (exit 2), outputs,
// determinism, and the pcap read back by the stock tshark.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;
namespace fs = std::filesystem;

namespace {

const char* kBase = R"({
  "name": "cli",
  "port": { "data_vls": 8, "mtu": 4096, "vl_buffer": "64KiB" },
  "link": { "speed": "HDR", "width": "4x", "propagation": "2m" },
  "workload": { "flows": [ { "src": "hca0.p1", "dst": "hca1.p1", "sl": 1, "payload": "4KiB", "count": 200 },
                           { "src": "hca1.p1", "dst": "hca0.p1", "sl": 0, "payload": "100B", "count": 50 } ] }
})";

}  // namespace

TEST_CASE("bad configs each give one clear line naming the JSON path - and exit 2") {
  const auto dir = scratch("bad-configs");
  const std::string base = write_file(dir / "base.json", kBase);
  REQUIRE(run_command("validate " + base, dir).exit_code == 0);
  const std::vector<BadCase> cases = {
      {"misspelt key", "--set port.mtuu=4096", "port.mtuu"},
      {"wrong unit", "--set link.propagation=3parsec", "link.propagation"},
      {"negative size", "--set port.vl_buffer=-64", "port.vl_buffer"},
      {"VL beyond the operational VLs in SL2VL",
       "--set port.data_vls=2 --set 'port.sl2vl=[0,1,5,0,0,0,0,0,0,0,0,0,0,0,0,0]'", "port.sl2vl.2"},
      {"weight over 255", "--set port.vlarb.low=0:300", "port.vlarb.low"},
      {"MTU not in the set", "--set port.mtu=5000", "port.mtu"},
      {"unknown speed", "--set link.speed=XDR", "link.speed"},
      {"wrong type", "--set workload.flows.0.count=many", "workload.flows.0.count"},
      {"SL out of range", "--set workload.flows.0.sl=16", "workload.flows.0.sl"},
      {"unknown port", "--set workload.flows.1.dst=hca7.p1", "workload.flows.1.dst"},
      {"endless flow without a duration", "--set workload.flows.0.count=0", "workload.flows.0.count"},
      {"operational VLs above VLCap", "--set port.data_vls=4 --set port.operational_vls=8", "port.operational_vls"},
      {"buffer smaller than one packet", "--set port.vl_buffer=1KiB", "port.vl_buffer"},
      {"fc period out of range", "--set link.fc_period=0ns", "link.fc_period"},
      {"bad rate", "--set workload.flows.0.rate=fast", "workload.flows.0.rate"},
      {"fraction where an integer is needed", "--set workload.flows.0.count=2.5", "workload.flows.0.count"},
      {"unknown key in an override", "--set 'port_overrides=[{\"port\":\"hca1.p1\",\"mtuu\":1}]'",
       "port_overrides.0.mtuu"},
      {"override of a port that does not exist", "--set 'port_overrides=[{\"port\":\"hca9.p1\"}]'",
       "port_overrides.0.port"},
      {"operational VLs differ across a link", "--set 'port_overrides=[{\"port\":\"hca1.p1\",\"data_vls\":4}]'",
       "port_overrides"},
      {"set without a value", "--set port.mtu", "--set"},
      {"scenario name that is a path", "--set name=../x", "name"},
      {"unknown management mode", "--set management.mode=opensm", "management.mode"},
      {"VL 16 in an OpenSM qos_sl2vl string", "--set 'port.sl2vl=\"0,1,16\"'", "port.sl2vl.2"},
      {"SM on a port that is not an HCA's", "--set management.mode=in_band --set management.sm=hca9.p1",
       "management.sm"},
      {"SubnetTimeout beyond 5 bits", "--set management.subnet_timeout=32", "management.subnet_timeout"},
      {"up/down root that is no switch", "--set routing.algorithm=updown --set 'routing.roots=[\"sw9\"]'",
       "routing.roots.0"},
      {"VL15 flow whose payload is not one MAD", "--set workload.flows.1.vl15=true", "workload.flows.1.payload"},
      {"unknown time for the workloads to start", "--set management.mode=external --set management.start_workloads=now",
       "management.start_workloads"},
      {"verbs connection under an outside SM (made before it assigns LIDs)",
       "--set management.mode=external --set 'workload.flows=[]' --set 'workload.verbs=[{\"a\":\"hca0.p1\",\"b\":\"hca1.p1\",\"ops\":[{\"side\":\"a\",\"op\":\"write\",\"bytes\":64}]}]'",
       "workload.verbs.0"},
  };
  check_bad_configs(base, cases, dir);
}

TEST_CASE("unreadable input: missing file - invalid JSON - unknown command - bad seed") {
  const auto dir = scratch("bad-input");
  const std::string broken = write_file(dir / "broken.json", "{ \"name\": ");
  for (const std::string& args : {std::string("validate ") + (dir / "missing.json").string(), "validate " + broken,
                                  std::string("frobnicate"), "run " + broken + " --seed -3"}) {
    INFO(args);
    const CommandResult r = run_command(args, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("hcasim: ", 0) == 0);
  }
}

TEST_CASE("run writes stats.json and the resolved config - the resolved config reproduces the run") {
  const auto dir = scratch("run-outputs");
  const std::string base = write_file(dir / "base.json", kBase);
  const CommandResult first = run_command("run " + base + " --quiet --out " + (dir / "a").string(), dir);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const auto stats = nlohmann::json::parse(slurp(dir / "a" / "stats.json"));
  REQUIRE(stats["schema"] == "hcasim-stats");
  REQUIRE(stats["version"] == 2);
  REQUIRE(stats["checker"]["ok"] == true);
  REQUIRE(stats["flows"]["first"][0]["packets_delivered"] == 200);
  REQUIRE(stats["flows"]["first"][1]["packets_delivered"] == 50);
  // The detail: results.db's row of hca0.p1's VL1.
  const nlohmann::json vls = read_table(dir / "a", "port_vls");
  REQUIRE(vls[1]["port"] == "hca0.p1");
  REQUIRE(vls[1]["vl"] == 1);
  REQUIRE(vls[1]["tx_packets"] == 200);  // SL1 -> VL1 by default
  // Memory figures: the huge-page part (huge_page_heap.hpp) is part of the peak.
  REQUIRE(stats["wall"]["peak_rss_bytes"].get<uint64_t>() > 0);
  REQUIRE(stats["wall"]["huge_page_bytes"].get<uint64_t>() <= stats["wall"]["peak_rss_bytes"].get<uint64_t>());
  // The resolved config is complete, valid, and runs to the same statistics.
  const std::string resolved = (dir / "a" / "scenario.resolved.json").string();
  REQUIRE(run_command("validate " + resolved, dir).exit_code == 0);
  REQUIRE(run_command("run " + resolved + " --quiet --out " + (dir / "b").string(), dir).exit_code == 0);
  auto a = nlohmann::json::parse(slurp(dir / "a" / "stats.json"));
  auto b = nlohmann::json::parse(slurp(dir / "b" / "stats.json"));
  a.erase("wall");
  b.erase("wall");
  REQUIRE(a == b);
}

TEST_CASE("same scenario and seed give byte-identical stats apart from wall-clock fields") {
  const auto dir = scratch("determinism");
  const std::string base = write_file(dir / "base.json", kBase);
  for (const char* out : {"x", "y"})
    REQUIRE(run_command("run " + base + " --quiet --seed 7 --out " + (dir / out).string(), dir).exit_code == 0);
  auto x = nlohmann::json::parse(slurp(dir / "x" / "stats.json"));
  auto y = nlohmann::json::parse(slurp(dir / "y" / "stats.json"));
  REQUIRE(x["run"]["seed"] == 7);
  x.erase("wall");
  y.erase("wall");
  REQUIRE(x.dump() == y.dump());
}

TEST_CASE("run refuses an output folder holding files it did not write") {
  const auto dir = scratch("out-guard");
  const std::string base = write_file(dir / "base.json", kBase);
  fs::create_directories(dir / "mine");
  write_file(dir / "mine" / "notes.txt", "keep me");
  const CommandResult r = run_command("run " + base + " --quiet --out " + (dir / "mine").string(), dir);
  REQUIRE(r.exit_code == 2);
  REQUIRE(count_lines(r.err) == 1);
  REQUIRE(slurp(dir / "mine" / "notes.txt") == "keep me");
  REQUIRE_FALSE(fs::exists(dir / "mine" / "stats.json"));
}

TEST_CASE("docs/scenario-reference.md is what hcasim params prints") {
  const auto dir = scratch("params");
  const CommandResult r = run_command("params", dir);
  REQUIRE(r.exit_code == 0);
  // Regenerate with: build/hcasim params > docs/scenario-reference.md
  REQUIRE(r.out == slurp(fs::path(HCASIM_SOURCE_DIR) / "docs" / "scenario-reference.md"));
}

namespace {
// The value changes of every traced signal in a VCD, by hierarchical name.
std::map<std::string, std::vector<uint64_t>> vcd_values(const std::string& text) {
  std::map<std::string, std::string> name_of;  // VCD id -> name
  std::map<std::string, std::vector<uint64_t>> values;
  std::vector<std::string> scopes;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    if (tok == "$scope") {
      std::string kind, name;
      in >> kind >> name;
      if (name != "SystemC") scopes.push_back(name);
    } else if (tok == "$upscope") {
      if (!scopes.empty()) scopes.pop_back();
    } else if (tok == "$var") {
      std::string kind, width, id, name;
      in >> kind >> width >> id >> name;
      std::string full;
      for (const std::string& s : scopes) full += s + ".";
      name_of[id] = full + name;
    } else if (tok[0] == 'b' && tok.size() > 1) {
      std::string id;
      in >> id;
      if (name_of.count(id)) values[name_of[id]].push_back(std::stoull(tok.substr(1), nullptr, 2));
    }
  }
  return values;
}
}  // namespace

TEST_CASE("the VCD traces credits - buffer occupancy - queue bytes and grants of every port and VL") {
  const auto dir = scratch("vcd");
  const std::string base = write_file(dir / "base.json", kBase);
  const CommandResult r = run_command("run " + base + " --quiet --vcd --out " + (dir / "a").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto v = vcd_values(slurp(dir / "a" / "waves.vcd"));
  // hca0 sends 4 KiB packets on VL1 (SL1), 65 blocks each (4,096 + 28 header
  // bytes + 6 of CRCs = 4,130 bytes). Its credits never exceed the peer's
  // buffer, 64 KiB / 64-byte blocks = 1024 (iba-facts 2); packets are sent and
  // freed whole, so once advertised they stay 1024 less a multiple of 65.
  const auto& credits = v.at("hca0.p1.vl1.credits");
  REQUIRE(credits.size() > 10);
  REQUIRE(*std::max_element(credits.begin(), credits.end()) <= 1024);
  for (std::size_t i = 1; i < credits.size(); ++i) REQUIRE((1024 - credits[i]) % 65 == 0);
  // The receiver's VL1 buffer holds whole packets, never more than it has.
  for (uint64_t b : v.at("hca1.p1.vl1.rx_blocks")) REQUIRE((b % 65 == 0 && b <= 1024));
  // The sender's VL1 queue holds whole packets too, and empties by the end.
  const auto& queued = v.at("hca0.p1.vl1.tx_bytes");
  REQUIRE(*std::max_element(queued.begin(), queued.end()) >= 4130);
  for (uint64_t b : queued) REQUIRE(b % 4130 == 0);
  // Grants: VL1, flow control (16) and idle (31) all appear on hca0.p1.
  const auto& grant = v.at("hca0.p1.grant");
  for (uint64_t g : {1, 16, 31}) REQUIRE(std::find(grant.begin(), grant.end(), g) != grant.end());
  REQUIRE(v.at("hca0.p1.vl1.tx_bytes").back() == 0);
}

TEST_CASE("the VCD's grant value 16 is a flow-control packet: a port that only receives shows 16 and 31 alone") {
  // hca1 sends no data and no VL15 packet, only flow-control packets for what it receives.
  const auto dir = scratch("vcd-grant-16");
  const std::string base = write_file(dir / "base.json", kBase);
  const CommandResult r = run_command(
      "run " + base + " --quiet --vcd --set 'workload.flows=[{\"src\":\"hca0.p1\",\"dst\":\"hca1.p1\",\"count\":200}]' --out " +
          (dir / "a").string(),
      dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto receiver = read_table(dir / "a", "ports")[1];
  REQUIRE(receiver["name"] == "hca1.p1");
  const uint64_t fc_sent = receiver["fc_packets_sent"];
  REQUIRE(fc_sent > 0);
  const auto grant = vcd_values(slurp(dir / "a" / "waves.vcd")).at("hca1.p1.grant");
  REQUIRE(std::count(grant.begin(), grant.end(), 16) > 0);
  for (uint64_t g : grant) REQUIRE((g == 16 || g == 31));
  // A change to 16 starts at least one flow-control packet (two in a row show as one change).
  REQUIRE(static_cast<uint64_t>(std::count(grant.begin(), grant.end(), 16)) <= fc_sent);
}
