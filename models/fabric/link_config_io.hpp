#pragma once
// The one description of the link-layer parameters (PortConfig, LinkConfig),
// used to read them strictly from JSON, write the resolved config, and
// document them. Defaults are the structs' own initializers.

#include <nlohmann/json.hpp>

#include <string>

#include "models/fabric/config_io.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/port_config.hpp"

namespace hcasim::link {

// "vl:weight,vl:weight,..." as OpenSM's qos_vlarb_high / qos_vlarb_low strings.
std::vector<VlArbEntry> parse_vlarb_table(const nlohmann::json& v, const std::string& path);
nlohmann::json format_vlarb_table(const std::vector<VlArbEntry>& t);
// "unlimited" or a rate.
uint64_t parse_drain_rate(const nlohmann::json& v, const std::string& path);
nlohmann::json format_drain_rate(uint64_t bps);
// "propagation": a cable length or a time; fills length_m or propagation_ps of a copy of the config.
LinkConfig parse_propagation_into(const LinkConfig& base, const nlohmann::json& v, const std::string& path);
nlohmann::json format_propagation(const LinkConfig& c);
std::vector<uint64_t> parse_byte_list(const nlohmann::json& v, const std::string& path);
nlohmann::json format_byte_list(const std::vector<uint64_t>& v);

template <class Io>
void describe(Io& io, VlArbConfig& c) {
  io.custom("high", c.high, parse_vlarb_table, format_vlarb_table,
            "\"vl:weight,...\" with VL 0-14 and weight 0-255, at most 64 entries",
            "high-priority table; weight in 64-byte units");
  io.custom("low", c.low, parse_vlarb_table, format_vlarb_table,
            "\"vl:weight,...\" with VL 0-14 and weight 0-255, at most 64 entries",
            "low-priority table; both tables empty = every operational VL in low with weight 64");
  io.uint("high_limit", c.high_limit, 0, 255, "LimitOfHighPriority in 4 KiB units; 255 = unbounded, 0 = one packet");
  io.choice("policy", c.policy, fabric::Names<WeightPolicy>{{"overshoot", WeightPolicy::Overshoot},
                                                            {"deficit", WeightPolicy::Deficit}},
            "weight accounting: overshoot (last packet may overshoot, not carried) or deficit (carried over)");
}

template <class Io>
void describe(Io& io, PortConfig& c) {
  io.uint_of("data_vls", c.data_vls, {1, 2, 4, 8, 15}, "VLCap: data VLs the port implements");
  io.uint_of("operational_vls", c.operational_vls, {0, 1, 2, 4, 8, 15},
             "OperationalVLs: data VLs in use, at most data_vls; 0 = data_vls");
  io.uint_of("mtu", c.mtu, {256, 512, 1024, 2048, 4096}, "MTU: largest payload, bytes");
  io.bytes("vl_buffer", c.vl_buffer_bytes, 64, uint64_t{1} << 30, "receive buffer of each data VL");
  io.custom("vl_buffers", c.vl_buffers, parse_byte_list, format_byte_list,
            "a list of sizes, one per data VL", "per-VL receive buffers, overriding vl_buffer; [] = none");
  io.bytes("vl15_buffer", c.vl15_buffer_bytes, 64, uint64_t{1} << 30, "VL15 receive buffer (not flow-controlled)");
  io.bytes("tx_buffer", c.tx_buffer_bytes, 64, uint64_t{1} << 30, "transmit buffer of each VL");
  io.uint_list("sl2vl", c.sl2vl, 0, 15, 0, 16,
               "SL-to-VL table: 16 VLs indexed by SL (15 = drop); [] = SL modulo operational VLs");
  io.object("vlarb", c.vlarb, "VL arbitration tables");
  io.custom("drain_rate", c.drain_rate_bps, parse_drain_rate, format_drain_rate, "\"unlimited\" or a rate",
            "HCA host: rate at which it takes packets from the receive buffers");
}

template <class Io>
void describe(Io& io, LinkConfig& c) {
  const auto parse_propagation = [&c](const nlohmann::json& v, const std::string& path) {
    return parse_propagation_into(c, v, path);
  };
  io.choice("speed", c.speed,
            fabric::Names<Speed>{{"SDR", Speed::Sdr}, {"DDR", Speed::Ddr}, {"QDR", Speed::Qdr}, {"FDR", Speed::Fdr},
                                 {"EDR", Speed::Edr}, {"HDR", Speed::Hdr}, {"NDR", Speed::Ndr}},
            "link generation (sets lane rate and line code)");
  io.choice("width", c.width,
            fabric::Names<Width>{{"1x", Width::X1}, {"2x", Width::X2}, {"4x", Width::X4}, {"8x", Width::X8},
                                 {"12x", Width::X12}},
            "lanes");
  io.uint("framing_bytes", c.framing_bytes, 0, 64, "bytes per packet on the wire besides LRH..VCRC");
  io.custom("propagation", c, parse_propagation, format_propagation,
            "a cable length such as \"3m\" (times propagation_per_m) or a time such as \"15ns\"",
            "propagation delay of the link, from its cable length or given directly");
  io.time("propagation_per_m", c.ps_per_m, 0, 1000000, "propagation delay per metre of cable");
  io.time("fc_period", c.fc_period_ps, 1000, 1000000000000ull,
          "minimum gap between flow-control packets of one VL");
}

}  // namespace hcasim::link

namespace hcasim::fabric {

// Cross-field rules of a port, after reading: operational VLs within VLCap,
// SL-to-VL and arbitration entries within the operational VLs, buffers that
// hold at least one MTU-sized packet. Throws ConfigError at `path`.
void check_port(const link::PortConfig& c, const std::string& path);
// The port with every default made explicit (SL-to-VL table, arbitration tables, VLs).
link::PortConfig resolve_port(const link::PortConfig& c);

}  // namespace hcasim::fabric
