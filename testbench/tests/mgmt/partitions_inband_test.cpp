// Partitions in both management modes: the in-band SM programs P_KeyTables
// (and switch enforcement) with SMPs and leaves every port with the tables the
// pre-configured mode installs; the SA's PathRecords carry the P_Key the two
// ports share, and a pair that shares none has no PathRecord.
#include <catch2/catch.hpp>

#include <systemc>

#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/ib/pkey.hpp"
#include "models/ib/sa_record_types.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/mgmt/sa_population.hpp"

using namespace hcasim;

namespace {

using Table = std::vector<uint16_t>;

// Four hosts on one switch, the SM on hca3.p1 (SELF). Default limited for
// all but the SM; A: hca0 full, hca1 limited; B: hca1 and hca2 both limited.
nlohmann::json scenario(const std::string& mode) {
  return {{"topology", {{"pattern", "single_switch"}, {"hosts", 4}}},
          {"management",
           {{"mode", mode},
            {"sm", "hca3.p1"},
            {"partitions",
             {{"rules", "Default=0x7fff : ALL=limited, SELF=full ;\n"
                        "A=0x8001 : hca0.p1=full, hca1.p1 ;\n"
                        "B=0x0002 : hca1.p1, hca2.p1 ;\n"},
              {"switch_enforcement", "both"}}}}}};
}

// Every port of the fabric holds the spec's table and enforcement bits.
void require_tables_of_spec(const fabric::Fabric& f) {
  const config::FabricSpec& spec = f.spec();
  unsigned hca = 0, sw = 0;
  for (unsigned n = 0; n < spec.nodes.size(); ++n) {
    const mgmt::NodePartitions& want = spec.nodes[n].partitions;
    REQUIRE(!want.pkeys.empty());
    INFO("node " << spec.nodes[n].name);
    if (spec.nodes[n].kind == topology::NodeKind::Hca) {
      const hca::Hca& h = f.hca(hca++);
      for (unsigned p = 0; p < h.port_count(); ++p) REQUIRE(h.port(p).pkeys() == want.pkeys[p + 1]);
    } else {
      const sw::Switch& s = f.switch_at(sw++);
      for (unsigned p = 1; p <= s.port_count(); ++p) {
        INFO("port " << p);
        REQUIRE(s.port(p).pkeys() == want.pkeys[p]);
        REQUIRE(s.port(p).enforces_inbound() == want.enforce_in[p]);
        REQUIRE(s.port(p).enforces_outbound() == want.enforce_out[p]);
      }
    }
  }
}

}  // namespace

TEST_CASE("the resolved partitions of the test fabric, entry by entry", "[mgmt][partitions]") {
  const config::FabricSpec spec = config::fabric_spec(config::load_scenario(scenario("preconfigured")));
  // Nodes: hca0..hca3, then sw0 (ports 1..4 face hca0..hca3).
  CHECK(spec.nodes[0].partitions.pkeys[1] == Table{0x7FFF, 0x8001});
  CHECK(spec.nodes[1].partitions.pkeys[1] == Table{0x7FFF, 0x0001, 0x0002});
  CHECK(spec.nodes[2].partitions.pkeys[1] == Table{0x7FFF, 0x0002});
  CHECK(spec.nodes[3].partitions.pkeys[1] == Table{0xFFFF});
  CHECK(spec.nodes[4].partitions.pkeys[0] == Table{0x7FFF});
  CHECK(spec.nodes[4].partitions.pkeys[2] == Table{0x7FFF, 0x0001, 0x0002});
  CHECK(spec.nodes[4].partitions.enforce_in[2]);
  CHECK(spec.nodes[4].partitions.enforce_out[2]);
}

TEST_CASE("the pre-configured mode installs the partitions' tables at time zero", "[mgmt][partitions]") {
  ib::PacketPool pool;
  const config::FabricSpec spec = config::fabric_spec(config::load_scenario(scenario("preconfigured")));
  fabric::Fabric f(spec, pool);
  require_tables_of_spec(f);  // before any simulated time
}

