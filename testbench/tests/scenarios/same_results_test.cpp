// scripts/same_results.sh, the check that two builds give the same results:
// one build against itself is identical in every output it compares (the
// model is deterministic), and a run that differs (another seed) is reported
// with exit code 1.

#include <catch2/catch.hpp>

#include <string>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

CommandResult same_results(const std::string& bin_b, const std::filesystem::path& dir) {
  const std::string script = std::string(HCASIM_SOURCE_DIR) + "/scripts/same_results.sh";
  const std::string scenario = std::string(HCASIM_SOURCE_DIR) + "/configs/b2b_hdr.json";
  return run_shell("bash " + script + " " + HCASIM_BINARY + " " + bin_b + " " + scenario, dir);
}

}  // namespace

TEST_CASE("same_results.sh: a build against itself is identical in stats, resolved scenario, pcap and VCD") {
  const ScratchDir dir("same-results");
  const CommandResult r = same_results(HCASIM_BINARY, dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "b2b_hdr: identical: packets.pcap scenario.resolved.json stats.json waves.vcd (exit 0 and 0)\n");
}

TEST_CASE("same_results.sh: a run with another seed is reported as different, exit code 1") {
  const ScratchDir dir("same-results-seed");
  const std::string other = write_file(dir / "other-seed.sh", "#!/bin/sh\nexec " + std::string(HCASIM_BINARY) +
                                                                  " \"$@\" --seed 2\n");
  std::filesystem::permissions(other, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  const CommandResult r = same_results(other, dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.rfind("b2b_hdr: DIFFERENT (exit 0 and 0)\n", 0) == 0);
}
