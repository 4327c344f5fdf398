// partitions.conf (OpenSM's syntax, config/partitions_conf.hpp) read from
// hand-written text, and the P_KeyTables it gives every port
// (mgmt/partition_tables.hpp), checked entry by entry.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "models/config/config_error.hpp"
#include "models/config/partitions_conf.hpp"
#include "models/config/scenario.hpp"
#include "models/mgmt/partition_tables.hpp"

using namespace hcasim;
using mgmt::MemberKind;
using mgmt::Membership;

namespace {

// hca0 (2 ports), hca1, hca2 on switch s0; NodeGUIDs given.
topology::Topology graph() {
  topology::Topology t;
  t.nodes = {{"hca0", topology::NodeKind::Hca, 2, 0x100, "", 0},
             {"hca1", topology::NodeKind::Hca, 1, 0x200, "", 0},
             {"hca2", topology::NodeKind::Hca, 1, 0x300, "", 0},
             {"s0", topology::NodeKind::Switch, 4, 0x900, "", 0}};
  topology::TopoLink l;
  l.a = {0, 1}, l.b = {3, 1};
  t.links.push_back(l);
  l.a = {1, 1}, l.b = {3, 2};
  t.links.push_back(l);
  l.a = {2, 1}, l.b = {3, 3};
  t.links.push_back(l);
  l.a = {0, 2}, l.b = {3, 4};
  t.links.push_back(l);
  return t;
}

std::vector<mgmt::NodePartitions> tables(const std::string& conf,
                                         mgmt::SwitchEnforcement e = mgmt::SwitchEnforcement::Off) {
  mgmt::PartitionsSpec spec;
  spec.source = "partitions.conf";
  spec.rules = config::parse_partitions_conf(conf, spec.source);
  spec.enforcement = e;
  return mgmt::partition_tables(spec, graph(), {0x100, 0x200, 0x300, 0x900}, 0, 1);  // SELF = hca0.p1
}

using Table = std::vector<uint16_t>;

}  // namespace

TEST_CASE("partitions.conf rules: names, P_Keys, flags, members, comments, rules over several lines", "[config][partitions]") {
  const std::string conf =
      "# OpenSM's example, our ports\n"
      "Default=0x7fff,ipoib : ALL=full ;\n"
      "\n"
      "Storage = 0x8123 , ipoib, mtu=4, defmember=full :   # members on the next lines\n"
      "    0x201 , hca2.p1=limited,\n"
      "    SELF=both, ALL_SWITCHES ;\n"
      "Compute=12,indx0:ALL_CAS=limited;NONE=0x33: NONE ;\n";
  const std::vector<mgmt::PartitionRule> r = config::parse_partitions_conf(conf, "p.conf");
  REQUIRE(r.size() == 4);
  CHECK(r[0].name == "Default");
  CHECK(r[0].pkey == 0x7FFF);
  CHECK(r[0].ipoib);
  CHECK(r[0].line == 2);
  REQUIRE(r[0].members.size() == 1);
  CHECK(r[0].members[0].kind == MemberKind::All);
  CHECK(r[0].members[0].membership == Membership::Full);
  CHECK(r[1].name == "Storage");
  CHECK(r[1].pkey == 0x8123);
  CHECK(r[1].line == 4);
  CHECK(r[1].defmember == Membership::Full);
  REQUIRE(r[1].members.size() == 4);
  CHECK(r[1].members[0].kind == MemberKind::Guid);
  CHECK(r[1].members[0].guid == 0x201);
  CHECK(!r[1].members[0].membership.has_value());
  CHECK(r[1].members[1].kind == MemberKind::Name);
  CHECK(r[1].members[1].name == "hca2.p1");
  CHECK(r[1].members[1].membership == Membership::Limited);
  CHECK(r[1].members[2].kind == MemberKind::Self);
  CHECK(r[1].members[2].membership == Membership::Both);
  CHECK(r[1].members[3].kind == MemberKind::AllSwitches);
  CHECK(r[2].pkey == 12);  // decimal
  CHECK(r[2].indx0);
  CHECK(r[2].line == 7);
  CHECK(r[3].name == "NONE");
  CHECK(r[3].members.empty());
}

