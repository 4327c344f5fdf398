// Scenarios too large for the machine are refused before anything is built
// (models/config/resource_limits.hpp, docs/limits.md): one line naming the
// parameter and the limit, exit 2. Where the sanitizers do not reserve their
// shadow memory, the refusals run under a 1 GiB address-space limit, so a
// refusal that came only after allocating would fail there instead.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <regex>
#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/cli/sanitizers.hpp"

using namespace hcasim;
using hcasim::test::CommandResult;

namespace {

const std::string kConfigs = std::string(HCASIM_SOURCE_DIR) + "/configs/";

#if defined(HCASIM_UNDER_ASAN) || defined(HCASIM_UNDER_TSAN)
constexpr const char* kAddressLimit = "";
#else
constexpr const char* kAddressLimit = "ulimit -v 1048576; ";  // KiB: 1 GiB
#endif

CommandResult validate(const std::string& file, const std::string& sets, const std::filesystem::path& dir) {
  return test::run_shell(std::string(kAddressLimit) + HCASIM_BINARY + " validate " + file + " " + sets, dir);
}

void check_refused(const CommandResult& r, const std::string& path, const std::string& limit) {
  INFO("stderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(test::count_lines(r.err) == 1);
  CHECK(r.err.find("hcasim: " + path + ": ") == 0);
  CHECK(r.err.find(limit) != std::string::npos);
}

}  // namespace

TEST_CASE("a million hosts are refused at the subnet's 49151 unicast LIDs before the graph is generated", "[limits]") {
  const auto dir = test::scratch("limits_hosts");
  // fat_tree k=101, 3 levels: 101^3 = 1030301 HCAs.
  const CommandResult r = validate(kConfigs + "fat_tree_permutation.json",
                                   "--set topology.pattern=fat_tree --set topology.k=101 --set topology.levels=3", dir);
  check_refused(r, "topology", "at most 49151");
  CHECK(r.err.find("1030301 HCAs") != std::string::npos);
  // lmc multiplies the HCAs' LIDs: 8000 HCAs at lmc 3 need 64000 + 1200 switch LIDs.
  const CommandResult lmc = validate(kConfigs + "fat_tree_permutation.json",
                                     "--set topology.pattern=fat_tree --set topology.k=20 --set topology.levels=3 --set routing.lmc=3", dir);
  check_refused(lmc, "topology", "at most 49151");
  CHECK(lmc.err.find("needing 65200 LIDs (routing.lmc 3)") != std::string::npos);
}

TEST_CASE("10^9 QPs are refused naming the swarm's parameter and this machine's memory", "[limits]") {
  const auto dir = test::scratch("limits_qps");
  // 254 machines: 254 x 254 x 256 threads x 64 vms = 1.06e9 QPs.
  const CommandResult r = validate(kConfigs + "memory_regions.json",
                                   "--set topology.hosts=254 --set workload.swarm.0.threads=256 --set workload.swarm.0.vms=64", dir);
  check_refused(r, "workload.swarm.0.vms", "this machine's memory");
  CHECK(r.err.find("1057030144 QPs") != std::string::npos);
  // A perftest of 2^20 QP pairs, at its own parameter.
  check_refused(validate(kConfigs + "perftest_write_bw.json", "--set workload.perftest.0.qps=1048576", dir),
                "workload.perftest.0.qps", "this machine's memory");
}

TEST_CASE("a 2^40-byte buffer and 2^34 memory regions are refused at their parameters", "[limits]") {
  const auto dir = test::scratch("limits_regions");
  check_refused(validate(kConfigs + "memory_regions.json", "--set workload.swarm.0.buffer=1099511627776", dir),
                "workload.swarm.0.buffer", "accepted: a size from 4KiB to 1GiB");
  // 64 machines x 256 threads x 2^20 regions, each with its translation entries.
  check_refused(validate(kConfigs + "memory_regions.json",
                         "--set topology.hosts=64 --set workload.swarm.0.threads=256 --set workload.swarm.0.regions=1048576 "
                         "--set workload.swarm.0.buffer=1GiB",
                         dir),
                "workload.swarm.0.regions", "this machine's memory");
}

TEST_CASE("run.memory_limit sets the limit: the same fabric is refused under it and valid within it", "[limits]") {
  const auto dir = test::scratch("limits_memory_limit");
  const std::string fabric = "--set topology.pattern=fat_tree --set topology.k=8 --set topology.levels=3";
  check_refused(validate(kConfigs + "fat_tree_permutation.json", fabric + " --set run.memory_limit=64MiB", dir), "topology",
                "run.memory_limit, 64 MiB");
  const CommandResult ok = validate(kConfigs + "fat_tree_permutation.json", fabric + " --set run.memory_limit=1GiB", dir);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("the estimate bounds the measured peak memory from above within a factor of 3", "[limits][slow]") {
  const auto dir = test::scratch("limits_estimate");
  // Fabrics and QPs at the sizes the costs were measured at (docs/limits.md).
  struct Case {
    const char* scenario;
    std::string sets;
  };
  // The in-band case runs to its end: its SA is filled when the SM's sweep is done, after
  // the microsecond the others run; with its standby, 261,632 PathRecords in each SA.
  const std::string brief = " --set run.duration=1us";
  for (const Case& c :
       {Case{"fat_tree_permutation.json", "--set topology.k=8 --set topology.levels=3" + brief},
        Case{"perftest_write_bw.json", "--set workload.perftest.0.qps=4096 --set 'workload.perftest.0.sizes=[\"64KiB\"]'" + brief},
        Case{"memory_regions.json", "--set workload.swarm.0.vms=32" + brief},
        Case{"inband_fat_tree.json", "--set topology.k=8 --set topology.levels=3"}}) {
    INFO(c.scenario << " " << c.sets);
    const std::string out = (dir / "run").string();
    std::filesystem::remove_all(out);
    const CommandResult r =
        test::run_command(std::string("run ") + kConfigs + c.scenario + " " + c.sets + " --quiet --out " + out, dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json stats = nlohmann::json::parse(test::slurp(dir / "run" / "stats.json"));
    // hcasim validate prints the estimate: "memory about 199 MiB estimated; ...".
    const CommandResult v = test::run_command("validate " + (dir / "run" / "scenario.resolved.json").string(), dir);
    std::smatch m;
    REQUIRE(std::regex_search(v.out, m, std::regex("memory about ([0-9.]+) (MiB|GiB) estimated")));
    const double estimate = std::stod(m[1]) * (m[2] == "GiB" ? 1024.0 : 1.0) * 1024 * 1024;
    const auto peak = static_cast<double>(stats["wall"]["peak_rss_bytes"].get<uint64_t>());
    INFO("estimate " << estimate << " B, peak " << peak << " B");
#if !defined(HCASIM_UNDER_ASAN)  // ASan's shadow and quarantine add to the peak
    CHECK(estimate >= peak);
#endif
    CHECK(estimate <= 3 * peak);
  }
}

TEST_CASE("an in-band SA's PathRecords are counted: a pair per two HCA port LIDs in the master and its standby",
          "[limits]") {
  const auto dir = test::scratch("limits_sa");
  // 3-level fat tree k=16: 4096 HCAs, 4096 x 4095 = 16773120 PathRecords, at 160 + 384 bytes
  // with the standby's copy: 8.5 GiB, above 4 GiB; refused before the graph is generated.
  const std::string fabric = "--set topology.k=16 --set topology.levels=3 --set run.memory_limit=4GiB";
  const CommandResult both = validate(kConfigs + "inband_fat_tree.json", fabric, dir);
  check_refused(both, "management.mode", "run.memory_limit, 4.0 GiB");
  CHECK(both.err.find("16773120 PathRecords") != std::string::npos);
  CHECK(both.err.find("the standby's database") != std::string::npos);
  // Without the standby (2.5 GiB) and without in-band management the same fabric fits.
  for (const char* other : {" --set management.standby=", " --set management.mode=preconfigured --set management.sm= "
                                                          "--set management.standby="}) {
    const CommandResult ok = validate(kConfigs + "inband_fat_tree.json", fabric + other, dir);
    INFO(other << ": " << ok.err);
    CHECK(ok.exit_code == 0);
  }
}
