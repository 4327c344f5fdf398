#pragma once
// A fabric's tables written in OpenSM 3.3's dump formats (osm_dump.c), so a
// user can diff them against the files OpenSM writes on a real fabric
// (docs/routing.md):
//
// - opensm-lfts.dump: per switch in OpenSM's switch-table order (NodeGUID,
//   opensm_order.hpp), "Unicast lids [0-TOP] of switch Lid L guid 0x... ('D'):",
//   one line "0xLLLL PPP # <type> portguid 0x...: 'D'" per routed LID (an
//   unrouted LID has no line), then "TOP lids dumped". TOP is the highest LID
//   assigned; D is the NodeDescription.
// - opensm-subnet.lst: per node in node-table order, per linked port, both
//   ends as "{ CA|SW[-SM] Ports:NN SystemGUID:... NodeGUID:... PortGUID:...
//   VenID:... DevID:... Rev:... {D} LID:LLLL PN:PP }" and the link's
//   "PHY=4x LOG=ACT SPD=50" (-SM marks the port that holds the SM's LID).
//   OpenSM prints the local VenID with 6 digits and the remote one with 8; so
//   does this. Revision is 0.
// - opensm-sl2vl.dump: per port in port-table order: a switch's tables for
//   every linked output port (and port 0) and every input port 0..N, an HCA
//   port's own table as "0   0  :".
//
// Written from a FabricSpec with its LIDs and LFTs: the tables the
// pre-configured mode installs, or (read back) the ones a run ends with.
//
// And, for an engine that hands out SLs (lash), hcasim-path-sl.dump (not an
// OpenSM file: OpenSM 3.3 dumps no SLs; the same lines come from a real
// fabric's SA with `saquery -p --slid S --dlid D`, docs/routing.md): a comment
// line, then one line "0xSSSS 0xDDDD SL" per pair of assigned LIDs, source
// LID major, both in LID order.

#include <string>

#include "models/config/fabric_spec.hpp"
#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::config {

struct OpensmDumps {
  std::string lfts;    // opensm-lfts.dump
  std::string subnet;  // opensm-subnet.lst
  std::string sl2vl;   // opensm-sl2vl.dump
};

OpensmDumps opensm_dumps(const FabricSpec& spec);

// Writes the three files into `dir` (created if missing). Throws
// std::runtime_error naming the file that could not be written.
void write_opensm_dumps(const FabricSpec& spec, const std::string& dir);

constexpr const char* kPathSlDump = "hcasim-path-sl.dump";

// hcasim-path-sl.dump's text; "" when the engine that routed hands out no SL.
std::string path_sl_dump(const topology::Topology& t, const routing::Lids& lids, const routing::Routes& routes);

}  // namespace hcasim::config