TEST_CASE("partitions.conf errors name the source, the line and what is accepted", "[config][partitions]") {
  const std::pair<const char*, const char*> bad[] = {
      {"A=0x8001 : ALL", "x.conf line 1: the rule does not end with ';'"},
      {"\n ; ", "x.conf line 2: ';' with no rule before it"},
      {"A=0x10000 : ALL ;", "x.conf line 1: P_Key '0x10000' is not valid"},
      {"A=zz : ALL ;", "x.conf line 1: P_Key 'zz' is not valid"},
      {"A=0x8001,defmember=most : ALL ;", "x.conf line 1: defmember 'most'"},
      {"A=0x8001 : ALL=lim ;", "x.conf line 1: membership 'lim' of member 'ALL'"},
      {"A=0x8001 : 0x12g ;", "x.conf line 1: member '0x12g' is not a number"},
  };
  for (const auto& [text, says] : bad) {
    INFO(text);
    try {
      config::parse_partitions_conf(text, "x.conf");
      FAIL("no error");
    } catch (const config::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find("management.partitions: ") == 0);
      CHECK(what.find(says) != std::string::npos);
      CHECK(what.find("; accepted: ") != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("P_KeyTables: default partition first, full for full members, full wins, indx0, by GUID and by name", "[config][partitions]") {
  const auto t = tables(
      "Default=0x7fff : ALL, SELF=full ;\n"       // limited for all, full for the SM's port hca0.p1
      "A=0x0001 : hca0=full, 0x201 ;\n"           // both ports of hca0 full; hca1.p1 (GUID 0x200 + 1) limited
      "B=0x0002 : hca1.p1 ; B=0x0002 : hca1.p1=full ;\n"  // merged: full wins
      "C=0x0003,indx0 : hca2.p1=full, s0 ;\n");
  CHECK(t[0].pkeys[1] == Table{0xFFFF, 0x8001});
  CHECK(t[0].pkeys[2] == Table{0x7FFF, 0x8001});
  CHECK(t[1].pkeys[1] == Table{0x7FFF, 0x0001, 0x8002});
  CHECK(t[2].pkeys[1] == Table{0x8003, 0x7FFF});  // indx0 puts C first
  CHECK(t[3].pkeys[0] == Table{0x0003, 0x7FFF});  // the switch's management port, limited (defmember)
  for (unsigned p = 1; p <= 4; ++p) {              // external ports: untouched, no enforcement
    CHECK(t[3].pkeys[p] == ib::default_pkey_table());
    CHECK(!t[3].enforce_in[p]);
  }
}

TEST_CASE("without a Default rule every end port is a limited member and SELF a full one (OpenSM)", "[config][partitions]") {
  const auto t = tables("A=0x8001 : ALL_CAS ;");
  CHECK(t[0].pkeys[1] == Table{0xFFFF, 0x0001});  // SELF
  CHECK(t[0].pkeys[2] == Table{0x7FFF, 0x0001});
  CHECK(t[1].pkeys[1] == Table{0x7FFF, 0x0001});
  CHECK(t[3].pkeys[0] == Table{0x7FFF});          // ALL_CAS does not take in switches
}

TEST_CASE("switch enforcement copies each HCA port's table to the switch port facing it", "[config][partitions]") {
  const std::string conf = "Default=0x7fff : ALL=full ; A=0x8001 : hca1.p1=full ;";
  for (auto [e, in, out] : {std::tuple{mgmt::SwitchEnforcement::In, true, false},
                            std::tuple{mgmt::SwitchEnforcement::Out, false, true},
                            std::tuple{mgmt::SwitchEnforcement::Both, true, true}}) {
    const auto t = tables(conf, e);
    CHECK(t[3].pkeys[2] == Table{0xFFFF, 0x8001});  // faces hca1.p1
    CHECK(t[3].pkeys[1] == Table{0xFFFF});          // faces hca0.p1
    for (unsigned p = 1; p <= 4; ++p) {
      CHECK(t[3].enforce_in[p] == in);
      CHECK(t[3].enforce_out[p] == out);
    }
  }
}

TEST_CASE("members that name no port, or a GUID two ports share, are errors", "[config][partitions]") {
  CHECK_THROWS_WITH(tables("A=0x8001 : hca0.p3 ;"), Catch::Contains("partitions.conf line 1: member 'hca0.p3' names no end port"));
  CHECK_THROWS_WITH(tables("A=0x8001 : s0.p1 ;"), Catch::Contains("names no end port"));  // a switch external port is no end port
  CHECK_THROWS_WITH(tables("A=0x8001 : 0x999 ;"), Catch::Contains("no end port has GUID 0x999"));
  // A switch's NodeGUID is its port GUID: 0x900 is s0.
  CHECK(tables("A=0x8001 : 0x900=full ;")[3].pkeys[0] == Table{0x7FFF, 0x8001});
}

TEST_CASE("a scenario reads partitions from a file or inline, not both, and installs them in the fabric spec", "[config][partitions]") {
  nlohmann::json s = {{"topology", {{"pattern", "back_to_back"}}},
                      {"management", {{"partitions", {{"rules", "Default=0x7fff : ALL=full ; A=0x8001 : hca1.p1=full ;"}}}}}};
  const config::FabricSpec spec = config::fabric_spec(config::load_scenario(s));
  CHECK(spec.nodes[0].partitions.pkeys[1] == Table{0xFFFF});
  CHECK(spec.nodes[1].partitions.pkeys[1] == Table{0xFFFF, 0x8001});
  CHECK(config::partition_policy(spec).size() == 2);
  // No partitions: nothing in the spec, no policy.
  s["management"].erase("partitions");
  const config::FabricSpec none = config::fabric_spec(config::load_scenario(s));
  CHECK(none.nodes[0].partitions.pkeys.empty());
  CHECK(config::partition_policy(none).empty());
  s["management"]["partitions"] = {{"rules", "A=0x8001 : ALL ;"}, {"file", "p.conf"}};
  CHECK_THROWS_WITH(config::load_scenario(s), Catch::Contains("management.partitions: both file and rules are given"));
}
