#pragma once
// Topology generators. Hosts are single-port HCAs named hca0, hca1, ... in the
// order given below; switch names say where they sit.
//
// - back_to_back: hca0.p1 <-> hca1.p1.
// - single_switch: `hosts` HCAs on switch "sw0" (ports 1..hosts), the switch
//   having max(hosts, switch_ports) ports.
// - fat_tree (k-ary n-tree, n = levels = 2 or 3): k^n hosts; n x k^(n-1)
//   switches of 2k ports, named "sw<level>_<i>" with level 1 at the leaves and
//   level n at the top (top switches use ports 1..k only). A leaf's ports 1..k
//   go down to hosts, k+1..2k up; host h sits on leaf h / k, port h % k + 1.
// - mesh / torus (2-D, dims x by y): switches "sw<x>_<y>", ports in the order
//   +x, -x, +y, -y (a mesh leaves edge ports unconnected; a torus of size 2 in a
//   dimension links the two switches twice), then `hosts_per_switch` host ports;
//   hosts numbered switch by switch in (y, x) order.
// - dragonfly (Kim et al. 2008, canonical a, p, h): groups = a x h + 1; routers
//   "sw<g>_<r>" with ports 1..p to hosts, then a-1 local ports (all-to-all in the
//   group), then h global ports; global links in the "consecutive" arrangement.
// Each throws std::invalid_argument for a parameter out of range.

#include <vector>

#include "models/fabric/topology.hpp"

namespace hcasim::fabric {

Topology back_to_back_topology();
Topology single_switch_topology(unsigned hosts, unsigned switch_ports);
Topology fat_tree_topology(unsigned k, unsigned levels);
Topology mesh_topology(unsigned x, unsigned y, unsigned hosts_per_switch, bool torus);
Topology dragonfly_topology(unsigned a, unsigned p, unsigned h);

}  // namespace hcasim::fabric
