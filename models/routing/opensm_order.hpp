#pragma once
// The orders OpenSM 3.3 works in, as plain functions: which ports its sweep
// finds, the order of its port and switch tables, and the order min-hop and
// up/down route destinations in. Shared by LID assignment and routing
// (routing.cpp, routing_opensm.cpp). Facts read from OpenSM's source
// (osm_lid_mgr.c, osm_ucast_mgr.c; docs/routing.md cites them by function).
//
// Rules:
// - OpenSM keeps ports and switches in maps keyed by the GUID in network byte
//   order; on a little-endian host (x86, Arm: every host OpenSM is run on in
//   practice) they iterate in the order of the byte-reversed GUID.
//   guid_table_less compares that way.
// - Discovery: the SM's own port, then breadth first through switches: every
//   port of a switch reached, every HCA port linked to one. An HCA port linked
//   to nothing, or only to an HCA other than the SM's peer, is not found and
//   gets no LID; nor does anything in a part of the fabric the SM cannot reach.
// - Port table: the found ports (a switch counts once, as port 0), ordered by
//   guid_table_less on their port GUIDs; ties (a GUID given twice) by node
//   index and port.
// - Destination order (osm_ucast_mgr.c, ucast_mgr_build_lfts): switches in
//   switch-table order, stably sorted by their number of links to HCA ports,
//   most first; each contributes the HCA ports linked to it in its port order
//   1..N. Then every port of the port table not yet listed (the switches
//   themselves, HCA ports not linked to a switch), in port-table order.

#include <cstdint>
#include <vector>

#include "models/topology/topology.hpp"

namespace hcasim::routing {

// OpenSM's table order on a little-endian host: the byte-reversed GUIDs compared.
bool guid_table_less(uint64_t a, uint64_t b);

// The ports an SM on `sm_port` finds (switches as port 0), SM's port first,
// then in port-table order.
std::vector<topology::LinkEnd> discovered_ports(const topology::Topology& t, const topology::TopologyIndex& index,
                                                topology::LinkEnd sm_port);

// `ports` (each an HCA port, or a switch as port 0) in port-table order.
void sort_port_table(const topology::Topology& t, std::vector<topology::LinkEnd>& ports);

// The destination order of `ports` (the ports that hold LIDs, any order).
std::vector<topology::LinkEnd> destination_order(const topology::Topology& t, const topology::TopologyIndex& index,
                                                 std::vector<topology::LinkEnd> ports);

}  // namespace hcasim::routing
