#pragma once
// LID assignment and offline routing: the linear forwarding tables a subnet
// manager would compute (iba-facts 4 and 7). Pure C++; the builder installs the
// result at time zero, and the in-band SM of a later stage reuses it.
//
// Rules:
// - LIDs: unicast 0x0001-0xBFFF (iba-facts 4), assigned as OpenSM 3.3 assigns
//   them on a fresh fabric (osm_lid_mgr.c): the ports an SM on `sm_port` finds
//   (opensm_order.hpp), the SM's port first, then in OpenSM's port-table
//   order, each from the lowest free LID: an HCA port takes 2^LMC LIDs from a
//   base aligned to 2^LMC (LIDs skipped to align stay unused), a switch one
//   LID for port 0, not aligned. A port the SM cannot find gets none (base 0).
// - An LFT maps every LID 0..top to an output port number: 0 = the switch
//   itself, 1..N = a port, kNoPath = unrouted (OpenSM's OSM_NO_PATH).
// - minhop is OpenSM's min-hop engine, updn its up/down engine, entry for
//   entry (routing_opensm.cpp; checked against OpenSM running on ibsim):
//   - Destinations in OpenSM's order (opensm_order.hpp), all LID offset 0
//     first, then offset 1, ...
//   - Per switch, LID by LID: a switch's own LID is 0; an HCA port linked to
//     it, its port; else among the ports whose hop count to the destination's
//     switch is least, searched round the ring of ports from port 1 (offset
//     0) or from the port the previous LID took plus one, the first with the
//     fewest HCA LIDs routed through it so far. With LMC > 0 a port to a
//     system (SystemImageGUID) that no earlier LID of the same destination
//     uses comes first, then one to such a node. Routes to switches are not
//     counted (port_profile_switch_nodes FALSE).
//   - minhop's hop counts: shortest paths between switches.
//   - dor is minhop with OpenSM's dimension-order choice (osm_ucast_mgr.c
//     is_dor, osm_switch_recommend_path's dor): of the min-hop ports, only
//     those to the neighbour that the first of them in the ring search leads
//     to (ports are cabled by dimension, so the lowest port is the first
//     dimension), the least loaded of them as above. With LMC > 0 every LID
//     offset starts the search where offset 0 does, the ports' earlier LIDs
//     are told apart by neighbour and its port, and no port is preferred for
//     leading to another system or node.
//   - updn's hop counts: per destination switch, OpenSM's breadth-first
//     search (updn_bfs_by_node) over moves that never go down then up; ranks
//     are BFS distances from the roots; the move u -> v is up when both are
//     roots, when v's rank is lower, or at equal rank when u's NodeGUID is the
//     larger. Roots by name, else automatic: the switches for which exactly
//     one hop distance holds more than 90% of the HCA ports, and no other
//     more than 5% (updn_find_root_nodes_by_min_hop). No root: updn refuses
//     the fabric, as OpenSM's does, and the chain goes on (EngineChain; by
//     default min-hop routes it, and Routes::algorithm says MinHop).
// - ftree is OpenSM's fat-tree engine, entry for entry (opensm_ftree_build.cpp,
//   opensm_ftree.cpp; osm_ucast_ftree.c; checked against OpenSM on ibsim).
//   Tables: switches and CAs in OpenSM's table order (opensm_order.hpp),
//   ports as the SM found them.
//   - Ranks: breadth first from the switches of the root GUID file (when it
//     names any); else from the switches linked to CAs, reversed (the
//     farthest become rank 0), then breadth first again from those rank-0
//     switches. A switch no rank reaches is left out with its CA ports.
//   - Port groups: a switch's links to one neighbour (by its LID) form a
//     group, up to a lower rank, sideways at equal rank, down to a higher
//     rank or a CA; a CA has one group per port. CA ports are compute nodes
//     (CNs), all of them or those in the CN file; those in the I/O file are
//     I/O nodes (routed as non-CNs; max_reverse_hops 0, OpenSM's default).
//   - Leaves: the switches of CN ports; leaf rank: the highest rank (no roots
//     file) or that of the first CN's switch. Tuples (indices): from the first
//     leaf in table order, [leaf rank, 0, ...], breadth first: a switch gives
//     each unindexed neighbour down (above the leaves) or up (below the roots)
//     the next rank's tuple with the lowest free byte at the level between
//     them, and sorts those groups by the neighbour's tuple. The leaf array:
//     the leaf-rank switches by tuple, from the first leaf to the last.
//   - Refused (the chain goes on, by default to min-hop, as in OpenSM; the
//     reason in Routes::refusals): LMC > 0; fewer than 2 switches or 2 CAs; a
//     CA linked to a CA; all switches at rank 0; no CN; a tree rank (leaf
//     rank + 1) outside 2..8; a CN on a switch not at the leaf rank; fewer
//     than two leaves; without a roots file, switches of one rank that differ
//     in up groups, in down groups (above the leaves) or in the ports of a
//     group.
//   - Routing, per target: the LFT entry of the switch it hangs on (a CA's
//     port, a switch's own 0), then from there up: the up group with the
//     fewest down routes (ties: the neighbour whose least loaded down group
//     is less loaded, then by tuple), its port with the fewest (the first of
//     them), carries the main path (counted on both) into the switch above,
//     which routes the target through that port's far end; every other up
//     group (and sibling) a secondary one, to a switch not yet routed by as
//     short a path. At every switch reached, first down: each down group
//     (and sibling, not for dummies) but the one back, fewest up routes
//     first (bubble-sorted when a count changed; ties by tuple), routes the
//     switch below through its least up-loaded port's far end unless that
//     switch has a path as short; its up counters count when a CA lies below.
//   - Order: leaf by leaf (leaf array), its CN ports in group order, then
//     dummy targets (no table entry, counters only) up to the most CNs of any
//     leaf; then non-CN CA ports in CA table order (counted); then every
//     switch's own LID in table order (every up group secondary: routes up
//     not counted; routes down are, as for any target). A switch
//     never routes down then up: LIDs so reached stay kNoPath (OpenSM's
//     connect_roots, off by default, is not modelled).
// - dfsssp and sssp are OpenSM's (deadlock-free) single-source shortest-path
//   engines, entry for entry (opensm_dfsssp.cpp; osm_ucast_dfsssp.c; checked
//   against OpenSM on ibsim):
//   - Destinations: HCA ports by switch (switches in table order, stably
//     sorted by their LIDs and their HCA ports' LIDs, most first; ports in
//     port order), then the switches in that order; every LID of each. CN
//     GUID file: its ports first, then the I/O file's, then the others.
//   - Per destination LID, Dijkstra (complib's 4-ary heap, its tie order) over
//     switch-to-switch links, each cable a link of weight P^2 (P: all LIDs),
//     plus the number of LIDs behind each switch whose path to an earlier
//     destination LID used it; the LFT entry is the port the tree arrives on.
//   - dfsssp: every ordered pair of LIDs of two ports starts in layer 0; per
//     layer but the last, a depth-first search of its channel dependency
//     graph cuts each cycle found at its dependency with the fewest pairs
//     left, whose pairs move to the next layer; a cycle in the last layer
//     refuses the fabric ("Not enough VLs available (avail=A, needed=N);
//     Stopping dfsssp routing!"; the chain goes on). Spare VLs are shared out
//     among the layers by paths per VL; a pair's SL is one of its layer's
//     share, drawn once per pair by a fixed hash (OpenSM draws one of the
//     share at random per PathRecord).
//     VLs available: the fewest operational VLs of a switch port (vls, at most
//     15). sssp: the same tables, no layers, no SLs.
// - nue is OpenSM's Nue, entry for entry (opensm_nue.cpp, opensm_nue_ccdg.cpp;
//   osm_ucast_nue.c as built without METIS; checked against OpenSM on ibsim):
//   - Destinations: the HCA ports (and with nue_include_switches the
//     switches) in port-table order, dealt round robin onto its layers (SL
//     = layer; one layer: no SLs, the SA answers the SL asked for).
//   - Per layer: escape paths (a Dijkstra tree from the switch of highest
//     betweenness within the hull of the layer's destination switches) are
//     marked in the complete channel dependency graph; then each LID of each
//     destination gets a Dijkstra over that graph from its switch (links of
//     weight P^2 plus, per path routed over them, its start switch's LIDs),
//     which never adds a dependency closing a cycle; a switch left unreached
//     is reached by local backtracking or, failing that, the destination
//     takes the escape paths. So each layer is deadlock-free on any topology.
//   - Layers: nue_max_num_vls (OpenSM's default 1; 0 or more than the ports'
//     operational VLs: that many). Switches' own LIDs, without
//     nue_include_switches, are routed last on weighted spanning trees,
//     outside the layers (Routes::switch_lids_outside_layers).
//   - Refuses (the chain goes on) a fabric whose switches are not all
//     connected: OpenSM's "unsupported network state".
// - updown (hcasim's own, not an OpenSM engine): destinations in LID order;
//   among the allowed ports the fewest LIDs counted so far, the lowest port on
//   a tie (tie_break shifted: starting from a port that depends on the
//   switch); with LMC > 0 a port towards a neighbour switch no earlier LID of
//   the same port uses comes first. Min-hop paths that never turn from a down
//   link to an up link, ranks by BFS from the roots (given by name, or
//   detected automatically).
// - updown ranks: BFS over switches from all roots (roots 0). The move u -> v
//   is up when rank(v) < rank(u), or at equal rank when v has the larger GUID,
//   or the larger node index when the GUIDs are equal (0 = none given).
//   Per target switch a layered BFS finds the fewest hops over paths with no
//   down -> up turn; a switch that reaches the target by down moves alone at
//   its fewest hops uses only such ports and may be entered by a down move, any
//   other switch uses its up ports and may not. If that leaves some switch
//   without a path, the target is also routed "down first" (shortest down-only
//   path where one exists, otherwise up towards the nearest such switch), which
//   reaches exactly the switches that have a legal path; it is used when it
//   reaches more.
// - A legal path from a to b exists when some switch is reachable from both
//   by up moves alone. With one root per component every pair has one. With
//   several, a root cannot reach another root's LID unless equal-rank links
//   join them (OpenSM's connect_roots is not modelled): such entries stay
//   kNoPath.
// - updown's automatic roots, per connected component of switches: the
//   switches whose largest hop distance to any switch with an HCA attached (to
//   any switch, when none has one) is smallest. Only the first of them when
//   that picks every switch of the component (a torus, a dragonfly), or when
//   with all of them some switch with an HCA would lack a legal path to some
//   switch. For a k-ary n-tree these are its top-level switches; for a mesh,
//   its centre. A component with none of the named roots gets automatic ones.
// - Only switches forward. LIDs no switch can reach, and LIDs of an HCA port
//   linked to another HCA, are kNoPath everywhere.

