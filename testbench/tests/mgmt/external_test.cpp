// Management external (hcasim serve): no built-in SM; software outside the
// model sends MADs as a node's QP0 / QP1 (MadNode::send_external) and gets
// what no agent of the node takes (MadNode::on_external). Checked on a single
// switch with two HCAs against the directed-route rules and the SMA's latency.

#include <catch2/catch.hpp>

#include <systemc>

#include <nlohmann/json.hpp>

#include "models/config/scenario.hpp"
#include "models/fabric/fabric.hpp"
#include "models/ib/pma_mad.hpp"
#include "models/link/link_timing.hpp"
#include "models/mgmt/pma.hpp"

using namespace hcasim;

namespace {

constexpr uint64_t kSmaLatencyPs = 1'000'000;  // management.sma_latency's default, 1 us

config::FabricSpec external_spec() {
  nlohmann::json scenario = {{"name", "external"},
                             {"topology", {{"pattern", "single_switch"}, {"hosts", 2}}},
                             {"management", {{"mode", "external"}}}};
  return config::route_fabric(config::load_scenario(scenario)).spec;
}

// A directed-route SubnGet(attr) along `path` (the ports after the first hop).
std::array<uint8_t, ib::kMadBytes> dr_get(uint16_t attr, std::vector<uint8_t> path) {
  ib::Smp s;
  s.hdr.mgmt_class = ib::kClassSubnDr;
  s.hdr.class_version = ib::kSmpClassVersion;
  s.hdr.method = ib::kMethodGet;
  s.hdr.attr_id = attr;
  s.hdr.tid = 0x77;
  s.hop_cnt = static_cast<uint8_t>(path.size());
  for (size_t i = 0; i < path.size(); ++i) s.initial_path[i + 1] = path[i];
  std::array<uint8_t, ib::kMadBytes> mad{};
  ib::encode(s, mad.data());
  return mad;
}

struct Seen {
  uint64_t at_ps = 0;
  ib::Smp smp;
  unsigned port = 0;
  uint16_t slid = 0;
};

}  // namespace

