// The routing dumps in OpenSM's formats (docs/routing.md): validate --dump and
// outputs.routing_dump, worked out by hand on a single switch, never
// overwriting a user's files, and the same tables from a pre-configured and an
// in-band run. OpenSM itself is compared in testbench/tests/mgmt/opensm_oracle_test.py.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "testbench/tests/scenarios/cli_util.hpp"

using namespace hcasim::test;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* const kFiles[] = {"opensm-lfts.dump", "opensm-subnet.lst", "opensm-sl2vl.dump"};

}  // namespace

TEST_CASE("validate --dump on one switch writes the LFT, LIDs and SL2VL tables OpenSM would, worked out by hand") {
  const auto dir = scratch("dump_single_switch");
  const std::string scenario = write_file(dir / "s.json", R"({
    "name": "ss", "topology": {"pattern": "single_switch", "hosts": 2}, "link": {"speed": "EDR"}})");
  const CommandResult r = run_command("validate " + scenario + " --dump " + (dir / "d").string(), dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Nodes hca0, hca1, sw0 with derived GUIDs base + (index + 1) * 256. LIDs: the SM's port
  // (hca0.p1, the default) 1; then byte-reversed port GUIDs: sw0's ends in 0x00, before
  // hca1.p1's 0x01: sw0 2, hca1 3. sw0 reaches hca0 on port 1, hca1 on port 2.
  CHECK(read(dir / "d" / "opensm-lfts.dump") ==
        "Unicast lids [0-3] of switch Lid 2 guid 0x0002c90300000300 ('sw0'):\n"
        "0x0001 001 # Channel Adapter portguid 0x0002c90300000101: 'hca0'\n"
        "0x0002 000 # Switch portguid 0x0002c90300000300: 'sw0'\n"
        "0x0003 002 # Channel Adapter portguid 0x0002c90300000201: 'hca1'\n"
        "3 lids dumped\n");
  // Every link from both ends, nodes in byte-reversed NodeGUID order; -SM on the SM's port;
  // EDR 4x is OpenSM's "PHY=4x ... SPD=25".
  const std::string subnet = read(dir / "d" / "opensm-subnet.lst");
  CHECK(count_lines(subnet) == 4);
  CHECK(subnet.rfind("{ CA-SM Ports:01 SystemGUID:0002c90300000100 NodeGUID:0002c90300000100 "
                     "PortGUID:0002c90300000101 VenID:0002C9 DevID:0000 Rev:00000000 {hca0} LID:0001 PN:01 } "
                     "{ SW Ports:02 SystemGUID:0002c90300000300 NodeGUID:0002c90300000300 PortGUID:0002c90300000300 "
                     "VenID:000002C9 DevID:0000 Rev:00000000 {sw0} LID:0002 PN:01 } PHY=4x LOG=ACT SPD=25\n",
                     0) == 0);
  CHECK(subnet.find("{hca1} LID:0003 PN:01 }") != std::string::npos);
  // SL2VL: sw0's tables for outputs 1 and 2 from inputs 0-2, then each HCA port's own; the
  // default table is SL mod the 8 data VLs.
  const std::string sl2vl = read(dir / "d" / "opensm-sl2vl.dump");
  const std::string row = " 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7 \n";
  CHECK(sl2vl.rfind("Switch 0x0002c90300000300, base LID 2, \"sw0\"\n"
                    "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n"
                    "#--------------------------------------------------------\n"
                    "0   1   :" + row + "1   1   :" + row + "2   1   :" + row +
                    "0   2   :" + row + "1   2   :" + row + "2   2   :" + row,
                    0) == 0);
  CHECK(sl2vl.find("Channel Adapter 0x0002c90300000101, base LID 1, \"hca0\"\n") != std::string::npos);
  CHECK(sl2vl.find("Channel Adapter 0x0002c90300000201, base LID 3, \"hca1\"\n") != std::string::npos);
}

TEST_CASE("validate --dump never overwrites OpenSM dumps a folder already holds") {
  const auto dir = scratch("dump_no_overwrite");
  const std::string scenario = write_file(dir / "s.json", R"({"name": "b2b"})");
  std::filesystem::create_directories(dir / "d");
  write_file(dir / "d" / "opensm-subnet.lst", "a real fabric's file\n");
  const CommandResult r = run_command("validate " + scenario + " --dump " + (dir / "d").string(), dir);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("opensm-subnet.lst exists") != std::string::npos);
  CHECK(read(dir / "d" / "opensm-subnet.lst") == "a real fabric's file\n");
  CHECK_FALSE(std::filesystem::exists(dir / "d" / "opensm-lfts.dump"));
}

