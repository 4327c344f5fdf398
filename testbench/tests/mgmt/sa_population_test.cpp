// Filling the SA database from a SubnetView (models/mgmt/sa_population.hpp):
// record counts, keys, and PathRecords carrying the SL (seed 004), the
// smallest MTU and the slowest link of their path, checked against hand-made
// LFTs and against routing::trace_path on a fat tree.

#include <catch2/catch.hpp>

#include <set>

#include <chrono>
#include <cstdio>
#include <string>

#include "models/ib/be_bytes.hpp"
#include "models/ib/sa_record_types.hpp"
#include "models/mgmt/sa_population.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology_generators.hpp"
#include "testbench/tests/mgmt/sa_population_fixture.hpp"

namespace {

using namespace hcasim;
using topology::LinkEnd;
using topology::NodeKind;
using mgmt::SaDatabase;
using mgmt::SaDbStatus;
using mgmt::SaRecord;

// IBA numbers the tests assert against.
constexpr uint8_t kRate40 = 7;     // IB_PATH_RECORD_RATE_40_GBS: QDR 4x
constexpr uint8_t kRate200 = 17;   // IB_PATH_RECORD_RATE_200_GBS: HDR 4x
constexpr uint8_t kMtu2048 = 4;    // iba-facts 2: MTU enum 4 = 2048
constexpr uint8_t kMtu4096 = 5;
constexpr uint8_t kSelExactly = 2; // iba-facts 6
constexpr uint8_t kPathSl = 3;
constexpr uint8_t kPacketLife = 0x12;  // iba-facts 4: OpenSM default packet life
constexpr uint64_t kMaskLid = 1ull << 0;
constexpr uint64_t kMaskDlid = 1ull << 4, kMaskSlid = 1ull << 5;

// h0..h3 (GUID 0x100..0x400), sw0 (0x500), sw1 (0x600); h0, h1 on sw0 ports 1,
// 2; h2, h3 on sw1 ports 1, 2; sw0.p3 <-> sw1.p3 is QDR 4x (slower than the
// HDR 4x host links); port 4 of each switch unlinked; h2's port has MTUCap
// 2048. LIDs by hand: h0..h3 = 1..4, sw0 = 5, sw1 = 6; LFTs by hand.
mgmt::SubnetView small_view() {
  topology::Topology t;
  const char* names[] = {"h0", "h1", "h2", "h3", "sw0", "sw1"};
  for (unsigned i = 0; i < 6; ++i) {
    topology::TopoNode n;
    n.name = names[i];
    n.kind = i < 4 ? NodeKind::Hca : NodeKind::Switch;
    n.ports = i < 4 ? 1 : 4;
    n.guid = 0x100u * (i + 1);
    t.nodes.push_back(n);
  }
  t.links = {{{0, 1}, {4, 1}, {}}, {{1, 1}, {4, 2}, {}}, {{2, 1}, {5, 1}, {}}, {{3, 1}, {5, 2}, {}},
             {{4, 3}, {5, 3}, {link::Speed::Qdr, link::Width::X4, std::nullopt}}};
  routing::Lids lids;
  lids.lmc = 0;
  lids.base = {{1}, {2}, {3}, {4}, {5}, {6}};
  lids.top = 6;
  lids.owner = {{topology::kNoNode, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 0}, {5, 0}};
  routing::Routes routes;
  routes.lft.resize(6);
  routes.lft[4] = {routing::kNoPath, 1, 2, 3, 3, 0, 3};
  routes.lft[5] = {routing::kNoPath, 3, 3, 1, 2, 3, 0};
  mgmt::SubnetView v = sa_fixture::make_view(t, lids, routes);
  v.nodes[2].port_info[1].mtu_cap = kMtu2048;
  v.nodes[2].port_info[1].neighbor_mtu = kMtu2048;
  v.nodes[5].port_info[1].neighbor_mtu = kMtu2048;
  v.path_sl = kPathSl;
  v.packet_life = kPacketLife;
  return v;
}

template <typename Record>
bool get_one(const SaDatabase& db, uint64_t mask, const Record& tmpl, Record& out) {
  uint8_t body[Record::kBytes];
  tmpl.encode(body);
  SaRecord r;
  if (db.get(Record::kAttrId, mask, body, sizeof body, r) != SaDbStatus::Ok) return false;
  out.decode(r.body.data());
  return true;
}

ib::PathRecord path(const SaDatabase& db, uint16_t slid, uint16_t dlid) {
  ib::PathRecord t, r;
  t.slid = slid;
  t.dlid = dlid;
  REQUIRE(get_one(db, kMaskDlid | kMaskSlid, t, r));
  return r;
}

}  // namespace