TEST_CASE("the in-band SM programs the same P_KeyTables and enforcement, and PathRecords carry the shared P_Key", "[mgmt][partitions][inband]") {
  ib::PacketPool pool;
  const config::FabricSpec spec = config::route_fabric(config::load_scenario(scenario("in_band"))).spec;
  REQUIRE(spec.management.in_band);
  fabric::Fabric f(spec, pool);
  for (const link::Port* p : f.ports()) {  // power-on: {0xFFFF}, no enforcement
    REQUIRE(p->pkeys() == ib::default_pkey_table());
    REQUIRE(!p->enforces_inbound());
  }
  sc_core::sc_start();
  const mgmt::SubnetManager& sm = *f.subnet_manager();
  INFO(sm.failure());
  REQUIRE(sm.done());
  REQUIRE(sm.stats().errors == 0);
  require_tables_of_spec(f);
  // The switch's management port: its SMA's table.
  ib::Smp get;
  get.hdr.mgmt_class = ib::kClassSubnLid;
  get.hdr.method = ib::kMethodGet;
  get.hdr.attr_id = ib::kAttrPkeyTable;
  get.hdr.attr_mod = ib::pkey_attr_mod(0, 0);
  ib::Smp resp;
  REQUIRE(f.mad_node(4)->sma().process(get, 1, resp));
  ib::PkeyTableBlock b;
  b.decode(resp.data.data());
  CHECK(b.pkey[0] == 0x7FFF);
  CHECK(b.pkey[1] == 0);

  // PathRecords (the SM's view: nodes in GUID order, so find the HCAs by name).
  const mgmt::SubnetView& v = sm.view();
  auto end = [&](const std::string& name) {
    for (unsigned n = 0; n < v.topology.nodes.size(); ++n)
      if (v.topology.nodes[n].name == name) return topology::LinkEnd{n, 1};
    FAIL("no node " << name);
    return topology::LinkEnd{};
  };
  auto pkeys_of = [&](const std::string& a, const std::string& b) {
    std::vector<uint16_t> out;
    for (const ib::PathRecord& r : mgmt::path_records_between(v, end(a), end(b))) out.push_back(r.pkey);
    return out;
  };
  CHECK(pkeys_of("hca0", "hca1") == Table{0x8001});  // the first key of hca0's table hca1 accepts
  CHECK(pkeys_of("hca1", "hca0") == Table{0x0001});
  CHECK(pkeys_of("hca3", "hca1") == Table{0xFFFF});  // the SM (full) and a limited member of Default
  CHECK(pkeys_of("hca1", "hca2").empty());           // only limited memberships in common
  CHECK(pkeys_of("hca0", "hca2").empty());
  // The SA's database: a query by SLID, DLID and P_Key finds the record only with a P_Key both hold.
  const mgmt::SaDatabase& db = f.sa_agent(3)->database();
  ib::PathRecord q;
  q.slid = spec.nodes[0].lids[0];
  q.dlid = spec.nodes[1].lids[0];
  constexpr uint64_t kMask = (1ull << 4) | (1ull << 5) | (1ull << 13);  // DLID, SLID, P_Key (iba-facts 6)
  std::array<uint8_t, ib::PathRecord::kBytes> tmpl{};
  std::vector<mgmt::SaRecord> recs;
  q.pkey = 0x8001;
  q.encode(tmpl.data());
  REQUIRE(db.get_table(ib::kAttrPathRecord, kMask, tmpl.data(), tmpl.size(), recs) == mgmt::SaDbStatus::Ok);
  CHECK(recs.size() == 1);
  recs.clear();
  q.pkey = 0x8005;
  q.encode(tmpl.data());
  REQUIRE(db.get_table(ib::kAttrPathRecord, kMask, tmpl.data(), tmpl.size(), recs) == mgmt::SaDbStatus::Ok);
  CHECK(recs.empty());
  // hca1 -> hca2: no record at all.
  recs.clear();
  q.slid = spec.nodes[1].lids[0];
  q.dlid = spec.nodes[2].lids[0];
  q.encode(tmpl.data());
  REQUIRE(db.get_table(ib::kAttrPathRecord, (1ull << 4) | (1ull << 5), tmpl.data(), tmpl.size(), recs) == mgmt::SaDbStatus::Ok);
  CHECK(recs.empty());
}
