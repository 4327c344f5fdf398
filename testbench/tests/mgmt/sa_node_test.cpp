// The SA on a fabric brought up in band (mgmt/sa_node.hpp, the builder's SA
// wiring): a 32-host torus (4 x 4 switches, 2 hosts each), the SM on the first
// HCA. What goes on the wire is read back from a pcap capture of the client's
// link (both directions) and checked against seeds/000 and seeds/003.

#include <catch2/catch.hpp>

#include <systemc>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/ib/mad.hpp"
#include "models/link/fault_injector.hpp"
#include "models/mgmt/sa_node.hpp"
#include "models/trace/packet_capture.hpp"
#include "testbench/tests/mgmt/pcap_mads.hpp"
#include "testbench/tests/scratch_dir.hpp"

using namespace hcasim;
using mgmt::test::CapturedMad;

namespace {

constexpr unsigned kHosts = 32;
constexpr uint64_t kUnitNs = 4096;          // seeds/000: 4.096 us
constexpr size_t kPathBody = 64;            // PathRecord, 64 bytes
constexpr size_t kRid = 4;                  // RID in front of each record of an answer
constexpr size_t kData = 192;               // seeds/000: Admin Data Area

config::FabricSpec torus32(uint8_t subnet_timeout) {
  const config::Scenario s = config::load_scenario(
      {{"topology", {{"pattern", "torus"}, {"x", 4}, {"y", 4}, {"hosts_per_switch", 2}}}});
  config::FabricSpec spec = config::route_fabric(s).spec;
  spec.management.in_band = true;
  spec.management.sm.subnet_timeout = subnet_timeout;
  spec.management.sm_node = UINT32_MAX;
  for (unsigned i = 0; i < spec.nodes.size(); ++i)
    if (spec.nodes[i].kind == topology::NodeKind::Hca && spec.management.sm_node == UINT32_MAX)
      spec.management.sm_node = i;
  return spec;
}

std::vector<unsigned> hca_nodes(const config::FabricSpec& spec) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < spec.nodes.size(); ++i)
    if (spec.nodes[i].kind == topology::NodeKind::Hca) out.push_back(i);
  return out;
}

// The port at the other end of p's link, as the fabric holds it.
link::Port* peer_of(const fabric::Fabric& f, const link::Port& p) {
  for (link::Port* q : f.ports())
    if (q == p.peer()) return q;
  return nullptr;
}

link::Port& port_of(fabric::Fabric& f, unsigned node) { return *f.find_port(f.spec().nodes[node].name + ".p1"); }

bool is_data(const ib::SaMad& m) { return (m.fragment_flag & (ib::kFragAck | ib::kFragKeepAlive | ib::kFragResend)) == 0; }

std::vector<uint8_t> master_table(fabric::Fabric& f, uint16_t attr) {
  std::vector<uint8_t> out;
  f.sa_agent(f.spec().management.sm_node)->database().encode_table(attr, 0, nullptr, 0, out);
  return out;
}

// A GetTable of all PathRecords from the last HCA, captured on its link.
struct GetTableRun {
  std::vector<mgmt::SaCompletion> done;
  uint64_t tid = 0;
  uint16_t client_lid = 0;
  std::vector<CapturedMad> mads;  // of this TID
  std::vector<uint8_t> expected;  // the master's PathRecord table, RID + body
};

GetTableRun run_get_table(const std::string& name, uint16_t window, std::optional<link::DropRule> drop) {
  ib::PacketPool pool;
  config::FabricSpec spec = torus32(10);
  spec.management.sa_client.window = window;
  REQUIRE(hca_nodes(spec).size() == kHosts);
  fabric::Fabric f(spec, pool);
  const unsigned cn = hca_nodes(spec).back();
  link::Port& cp = port_of(f, cn);
  if (drop) {
    link::FaultConfig fc;
    fc.drops.push_back(*drop);
    cp.set_faults(fc);
  }
  GetTableRun r;
  const hcasim::test::ScratchDir dir("sanode-" + name);
  const std::string path = dir.file("capture.pcap");
  {
    trace::PacketCapture cap(path, {&cp, peer_of(f, cp)});
    f.on_sweep_done([&] {
      mgmt::SaAgent* a = f.sa_agent(cn);
      a->set_callback([&](const mgmt::SaCompletion& c) { r.done.push_back(c); });
      r.tid = a->get_table(ib::kAttrPathRecord, 0, {});
    });
    sc_core::sc_start();
  }
  REQUIRE(f.subnet_manager()->done());
  r.client_lid = f.sa_agent(cn)->lid();
  r.expected = master_table(f, ib::kAttrPathRecord);
  for (const CapturedMad& m : mgmt::test::read_pcap_mads(path))
    if (m.mad.hdr.tid == r.tid) r.mads.push_back(m);
  return r;
}

}  // namespace

