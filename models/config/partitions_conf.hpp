#pragma once
// Reads partitions in OpenSM's partitions.conf syntax (OpenSM
// doc/partition-config.txt) into the rules mgmt/partition_tables.hpp resolves.
//
// Rules (the subset the model reads; anything else is an error):
// - '#' starts a comment to the end of the line. A rule ends with ';' and may
//   span lines; white space around '=', ',', ':' and ';' is free.
// - Rule: [Name]=PKey[,ipoib][,indx0][,defmember=full|limited|both]
//   [,rate=|mtu=|sl=|scope=|Q_Key=|TClass=|FlowLabel=<value>] : members ;
//   The P_Key is required (OpenSM would generate one), hexadecimal with 0x or
//   decimal, at most 0xFFFF, low 15 bits not 0. The broadcast-group flags are
//   read and ignored (the model has no multicast).
// - Members, separated by ',': MEMBER[=full|limited|both] where MEMBER is a
//   port GUID (0x... or decimal), ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS
//   (no routers in the model: nobody), SELF, NONE (nobody), or an hcasim port
//   name (NODE.pN, or NODE). Unlike OpenSM, keywords are matched whole and an
//   unknown membership flag is an error, not "limited". Multicast groups
//   (mgid=...) are refused.
// - An error is one line: "<source> line N: what is wrong; accepted: ...",
//   thrown as a ConfigError at management.partitions.

#include <string>

#include "models/mgmt/partition_tables.hpp"

namespace hcasim::config {

// `text` in partitions.conf syntax; `source` names it in messages (a file
// name, or management.partitions.rules).
std::vector<mgmt::PartitionRule> parse_partitions_conf(const std::string& text, const std::string& source);

}  // namespace hcasim::config
