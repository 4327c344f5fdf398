#pragma once
// The bounds of a bandwidth perftest size in stats.json, and the summary line
// that names the least (workloads/perftest_bound.hpp; docs/perftest.md "What
// bounds a test").
//
// Rules:
// - The parameters are the test's (resolved config, the size's bytes and WRs
//   kept posted), each side's driver CPU costs, HCA transport config, CQE
//   compression and PCIe link, and the slower of the two ports' links.
// - A size gets "bounds" {"<kind>_msgs_per_s": ...} for the finite bounds,
//   "bound" (the least's kind), "bound_side" (client, server, or both for the
//   link), "bound_detail" (its formula's figures), "bound_msgs_per_s" and
//   "bound_reached" (the measured message rate over it).

#include <nlohmann/json.hpp>

#include <string>

#include "models/fabric/fabric.hpp"
#include "testbench/workloads/perftest.hpp"

namespace hcasim {

nlohmann::json perftest_bound_json(const workloads::Perftest& t, const workloads::PerftestSizeResult& s,
                                   const fabric::Fabric& f, double msgs_per_s);
// "   bound: HCA transmit units (client), 57.14 M msg/s (4 units x 70.0 ns ...); reached 99.9%\n", or "" without one;
// with name_size "   bound at 64 B: ...".
std::string perftest_bound_text(const nlohmann::json& size, bool name_size);

}  // namespace hcasim
