// ibnetdiscover import: the sample dump (data/two_leaf_hdr.ibnetdiscover, a
// spine, two leaves and four hosts, one of them dual-ported) comes in with every
// node, port and link; variants of the format; bad input names its line.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "models/config/config_error.hpp"
#include "models/config/ibnetdiscover.hpp"
#include "models/config/topology_json.hpp"

namespace config = hcasim::config;
namespace topology = hcasim::topology;
using config::ConfigError;
using hcasim::link::Speed;
using hcasim::link::Width;

namespace {

const std::string kSample = std::string(HCASIM_SOURCE_DIR) + "/testbench/tests/config/data/two_leaf_hdr.ibnetdiscover";

topology::Topology sample() {
  std::ifstream in(kSample);
  REQUIRE(in.good());
  return config::read_ibnetdiscover(in, "two_leaf_hdr.ibnetdiscover");
}

topology::Topology parse(const std::string& text) {
  std::istringstream in(text);
  return config::read_ibnetdiscover(in, "net");
}

// The ConfigError of parsing `text`: its path must be "net:<line>".
std::string error_of(const std::string& text, std::size_t line) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    CHECK(e.path() == "net:" + std::to_string(line));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    return e.what();
  }
  FAIL("no ConfigError thrown");
  return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The link joining two named ports, in either order, or nullptr.
const topology::TopoLink* find_link(const topology::Topology& t, const std::string& x, const std::string& y) {
  for (const auto& l : t.links) {
    const std::string a = topology::port_name(t, l.a), b = topology::port_name(t, l.b);
    if ((a == x && b == y) || (a == y && b == x)) return &l;
  }
  return nullptr;
}

const std::string kSpine = "S-e41d2d0300a1b2c0", kLeaf1 = "S-e41d2d0300a1b2d0", kLeaf2 = "S-e41d2d0300a1b2e0";
const std::string kNode3 = "H-b8cef60300112230", kNode4 = "H-506b4b0300fedc10";

// A small valid file: one switch, two CAs, links listed from both ends.
const std::string kSmall =
    "switchguid=0x10(10)\n"                                                 // line 1
    "Switch\t8 \"S-0000000000000010\"\t\t# \"sw\" base port 0 lid 1 lmc 0\n"  // 2
    "[1]\t\"H-0000000000000020\"[1](20) \t\t# \"a\" lid 2 4xHDR\n"             // 3
    "[2]\t\"H-0000000000000030\"[1](30) \t\t# \"b\" lid 3 4xHDR\n"             // 4
    "\n"                                                                    // 5
    "caguid=0x20\n"                                                         // 6
    "Ca\t1 \"H-0000000000000020\"\t\t# \"a\"\n"                               // 7
    "[1](20) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR\n"  // 8
    "\n"                                                                    // 9
    "caguid=0x30\n"                                                         // 10
    "Ca\t1 \"H-0000000000000030\"\t\t# \"b\"\n"                               // 11
    "[1](30) \t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"sw\" lid 1 4xHDR\n";  // 12

std::string replace_line(const std::string& text, std::size_t line, const std::string& with) {
  std::istringstream in(text);
  std::string out, l;
  for (std::size_t n = 1; std::getline(in, l); ++n) out += (n == line ? with : l) + "\n";
  return out;
}

}  // namespace

