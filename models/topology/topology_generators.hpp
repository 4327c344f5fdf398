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
//
// Further rules (fixed here because LIDs follow node order):
// - Node order: every HCA first (hca0, hca1, ...), then the switches in the
//   order named: fat tree level 1 to n, i ascending; mesh/torus in (y, x)
//   order; dragonfly group by group, router by router.
// - Links: host links first (host order), then switch-to-switch links.
// - fat_tree wiring: a switch index i at a level has base-k digits
//   d[n-2]..d[0]. Up port k+1+j of switch i at level L joins the switch at
//   level L+1 whose index is i with digit d[L-1] replaced by j, on its down
//   port d[L-1]+1. (Two levels: leaf i port k+1+j <-> top j port i+1.)
// - mesh/torus: ports 1 +x, 2 -x, 3 +y, 4 -y; port 1 of (x, y) joins port 2 of
//   (x+1, y), port 3 joins port 4 of (x, y+1) (wrapping in a torus); hosts of a
//   switch on ports 5, 6, ...
// - dragonfly: router r of group G, p hosts on ports 1..p; local port p+1+j
//   (j = 0..a-2) joins router j (j < r) or j+1 (j >= r) of the group; global
//   port p+a+m (m = 0..h-1) is group port q = r*h + m, numbered consecutively
//   router by router, and group port q joins group (G + q + 1) mod g, where it
//   is group port g - q - 2. Every pair of groups shares exactly one link.
// - Limits: k >= 2 with 2k <= 254 ports; levels 2 or 3; mesh/torus x, y >= 2
//   and 4 + hosts_per_switch <= 254; dragonfly a, p, h >= 1 and
//   p + a - 1 + h <= 254; single_switch hosts >= 1 and at most 254 ports.

#include <vector>

#include "models/topology/topology.hpp"

namespace hcasim::topology {

Topology back_to_back_topology();
Topology single_switch_topology(unsigned hosts, unsigned switch_ports);
Topology fat_tree_topology(unsigned k, unsigned levels);
Topology mesh_topology(unsigned x, unsigned y, unsigned hosts_per_switch, bool torus);
Topology dragonfly_topology(unsigned a, unsigned p, unsigned h);

}  // namespace hcasim::topology