TEST_CASE("A GetTable of every PathRecord of a 32-host torus arrives as seeds 000 numbers it with an Ack per window", "[mgmt][sanode]") {
  const uint16_t window = 50;
  const GetTableRun r = run_get_table("gettable", window, std::nullopt);
  // seeds/004: a PathRecord per ordered pair of different ports: 32 x 31 = 992.
  const size_t total = 992 * (kRid + kPathBody);  // 67456 bytes
  const uint32_t n = (total + kData - 1) / kData;  // 352 segments
  const size_t last_bytes = total - (n - 1) * kData;  // 64
  REQUIRE(r.done.size() == 1);
  REQUIRE(r.done[0].result == mgmt::SaResult::Ok);
  REQUIRE(r.done[0].records == 992);
  REQUIRE(r.done[0].data == r.expected);
  REQUIRE(r.expected.size() == total);

  std::vector<const CapturedMad*> requests, acks, data;
  for (const CapturedMad& m : r.mads) {
    if (m.slid == r.client_lid) {
      REQUIRE(m.mad.hdr.method == ib::kMethodGetTable);
      if (m.mad.fragment_flag == ib::kFragAck) acks.push_back(&m);
      else requests.push_back(&m);
    } else {
      REQUIRE(m.dlid == r.client_lid);
      REQUIRE(m.mad.hdr.method == ib::kMethodGetTableResp);
      REQUIRE(is_data(m.mad));
      data.push_back(&m);
    }
  }
  // The request: a single packet (segment 0, Fragment Flag 0) with Window n.
  REQUIRE(requests.size() == 1);
  REQUIRE(requests[0]->mad.segment == 0);
  REQUIRE(requests[0]->mad.fragment_flag == 0);
  REQUIRE(requests[0]->mad.window == window);
  // The series: segments 1..N once each, First on 1, Last on N, Payload Length
  // the total on 1, the valid bytes on N, reserved (0) between.
  REQUIRE(data.size() == n);
  for (uint32_t s = 1; s <= n; ++s) {
    const ib::SaMad& m = data[s - 1]->mad;
    INFO("segment " << s);
    REQUIRE(m.segment == s);
    REQUIRE(((m.fragment_flag & ib::kFragFirst) != 0) == (s == 1));
    REQUIRE(((m.fragment_flag & ib::kFragLast) != 0) == (s == n));
    REQUIRE(m.payload_length == (s == 1 ? total : s == n ? last_bytes : 0));
    REQUIRE(m.window == window);
  }
  // Acks at each window end (50, 100, ... 350) and at N = 352.
  std::vector<uint32_t> want_acks;
  for (uint32_t s = window; s < n; s += window) want_acks.push_back(s);
  want_acks.push_back(n);
  REQUIRE(acks.size() == want_acks.size());
  for (size_t i = 0; i < acks.size(); ++i) {
    REQUIRE(acks[i]->mad.segment == want_acks[i]);
    REQUIRE(acks[i]->mad.window == window);
  }
  // The SA pauses at each window: segment s > k x window goes after the Ack of k x window.
  for (uint32_t s = window + 1; s <= n; ++s) {
    const size_t k = (s - 1) / window;  // Acks before this segment's window
    INFO("segment " << s);
    REQUIRE(data[s - 1]->t_ns > acks[k - 1]->t_ns);
  }
  WARN("GetTable of 992 PathRecords: " << n << " segments, " << acks.size() << " Acks, " <<
       (r.done[0].stats.end_ps - r.done[0].stats.start_ps) / 1e6 << " us");
}

