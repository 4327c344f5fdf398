#pragma once
// A workload's `sl`: a service level 0-15, or "path": each (source,
// destination) pair on the SL the SA's PathRecord for it carries, which is the
// routing engine's when it hands SLs out (lash), else 0 (OpenSM's default), as
// an application that asks the SA before it connects (rdma_cm, perftest -R).

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "models/config/config_io.hpp"

namespace hcasim::config {

inline constexpr uint32_t kPathSl = 16;  // the value of `sl: "path"`

uint32_t parse_sl(const nlohmann::json& v, const std::string& path);
nlohmann::json format_sl(uint32_t sl);
nlohmann::json sl_schema();

template <class Io>
void describe_sl(Io& io, uint32_t& sl, const std::string& help) {
  io.custom("sl", sl, parse_sl, format_sl, Accepted{"an integer from 0 to 15, or \"path\"", sl_schema},
            help + "; \"path\": the SL of the SA's PathRecord for each pair (the routing engine's: lash's layer)");
}

}  // namespace hcasim::config
