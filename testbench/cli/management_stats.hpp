#pragma once
// The "management" section of stats.json: the SM's sweep (duration, SMP
// counts, what it found) and the SMAs' totals, for a fabric managed in band.

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"

namespace hcasim {

// {"mode": "preconfigured"} for a fabric without in-band management.
nlohmann::json management_json(const fabric::Fabric& f);

}  // namespace hcasim
