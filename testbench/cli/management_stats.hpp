#pragma once
// The "management" section of stats.json: the SM's sweep (duration, SMP
// counts, what it found) and the SMAs' totals, for a fabric managed in band.

#include <nlohmann/json.hpp>

#include "models/fabric/fabric.hpp"
#include "testbench/cli/json_sink.hpp"

namespace hcasim {

// {"mode": "preconfigured"} for a fabric without in-band management. The SA
// servers' transfers are counted ("transfers": N); each is a row of the
// detail table sa_transfers.
nlohmann::json management_json(const fabric::Fabric& f);
// In band: the master's SA server, then the standby's, with their transfers
// listed (detail kind sa_servers).
void each_sa_server_json(const fabric::Fabric& f, const JsonSink& sink);

}  // namespace hcasim
