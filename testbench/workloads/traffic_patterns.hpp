#pragma once
// Raw traffic patterns over many hosts, expanded into one flow per source.
//
// Rules (hosts = the pattern's HCA ports, in fabric order):
// - uniform: each host sends each packet to a host drawn uniformly from the
//   others.
// - permutation: a random cyclic permutation of the hosts (Sattolo's
//   algorithm, so nobody sends to itself), drawn once per run from the seed;
//   each host sends all its packets to its image.
// - incast: every host that is not a target sends to the target (or, with
//   several targets, uniformly among them).
// - all_to_all: each host sends to the others in turn, starting with the next
//   host after itself, so the hosts do not all aim at one destination at once.
// - hotspot: uniform over the other hosts, except that a share hot_fraction of
//   packets goes to the targets (uniformly among them, never to itself).
// Seeds: a flow's random choices are seeded from the run seed, the pattern's
// index and the source's position, so changing one pattern leaves the others.

#include <cstdint>
#include <vector>

#include "models/config/scenario.hpp"
#include "testbench/workloads/flow.hpp"

namespace hcasim::workloads {

// Throws config::ConfigError (path `where`) when the pattern has too few hosts.
std::vector<FlowSpec> expand_pattern(const config::TrafficPatternConfig& p, const std::vector<Endpoint>& hosts,
                                     const std::vector<Endpoint>& targets, uint64_t run_seed, unsigned pattern_index,
                                     const std::vector<std::string>& host_names, const std::string& where);

// A well-mixed 64-bit value of the inputs (splitmix64 steps).
uint64_t mix_seed(uint64_t a, uint64_t b, uint64_t c);

}  // namespace hcasim::workloads