TEST_CASE("the sample dump imports every node with its kind, ports, GUID and description") {
  const topology::Topology t = sample();
  CHECK(topology::check_topology(t).empty());
  REQUIRE(t.nodes.size() == 7);
  unsigned switches = 0, cas = 0, ca_ports = 0;
  for (const auto& n : t.nodes) {
    if (n.kind == topology::NodeKind::Switch) {
      ++switches;
      CHECK(n.ports == 40);
    } else {
      ++cas;
      ca_ports += n.ports;
    }
  }
  CHECK(switches == 3);
  CHECK(cas == 4);
  CHECK(ca_ports == 5);
  const topology::TopologyIndex index(t);
  const int spine = index.find(kSpine), node3 = index.find(kNode3);
  REQUIRE(spine >= 0);
  REQUIRE(node3 >= 0);
  CHECK(t.nodes[spine].guid == 0xe41d2d0300a1b2c0ull);
  CHECK(t.nodes[spine].description == "MF0;spine01:MQM8700/U1");
  CHECK(t.nodes[node3].kind == topology::NodeKind::Hca);
  CHECK(t.nodes[node3].ports == 2);
  CHECK(t.nodes[node3].guid == 0xb8cef60300112230ull);
  CHECK(t.nodes[node3].description == "node03 mlx5_0");
}

TEST_CASE("the sample dump imports each link once, with its width and speed") {
  const topology::Topology t = sample();
  // 2 + 1 spine links, 3 + 2 host links.
  CHECK(t.links.size() == 8);
  const auto* parallel1 = find_link(t, kSpine + ".p1", kLeaf1 + ".p39");
  const auto* parallel2 = find_link(t, kSpine + ".p2", kLeaf1 + ".p40");
  const auto* spine_leaf2 = find_link(t, kSpine + ".p3", kLeaf2 + ".p40");
  const auto* dual1 = find_link(t, kNode3 + ".p1", kLeaf1 + ".p3");
  const auto* dual2 = find_link(t, kNode3 + ".p2", kLeaf2 + ".p1");
  const auto* edr = find_link(t, kNode4 + ".p1", kLeaf2 + ".p2");
  for (const auto* l : {parallel1, parallel2, spine_leaf2, dual1, dual2, edr}) REQUIRE(l != nullptr);
  CHECK(parallel1->params.speed == Speed::Hdr);
  CHECK(parallel1->params.width == Width::X4);
  CHECK(dual1->params.width == Width::X2);
  CHECK(dual2->params.speed == Speed::Hdr);
  CHECK(edr->params.speed == Speed::Edr);
  CHECK(edr->params.width == Width::X4);
  CHECK_FALSE(parallel1->params.length_m.has_value());
  // Links come in the order of their first line, from the side that listed them first.
  CHECK(topology::port_name(t, t.links[0].a) == kSpine + ".p1");
}

TEST_CASE("the sample dump survives the JSON round trip unchanged") {
  const topology::Topology t = sample();
  const nlohmann::json j = config::topology_to_json(t);
  CHECK(j["nodes"][0]["guid"] == "0xe41d2d0300a1b2c0");
  CHECK(j["nodes"][0]["kind"] == "switch");
  CHECK(j["links"][0]["speed"] == "HDR");
  CHECK(j["links"][0]["width"] == "4x");
  CHECK_FALSE(j["links"][0].contains("length"));
  CHECK(config::topology_from_json(j, "topology") == t);
  CHECK(config::topology_from_json(nlohmann::json::parse(j.dump()), "topology") == t);
}

TEST_CASE("a link listed from one end only, spaces for tabs and unknown rates are accepted") {
  const topology::Topology t = parse(
      "Switch 4 \"S-0000000000000001\" # \"one\"\n"
      "[1] \"H-0000000000000002\"[1] # \"h\" lid 2 ?????\n"
      "[2] \"H-0000000000000003\"[1] # \"h\" lid 3 4xFDR10\n"
      "Ca 1 \"H-0000000000000002\" # \"h\"\n"
      "Ca 1 \"H-0000000000000003\" # \"h\"\n"
      "[1] \"S-0000000000000001\"[2] # lid 3 lmc 0 \"one\" lid 1 ??FDR10 s=4 w=2\n");
  REQUIRE(t.links.size() == 2);
  CHECK_FALSE(t.links[0].params.speed.has_value());
  CHECK_FALSE(t.links[0].params.width.has_value());
  CHECK(t.nodes[0].guid == 1);
  // FDR10 is read as FDR (see ibnetdiscover.cpp).
  CHECK(t.links[1].params.speed == Speed::Fdr);
  CHECK(t.links[1].params.width == Width::X4);
}

