#pragma once
// A fabric as a graph: nodes (HCAs and switches) with numbered ports, and
// links joining two ports. Pure data; generators, the ibnetdiscover importer
// and the scenario's explicit form all produce it, and the routing library and
// the builder read it.
//
// Rules:
// - Ports are numbered from 1, as in IBA LFT entries; a switch's port 0 is its
//   management port and never carries a link.
// - A port is on at most one link; a link never joins a port to itself.
// - Node names are unique; a port is named "<node>.p<number>".
// - Link parameters left unset take the scenario's link defaults.
// - A node has 1 to kMaxPorts ports: port numbers are one byte in an LFT, and
//   0xFF is OpenSM's "no path" (iba-facts 4).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/link/link_timing.hpp"

namespace hcasim::topology {

enum class NodeKind { Hca, Switch };

constexpr unsigned kMaxPorts = 254;          // iba-facts 4: LFT entries are one byte, 0xFF = no path
constexpr unsigned kNoNode = 0xFFFFFFFFu;    // LinkEnd::node of "no node"

struct TopoNode {
  std::string name;
  NodeKind kind = NodeKind::Hca;
  unsigned ports = 1;        // physical ports, numbered 1..ports
  uint64_t guid = 0;         // node GUID; 0 = none given (node_guid derives one from the index)
  std::string description;   // NodeDescription, as an imported fabric names it
  uint64_t system_guid = 0;  // SystemImageGUID; 0 = the node GUID (ibnetdiscover's sysimgguid=)
};

struct LinkEnd {
  unsigned node = 0;         // index into Topology::nodes
  unsigned port = 1;         // port number, 1-based
  bool operator==(const LinkEnd& o) const { return node == o.node && port == o.port; }
};

// Per-link parameters that override the scenario's link defaults.
struct LinkParams {
  std::optional<link::Speed> speed;
  std::optional<link::Width> width;
  std::optional<double> length_m;
};

struct TopoLink {
  LinkEnd a, b;
  LinkParams params;
};

struct Topology {
  std::vector<TopoNode> nodes;
  std::vector<TopoLink> links;
};

// Field by field (link order and end order matter).
bool operator==(const TopoNode& a, const TopoNode& b);
bool operator==(const LinkParams& a, const LinkParams& b);
bool operator==(const TopoLink& a, const TopoLink& b);
bool operator==(const Topology& a, const Topology& b);
inline bool operator!=(const Topology& a, const Topology& b) { return !(a == b); }

// Why the topology is inconsistent ("" when it is fine): a port number out of
// range, a port on two links, a port linked to itself, a duplicate or empty
// node name, a port count outside 1..kMaxPorts.
std::string check_topology(const Topology& t);

// Adjacency of a topology, built once: the far end of every port. The
// topology must pass check_topology and outlive the index.
class TopologyIndex {
 public:
  explicit TopologyIndex(const Topology& t);
  // Far end of (node, port), if the port has a link.
  std::optional<LinkEnd> peer(unsigned node, unsigned port) const;
  // Index into Topology::links of the link on (node, port), or -1.
  int link_of(unsigned node, unsigned port) const;
  // Node index by name, or -1.
  int find(const std::string& name) const;

 private:
  std::vector<std::vector<int>> link_of_;  // [node][port] -> link index or -1
  std::vector<std::vector<LinkEnd>> peer_;   // [node][port] -> far end, node kNoNode when unlinked
  std::unordered_map<std::string, int> names_;
};

// "<node name>.p<port>", e.g. "sw1_0.p3".
std::string port_name(const Topology& t, const LinkEnd& e);

// GUIDs (iba-facts 6: a switch's ports share its port 0's GUID; an HCA port's
// GUID is its node GUID plus its port number, as the SMA's NodeInfo says).
constexpr uint64_t kDerivedGuidBase = 0x0002C90300000000ull;  // model: derived GUIDs under one vendor OUI
// A node's GUID: its own, or (none given) kDerivedGuidBase + (index + 1) * 256,
// so that no HCA port GUID (node GUID + port) equals another node's GUID.
uint64_t derived_guid(unsigned node);
uint64_t node_guid(const Topology& t, unsigned node);
uint64_t system_guid(const Topology& t, unsigned node);  // its own, or the node GUID
uint64_t port_guid(const Topology& t, const LinkEnd& e);   // a switch: the node GUID, whatever the port
// The NodeDescription its SMA answers: the description, else the name.
const std::string& node_description(const Topology& t, unsigned node);

}  // namespace hcasim::topology