TEST_CASE("management external: ports come up in Init without LIDs and no SM runs, and a client's directed-route "
          "SMPs are answered by the SMAs they reach, back to the client",
          "[mgmt][external]") {
  const config::FabricSpec spec = external_spec();
  REQUIRE(spec.management.external);
  ib::PacketPool pool;
  fabric::Fabric f(spec, pool);
  REQUIRE(f.subnet_manager() == nullptr);
  std::vector<Seen> seen;
  const unsigned hca_node = f.node_of_hca(0);
  mgmt::MadNode& node = *f.mad_node(hca_node);
  node.on_external([&](const mgmt::MadNode::ExternalMad& m) {
    Seen s{sc_core::sc_time_stamp().value(), {}, m.port, m.slid};
    REQUIRE(ib::decode(m.mad, s.smp));
    seen.push_back(s);
  });
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
  REQUIRE(f.hca(0).lid(0) == 0);
  REQUIRE(f.hca(0).port(0).state() == link::PortState::Init);

  {  // hop count 0: the node's own SMA answers after its latency, without the wire
    const uint64_t t0 = sc_core::sc_time_stamp().value();
    const auto mad = dr_get(ib::kAttrNodeInfo, {});
    REQUIRE(node.send_external(1, mad.data(), ib::kPermissiveLid, ib::kQp0, ib::kQp0));
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    REQUIRE(seen.size() == 1);
    REQUIRE(seen[0].at_ps == t0 + kSmaLatencyPs);
    REQUIRE(seen[0].smp.hdr.method == ib::kMethodGetResp);
    REQUIRE(seen[0].smp.hdr.tid == 0x77);
    ib::NodeInfo ni;
    ni.decode(seen[0].smp.data.data());
    REQUIRE(ni.node_type == ib::kNodeTypeCa);
    REQUIRE(ni.node_guid == config::node_guid(spec, hca_node));
  }
  seen.clear();
  {  // one hop: the switch's SMA answers; its PortInfo names the port the SMP came in on
    const uint64_t t0 = sc_core::sc_time_stamp().value();
    const auto mad = dr_get(ib::kAttrPortInfo, {1});
    REQUIRE(node.send_external(1, mad.data(), ib::kPermissiveLid, ib::kQp0, ib::kQp0));
    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
    REQUIRE(seen.size() == 1);
    REQUIRE(seen[0].smp.direction);
    REQUIRE(seen[0].slid == ib::kPermissiveLid);
    // Two crossings of the link (each its propagation and a 256-byte MAD's
    // serialization at least) and the SMA's latency.
    const link::LinkTiming timing(spec.links.front().config);
    REQUIRE(seen[0].at_ps >= t0 + kSmaLatencyPs + 2 * (timing.propagation_ps() + timing.serialization_ps(ib::kMadBytes)));
    ib::PortInfo pi;
    pi.decode(seen[0].smp.data.data());
    const config::LinkSpec& l = spec.links.front();
    const unsigned switch_port = (l.node_a == hca_node ? l.port_b : l.port_a) + 1;
    REQUIRE(pi.local_port_num == switch_port);
  }
  seen.clear();
  {  // a path through a port the switch does not have is dropped: nothing comes back
    const auto mad = dr_get(ib::kAttrNodeInfo, {1, 9});
    REQUIRE(node.send_external(1, mad.data(), ib::kPermissiveLid, ib::kQp0, ib::kQp0));
    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
    REQUIRE(seen.empty());
  }
  seen.clear();
  {  // an SMInfo request reaching a node that serves none goes to outside software there
    mgmt::MadNode& other = *f.mad_node(f.node_of_hca(1));
    std::vector<Seen> at_other;
    other.on_external([&](const mgmt::MadNode::ExternalMad& m) {
      Seen s;
      REQUIRE(ib::decode(m.mad, s.smp));
      at_other.push_back(s);
    });
    const auto mad = dr_get(ib::kAttrSmInfo, {1, static_cast<uint8_t>(spec.links.back().port_b + 1)});
    REQUIRE(node.send_external(1, mad.data(), ib::kPermissiveLid, ib::kQp0, ib::kQp0));
    sc_core::sc_start(sc_core::sc_time(20, sc_core::SC_US));
    REQUIRE(at_other.size() == 1);
    REQUIRE(at_other[0].smp.hdr.attr_id == ib::kAttrSmInfo);
    REQUIRE(at_other[0].smp.hdr.method == ib::kMethodGet);
    REQUIRE(seen.empty());  // the SMA did not answer it
    other.on_external(nullptr);
  }
  node.on_external(nullptr);

  // The PMA of hca0's node counts what its port carried: three SMPs out (one
  // hop, the dropped path, the SMInfo) and one answer in; the hop-count-0 one
  // never left the node. Each is LRH 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4 +
  // VCRC 2 = 290 bytes on the wire, 288 counted (IBA 16.1.3.5: up to the
  // VCRC): 72 words.
  mgmt::Pma pma({nullptr, &f.hca(0).port(0)}, false);
  const auto pma_request = [](uint8_t method, uint16_t attr, uint8_t port, uint16_t select) {
    std::array<uint8_t, ib::kMadBytes> mad{};
    ib::MadHeader h;
    h.mgmt_class = ib::kClassPerfMgmt;
    h.method = method;
    h.attr_id = attr;
    h.tid = 9;
    ib::encode(h, mad.data());
    mad[ib::kPmaDataOffset + 1] = port;
    mad[ib::kPmaDataOffset + 2] = static_cast<uint8_t>(select >> 8);
    mad[ib::kPmaDataOffset + 3] = static_cast<uint8_t>(select);
    return mad;
  };
  std::array<uint8_t, ib::kMadBytes> resp{};
  auto req = pma_request(ib::kMethodGet, ib::kAttrPortCounters, 1, 0);
  REQUIRE(pma.process(req.data(), resp.data()));
  ib::MadHeader rh;
  REQUIRE(ib::decode(resp.data(), rh));
  REQUIRE(rh.status == ib::kStatusOk);
  REQUIRE(rh.method == ib::kMethodGetResp);
  ib::PortCounters pc;
  pc.decode(resp.data() + ib::kPmaDataOffset);
  CHECK(pc.port_select == 1);
  CHECK(pc.xmit_pkts == 3);
  CHECK(pc.xmit_data == 3 * 72);
  CHECK(pc.rcv_pkts == 1);
  CHECK(pc.rcv_data == 72);
  req = pma_request(ib::kMethodGet, ib::kAttrPortCountersExtended, 1, 0);
  REQUIRE(pma.process(req.data(), resp.data()));
  ib::PortCountersExtended pe;
  pe.decode(resp.data() + ib::kPmaDataOffset);
  CHECK(pe.xmit_data == 3 * 72);
  CHECK(pe.unicast_xmit_pkts == 3);
  // Set clears what CounterSelect names (here the data and packet counters), and answers with the cleared values.
  req = pma_request(ib::kMethodSet, ib::kAttrPortCounters, 1, 0xF000);
  REQUIRE(pma.process(req.data(), resp.data()));
  pc.decode(resp.data() + ib::kPmaDataOffset);
  CHECK(pc.xmit_data == 0);
  CHECK(pc.rcv_pkts == 0);
  req = pma_request(ib::kMethodGet, ib::kAttrPortCountersExtended, 0xFF, 0);  // all ports: the same port
  REQUIRE(pma.process(req.data(), resp.data()));
  pe.decode(resp.data() + ib::kPmaDataOffset);
  CHECK(pe.xmit_pkts == 0);  // shared with PortCounters
  // An HCA has no port 0; a method other than Get / Set is refused.
  req = pma_request(ib::kMethodGet, ib::kAttrPortCounters, 0, 0);
  REQUIRE(pma.process(req.data(), resp.data()));
  REQUIRE(ib::decode(resp.data(), rh));
  CHECK(rh.status == ib::kStatusInvalidAttribute);
  req = pma_request(0x03, ib::kAttrPortCounters, 1, 0);
  REQUIRE(pma.process(req.data(), resp.data()));
  REQUIRE(ib::decode(resp.data(), rh));
  CHECK(rh.status == ib::kStatusUnsupportedMethod);
}