#include <array>
#include <cstdint>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "models/link/splitmix.hpp"
#include "models/topology/topology.hpp"

namespace hcasim::routing {

constexpr uint8_t kNoPath = 0xFF;          // iba-facts 4: OpenSM fills unrouted entries with 0xFF
constexpr uint16_t kMaxUnicastLid = 0xBFFF; // iba-facts 4
constexpr unsigned kMaxLmc = 7;            // iba-facts 4: LMC is 3 bits

struct Lids {
  unsigned lmc = 0;
  // base[node][i]: for an HCA, the base LID of port i+1; for a switch, one
  // entry, the LID of port 0.
  std::vector<std::vector<uint16_t>> base;
  uint16_t top = 0;                        // highest LID assigned
  // Owner of each LID 0..top: node and port number (0 for a switch);
  // node == UINT32_MAX for an unassigned LID.
  std::vector<topology::LinkEnd> owner;
};

// Throws std::invalid_argument when the fabric needs more LIDs than exist, or
// when sm_port is not a port of the topology.
Lids assign_lids(const topology::Topology& t, unsigned lmc, topology::LinkEnd sm_port);
// The same with the SM on the default port (default_sm_port).
Lids assign_lids(const topology::Topology& t, unsigned lmc);
// Where a scenario's SM is when it names none: the first HCA port with a link,
// in node and port order; else the first HCA port; else the first switch.
topology::LinkEnd default_sm_port(const topology::Topology& t);

// minhop: OpenSM's minhop; updn: OpenSM's updn; dor: OpenSM's dor; ftree:
// OpenSM's fat-tree; lash: OpenSM's LASH; dfsssp and sssp: OpenSM's
// (deadlock-free) single-source shortest paths; nue: OpenSM's Nue; updown:
// hcasim's up*/down*.
enum class RoutingAlgorithm { MinHop, UpDown, Updn, Dor, Ftree, Lash, Dfsssp, Sssp, Nue };

// The engine's name as OpenSM spells it (updown: hcasim's own name).
const char* engine_name(RoutingAlgorithm a);

// OpenSM's routing-engine chain (osm_ucast_mgr.c, osm_ucast_mgr_process; the
// routing_engine option, e.g. "ftree,updn"): the engines are tried in order
// and the first that routes the fabric routes it; when every one refuses,
// min-hop routes it unless `fallback` is off (OpenSM's no_fallback), and then
// the fabric is not routed (compute_routes throws). A single engine is a chain
// of one.
struct EngineChain {
  std::vector<RoutingAlgorithm> engines{RoutingAlgorithm::MinHop};
  bool fallback = true;
  EngineChain() = default;
  EngineChain(RoutingAlgorithm a) : engines{a} {}  // NOLINT: a single engine converts, as OpenSM's option does
  bool contains(RoutingAlgorithm a) const;
};

// How a switch breaks ties among equally loaded minimum-hop ports.
// LowestPort is OpenSM's rule (the search starts at port 1). Shifted starts it
// at a port that depends on the switch's position (its index among switches), so switches of one level do not all pick
// the same column for a LID; on fat trees of three levels the lowest-port rule
// sends every LID through one top switch per column, shifting spreads them.
enum class TieBreak { LowestPort, Shifted };

// ftree's GUID lists, as OpenSM reads them from its root_guid_file,
// cn_guid_file and io_guid_file; nullopt = no such file given. dfsssp and
// sssp read the CN and I/O lists too (their destination order).
struct FtreeGuids {
  std::optional<std::vector<uint64_t>> roots;  // NodeGUIDs of the root switches
  std::optional<std::vector<uint64_t>> cns;    // port GUIDs of the compute nodes
  std::optional<std::vector<uint64_t>> ios;    // port GUIDs of the I/O nodes
};

struct RoutingConfig {
  EngineChain algorithm;
  std::vector<std::string> roots;          // up/down roots by switch name; empty = automatic
  TieBreak tie_break = TieBreak::LowestPort;
  FtreeGuids ftree;                        // ftree (CNs and I/O nodes: also dfsssp, sssp): its GUID files' contents
  unsigned vls = 8;                        // lash, dfsssp: the fewest operational data VLs of a switch port with a link
  unsigned lash_start_vl = 0;              // lash: the first SL/VL it hands out (OpenSM's lash_start_vl)
  // nue: OpenSM's nue_max_num_vls, the virtual layers it may use (0 = every
  // operational VL, `vls`; more than `vls`: `vls`). OpenSM honours more than
  // 1 only with QoS on (qos TRUE); hcasim takes it as given.
  unsigned nue_max_num_vls = 1;
  bool nue_include_switches = false;       // nue: switches are destinations too (OpenSM's nue_include_switches)
};

// The SL of each path, for the engines that hand them out (lash): one per
// (source switch, destination switch), the switch an HCA port is linked to
// standing for the port (OpenSM's get_lash_sl).
struct SwitchPairSls {
  std::vector<int> switch_row;             // node -> its row and column, or -1 (an HCA, or a switch the engine left out)
  unsigned switches = 0;
  std::vector<uint8_t> sl;                 // [row * switches + column]; empty: the engine hands out no SL
  uint8_t local = 0;                       // the SL between ports on one switch
  unsigned layers = 0;                     // virtual layers used
  std::vector<int> lanes_before, lanes_after;  // paths per layer before and after balancing (OpenSM's log)
  // The SL from switch node a to switch node b: `local` when they are one, 0
  // when the engine left either out.
  uint8_t between(unsigned a, unsigned b) const {
    const int r = switch_row[a], c = switch_row[b];
    if (r < 0 || c < 0) return 0;
    return r == c ? local : sl[static_cast<std::size_t>(r) * switches + static_cast<std::size_t>(c)];
  }
};

// The SL of each path, for an engine that hands them out per pair of LIDs
// (dfsssp: OpenSM's vltable and get_dfsssp_sl). One byte per ordered pair of
// the LIDs it routes (n LIDs: n * n bytes; 1,700 LIDs: 2.9 MB), 4 per LID.
struct LidPairSls {
  std::vector<int32_t> row;                // LID -> its row and column, or -1 (a LID the engine has no SL for)
  unsigned lids = 0;
  std::vector<uint8_t> sl;                 // [source row + destination row * lids]: the pair's base SL
  // Per base SL, the SLs OpenSM spreads its pairs over: base to base + spread - 1,
  // one drawn by rand() per PathRecord (unseeded: srand(time(NULL))); 0 or 1: the base only.
  std::vector<uint8_t> spread;
  bool empty() const { return sl.empty(); }
  // The pair's base SL, or -1 when either LID has no row.
  int base(uint16_t slid, uint16_t dlid) const {
    if (slid >= row.size() || dlid >= row.size() || row[slid] < 0 || row[dlid] < 0) return -1;
    return sl[static_cast<std::size_t>(row[slid]) + static_cast<std::size_t>(row[dlid]) * lids];
  }
  // The SL hcasim answers for the pair: one of its base SL's share, drawn by a
  // fixed hash of the pair (OpenSM draws rand() % share per PathRecord; hcasim
  // draws once per pair, the same every run); 0 when it has none.
  uint8_t drawn_sl(uint16_t slid, uint16_t dlid) const {
    const int b = base(slid, dlid);
    if (b < 0) return 0;
    const unsigned w = width(static_cast<unsigned>(b));
    return static_cast<uint8_t>(b + (w > 1 ? pair_hash(slid, dlid) % w : 0));
  }
  // splitmix64's finaliser over the pair: every SL of a share about equally often.
  static uint64_t pair_hash(uint16_t slid, uint16_t dlid) {
    return link::splitmix64_mix((uint64_t{slid} << 16 | dlid) + link::kSplitMixIncrement);
  }
  // How many SLs from `base` the pairs of that base SL may use (at least 1).
  unsigned width(unsigned base_sl) const {
    return base_sl < spread.size() && spread[base_sl] > 1 ? spread[base_sl] : 1;
  }
};

struct Routes {
  // lft[node]: empty for an HCA; for a switch, the output port of every LID 0..top.
  std::vector<std::vector<uint8_t>> lft;
  std::vector<unsigned> roots;             // up/down: the root switches used
  RoutingAlgorithm algorithm = RoutingAlgorithm::MinHop;  // the engine that routed
  // The engines of the chain that refused the fabric, in order, with OpenSM's
  // reason (one line).
  struct Refusal {
    RoutingAlgorithm engine;
    std::string why;
  };
  std::vector<Refusal> refusals;
  SwitchPairSls sls;                       // lash's SLs; dfsssp's layer counts (layers, lanes_before/after)
  LidPairSls lid_sls;                      // dfsssp's SLs
  std::vector<uint8_t> dlid_sls;           // nue's SL (layer) per destination LID; empty: one layer, no SLs
  // nue without nue_include_switches: the paths to switches' own LIDs are
  // routed after its layers, on spanning trees, outside its deadlock freedom
  // (OpenSM: switches send and receive no data traffic). The credit-loop check
  // leaves them out.
  bool switch_lids_outside_layers = false;
  // The engine that routed hands out an SL per path (the SA's PathRecords carry it).
  bool has_path_sls() const { return !sls.sl.empty() || !lid_sls.empty() || !dlid_sls.empty(); }
};

// The SL the engine that routed hands out for the path from `slid` to `dlid`
// (what OpenSM's SA puts in a PathRecord); 0 (OpenSM's default SL) when it
// hands out none, or either LID is not a port on a switch (lash) or not a LID
// it routed (dfsssp). nue: the destination LID's layer. dfsssp: one SL of the
// pair's layer's share (OpenSM adds a random 0 .. spread - 1 to the base SL per
// PathRecord; hcasim draws once per pair by a fixed hash, so its answer is
// reproducible).
uint8_t path_sl(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                const Routes& routes, uint16_t slid, uint16_t dlid);

// The SL of every path (path_sl's), kept apart from the LFTs: what an
// application asks the SA for (a PathRecord) before it connects, for workloads
// with `sl: "path"`. Keeps a switch row per LID and lash's SL per switch pair,
// or dfsssp's per LID pair (one byte a pair).
class PathSlTable {
 public:
  PathSlTable() = default;  // no engine SLs: every path on SL 0 (OpenSM's default)
  PathSlTable(const topology::Topology& t, const Lids& lids, const Routes& routes);
  uint8_t operator()(uint16_t slid, uint16_t dlid) const;