TEST_CASE("SA fill of a small fabric gives one record per node port link direction and port pair",
          "[mgmt][sa_population]") {
  const mgmt::SubnetView v = small_view();
  SaDatabase db;
  const mgmt::SaFillStats st = mgmt::fill_sa_database(db, v);
  // NodeRecords: one per HCA port (4) + one per switch (2).
  CHECK(st.node_records == 6);
  CHECK(db.size(ib::kAttrNodeRecord) == 6);
  // PortInfoRecords: 4 HCA ports + 2 switches x ports 0..4.
  CHECK(st.port_info_records == 14);
  CHECK(db.size(ib::kAttrPortInfoRecord) == 14);
  // LinkRecords: 5 links x 2 directions.
  CHECK(st.link_records == 10);
  CHECK(db.size(ib::kAttrLinkRecord) == 10);
  // SL2VL: 2 switches x (inputs 0..4 x outputs 1..4) + 4 HCA ports.
  CHECK(st.sl2vl_records == 44);
  // VLArb: 4 blocks x (2 switches x 4 ports + 4 HCA ports).
  CHECK(st.vlarb_records == 48);
  // PathRecords: 4 ports x 3 others.
  CHECK(st.path_records == 12);
  CHECK(db.size(ib::kAttrPathRecord) == 12);
  CHECK(st.unreachable_pairs == 0);
  CHECK(st.non_reversible == 0);
  CHECK(st.errors == 0);
  // Hops: h0-h1 and h2-h3 (both ways) cross 1 switch, the other 8 pairs 2.
  CHECK(st.path_hops == 4 * 1 + 8 * 2);
  CHECK(st.max_hops == 2);
}

TEST_CASE("SA NodeRecord LinkRecord PortInfoRecord SL2VL and VLArb contents", "[mgmt][sa_population]") {
  const mgmt::SubnetView v = small_view();
  SaDatabase db;
  mgmt::fill_sa_database(db, v);

  ib::NodeRecord nt, nr;
  nt.lid = 3;  // h2
  REQUIRE(get_one(db, kMaskLid, nt, nr));
  CHECK(nr.node_info.node_guid == 0x300);
  CHECK(nr.node_info.port_guid == 0x301);
  CHECK(nr.node_info.node_type == ib::kNodeTypeCa);
  CHECK(nr.node_desc.text == "h2");
  nt.lid = 6;  // sw1
  REQUIRE(get_one(db, kMaskLid, nt, nr));
  CHECK(nr.node_info.node_guid == 0x600);
  CHECK(nr.node_info.port_guid == 0x600);
  CHECK(nr.node_info.node_type == ib::kNodeTypeSwitch);

  // The slow link, both directions, from the switches' LIDs.
  ib::LinkRecord lt, lr;
  lt.from_lid = 5;
  lt.from_port = 3;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1), lt, lr));
  CHECK(lr.to_lid == 6);
  CHECK(lr.to_port == 3);
  lt.from_lid = 6;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1), lt, lr));
  CHECK(lr.to_lid == 5);
  CHECK(lr.to_port == 3);
  // An HCA link: from h0 (LID 1) port 1 to sw0 (LID 5) port 1.
  lt.from_lid = 1;
  lt.from_port = 1;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1), lt, lr));
  CHECK(lr.to_lid == 5);
  CHECK(lr.to_port == 1);

  // A switch's external port carries the switch's LID as EndPortLID.
  ib::PortInfoRecord pt, pr;
  pt.end_port_lid = 6;
  pt.port_num = 1;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1), pt, pr));
  CHECK(pr.port_info.mtu_cap == kMtu4096);
  CHECK(pr.port_info.neighbor_mtu == kMtu2048);
  pt.end_port_lid = 3;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1), pt, pr));
  CHECK(pr.port_info.mtu_cap == kMtu2048);
  CHECK(pr.port_info.lid == 3);

  // SL2VL: SL15 -> VL7 in the OpenSM default table (iba-facts 7).
  ib::Sl2VlRecord st, sr;
  st.lid = 5;
  st.in_port = 1;
  st.out_port = 3;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1) | (1ull << 2), st, sr));
  CHECK(sr.table.vl[15] == 7);
  CHECK(sr.table.vl[3] == 3);
  st.lid = 4;  // h3's port: input 0, output 1
  st.in_port = 0;
  st.out_port = 1;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1) | (1ull << 2), st, sr));

  // VLArb: low block 1 entry 1 = VL1 weight 4; high block 3 entry 0 = VL0
  // weight 4; block 2 (low 32-63) is past the 15-entry table: zero.
  ib::VlArbRecord at, ar;
  at.lid = 5;
  at.out_port = 2;
  at.block = ib::kVlArbLowFirst;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1) | (1ull << 2), at, ar));
  CHECK(ar.table.entry[1].vl == 1);
  CHECK(ar.table.entry[1].weight == 4);
  at.block = ib::kVlArbHighFirst;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1) | (1ull << 2), at, ar));
  CHECK(ar.table.entry[0].vl == 0);
  CHECK(ar.table.entry[0].weight == 4);
  at.block = ib::kVlArbLowSecond;
  REQUIRE(get_one(db, kMaskLid | (1ull << 1) | (1ull << 2), at, ar));
  CHECK(ar.table.entry[0].weight == 0);
}