TEST_CASE("PMA counters saturate at their field widths (IBA 16.1.3.5) and round-trip libibmad's layout",
          "[mgmt][pma]") {
  CHECK(ib::saturated(0x1'0000'0005ull, 32) == 0xFFFFFFFFull);
  CHECK(ib::saturated(70000, 16) == 0xFFFF);
  CHECK(ib::saturated(12, 16) == 12);
  ib::PortCounters pc;
  pc.port_select = 3;
  pc.rcv_switch_relay_errors = 0x1234;
  pc.xmit_data = 0xDEADBEEF;
  pc.rcv_pkts = 7;
  pc.local_link_integrity_errors = 0xA;
  pc.excessive_buffer_overrun_errors = 0x5;
  std::array<uint8_t, 192> d{};
  pc.encode(d.data());
  // libibmad: PortRcvSwitchRelayErrors at bit 96 (byte 12), PortXmitData at bit 192 (byte 24),
  // PortRcvPkts at bit 288 (byte 36), LocalLinkIntegrityErrors the high nibble of byte 19.
  CHECK(d[12] == 0x12);
  CHECK(d[24] == 0xDE);
  CHECK(d[39] == 7);
  CHECK(d[19] == 0xA5);
  ib::PortCounters back;
  back.decode(d.data());
  CHECK(back.xmit_data == 0xDEADBEEF);
  CHECK(back.excessive_buffer_overrun_errors == 5);
  // PortXmitDiscardDetails / PortRcvErrorDetails (libibmad): PortInactiveDiscards at bit 32 (byte 4),
  // PortSwHOQLifetimeLimitDiscards at bit 80 (byte 10), PortLoopingErrors at bit 112 (byte 14).
  ib::PortDetails details;
  details.port_select = 5;
  details.counters[0] = 0x0102;
  details.counters[3] = 0x0A0B;
  details.counters[5] = 0x0E0F;
  std::array<uint8_t, 192> dd{};
  details.encode(dd.data());
  CHECK(dd[1] == 5);
  CHECK(dd[4] == 0x01);
  CHECK(dd[5] == 0x02);
  CHECK(dd[10] == 0x0A);
  CHECK(dd[14] == 0x0E);
  ib::PortDetails details_back;
  details_back.decode(dd.data());
  CHECK(details_back.counters[5] == 0x0E0F);
}
