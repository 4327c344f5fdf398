// The master SA keeps a standby SA current with SubnAdmConfig (seeds/003) on
// a 32-host torus brought up in band: Add of every table after the sweep,
// then an Edit and a Delete of PathRecords, each applied to the master's
// database too; the standby ends equal to the master after each, a Config of
// more than 64 packets pauses at the window, and a Config from a port that is
// not the master is refused.

#include <catch2/catch.hpp>

#include <systemc>

#include <filesystem>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/ib/mad.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/trace/packet_capture.hpp"
#include "testbench/tests/mgmt/pcap_mads.hpp"
#include "testbench/tests/scratch_dir.hpp"

using namespace hcasim;
using mgmt::test::CapturedMad;

namespace {

constexpr size_t kPathBody = 64;
constexpr size_t kData = 192;           // seeds/000: Admin Data Area
constexpr uint32_t kConfigWindow = 64;  // seeds/000: the default Config window
constexpr unsigned kTables = 6;         // Node, PortInfo, SL2VL, Link, Path, VLArb
constexpr uint64_t kSlBit = 1ull << 15; // PathRecord ComponentMask: SL (OpenSM IB_PR_COMPMASK_SL)

// The port at the other end of p's link, as the fabric holds it.
link::Port* peer_of(const fabric::Fabric& f, const link::Port& p) {
  for (link::Port* q : f.ports())
    if (q == p.peer()) return q;
  return nullptr;
}

}  // namespace