TEST_CASE("SA PathRecord carries the SL and the slow link and small MTU of its path", "[mgmt][sa_population]") {
  const mgmt::SubnetView v = small_view();
  SaDatabase db;
  mgmt::fill_sa_database(db, v);

  // h0 -> h2 crosses the QDR 4x link and ends on the 2048-byte port.
  const ib::PathRecord p = path(db, 1, 3);
  CHECK(p.sl == kPathSl);
  CHECK(p.rate == kRate40);
  CHECK(p.mtu == kMtu2048);
  CHECK(p.rate_selector == kSelExactly);
  CHECK(p.mtu_selector == kSelExactly);
  CHECK(p.pkt_life_selector == kSelExactly);
  CHECK(p.pkt_life == kPacketLife);
  CHECK(p.pkey == 0xFFFF);
  CHECK(p.reversible);
  CHECK(p.hop_limit == 0);
  CHECK(p.preference == 0);
  CHECK(ib::get_be64(p.sgid.data()) == 0xFE80000000000000ull);
  CHECK(ib::get_be64(p.sgid.data() + 8) == 0x101);
  CHECK(ib::get_be64(p.dgid.data() + 8) == 0x301);
  // The way back: same limits.
  const ib::PathRecord back = path(db, 3, 1);
  CHECK(back.rate == kRate40);
  CHECK(back.mtu == kMtu2048);
  // h0 -> h1 stays on sw0: HDR 4x, 4096.
  const ib::PathRecord near = path(db, 1, 2);
  CHECK(near.rate == kRate200);
  CHECK(near.mtu == kMtu4096);
  CHECK(near.sl == kPathSl);
  // h3 -> h0 crosses the slow link but no small-MTU port.
  const ib::PathRecord far = path(db, 4, 1);
  CHECK(far.rate == kRate40);
  CHECK(far.mtu == kMtu4096);

  // The helper builds the same record without the database.
  const auto between = mgmt::path_records_between(v, LinkEnd{0, 1}, LinkEnd{2, 1});
  REQUIRE(between.size() == 1);
  uint8_t a[ib::PathRecord::kBytes], b[ib::PathRecord::kBytes];
  between[0].encode(a);
  p.encode(b);
  CHECK(std::equal(a, a + sizeof a, b));
}

TEST_CASE("SA PathRecord rate of a link without LinkParams comes from PortInfo", "[mgmt][sa_population]") {
  mgmt::SubnetView v = small_view();
  v.topology.links[4].params = {};  // the switch-to-switch link
  // PortInfo: LinkSpeedActive QDR (4, no extended speed), LinkWidthActive 4x (2)
  // (OpenSM IB_LINK_SPEED_ACTIVE_10, IB_LINK_WIDTH_ACTIVE_4X).
  for (unsigned sw : {4u, 5u}) {
    ib::PortInfo& pi = v.nodes[sw].port_info[3];
    pi.link_speed_active = 4;
    pi.link_speed_ext_active = 0;
    pi.link_width_active = 2;
  }
  SaDatabase db;
  mgmt::fill_sa_database(db, v);
  CHECK(path(db, 1, 4).rate == kRate40);
  CHECK(path(db, 1, 2).rate == kRate200);
  // HDR is an extended speed (LinkSpeedExtActive 4): HDR 4x.
  ib::PortInfo hdr;
  hdr.link_speed_ext_active = 4;
  hdr.link_width_active = 2;
  const auto r = mgmt::active_link_rate(hdr);
  REQUIRE(r);
  CHECK(r->speed == link::Speed::Hdr);
  CHECK(r->width == link::Width::X4);
}

