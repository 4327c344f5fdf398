// GUID files in OpenSM's format (config/guid_file.hpp) and the scenario keys
// that name them (routing.root_guid_file, cn_guid_file, io_guid_file).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "models/config/config_error.hpp"
#include "models/config/guid_file.hpp"
#include "models/config/scenario.hpp"

using namespace hcasim;

namespace {

// A file in the temporary folder, removed at the end of the test.
struct TempFile {
  explicit TempFile(const std::string& text)
      : path((std::filesystem::temp_directory_path() / ("hcasim-guids-" + std::to_string(::getpid()) + "-" +
                                                        std::to_string(counter++))).string()) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
  static inline int counter = 0;
};

nlohmann::json ftree_scenario() {
  return {{"topology", {{"pattern", "fat_tree"}, {"k", 2}, {"levels", 2}}}, {"routing", {{"algorithm", "ftree"}}}};
}

}  // namespace

TEST_CASE("GUID files: one GUID a line, as strtoull reads it, with names, comments and blank lines", "[config]") {
  const std::string text =
      "# roots\n"
      "0x0002c90300000010\n"
      "   0x0002C90300000011   spine1 (a name after the GUID is ignored)\n"
      "\n"
      "\t# an indented comment\n"
      "0x20#comment\n"
      "42\n";
  CHECK(config::parse_guid_file(text, "roots.txt", "routing.root_guid_file") ==
        std::vector<uint64_t>{0x0002c90300000010ull, 0x0002c90300000011ull, 0x20, 42});
  CHECK(config::parse_guid_file("", "empty.txt", "routing.cn_guid_file").empty());
}

TEST_CASE("a bad line in a GUID file is an error naming the key, the file and the line", "[config]") {
  for (const char* bad : {"spine0\n", "0x10zz\n", "0x10,0x11\n", "-1\n", "0x1ffffffffffffffff\n"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH(config::parse_guid_file(std::string("0x10\n") + bad, "roots.txt", "routing.root_guid_file"),
                      Catch::StartsWith("routing.root_guid_file: 'roots.txt' line 2: ") &&
                          Catch::Contains("is not a GUID; accepted: one GUID per line"));
  }
}

TEST_CASE("routing.*_guid_file: read when the scenario loads, for ftree only", "[config]") {
  const TempFile roots("0x0002c90300000010\n0x0002c90300000011  # the second\n");
  const TempFile cns("0x0002c90300000101\n");
  nlohmann::json s = ftree_scenario();
  s["routing"]["root_guid_file"] = roots.path;
  s["routing"]["cn_guid_file"] = cns.path;
  const config::Scenario loaded = config::load_scenario(s);
  REQUIRE(loaded.ftree_guids.roots);
  CHECK(*loaded.ftree_guids.roots == std::vector<uint64_t>{0x0002c90300000010ull, 0x0002c90300000011ull});
  CHECK(loaded.ftree_guids.cns == std::vector<uint64_t>{0x0002c90300000101ull});
  CHECK_FALSE(loaded.ftree_guids.ios);
  // No file: no list, which is not an empty list (OpenSM refuses an empty CN file).
  CHECK_FALSE(config::load_scenario(ftree_scenario()).ftree_guids.roots);

  s["routing"]["io_guid_file"] = roots.path + ".missing";
  CHECK_THROWS_WITH(config::load_scenario(s), Catch::StartsWith("routing.io_guid_file: cannot open '" + roots.path +
                                                                ".missing'"));
  s["routing"].erase("io_guid_file");
  s["routing"]["algorithm"] = "updn";
  CHECK_THROWS_WITH(config::load_scenario(s),
                    Catch::Contains("routing.root_guid_file") && Catch::Contains("applies only to algorithm ftree"));
  // The CN and I/O files also order dfsssp's and sssp's destinations (OpenSM reads them there too).
  s["routing"].erase("root_guid_file");
  CHECK_THROWS_WITH(config::load_scenario(s), Catch::Contains("routing.cn_guid_file") &&
                                                  Catch::Contains("applies only to algorithms ftree, dfsssp and sssp"));
  s["routing"]["algorithm"] = "dfsssp";
  CHECK(config::load_scenario(s).ftree_guids.cns == std::vector<uint64_t>{0x0002c90300000101ull});
}

TEST_CASE("ftree on a fat tree routes as ftree, and where it refuses it says why and routes as minhop", "[config]") {
  const config::RoutedFabric tree = config::route_fabric(config::load_scenario(ftree_scenario()));
  CHECK(tree.routes.algorithm == routing::RoutingAlgorithm::Ftree);
  CHECK(tree.routes.refusals.empty());
  nlohmann::json s = ftree_scenario();
  s["routing"]["lmc"] = 1;
  const config::RoutedFabric refused = config::route_fabric(config::load_scenario(s));
  CHECK(refused.routes.algorithm == routing::RoutingAlgorithm::MinHop);
  CHECK(refused.routes.refusals.at(0).why == "LMC > 0 is not supported by fat-tree routing");
}