TEST_CASE("The master SA keeps a standby current with SubnAdmConfig add edit and delete of more than 64 packets", "[mgmt][sanode]") {
  ib::PacketPool pool;
  const config::Scenario s = config::load_scenario(
      {{"topology", {{"pattern", "torus"}, {"x", 4}, {"y", 4}, {"hosts_per_switch", 2}}}});
  config::FabricSpec spec = config::route_fabric(s).spec;
  std::vector<unsigned> hcas;
  for (unsigned i = 0; i < spec.nodes.size(); ++i)
    if (spec.nodes[i].kind == topology::NodeKind::Hca) hcas.push_back(i);
  REQUIRE(hcas.size() == 32);
  spec.management.in_band = true;
  spec.management.sm.subnet_timeout = 10;
  spec.management.sm_node = hcas[0];
  spec.management.has_standby = true;
  spec.management.standby_node = hcas[1];
  fabric::Fabric f(spec, pool);
  mgmt::SaAgent& master = *f.sa_agent(hcas[0]);
  mgmt::SaAgent& standby = *f.sa_agent(hcas[1]);
  mgmt::SaAgent& other = *f.sa_agent(hcas.back());
  link::Port& mp = *f.find_port(spec.nodes[hcas[0]].name + ".p1");

  std::vector<std::string> diffs;  // first_difference after the adds, the edit, the delete, the refusal
  uint64_t path_add_tid = 0, delete_tid = 0;
  size_t deleted_packets = 0;
  std::vector<mgmt::SaCompletion> refused;
  mgmt::SaDatabase before_refusal;
  f.on_sa_sync([&](const mgmt::SaCompletion& c) {
    const std::vector<mgmt::SaCompletion>& all = f.sa_sync_completions();
    if (c.attr_id == ib::kAttrPathRecord && all.size() <= kTables) path_add_tid = c.tid;
    if (all.size() == kTables) {
      diffs.push_back(mgmt::first_difference(master.database(), standby.database()));
      // Edit: SL 5 in PathRecords 1..992 (one body of new field values).
      std::vector<uint8_t> body(kPathBody, 0);
      body[53] = 5;
      REQUIRE(master.database().config_edit(ib::kAttrPathRecord, 1, 992, kSlBit, body.data(), body.size()) ==
              mgmt::SaDbStatus::Ok);
      master.config(ib::EditModifier::Edit, ib::kAttrPathRecord, body, 1, 992, kSlBit);
    } else if (all.size() == kTables + 1) {
      diffs.push_back(mgmt::first_difference(master.database(), standby.database()));
      // Delete: the first 300 PathRecords, RID + body each (300 x 68 bytes: 107 packets).
      std::vector<mgmt::SaRecord> recs;
      master.database().get_table(ib::kAttrPathRecord, 0, nullptr, 0, recs);
      std::vector<uint8_t> data;
      for (size_t i = 0; i < 300; ++i) mgmt::append_sa_record(data, recs[i].rid, recs[i].body.data(), kPathBody);
      deleted_packets = (data.size() + kData - 1) / kData;
      REQUIRE(master.database().config_delete(ib::kAttrPathRecord, data.data(), data.size()) ==
              mgmt::SaDbStatus::Ok);
      delete_tid = master.config(ib::EditModifier::Delete, ib::kAttrPathRecord, data, 0, 0, 0);
    } else if (all.size() == kTables + 2) {
      diffs.push_back(mgmt::first_difference(master.database(), standby.database()));
      before_refusal = standby.database();
      // The same kind of Config from another HCA's port: 400 PathRecord bodies (134 packets).
      mgmt::SaClientConfig cc = other.client()->config();
      cc.sa.lid = standby.lid();
      cc.tid_base |= mgmt::kPeerTidBit;
      other.start_peer_client(cc);
      other.set_peer_callback([&](const mgmt::SaCompletion& r) {
        refused.push_back(r);
        diffs.push_back(mgmt::first_difference(before_refusal, standby.database()));
      });
      std::vector<mgmt::SaRecord> recs;
      master.database().get_table(ib::kAttrPathRecord, 0, nullptr, 0, recs);
      std::vector<uint8_t> bodies;
      for (size_t i = 0; i < 400; ++i) bodies.insert(bodies.end(), recs[i].body.begin(), recs[i].body.end());
      other.config(ib::EditModifier::Add, ib::kAttrPathRecord, bodies, 0, 0, 0);
    }
  });

  const hcasim::test::ScratchDir dir("sanode-sync");
  const std::string path = dir.file("capture.pcap");
  {
    trace::PacketCapture cap(path, {&mp, peer_of(f, mp)});
    sc_core::sc_start();
  }
  REQUIRE(f.subnet_manager()->done());
  const std::vector<mgmt::SaCompletion>& all = f.sa_sync_completions();
  REQUIRE(all.size() == kTables + 2);
  for (const mgmt::SaCompletion& c : all) {
    INFO("attr " << c.attr_id << " " << mgmt::to_string(c.result) << " status " << c.status);
    REQUIRE(c.result == mgmt::SaResult::Ok);
  }
  REQUIRE(diffs.size() == 4);
  CHECK(diffs[0] == "");  // after the Adds
  CHECK(diffs[1] == "");  // after the Edit
  CHECK(diffs[2] == "");  // after the Delete
  CHECK(diffs[3] == "");  // the refused Config changed nothing
  REQUIRE(master.database() == standby.database());
  REQUIRE(master.database().size(ib::kAttrPathRecord) == 992 - 300);
  REQUIRE(refused.size() == 1);
  REQUIRE(refused[0].result == mgmt::SaResult::Status);
  REQUIRE(refused[0].status == ib::kSaStatusDenied);

  // The PathRecord Add on the wire: 992 x 64 bytes = 63488 in 331 packets;
  // the SA Acks at 64, 128, ... and at the Last one; the requester sends
  // segment s > 64k only after the Ack of 64k. The Delete likewise.
  const std::vector<CapturedMad> mads = mgmt::test::read_pcap_mads(path);
  auto check_series = [&](uint64_t tid, size_t total) {
    const uint32_t n = static_cast<uint32_t>((total + kData - 1) / kData);
    std::vector<const CapturedMad*> data, acks;
    for (const CapturedMad& m : mads) {
      if (m.mad.hdr.tid != tid) continue;
      if (m.slid == master.lid() && m.mad.hdr.method == ib::kMethodConfig &&
          (m.mad.fragment_flag & (ib::kFragAck | ib::kFragResend)) == 0)
        data.push_back(&m);
      if (m.dlid == master.lid() && m.mad.hdr.method == ib::kMethodConfigResp && m.mad.fragment_flag == ib::kFragAck)
        acks.push_back(&m);
    }
    REQUIRE(data.size() == n);
    for (uint32_t s = 1; s <= n; ++s) {
      INFO("segment " << s);
      REQUIRE(data[s - 1]->mad.segment == s);
      REQUIRE(((data[s - 1]->mad.fragment_flag & ib::kFragFirst) != 0) == (s == 1));
      REQUIRE(((data[s - 1]->mad.fragment_flag & ib::kFragLast) != 0) == (s == n));
      if (s == 1) REQUIRE(data[0]->mad.payload_length == total);
    }
    std::vector<uint32_t> want;
    for (uint32_t s = kConfigWindow; s < n; s += kConfigWindow) want.push_back(s);
    want.push_back(n);
    REQUIRE(acks.size() == want.size());
    for (size_t i = 0; i < acks.size(); ++i) REQUIRE(acks[i]->mad.segment == want[i]);
    for (uint32_t s = kConfigWindow + 1; s <= n; ++s) {
      INFO("segment " << s);
      REQUIRE(data[s - 1]->t_ns > acks[(s - 1) / kConfigWindow - 1]->t_ns);
    }
    return n;
  };
  REQUIRE(check_series(path_add_tid, 992 * kPathBody) == 331);
  REQUIRE(check_series(delete_tid, 300 * (4 + kPathBody)) == deleted_packets);
  REQUIRE(deleted_packets == 107);
}
