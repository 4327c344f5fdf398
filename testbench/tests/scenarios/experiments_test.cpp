// The experiments of docs/experiments: each sweep runs from its file with one
// command, its pictures are drawn again, and what its page says holds.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "testbench/tests/scenarios/cli_util.hpp"
#include "testbench/tests/scenarios/scenario_fixture.hpp"

using namespace hcasim::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Runs a sweep file of configs/experiments; its results.json rows.
json run_sweep(const ScratchDir& dir, const std::string& name) {
  const CommandResult s = run_command("sweep " + config_path("experiments/" + name + ".json") + " --quiet --out " +
                                          (dir / name).string(), dir);
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  return nlohmann::json::parse(slurp(dir / name / "results.json"))["rows"];
}

void plot(const ScratchDir& dir, const std::string& args, const std::string& out) {
  const CommandResult r = run_command("plot sweep " + args + " --out " + (dir / out).string() + ".png", dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(dir / (out + ".png")).rfind("\x89PNG", 0) == 0);
}

}  // namespace

TEST_CASE("experiment doorbell_methods: BlueFlame removes one WQE fetch at every size, inline data the gather read "
          "up to inline_size") {
  const ScratchDir dir("exp-doorbell");
  const json rows = run_sweep(dir, "doorbell_methods");
  REQUIRE(rows.size() == 40);
  for (const char* inl : {"0B", "220B"})
    plot(dir, (dir / "doorbell_methods").string() + " --x size --y latency_ns --series doorbell --where inline=" + inl,
         std::string("inline_") + inl);
  std::map<std::tuple<std::string, std::string, std::string>, json> at;  // (inline, doorbell, size)
  for (const json& r : rows) at[{r["inline"], r["doorbell"], r["size"]}] = r;
  const double saving = at[{"0B", "mmio", "8B"}]["latency_ns"].get<double>() -
                        at[{"0B", "blueflame", "8B"}]["latency_ns"].get<double>();
  CHECK(saving > 0);
  for (const char* inl : {"0B", "220B"})
    for (const auto& [size, bytes] : std::map<std::string, unsigned>{{"8B", 8},      {"16B", 16},   {"32B", 32},
                                                                    {"64B", 64},    {"128B", 128}, {"256B", 256},
                                                                    {"512B", 512},  {"1KiB", 1024}, {"2KiB", 2048},
                                                                    {"4KiB", 4096}}) {
      INFO(inl << " " << size);
      const json& mmio = at[{inl, "mmio", size}];
      const json& bf = at[{inl, "blueflame", size}];
      const bool inlined = std::string(inl) == "220B" && bytes <= 220;
      // The same saving at every size; an inline WQE's BlueFlame write carries its bytes, a few ns more.
      const double saved = mmio["latency_ns"].get<double>() - bf["latency_ns"].get<double>();
      if (inlined) {
        CHECK(saved <= saving + 1.0);
        CHECK(saved > saving - 10);
      } else {
        CHECK(saved == Approx(saving).margin(1.0));  // within 1 ns: the caches' first-touch misses move single samples
      }
      CHECK(bf["wqe_fetches"].get<double>() == 0);
      CHECK(mmio["wqe_fetches"].get<double>() == 1000);  // one send ring read a message
      CHECK((bf["gather_reads"].is_null() ? 0.0 : bf["gather_reads"].get<double>()) == (inlined ? 0 : 1000));
      if (!inlined)  // above the inline limit both pictures are the same
        CHECK(bf["latency_ns"].get<double>() == at[{"0B", "blueflame", size}]["latency_ns"].get<double>());
    }
}
