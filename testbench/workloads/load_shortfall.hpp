#pragma once
// Whether a rate-limited flow carried less than it was offered by more than
// chance explains. The packets made in a measured window and those delivered
// in it differ by the ones in flight at its two ends, a count that varies as
// a Poisson count does: a flow at half load offered ~200 packets in a window
// can carry 93% of them by chance alone.
//
// Rule: short when accepted < share x offered (bytes) and the shortfall
// (offered - accepted) exceeds 3 standard deviations of the offered packet
// count, sqrt(offered_packets) packets of the mean offered size.

#include <cstdint>

namespace hcasim::workloads {

bool carried_short(uint64_t offered_packets, uint64_t offered_bytes, uint64_t accepted_bytes, double share);

}  // namespace hcasim::workloads