TEST_CASE("SA fill leaves out unreachable pairs and marks one-way paths not reversible", "[mgmt][sa_population]") {
  mgmt::SubnetView v = small_view();
  v.routes.lft[5][1] = routing::kNoPath;  // sw1 no longer routes h0's LID
  SaDatabase db;
  const mgmt::SaFillStats st = mgmt::fill_sa_database(db, v);
  CHECK(st.unreachable_pairs == 2);  // h2 -> h0, h3 -> h0
  CHECK(st.path_records == 10);
  CHECK(db.size(ib::kAttrPathRecord) == 10);
  ib::PathRecord t, r;
  t.slid = 3;
  t.dlid = 1;
  CHECK_FALSE(get_one(db, kMaskDlid | kMaskSlid, t, r));
  CHECK_FALSE(path(db, 1, 3).reversible);  // h0 -> h2 exists, h2 -> h0 does not
  CHECK(path(db, 1, 2).reversible);
  CHECK(st.non_reversible == 2);           // h0 -> h2, h0 -> h3
}

TEST_CASE("SA fill gives no PathRecord along a forwarding loop", "[mgmt][sa_population]") {
  mgmt::SubnetView v = small_view();
  v.routes.lft[5][3] = 3;  // sw1 sends h2's LID back to sw0, which sends it to sw1
  SaDatabase db;
  const mgmt::SaFillStats st = mgmt::fill_sa_database(db, v);
  CHECK(st.unreachable_pairs == 3);  // h0, h1, h3 -> h2
  CHECK(st.path_records == 9);
  const topology::TopologyIndex index(v.topology);
  for (unsigned s : {0u, 1u, 3u}) {
    CHECK_FALSE(routing::trace_path(v.topology, index, v.lids, v.routes, LinkEnd{s, 1}, 3).ok);
    CHECK(mgmt::path_records_between(v, LinkEnd{s, 1}, LinkEnd{2, 1}).empty());
  }
}

TEST_CASE("SA tables are keyed so that setting a record again replaces it", "[mgmt][sa_population]") {
  const mgmt::SubnetView v = small_view();
  SaDatabase db;
  mgmt::fill_sa_database(db, v);
  // Per table: a byte outside the key fields, and a byte inside them.
  struct Case {
    uint16_t attr;
    size_t non_key_byte;
    size_t key_byte;
  };
  const Case cases[] = {
      {ib::kAttrNodeRecord, 4 + 40 + 1, 1},    // NodeDescription / LID
      {ib::kAttrPortInfoRecord, 4 + 7, 2},     // M_Key / PortNum
      {ib::kAttrLinkRecord, 3, 2},             // ToPort / FromPort
      {ib::kAttrPathRecord, 53, 41},           // SL / DLID
      {ib::kAttrSl2VlRecord, 8, 3},            // table / OutputPortNum
      {ib::kAttrVlArbRecord, 9, 3},            // table / BlockNumber
  };
  for (const Case& c : cases) {
    INFO("attribute " << c.attr);
    SaRecord first;
    REQUIRE(db.get_by_rid(c.attr, 1, first) == SaDbStatus::Ok);
    const size_t n = db.size(c.attr);
    std::vector<uint8_t> body = first.body;
    body[c.non_key_byte] ^= 0x0F;
    uint32_t rid = 0;
    REQUIRE(db.set(c.attr, body.data(), body.size(), &rid) == SaDbStatus::Ok);
    CHECK(rid == 1);
    CHECK(db.size(c.attr) == n);
    body[c.key_byte] ^= 0x40;
    REQUIRE(db.set(c.attr, body.data(), body.size(), &rid) == SaDbStatus::Ok);
    CHECK(rid != 1);
    CHECK(db.size(c.attr) == n + 1);
  }
}

TEST_CASE("SA fill twice from the same view leaves the same database", "[mgmt][sa_population]") {
  const mgmt::SubnetView v = small_view();
  SaDatabase a, b;
  mgmt::fill_sa_database(a, v);
  mgmt::fill_sa_database(b, v);
  mgmt::fill_sa_database(b, v);
  CHECK(mgmt::first_difference(a, b).empty());
}

