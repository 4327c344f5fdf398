#pragma once
// dfsssp's deadlock removal (opensm_dfsssp_layers.cpp), internal to
// opensm_dfsssp.cpp: not part of the library's interface.

#include <cstdint>
#include <string>
#include <vector>

#include "models/routing/routing.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing::detail {

// The layer of every ordered pair of LIDs of the ports of `order` (OpenSM's
// destination order: HCA ports, then switches as port 0), routed by `lft`,
// with `vl_avail` VLs: fills `counts` (layers, paths per VL before and after
// balancing) and `sls`; "" or OpenSM's reason for refusing.
std::string dfsssp_layers(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                          const std::vector<std::vector<uint8_t>>& lft, const std::vector<topology::LinkEnd>& order,
                          unsigned vl_avail, SwitchPairSls& counts, LidPairSls& sls);

}  // namespace hcasim::routing::detail