TEST_CASE("A PathRecord segment lost on the client's link is asked for again with one Resend", "[mgmt][sanode]") {
  // The first copy of data segment 70 on the client's link (a MAD filter).
  link::DropRule rule;
  rule.mad.kind = link::MadKind::SaData;
  rule.mad.sa_segment = 70;
  const GetTableRun r = run_get_table("resend", ib::kDefaultSaWindow, rule);
  REQUIRE(r.done.size() == 1);
  REQUIRE(r.done[0].result == mgmt::SaResult::Ok);
  REQUIRE(r.done[0].records == 992);
  REQUIRE(r.done[0].data == r.expected);
  unsigned resends = 0, copies70 = 0;
  for (const CapturedMad& m : r.mads) {
    if (m.slid == r.client_lid && (m.mad.fragment_flag & ib::kFragResend) != 0) {
      ++resends;
      REQUIRE(m.mad.fragment_flag == ib::kFragResend);  // bit 3 (seeds/000 Table 33-11)
      REQUIRE(m.mad.segment == 70);
    }
    if (m.dlid == r.client_lid && is_data(m.mad) && m.mad.segment == 70) ++copies70;
  }
  REQUIRE(resends == 1);
  REQUIRE(copies70 == 2);  // the lost one and the resent one
}

TEST_CASE("A PathRecord segment lost every time ends the GetTable in an error after seven Resends", "[mgmt][sanode]") {
  link::DropRule rule;  // every copy of data segment 70, and nothing else
  rule.every = true;
  rule.mad.kind = link::MadKind::SaData;
  rule.mad.sa_segment = 70;
  const GetTableRun r = run_get_table("resend7", ib::kDefaultSaWindow, rule);
  REQUIRE(r.done.size() == 1);
  REQUIRE(r.done[0].result == mgmt::SaResult::Failed);
  unsigned resends = 0;
  for (const CapturedMad& m : r.mads)
    if (m.slid == r.client_lid && (m.mad.fragment_flag & ib::kFragResend) != 0) {
      ++resends;
      REQUIRE(m.mad.segment == 70);
    }
  REQUIRE(resends == 7);  // seeds/000: at most seven Resends for one missing packet
}

namespace {

struct SlowRun {
  mgmt::SaCompletion done;
  std::vector<CapturedMad> requests;  // request copies the client sent
  size_t keepalives = 0;
};

// A GetTable of NodeRecords to an SA that needs 2.5 Response Timeouts.
SlowRun run_slow(const std::string& name, uint8_t subnet_timeout, uint8_t resp_time, bool keepalives,
                 uint64_t response_timeout_ns) {
  ib::PacketPool pool;
  config::FabricSpec spec = torus32(subnet_timeout);
  spec.management.sa_server.resp_time_value = resp_time;
  spec.management.sa_server.keepalives = keepalives;
  spec.management.sa_server.processing_ps = response_timeout_ns * 1000 * 5 / 2;
  fabric::Fabric f(spec, pool);
  const unsigned cn = hca_nodes(spec).back();
  link::Port& cp = port_of(f, cn);
  std::vector<mgmt::SaCompletion> done;
  uint64_t tid = 0;
  const hcasim::test::ScratchDir dir("sanode-" + name);
  const std::string path = dir.file("capture.pcap");
  {
    trace::PacketCapture cap(path, {&cp, peer_of(f, cp)});
    f.on_sweep_done([&] {
      mgmt::SaAgent* a = f.sa_agent(cn);
      a->set_callback([&](const mgmt::SaCompletion& c) { done.push_back(c); });
      tid = a->get_table(ib::kAttrNodeRecord, 0, {});
    });
    sc_core::sc_start();
  }
  REQUIRE(done.size() == 1);
  SlowRun r;
  r.done = done[0];
  const uint16_t lid = f.sa_agent(cn)->lid();
  for (const CapturedMad& m : mgmt::test::read_pcap_mads(path)) {
    if (m.mad.hdr.tid != tid) continue;
    if (m.slid == lid && m.mad.fragment_flag == 0 && m.mad.hdr.method == ib::kMethodGetTable) r.requests.push_back(m);
    if (m.dlid == lid && (m.mad.fragment_flag & ib::kFragKeepAlive) != 0) ++r.keepalives;
  }
  return r;
}

// seeds/000: Response Timeout = 2 x 4.096 us x 2^SubnetTimeout + 4.096 us x 2^RespTimeValue.
void require_retries_at_response_timeout(uint8_t st, uint8_t rtv, uint64_t rt_ns) {
  const SlowRun r = run_slow("retry" + std::to_string(st), st, rtv, false, rt_ns);
  REQUIRE(r.done.result == mgmt::SaResult::Ok);
  REQUIRE(r.keepalives == 0);
  // Sent at 0, RT, 2 RT; the answer comes at 2.5 RT.
  REQUIRE(r.requests.size() == 3);
  REQUIRE(r.done.stats.request_retries == 2);
  for (size_t i = 1; i < r.requests.size(); ++i) REQUIRE(r.requests[i].t_ns - r.requests[i - 1].t_ns == rt_ns);
}

}  // namespace