TEST_CASE("SA rate enum of each link follows the IBA PathRecord rate table", "[mgmt][sa_population]") {
  using link::Speed;
  using link::Width;
  // IB_PATH_RECORD_RATE_*: 2 = 2.5, 3 = 10, 4 = 30, 5 = 5, 6 = 20, 7 = 40, 11 = 14,
  // 12 = 56, 15 = 25, 16 = 100, 17 = 200, 19 = 28, 20 = 50, 21 = 400, 22 = 600.
  CHECK(mgmt::rate_code(Speed::Sdr, Width::X1) == 2);
  CHECK(mgmt::rate_code(Speed::Sdr, Width::X4) == 3);
  CHECK(mgmt::rate_code(Speed::Sdr, Width::X12) == 4);
  CHECK(mgmt::rate_code(Speed::Ddr, Width::X1) == 5);
  CHECK(mgmt::rate_code(Speed::Ddr, Width::X4) == 6);
  CHECK(mgmt::rate_code(Speed::Qdr, Width::X4) == 7);
  CHECK(mgmt::rate_code(Speed::Fdr, Width::X1) == 11);
  CHECK(mgmt::rate_code(Speed::Fdr, Width::X4) == 12);
  CHECK(mgmt::rate_code(Speed::Fdr, Width::X2) == 19);
  CHECK(mgmt::rate_code(Speed::Edr, Width::X1) == 15);
  CHECK(mgmt::rate_code(Speed::Edr, Width::X4) == 16);
  CHECK(mgmt::rate_code(Speed::Edr, Width::X2) == 20);
  CHECK(mgmt::rate_code(Speed::Hdr, Width::X4) == 17);
  CHECK(mgmt::rate_code(Speed::Hdr, Width::X12) == 22);
  CHECK(mgmt::rate_code(Speed::Ndr, Width::X4) == 21);
  CHECK(mgmt::rate_code(Speed::Ndr, Width::X1) == 16);
  CHECK(mgmt::rate_code_gbps(7) == 40.0);
  CHECK(mgmt::rate_code_gbps(15) == 25.0);
  // Every speed x width has one.
  for (Speed s : {Speed::Sdr, Speed::Ddr, Speed::Qdr, Speed::Fdr, Speed::Edr, Speed::Hdr, Speed::Ndr})
    for (Width w : {Width::X1, Width::X2, Width::X4, Width::X8, Width::X12}) CHECK(mgmt::rate_code(s, w) != 0);
}

namespace {

mgmt::SubnetView fat_tree_view(unsigned k, unsigned levels, unsigned lmc) {
  const topology::Topology t = topology::fat_tree_topology(k, levels);
  REQUIRE(topology::check_topology(t).empty());
  const routing::Lids lids = routing::assign_lids(t, lmc);
  const routing::Routes routes = routing::compute_routes(t, lids, routing::RoutingConfig{});
  return sa_fixture::make_view(t, lids, routes);
}

}  // namespace

TEST_CASE("SA fill of a 3-level fat tree has N x (N-1) x 4^LMC PathRecords with trace_path hop counts",
          "[mgmt][sa_population]") {
  const unsigned k = 4, lmc = 1;
  const mgmt::SubnetView v = fat_tree_view(k, 3, lmc);
  const size_t hosts = k * k * k;
  SaDatabase db;
  const mgmt::SaFillStats st = mgmt::fill_sa_database(db, v);
  const size_t per_port = size_t{1} << lmc;
  CHECK(st.path_records == hosts * (hosts - 1) * per_port * per_port);
  CHECK(db.size(ib::kAttrPathRecord) == st.path_records);
  CHECK(st.unreachable_pairs == 0);
  CHECK(st.non_reversible == 0);

  // Every (source port, DLID): the tracer agrees with trace_path, and a k-ary
  // 3-tree path crosses 1 switch under one leaf, 3 inside a pod of k^2 hosts,
  // else 5.
  mgmt::PathTracer tracer(v);
  const topology::TopologyIndex index(v.topology);
  uint64_t hops_sum = 0;
  size_t checked = 0;
  for (unsigned d = 0; d < hosts; ++d) {
    for (unsigned off = 0; off < per_port; ++off) {
      const uint16_t dlid = static_cast<uint16_t>(v.lids.base[d][0] + off);
      tracer.set_destination(dlid);
      for (unsigned s = 0; s < hosts; ++s) {
        if (s == d) continue;
        const routing::Path tp = routing::trace_path(v.topology, index, v.lids, v.routes, LinkEnd{s, 1}, dlid);
        const mgmt::PathParams pp = tracer.from(LinkEnd{s, 1});
        REQUIRE(tp.ok);
        REQUIRE(pp.ok);
        REQUIRE(pp.hops == tp.hops.size());
        const unsigned expect = s / k == d / k ? 1 : s / (k * k) == d / (k * k) ? 3 : 5;
        REQUIRE(pp.hops == expect);
        CHECK(pp.rate == kRate200);
        CHECK(pp.mtu == kMtu4096);
        hops_sum += tp.hops.size() * per_port;  // one record per source LID
        ++checked;
      }
    }
  }
  CHECK(checked == hosts * (hosts - 1) * per_port);
  CHECK(st.path_hops == hops_sum);
  CHECK(st.max_hops == 5);

  // One record read back: SL and LIDs as given.
  const ib::PathRecord p = path(db, v.lids.base[0][0], static_cast<uint16_t>(v.lids.base[hosts - 1][0] + 1));
  CHECK(p.sl == v.path_sl);
  CHECK(p.preference == 2);  // source offset 0, destination offset 1
}

