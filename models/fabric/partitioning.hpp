#pragma once
// Splits a fabric's nodes into partitions for parallel simulation
// (link/partition.hpp): balanced work, few cut links.
//
// Rules:
// - A node's work is counted as its port count (a packet-hop costs about the
//   same at either end of a link).
// - HCAs are split in node order into `parts` runs of about equal count
//   (generated topologies number hosts by the switch they hang from, so a run
//   of hosts is a part of the fabric); consecutive HCAs linked first to the
//   same switch stay together, in the partition where their middle falls.
// - Switches then follow, nearest the hosts first (breadth first from every
//   HCA; ties in node order), each into the partition that holds most of its
//   already placed neighbours (counted by links) among those it does not push
//   above their share of the work (total / parts, plus half a switch); when
//   it would push all above, into the least loaded. Ties go to the lower
//   partition.
// - One partition (parts = 1) is every node in partition 0.

#include <vector>

#include "models/fabric/fabric.hpp"

namespace hcasim::fabric {

// Each node's partition, by node index. Requires parts >= 1.
std::vector<unsigned> partition_nodes(const config::FabricSpec& spec, unsigned parts);

// Links whose two ends are in different partitions.
unsigned cut_links(const config::FabricSpec& spec, const std::vector<unsigned>& of_node);

}  // namespace hcasim::fabric