TEST_CASE("A slow SA with KeepAlives keeps the client from timing out", "[mgmt][sanode]") {
  const uint64_t rt_ns = 2 * kUnitNs * 256 + kUnitNs * 1024;  // (8, 10): 6.291456 ms
  const SlowRun r = run_slow("keepalive", 8, 10, true, rt_ns);
  REQUIRE(r.done.result == mgmt::SaResult::Ok);
  REQUIRE(r.requests.size() == 1);
  REQUIRE(r.done.stats.request_retries == 0);
  REQUIRE(r.keepalives >= 2);
  REQUIRE(r.done.stats.end_ps - r.done.stats.start_ps > 2 * rt_ns * 1000);
}

TEST_CASE("Without KeepAlives the client retries at the Response Timeout for SubnetTimeout 8 and RespTimeValue 10", "[mgmt][sanode]") {
  require_retries_at_response_timeout(8, 10, 2 * kUnitNs * 256 + kUnitNs * 1024);  // 6.291456 ms
}

TEST_CASE("Without KeepAlives the client retries at the Response Timeout for SubnetTimeout 10 and RespTimeValue 8", "[mgmt][sanode]") {
  require_retries_at_response_timeout(10, 8, 2 * kUnitNs * 1024 + kUnitNs * 256);  // 9.437184 ms
}

TEST_CASE("Every PathRecord segment duplicated on the client's link: the copies are ignored and the records are exact", "[mgmt][sanode]") {
  link::DropRule rule;
  rule.every = true;
  rule.action = link::RuleAction::Duplicate;
  rule.mad.kind = link::MadKind::SaData;
  const GetTableRun r = run_get_table("dup", ib::kDefaultSaWindow, rule);
  REQUIRE(r.done.size() == 1);
  REQUIRE(r.done[0].result == mgmt::SaResult::Ok);
  REQUIRE(r.done[0].data == r.expected);
  // 67,456 bytes in 352 segments, each delivered twice: the copies of 1..351
  // come while the transfer runs; the Last one's copy after it completed.
  REQUIRE(r.done[0].stats.mp.duplicates == 351);
  REQUIRE(r.done[0].stats.mp.resends_sent == 0);
}

TEST_CASE("A PathRecord segment delayed past its successors is asked for again and the late copy is ignored", "[mgmt][sanode]") {
  link::DropRule rule;
  rule.action = link::RuleAction::Delay;
  rule.delay_ps = 20'000'000;  // 20 us: segments 71.. overtake it
  rule.mad.kind = link::MadKind::SaData;
  rule.mad.sa_segment = 70;
  const GetTableRun r = run_get_table("delay", ib::kDefaultSaWindow, rule);
  REQUIRE(r.done.size() == 1);
  REQUIRE(r.done[0].result == mgmt::SaResult::Ok);
  REQUIRE(r.done[0].data == r.expected);
  unsigned resends = 0;
  for (const CapturedMad& m : r.mads)
    if (m.slid == r.client_lid && (m.mad.fragment_flag & ib::kFragResend) != 0) {
      ++resends;
      REQUIRE(m.mad.segment == 70);
    }
  REQUIRE(resends == 1);
}
