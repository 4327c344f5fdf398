#pragma once
// Import of an ibnetdiscover topology dump (the text real fabrics are dumped in
// and ibsim reads): "Switch N \"S-guid\"" and "Ca N \"H-guid\"" node blocks with
// one "[port] \"peer-id\"[peer-port] ... # ... lid L 4xHDR" line per connected
// port. Every node, port and link of the file is kept; the per-link speed and
// width come from the trailing width/speed token when present.

#include <istream>
#include <string>

#include "models/fabric/topology.hpp"

namespace hcasim::fabric {

// Throws ConfigError naming "<source>:<line>" and what was expected.
Topology read_ibnetdiscover(std::istream& in, const std::string& source);

}  // namespace hcasim::fabric
