#pragma once
// What the subnet manager knows of the subnet after a sweep: the discovered
// graph in the routing library's terms, the LIDs and routes it computed, and
// the attributes it read and programmed. The SA's database is filled from it
// (sa_population.hpp). No SystemC.
//
// Rules:
// - Nodes are in ascending NodeGUID order (the order LIDs are assigned in);
//   topology.nodes[i].name is the NodeDescription, .guid the NodeGUID.
// - Links carry the speed and width read from PortInfo (LinkParams set).
// - Per node, vectors indexed by port number: a switch has entries 0..N (0 =
//   its management port), an HCA 0..N with entry 0 unused.

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "models/ib/mad_attributes.hpp"
#include "models/link/vl_arbiter.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::mgmt {

using Sl2VlTable = std::array<uint8_t, 16>;

struct SubnetNode {
  ib::NodeInfo node_info;                 // as read (LocalPortNum of the port the sweep entered by)
  std::vector<ib::PortInfo> port_info;    // by port number, as programmed
  // SL-to-VL tables as programmed: switch (input, output); HCA (0, port).
  std::map<std::pair<uint8_t, uint8_t>, Sl2VlTable> sl2vl;
  std::vector<link::VlArbConfig> vlarb;   // by port number (switch port 0 and HCA entry 0 unused)
  std::vector<std::vector<uint16_t>> pkeys;  // P_KeyTables by port number as programmed; empty = none (all 0xFFFF)
};

struct SubnetView {
  topology::Topology topology;
  routing::Lids lids;
  routing::Routes routes;
  std::vector<SubnetNode> nodes;          // parallel to topology.nodes
  uint8_t path_sl = 0;                    // SL PathRecords carry (the QoS configuration's)
  uint8_t packet_life = 0;                // PathRecord PacketLifeTime (4.096 us x 2^n exponent)
};

}  // namespace hcasim::mgmt
