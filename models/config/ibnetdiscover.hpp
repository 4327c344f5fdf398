#pragma once
// Import of an ibnetdiscover topology dump (the text real fabrics are dumped in
// and ibsim reads): "Switch N \"S-guid\"" and "Ca N \"H-guid\"" node blocks with
// one "[port] \"peer-id\"[peer-port] ... # ... lid L 4xHDR" line per connected
// port. Every node, port and link of the file is kept; the per-link speed and
// width come from the trailing width/speed token when present.
//
// Rules (format as infiniband-diags ibnetdiscover.c prints it, and ibsim reads):
// - Node header: "Switch|Ca <ports> \"<id>\" # \"<description>\" ...". The node
//   is named by its id ("S-e41d2d0300a1b2c0"), its description is the first
//   quoted text of the comment. "Rt" routers are an error (not modelled), as is
//   any other kind word.
// - GUID: from the switchguid=/caguid= line before the header, else from the
//   hex digits of an id "X-<hex>", else 0. A guid line that disagrees with the
//   id, or precedes a node of the other kind, is an error. vendid=, devid= and
//   sysimgguid= lines are checked for a hex number and otherwise ignored.
// - Port line: "[<port>](<port guid>) \"<peer id>\"[<peer port>](<guid>) # ...",
//   guids optional, "[ext N]" (ibnetdiscover -g) ignored; it belongs to the
//   last node header. The comment's first token of the form <width><speed>
//   ("4xHDR", "12xQDR", "2xNDR"; "??"/"???" = unknown, left unset) sets the
//   link's width and speed. FDR10 is read as FDR (the model has no FDR10; it
//   shares FDR's 64b/66b code but signals at 10.3125 instead of 14.0625 Gb/s).
// - Links are listed from both ends in a dump; each is kept once, in the order
//   of its first line, with that line's node as end a. Both lines must name
//   each other and agree on width and speed. A link listed from one end only is
//   accepted (hand-written files). Every peer needs a node block.
// - Blank lines and "#" comments are skipped, as are the "Chassis" and
//   "Hostname:" lines of ibnetdiscover -g. Anything else is an error.

#include <istream>
#include <string>

#include "models/topology/topology.hpp"

namespace hcasim::config {

// Throws ConfigError naming "<source>:<line>" and what was expected.
topology::Topology read_ibnetdiscover(std::istream& in, const std::string& source);

}  // namespace hcasim::config
