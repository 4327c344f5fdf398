// The layering of DESIGN.md ("Layout"): a folder's files include only files of
// their own folder and of folders below it, never above and never beside it.
// The test reads every #include of models/ and of testbench/'s parts (the tests
// excepted: they may include anything) and names the file and line of each
// include that breaks the rule, and of each file in a folder the layering does
// not place. It is checked itself on a small tree with one include of each kind.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "testbench/tests/scratch_dir.hpp"

namespace fs = std::filesystem;

namespace {

// Lower layers first; the folders of one layer are independent of each other.
// ib depends on nothing; link on ib; trace (statistics helpers, pcap, VCD) on
// link, so that every model can keep its histograms; switch, transport and
// pcie on link and trace; hca on transport and pcie; host on hca and pcie; topology and routing (the
// graph, then the routes on it) on ib and link; mgmt on hca, switch and
// routing; config parses into every module's config struct; fabric builds
// everything; the testbench's parts use everything; the program uses them, and
// beside it the examples (a platform of one's own around the HCA) and the fuzz
// harnesses (testbench/fuzz, which drive the models' parsers) may as well.
const std::vector<std::vector<std::string>> kLayers = {
    {"models/ib", "testbench/verbs"},  // verbs: the libibverbs provider and its wire, C on nothing of ours
    {"models/link"},
    {"models/trace"},
    {"models/switch", "models/transport", "models/pcie"},
    {"models/hca"},
    {"models/host", "models/topology"},
    {"models/routing"},
    {"models/mgmt"},
    {"models/config"},
    {"models/fabric"},
    {"testbench/workloads", "testbench/checkers", "testbench/rtl", "testbench/serve"},
    {"testbench/cli", "testbench/examples", "testbench/fuzz"},
};

// Folders whose files may include anything and are not checked (regress:
// scenarios and their goldens, no code).
const std::vector<std::string> kUnchecked = {"testbench/tests", "testbench/regress"};

int layer_of(const std::string& folder) {
  for (std::size_t i = 0; i < kLayers.size(); ++i)
    if (std::find(kLayers[i].begin(), kLayers[i].end(), folder) != kLayers[i].end()) return static_cast<int>(i);
  return -1;
}

// "models/link" for "models/link/port.hpp": the first two parts of a path
// relative to the tree's root; the path itself when it has fewer.
std::string folder_of(const fs::path& relative) {
  auto it = relative.begin();
  if (it == relative.end()) return "";
  fs::path folder = *it++;
  if (it != relative.end() && std::next(it) != relative.end()) folder /= *it;
  return folder.generic_string();
}

// The included file, relative to the root, or "" when it is not in the tree
// (a system or generated header). Paths from the root ("models/...") first,
// then paths relative to the including file.
std::string resolve(const fs::path& root, const fs::path& includer, const std::string& included) {
  for (const fs::path& candidate : {fs::path(included), (includer.parent_path() / included).lexically_normal()}) {
    if (fs::exists(root / candidate)) return candidate.generic_string();
  }
  return "";
}

// Every broken rule under root/models and root/testbench, one line each:
// "<file>:<line>: ...".
std::vector<std::string> layering_violations(const fs::path& root) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::vector<fs::path> files;
  for (const char* top : {"models", "testbench"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".hpp" || ext == ".cpp" || ext == ".h"))
        files.push_back(entry.path().lexically_relative(root));
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const fs::path& file : files) {
    const std::string name = file.generic_string();
    if (std::any_of(kUnchecked.begin(), kUnchecked.end(),
                    [&](const std::string& u) { return name.rfind(u + "/", 0) == 0; }))
      continue;
    const std::string folder = folder_of(file);
    const int layer = layer_of(folder);
    if (layer < 0) {
      out.push_back(name + ":1: its folder " + folder + " has no place in the layering (kLayers)");
      continue;
    }
    std::ifstream in(root / file);
    std::string line;
    for (unsigned number = 1; std::getline(in, line); ++number) {
      std::smatch m;
      if (!std::regex_search(line, m, kInclude)) continue;
      const std::string target = resolve(root, file, m[1]);
      if (target.empty()) continue;
      const std::string to = folder_of(target);
      if (to == folder) continue;
      const int to_layer = layer_of(to);
      const std::string where = name + ":" + std::to_string(number) + ": includes " + target + ": ";
      if (to_layer < 0)
        out.push_back(where + to + " has no place in the layering (kLayers)");
      else if (to_layer > layer)
        out.push_back(where + "upward, " + folder + " (layer " + std::to_string(layer) + ") may not use " + to +
                      " (layer " + std::to_string(to_layer) + ")");
      else if (to_layer == layer)
        out.push_back(where + "sideways, " + folder + " and " + to + " are independent (layer " +
                      std::to_string(layer) + ")");
    }
  }
  return out;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("no file of models/ or testbench/ includes a folder above or beside its own") {
  const std::vector<std::string> found = layering_violations(HCASIM_SOURCE_DIR);
  INFO(joined(found));
  CHECK(found.empty());
}

TEST_CASE("every folder of models/ and testbench/ has its place in the layering") {
  for (const char* top : {"models", "testbench"})
    for (const auto& entry : fs::directory_iterator(fs::path(HCASIM_SOURCE_DIR) / top)) {
      if (!entry.is_directory()) continue;
      const std::string folder = std::string(top) + "/" + entry.path().filename().string();
      INFO(folder);
      CHECK((layer_of(folder) >= 0 || std::find(kUnchecked.begin(), kUnchecked.end(), folder) != kUnchecked.end()));
    }
}

TEST_CASE("the layering check names the file and line of an upward, a sideways and an unplaced include") {
  const hcasim::test::ScratchDir root("layering");
  write(root / "models/ib/codec.hpp", "#pragma once\n#include <vector>\n#include \"models/ib/crc.hpp\"\n");
  write(root / "models/ib/crc.hpp", "#pragma once\n");
  write(root / "models/link/port.hpp", "#pragma once\n\n#include \"models/ib/codec.hpp\"\n#include \"Vgenerated.h\"\n");
  write(root / "models/switch/switch.hpp", "#pragma once\n#include \"models/link/port.hpp\"\n");
  // Upward, written from the root and relative to the file; sideways; a folder with no place.
  write(root / "models/ib/packet.hpp", "#pragma once\n\n#include \"models/link/port.hpp\"\n");
  write(root / "models/ib/mad.cpp", "// a comment\n  #  include \"../switch/switch.hpp\"\n");
  write(root / "models/transport/qp.hpp", "#pragma once\n#include \"models/switch/switch.hpp\"\n");
  write(root / "models/extras/thing.hpp", "#pragma once\n");
  write(root / "testbench/tests/link/port_test.cpp", "#include \"testbench/cli/simulation.hpp\"\n");

  const std::vector<std::string> found = layering_violations(root);
  INFO(joined(found));
  REQUIRE(found.size() == 4);
  CHECK(found[0] == "models/extras/thing.hpp:1: its folder models/extras has no place in the layering (kLayers)");
  CHECK(found[1] ==
        "models/ib/mad.cpp:2: includes models/switch/switch.hpp: upward, models/ib (layer 0) may not use "
        "models/switch (layer 3)");
  CHECK(found[2] ==
        "models/ib/packet.hpp:3: includes models/link/port.hpp: upward, models/ib (layer 0) may not use "
        "models/link (layer 1)");
  CHECK(found[3] ==
        "models/transport/qp.hpp:2: includes models/switch/switch.hpp: sideways, models/transport and "
        "models/switch are independent (layer 3)");
}