TEST_CASE("a pre-configured and an in-band run of one fabric end with the same tables, as validate --dump has them") {
  const auto dir = scratch("dump_modes");
  struct Case {
    const char* fabric;
    const char* sm;
    const char* algorithm;
    std::vector<unsigned> lmcs;
    const char* options = "";  // more routing keys
  };
  // A chain whose first engine refuses the mesh (updn finds no root), so dor routes it; the
  // engines of the torus (lash, dfsssp and nue, with the VLs they need) and of the fat tree.
  const Case cases[] = {{"small_cluster", "H-e41d2d0300a1c100.p1", "minhop", {0, 1}},
                        {"small_cluster", "H-e41d2d0300a1c100.p1", "updn", {0, 1}},
                        {"mesh4x4", "H-0002c90303000000.p1", "updn,dor", {0}},
                        {"torus6x6", "H-0002c9030730bb00.p1", "lash", {0}},
                        {"torus6x6", "H-0002c9030730bb00.p1", "dfsssp", {0}},
                        {"torus6x6", "H-0002c9030730bb00.p1", "nue", {0, 1}},
                        {"torus6x6", "H-0002c9030730bb00.p1", "nue", {0}, R"(, "nue_max_num_vls": 4)"},
                        {"fat_tree_3level_shuffled", "H-0002c90381121b00.p1", "ftree", {0}}};
  for (const Case& c : cases) {
    const char* algorithm = c.algorithm;
    const std::string fabric = std::string(HCASIM_SOURCE_DIR) + "/configs/fabrics/" + c.fabric + ".ibnd";
    for (unsigned lmc : c.lmcs) {
      INFO(c.fabric << " " << algorithm << c.options << " LMC " << lmc);
      std::string tag = std::string(c.fabric) + "_" + std::to_string(lmc) + "_" + algorithm + (*c.options ? "_opt" : "");
      std::replace(tag.begin(), tag.end(), ',', '_');
      const auto scenario = [&](const char* mode) {
        return std::string(R"({"name": "dump", "topology": {"pattern": "ibnetdiscover", "file": ")") + fabric +
               R"("}, "routing": {"algorithm": ")" + algorithm + R"(", "lmc": )" + std::to_string(lmc) + c.options +
               R"(}, "port": {"data_vls": 8}, "management": {"mode": ")" + mode + R"(", "sm": ")" + c.sm + R"("},
                  "run": {"duration": "5ms"}, "outputs": {"routing_dump": true}})";
      };
      const CommandResult pre = run_scenario_json(dir, "pre" + tag, scenario("preconfigured"));
      INFO(pre.err);
      REQUIRE(pre.exit_code == 0);
      const CommandResult band = run_scenario_json(dir, "band" + tag, scenario("in_band"));
      INFO(band.err);
      REQUIRE(band.exit_code == 0);
      const CommandResult v =
          run_command("validate " + (dir / ("pre" + tag + ".json")).string() + " --dump " + (dir / ("v" + tag)).string(),
                      dir);
      REQUIRE(v.exit_code == 0);
      for (const char* file : kFiles) {
        INFO(file);
        const std::string expected = read(dir / ("v" + tag) / file);
        CHECK(!expected.empty());
        CHECK(read(dir / ("pre" + tag) / file) == expected);
        CHECK(read(dir / ("band" + tag) / file) == expected);
      }
    }
  }
}

TEST_CASE("validate --timings adds one line: how long routing and the credit-loop check took") {
  const auto dir = scratch("validate_timings");
  const std::string scenario = write_file(dir / "s.json", R"({
    "name": "ft", "topology": {"pattern": "fat_tree", "k": 4, "levels": 3}})");
  const CommandResult plain = run_command("validate " + scenario, dir);
  const CommandResult timed = run_command("validate " + scenario + " --timings", dir);
  INFO(timed.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(timed.exit_code == 0);
  CHECK(plain.out.find(": timings:") == std::string::npos);
  CHECK(count_lines(timed.out) == count_lines(plain.out) + 1);
  const std::regex line(": timings: routing ([0-9.e+-]+) s \\(LIDs, forwarding tables, fabric description\\), "
                        "credit-loop check ([0-9.e+-]+) s\n");
  std::smatch m;
  REQUIRE(std::regex_search(timed.out, m, line));
  CHECK(std::stod(m[1]) >= 0);
  CHECK(std::stod(m[2]) >= 0);
  CHECK(run_command("run " + scenario + " --timings", dir).exit_code == 2);  // validate only
}
