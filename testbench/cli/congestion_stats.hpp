#pragma once
// The "congestion_control" section of stats.json (docs/congestion-control.md):
// per switch port and VL, packets marked with FECN and time congested; per
// HCA port, FECNs, BECNs and CNPs; per CCTI (QP, raw flow or SL), its CCTI at
// the end, the highest it reached, and the mean injection delay applied.
// In band, "manager": the CC manager's MADs (sent, resends included;
// answered; timeouts, tries that expired; failed, given up; errors, answers
// with a status; skipped, items already set) and its cc-unavailable ports.
// Only ports, VLs and CCTIs with something to report are listed. Absent (null)
// when congestion control is off everywhere, so that stats.json does not move.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"

namespace hcasim {

nlohmann::json congestion_json(const fabric::Fabric& f, uint64_t end_ps);

}  // namespace hcasim