TEST_CASE("SA fill time for a 1024-host fat tree", "[.bench][mgmt][sa_population]") {
  const mgmt::SubnetView v = fat_tree_view(32, 2, 0);  // 1,024 hosts, 64 switches
  SaDatabase db;
  const auto t0 = std::chrono::steady_clock::now();
  const mgmt::SaFillStats st = mgmt::fill_sa_database(db, v);
  const auto t1 = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(t1 - t0).count();
  std::printf("SA fill, 1024 hosts: %zu PathRecords, %zu records in all, %.3f s (%.0f ns per PathRecord)\n",
              st.path_records, db.total_records(), s, 1e9 * s / static_cast<double>(st.path_records));
  CHECK(st.path_records == 1024u * 1023u);

  // The path computation alone (no records), for comparison.
  mgmt::PathTracer tracer(v);
  uint64_t hops = 0;
  const auto t2 = std::chrono::steady_clock::now();
  for (unsigned d = 0; d < 1024; ++d) {
    tracer.set_destination(v.lids.base[d][0]);
    for (unsigned s = 0; s < 1024; ++s)
      if (s != d) hops += tracer.from(LinkEnd{s, 1}).hops;
  }
  const auto t3 = std::chrono::steady_clock::now();
  std::printf("paths alone: %.3f s\n", std::chrono::duration<double>(t3 - t2).count());
  CHECK(hops == st.path_hops);
}

TEST_CASE("PathRecords carry the SL lash hands out for each pair, the QoS SL without it", "[mgmt][sa_population]") {
  const topology::Topology t = topology::mesh_topology(4, 4, 1, true);
  const routing::Lids lids = routing::assign_lids(t, 0);
  routing::RoutingConfig lash;
  lash.algorithm = routing::RoutingAlgorithm::Lash;
  const routing::Routes routes = routing::compute_routes(t, lids, lash);
  REQUIRE(routes.sls.layers == 2);  // a 4x4 torus needs two layers (OpenSM's log, oracle test)
  mgmt::SubnetView v = sa_fixture::make_view(t, lids, routes);
  v.path_sl = 5;  // the QoS SL: lash's per-pair SL takes its place
  const topology::TopologyIndex index(t);
  std::set<unsigned> seen;
  for (unsigned s = 0; s < t.nodes.size(); ++s)
    for (unsigned d = 0; d < t.nodes.size(); ++d) {
      if (s == d || t.nodes[s].kind != topology::NodeKind::Hca || t.nodes[d].kind != topology::NodeKind::Hca) continue;
      const std::vector<ib::PathRecord> records = mgmt::path_records_between(v, LinkEnd{s, 1}, LinkEnd{d, 1});
      REQUIRE(records.size() == 1);
      CHECK(records[0].sl == routing::path_sl(t, index, lids, routes, records[0].slid, records[0].dlid));
      seen.insert(records[0].sl);
    }
  CHECK(seen == std::set<unsigned>{0, 1});  // both layers in use
  // The same fabric under min-hop: every record has the QoS SL.
  v.routes = routing::compute_routes(t, lids, routing::RoutingConfig{});
  std::vector<unsigned> hcas;
  for (unsigned n = 0; n < t.nodes.size(); ++n)
    if (t.nodes[n].kind == topology::NodeKind::Hca) hcas.push_back(n);
  for (unsigned d : hcas)
    if (d != hcas[0]) CHECK(mgmt::path_records_between(v, LinkEnd{hcas[0], 1}, LinkEnd{d, 1}).at(0).sl == 5);
}
