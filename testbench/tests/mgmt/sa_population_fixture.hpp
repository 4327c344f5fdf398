#pragma once
// A SubnetView as an SM would hold it after sweeping and programming a fabric:
// built from a topology, its LIDs and routes, with every link HDR 4x unless the
// topology says otherwise, MTUCap and NeighborMTU 4096, the OpenSM QoS default
// SL2VL table (iba-facts 7: "0,1,...,14,7") on every switch (input 0..N,
// output 1..N) and HCA port, and the OpenSM default VLArb tables (iba-facts 7:
// high "0:4", low "0:0,1:4,...,14:4").

#include <cstdint>

#include "models/mgmt/port_codes.hpp"
#include "models/mgmt/subnet_view.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace sa_fixture {

using namespace hcasim;

constexpr uint8_t kMtu4096 = 5;  // iba-facts 2: MTU enum 5 = 4096 bytes

inline mgmt::Sl2VlTable default_sl2vl() {
  mgmt::Sl2VlTable t{};
  for (unsigned sl = 0; sl < 15; ++sl) t[sl] = static_cast<uint8_t>(sl);
  t[15] = 7;
  return t;
}

inline link::VlArbConfig default_vlarb() {
  link::VlArbConfig c;
  for (uint8_t vl = 0; vl < 15; ++vl) {
    c.high.push_back({vl, static_cast<uint8_t>(vl == 0 ? 4 : 0)});
    c.low.push_back({vl, static_cast<uint8_t>(vl == 0 ? 0 : 4)});
  }
  return c;
}

// GUIDs: a node without one gets 0x1000 + its index (ascending in node order).
inline mgmt::SubnetView make_view(topology::Topology t, const routing::Lids& lids, const routing::Routes& routes) {
  for (unsigned i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].guid == 0) t.nodes[i].guid = 0x1000 + i;
  for (topology::TopoLink& l : t.links) {
    if (!l.params.speed) l.params.speed = link::Speed::Hdr;
    if (!l.params.width) l.params.width = link::Width::X4;
  }
  mgmt::SubnetView v;
  v.lids = lids;
  v.routes = routes;
  const topology::TopologyIndex index(t);
  v.nodes.resize(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    const topology::TopoNode& tn = t.nodes[n];
    const bool sw = tn.kind == topology::NodeKind::Switch;
    mgmt::SubnetNode& sn = v.nodes[n];
    sn.node_info.node_type = sw ? ib::kNodeTypeSwitch : ib::kNodeTypeCa;
    sn.node_info.num_ports = static_cast<uint8_t>(tn.ports);
    sn.node_info.sys_image_guid = sn.node_info.node_guid = tn.guid;
    sn.node_info.port_guid = sw ? tn.guid : tn.guid + 1;
    sn.node_info.local_port_num = sw ? 0 : 1;
    sn.port_info.resize(tn.ports + 1);
    sn.vlarb.resize(tn.ports + 1);
    for (unsigned p = sw ? 0 : 1; p <= tn.ports; ++p) {
      ib::PortInfo& pi = sn.port_info[p];
      pi.local_port_num = static_cast<uint8_t>(p);
      pi.lid = sw ? lids.base[n][0] : lids.base[n][p - 1];
      pi.lmc = static_cast<uint8_t>(lids.lmc);
      pi.mtu_cap = kMtu4096;
      pi.port_state = ib::kPortStateActive;
      const int li = index.link_of(n, p);
      if (li >= 0) {
        const topology::TopoLink& l = t.links[static_cast<size_t>(li)];
        pi.neighbor_mtu = kMtu4096;
        pi.link_width_active = mgmt::width_code(*l.params.width);
        pi.link_speed_active = mgmt::speed_codes(*l.params.speed).speed;
        pi.link_speed_ext_active = mgmt::speed_codes(*l.params.speed).ext;
      }
      if (p >= 1) sn.vlarb[p] = default_vlarb();
      if (!sw) sn.sl2vl[{0, static_cast<uint8_t>(p)}] = default_sl2vl();
    }
    if (sw) {
      for (unsigned in = 0; in <= tn.ports; ++in)
        for (unsigned out = 1; out <= tn.ports; ++out)
          sn.sl2vl[{static_cast<uint8_t>(in), static_cast<uint8_t>(out)}] = default_sl2vl();
    }
  }
  v.topology = std::move(t);
  return v;
}

}  // namespace sa_fixture
