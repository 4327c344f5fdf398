#pragma once
// Congestion control's statistics (docs/congestion-control.md).
//
// Rules:
// - Detail (one object each, detail kinds cc_switches and cc_hca_ports):
//   per switch with a marker, its ports and VLs that marked packets with FECN
//   or were congested ("vls": port, vl, marked, congested_ps); per HCA port
//   with congestion control on, its FECNs, BECNs and CNPs and its CCTIs (QP,
//   raw flow or SL: the CCTI at the end, the highest it reached, packets
//   delayed and the mean injection delay).
// - stats.json's "congestion_control", the summary: "switches" (switches
//   with a marker, port VLs that marked or were congested, packets marked,
//   time congested summed), "hcas" (ports with congestion control, the sums
//   of their counters, CCTIs kept and the highest CCTI reached) and, in band,
//   "manager": the CC manager's MADs (sent, resends included; answered;
//   timeouts, tries that expired; failed, given up; errors, answers with a
//   status; skipped, items already set) and its cc-unavailable ports. Absent
//   (null) when congestion control is off everywhere.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"
#include "testbench/cli/json_sink.hpp"

namespace hcasim {

nlohmann::json congestion_json(const fabric::Fabric& f, uint64_t end_ps);
void each_cc_switch_json(const fabric::Fabric& f, uint64_t end_ps, const JsonSink& sink);
void each_cc_hca_port_json(const fabric::Fabric& f, const JsonSink& sink);

}  // namespace hcasim