 private:
  std::vector<unsigned> switch_of_lid_;  // the switch node of each LID's port, or kNoNode
  SwitchPairSls sls_;
  LidPairSls lid_sls_;
  std::vector<uint8_t> dlid_sls_;
};

// Every engine of a chain without fallback refused the fabric.
struct NoEngineRoutes : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Throws std::invalid_argument for a root that is not a switch of the topology,
// NoEngineRoutes when every engine of a chain without fallback refuses the fabric.
Routes compute_routes(const topology::Topology& t, const Lids& lids, const RoutingConfig& config);

// The switch ports a packet leaves through from HCA port `src` to `dlid`:
// each entry is (switch node, output port). `ok` is true when the packet
// reaches the LID's owner (the port itself for its own LIDs, with no hops);
// false when the path hits kNoPath, a dead end, the wrong HCA, or a loop
// (more hops than switches).
struct Path {
  std::vector<topology::LinkEnd> hops;
  bool ok = false;
};
Path trace_path(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                const Routes& routes, topology::LinkEnd src, uint16_t dlid);
// The same from switch `sw`'s management port, by its own LFT first (what its
// SMA sends to a LID): its own LID is reached with no hops.
Path trace_from_switch(const topology::Topology& t, const topology::TopologyIndex& index, const Lids& lids,
                       const Routes& routes, unsigned sw, uint16_t dlid);

}  // namespace hcasim::routing