TEST_CASE("the small file parses") {
  const topology::Topology t = parse(kSmall);
  CHECK(t.nodes.size() == 3);
  CHECK(t.links.size() == 2);
  CHECK(t.nodes[1].guid == 0x20);
}

TEST_CASE("a truncated port line names its line") {
  CHECK(contains(error_of(replace_line(kSmall, 4, "[2]\t\"H-0000000000000030"), 4), "truncated port line"));
  CHECK(contains(error_of(replace_line(kSmall, 4, "[2]\t\"H-0000000000000030\""), 4), "truncated port line"));
  CHECK(contains(error_of(replace_line(kSmall, 4, "[2"), 4), "truncated port line"));
  CHECK(contains(error_of(replace_line(kSmall, 8, "[1](20"), 8), "GUID"));
}

TEST_CASE("a link whose two ends disagree names the later line") {
  // Line 3 says sw[1] <-> a[1]; line 8 now says a[1] <-> sw[2].
  const std::string e1 = error_of(replace_line(kSmall, 8, "[1](20) \t\"S-0000000000000010\"[2]\t\t# lid 2"), 8);
  CHECK(contains(e1, "disagree"));
  CHECK(contains(e1, "line 3"));
  // Same ports, different speed.
  const std::string e2 = error_of(replace_line(kSmall, 12, "[1](30) \t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"sw\" lid 1 4xEDR"), 12);
  CHECK(contains(e2, "rate"));
  CHECK(contains(e2, "4xEDR"));
}

TEST_CASE("unknown node kinds, routers and stray lines are errors naming the line") {
  CHECK(contains(error_of(replace_line(kSmall, 11, "Bridge\t1 \"H-0000000000000030\"\t\t# \"b\""), 11), "unknown node kind 'Bridge'"));
  CHECK(contains(error_of(replace_line(kSmall, 11, "Rt\t1 \"R-0000000000000030\"\t\t# \"b\""), 11), "router"));
  CHECK(contains(error_of(replace_line(kSmall, 10, "rtguid=0x30"), 10), "router"));
  CHECK(contains(error_of(replace_line(kSmall, 5, "hello there"), 5), "unknown line"));
  CHECK(contains(error_of(replace_line(kSmall, 2, "Switch\t8"), 2), "truncated node header"));
}

TEST_CASE("bad ports, unknown peers and duplicates are errors naming the line") {
  CHECK(contains(error_of(replace_line(kSmall, 4, "[9]\t\"H-0000000000000030\"[1]"), 4), "ports 1 to 8"));
  CHECK(contains(error_of(replace_line(kSmall, 4, "[1]\t\"H-0000000000000030\"[1]"), 4), "listed twice"));
  CHECK(contains(error_of(replace_line(kSmall, 4, "[2]\t\"H-0000000000000099\"[1]"), 4), "no node block"));
  CHECK(contains(error_of(replace_line(kSmall, 4, "[2]\t\"H-0000000000000030\"[3]"), 4), "ports 1 to 1"));
  CHECK(contains(error_of(replace_line(kSmall, 11, "Ca\t1 \"H-0000000000000020\"\t\t# \"b\""), 11), "declared twice"));
  CHECK(contains(error_of(replace_line(kSmall, 10, "caguid=0x31"), 11), "disagrees with the GUID on line 10"));
  CHECK(contains(error_of(replace_line(kSmall, 10, "switchguid=0x30"), 11), "precedes a Ca node"));
  CHECK(contains(error_of(replace_line(kSmall, 3, "[1]\t\"H-0000000000000020\"[1] # lid 2 4xXDR"), 3), "unknown link speed"));
  CHECK(contains(error_of("[1] \"S-1\"[1]\n", 1), "outside a node block"));
}
