#pragma once
// Partitions as OpenSM's partitions.conf states them (doc/partition-config.txt
// of OpenSM, read for the facts), resolved into the P_KeyTable of every port
// and the enforcement bits of switch ports. Plain C++: the pre-configured
// builder and the in-band SM use the same function, so their tables are equal.
//
// Rules:
// - A rule gives a partition its P_Key (only the low 15 bits count: the base)
//   and members: a port GUID, a port by name, ALL (every end port: each HCA
//   port and each switch's management port 0), ALL_CAS, ALL_SWITCHES, SELF
//   (the SM's port). A member's membership is its own flag, else the rule's
//   defmember, else limited (OpenSM's default). "both" makes a full member
//   (OpenSM with allow_both_pkeys off, its default). A port that is a full
//   member by one rule and limited by another is a full member. Rules with
//   the same base merge (OpenSM).
// - No rule for the default partition (base 0x7FFF): OpenSM adds
//   "Default=0x7fff : ALL=limited, SELF=full", and so does this.
// - A port's table: its partitions with the membership bit set for full, in
//   the order their first rule appears, except that the default partition's
//   key takes index 0, and a rule with indx0 puts its key at index 0 instead
//   (OpenSM osm_pkey_mgr.c). At most kPkeyTableEntries keys (else an error).
// - Switch enforcement (OpenSM part_enforce; the model's default off): each
//   switch external port linked to an HCA port gets that port's table and the
//   PortInfo enforcement bits "in", "out" or both. Other switch external ports
//   keep {0xFFFF} and no enforcement.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/topology/topology.hpp"

namespace hcasim::mgmt {

enum class Membership : uint8_t { Limited, Full, Both };
enum class MemberKind : uint8_t { Guid, Name, All, AllCas, AllSwitches, Self };
enum class SwitchEnforcement : uint8_t { Off, In, Out, Both };

struct PartitionMember {
  MemberKind kind = MemberKind::Guid;
  uint64_t guid = 0;                      // kind Guid: a port GUID
  std::string name;                       // kind Name: "NODE.pN" (an HCA port) or "NODE" (every HCA port, a switch's port 0)
  std::optional<Membership> membership;   // the member's flag; none = the rule's defmember
};

struct PartitionRule {
  std::string name;                       // PartitionName (for messages)
  uint16_t pkey = 0;                      // as written; the base (low 15 bits) is the partition
  bool ipoib = false;                     // accepted and kept; the model has no IPoIB
  bool indx0 = false;                     // this key at index 0 of its members' tables
  Membership defmember = Membership::Limited;
  std::vector<PartitionMember> members;
  unsigned line = 0;                      // where the rule starts in its source
};

struct PartitionsSpec {
  std::vector<PartitionRule> rules;       // empty: partitions off, every port {0xFFFF}
  SwitchEnforcement enforcement = SwitchEnforcement::Off;
  std::string source;                     // the file (or "management.partitions.rules") for messages
};

// One node's tables, by port number (0 = a switch's management port; unused at an HCA).
struct NodePartitions {
  std::vector<std::vector<uint16_t>> pkeys;
  std::vector<bool> enforce_in, enforce_out;
  bool operator==(const NodePartitions& o) const {
    return pkeys == o.pkeys && enforce_in == o.enforce_in && enforce_out == o.enforce_out;
  }
};
// By NodeGUID: what the in-band SM programs.
using PartitionPolicy = std::map<uint64_t, NodePartitions>;

// The tables of every node of `graph` (by node index). guids[n] is node n's
// NodeGUID (port GUIDs: an HCA's port p has GUID + p, a switch's ports the
// node's GUID); sm_node / sm_port: SELF. Throws std::invalid_argument naming
// the rule's source and line for a member that names no port or a table
// over kPkeyTableEntries.
std::vector<NodePartitions> partition_tables(const PartitionsSpec& spec, const topology::Topology& graph,
                                             const std::vector<uint64_t>& guids, unsigned sm_node, unsigned sm_port);

}  // namespace hcasim::mgmt
