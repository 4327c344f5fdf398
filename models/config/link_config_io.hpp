#pragma once
// The one description of the link-layer parameters (PortConfig, LinkConfig),
// used to read them strictly from JSON, write the resolved config, and
// document them. Defaults are the structs' own initializers.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "models/config/config_io.hpp"
#include "models/link/link_timing.hpp"
#include "models/link/port_config.hpp"

namespace hcasim::link {

// "vl:weight,vl:weight,..." as OpenSM's qos_vlarb_high / qos_vlarb_low strings.
std::vector<VlArbEntry> parse_vlarb_table(const nlohmann::json& v, const std::string& path);
nlohmann::json format_vlarb_table(const std::vector<VlArbEntry>& t);
// An SL-to-VL table: a list of VLs, or "vl,vl,..." as OpenSM's qos_sl2vl string.
std::vector<uint32_t> parse_sl2vl(const nlohmann::json& v, const std::string& path);
nlohmann::json format_sl2vl(const std::vector<uint32_t>& t);
// "unlimited" or a rate.
uint64_t parse_drain_rate(const nlohmann::json& v, const std::string& path);
nlohmann::json format_drain_rate(uint64_t bps);
// "propagation": a cable length or a time; fills length_m or propagation_ps of a copy of the config.
LinkConfig parse_propagation_into(const LinkConfig& base, const nlohmann::json& v, const std::string& path);
nlohmann::json format_propagation(const LinkConfig& c);
std::vector<uint64_t> parse_byte_list(const nlohmann::json& v, const std::string& path);
nlohmann::json format_byte_list(const std::vector<uint64_t>& v);
// JSON Schemas of the forms above and below (config_schema.hpp), beside their parsers.
nlohmann::json vlarb_table_schema();
nlohmann::json sl2vl_schema();
nlohmann::json drain_rate_schema();
nlohmann::json propagation_schema();
nlohmann::json byte_list_schema();
nlohmann::json opcode_filter_schema();
nlohmann::json uint_filter_schema(uint32_t max);
nlohmann::json hex_filter_schema(uint32_t max);
nlohmann::json sa_flags_schema();
constexpr uint64_t kMaxFaultDelayPs = 100'000'000'000'000ull;  // 100 s: beyond any MAD timeout

// Drop-rule filters: null (or absent) = any. An opcode is its name as
// ib::opcode_info gives it ("RC_ACK", "UD_SEND_ONLY") or a number 0-255.
std::optional<uint8_t> parse_opcode_filter(const nlohmann::json& v, const std::string& path);
nlohmann::json format_opcode_filter(const std::optional<uint8_t>& op);
std::optional<uint32_t> parse_uint_filter(const nlohmann::json& v, const std::string& path, uint32_t max);
template <class T>
nlohmann::json format_uint_filter(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <class Io, class T>
void describe_filter(Io& io, const std::string& key, std::optional<T>& value, uint32_t max, const std::string& help) {
  io.custom(
      key, value,
      [max](const nlohmann::json& v, const std::string& path) {
        const auto n = parse_uint_filter(v, path, max);
        return n ? std::optional<T>(static_cast<T>(*n)) : std::nullopt;
      },
      format_uint_filter<T>,
      config::Accepted("null (any) or an integer from 0 to " + std::to_string(max), [max] { return uint_filter_schema(max); }),
      help);
}

// MAD filters: a number (0-max) or a hexadecimal string such as "0x81"; written back as hex.
std::optional<uint32_t> parse_hex_filter(const nlohmann::json& v, const std::string& path, uint32_t max);
nlohmann::json format_hex_filter(const std::optional<uint32_t>& v, unsigned digits);
// SA Fragment Flag masks: a number 0-255 or a list of bit names ("first", "last",
// "resend", "ack", "keepalive"); written back as the list when every bit set has a name.
std::optional<uint8_t> parse_sa_flags(const nlohmann::json& v, const std::string& path);
nlohmann::json format_sa_flags(const std::optional<uint8_t>& v);
inline const char* kSaFlagsAccepted =
    "null (any), a list of Fragment Flag bit names from \"first\", \"last\", \"resend\", \"ack\", \"keepalive\", "
    "or a number 0-255";

template <class Io, class T>
void describe_hex_filter(Io& io, const std::string& key, std::optional<T>& value, uint32_t max, unsigned digits,
                         const std::string& help) {
  io.custom(
      key, value,
      [max](const nlohmann::json& v, const std::string& path) {
        const auto n = parse_hex_filter(v, path, max);
        return n ? std::optional<T>(static_cast<T>(*n)) : std::nullopt;
      },
      [digits](const std::optional<T>& v) {
        return format_hex_filter(v ? std::optional<uint32_t>(*v) : std::nullopt, digits);
      },
      config::Accepted("null (any), a number from 0 to " + std::to_string(max) + " or a hexadecimal string such as \"0x" +
                           std::string(digits - 1, '0') + "1\"",
                       [max] { return hex_filter_schema(max); }),
      help);
}

// The MAD filters, flat among the rule's keys (mad_filter.hpp).
template <class Io>
void describe_mad_filter(Io& io, MadFilter& c) {
  io.choice("mad_kind", c.kind,
            config::Names<MadKind>{{"any", MadKind::Any},
                                   {"mad", MadKind::Mad},
                                   {"smp", MadKind::Smp},
                                   {"sa", MadKind::Sa},
                                   {"sa_data", MadKind::SaData},
                                   {"sa_ack", MadKind::SaAck},
                                   {"sa_resend", MadKind::SaResend},
                                   {"sa_keepalive", MadKind::SaKeepAlive}},
            "match: the kind of management packet (any = no MAD filter; mad = a UD packet to QP0/QP1 carrying a "
            "256-byte MAD; smp = class 0x01 or 0x81; sa = class 0x03; sa_data = an SA data segment or single-packet "
            "MAD, without Resend, Ack or KeepAlive; sa_ack, sa_resend, sa_keepalive = an SA MAD with that Fragment "
            "Flag bit)");
  describe_hex_filter(io, "mad_class", c.mgmt_class, 0xFF, 2, "match: MAD MgmtClass (byte 1)");
  describe_hex_filter(io, "mad_method", c.method, 0xFF, 2, "match: MAD Method with the R bit (byte 3; 0x81 = GetResp)");
  describe_hex_filter(io, "mad_attribute", c.attribute, 0xFFFF, 4, "match: MAD AttributeID (bytes 16-17)");
  describe_filter(io, "sa_segment", c.sa_segment, 0xFFFFFFFF, "match: SA Segment Number (bytes 40-43; SA MADs only)");
  io.custom("sa_flags", c.sa_flags, parse_sa_flags, format_sa_flags, {kSaFlagsAccepted, sa_flags_schema},
            "match: SA MADs whose Fragment Flag (byte 48) has all these bits set");
  io.custom("sa_flags_clear", c.sa_flags_clear, parse_sa_flags, format_sa_flags, {kSaFlagsAccepted, sa_flags_schema},
            "match: SA MADs whose Fragment Flag has none of these bits set");
}

template <class Io>
void describe(Io& io, DropRule& c) {
  io.choice("action", c.action,
            config::Names<RuleAction>{
                {"drop", RuleAction::Drop}, {"delay", RuleAction::Delay}, {"duplicate", RuleAction::Duplicate}},
            "what a hit does: drop the packet, delay its delivery to the receiver's upper layer, or deliver it "
            "twice");
  io.time("delay", c.delay_ps, 0, kMaxFaultDelayPs,
          "action delay: how much later the receiver's upper layer gets the packet; above 0, and 0 for other "
          "actions");
  if (c.action == RuleAction::Delay && c.delay_ps == 0)
    io.fail("delay", "\"action\": \"delay\" needs a delay above 0; accepted: a time such as \"5us\"");
  if (c.action != RuleAction::Delay && c.delay_ps != 0)
    io.fail("delay", "a delay is only for \"action\": \"delay\"; accepted: 0 or absent for \"" +
                         std::string(to_string(c.action)) + "\"");
  io.uint64("nth", c.nth, 1, UINT64_MAX, "1-based: the first matching packet hit");
  io.uint64("count", c.count, 1, UINT64_MAX, "consecutive matches hit from the nth on");
  io.boolean("every", c.every, "hit every match from the nth on (count unused)");
  io.custom("opcode", c.opcode, parse_opcode_filter, format_opcode_filter,
            {"null (any), an opcode name such as \"RC_ACK\" or \"RC_SEND_ONLY\", or a number 0-255",
             opcode_filter_schema},
            "match: BTH opcode");
  describe_filter(io, "psn", c.psn, 0xFFFFFF, "match: BTH PSN");
  describe_filter(io, "dest_qp", c.dest_qp, 0xFFFFFF, "match: BTH DestQP");
  describe_filter(io, "vl", c.vl, 15, "match: LRH VL on this link");
  describe_filter(io, "dlid", c.dlid, 0xFFFF, "match: LRH DLID");
  describe_mad_filter(io, c.mad);
}

template <class Io>
void describe(Io& io, FaultConfig& c) {
  io.real("drop_rate", c.drop_rate, 0, 1, "probability that a data packet is lost on the link");
  io.real("bit_error_rate", c.bit_error_rate, 0, 1,
          "BER: probability that a bit flips; a packet of B bytes is corrupted with 1-(1-BER)^(8B), "
          "the receiver drops it as a CRC error");
  io.uint64("seed", c.seed, 0, UINT64_MAX,
            "base seed of the fault streams (one per link direction, mixed with the receiving port's name); "
            "0 = run.seed");
  io.list("drops", c.drops,
          "targeted rules: the nth (count, or every) packet matching all the filters given is dropped, delayed "
          "or duplicated (action)");
}

template <class Io>
void describe(Io& io, VlArbConfig& c) {
  io.custom("high", c.high, parse_vlarb_table, format_vlarb_table,
            {"\"vl:weight,...\" with VL 0-14 and weight 0-255, at most 64 entries", vlarb_table_schema},
            "high-priority table; weight in 64-byte units");
  io.custom("low", c.low, parse_vlarb_table, format_vlarb_table,
            {"\"vl:weight,...\" with VL 0-14 and weight 0-255, at most 64 entries", vlarb_table_schema},
            "low-priority table; both tables empty = every operational VL in low with weight 64");
  io.uint("high_limit", c.high_limit, 0, 255, "LimitOfHighPriority in 4 KiB units; 255 = unbounded, 0 = one packet");
  io.choice("policy", c.policy, config::Names<WeightPolicy>{{"overshoot", WeightPolicy::Overshoot},
                                                            {"deficit", WeightPolicy::Deficit}},
            "weight accounting: overshoot (last packet may overshoot, not carried) or deficit (carried over)");
}

template <class Io>
void describe(Io& io, PortConfig& c) {
  io.uint_of("data_vls", c.data_vls, {1, 2, 4, 8, 15}, "VLCap: data VLs the port implements");
  io.uint_of("operational_vls", c.operational_vls, {0, 1, 2, 4, 8, 15},
             "OperationalVLs: data VLs in use, at most data_vls; 0 = data_vls");
  io.uint_of("mtu", c.mtu, {256, 512, 1024, 2048, 4096}, "MTU: largest payload, bytes");
  io.bytes("vl_buffer", c.vl_buffer_bytes, 64, link::kMaxVlBufferBytes, "receive buffer of each data VL");
  io.custom("vl_buffers", c.vl_buffers, parse_byte_list, format_byte_list,
            {"a list of sizes, one per data VL", byte_list_schema}, "per-VL receive buffers, overriding vl_buffer; [] = none");
  io.bytes("vl15_buffer", c.vl15_buffer_bytes, 64, link::kMaxVlBufferBytes, "VL15 receive buffer (not flow-controlled)");
  io.bytes("tx_buffer", c.tx_buffer_bytes, 64, link::kMaxVlBufferBytes, "transmit buffer of each VL");
  io.custom("sl2vl", c.sl2vl, parse_sl2vl, format_sl2vl,
            {"a list of 16 VLs 0-15, or OpenSM's qos_sl2vl string \"0,1,2,...\"", sl2vl_schema},
            "SL-to-VL table: 16 VLs indexed by SL (15 = drop); [] = SL modulo operational VLs");
  io.object("vlarb", c.vlarb, "VL arbitration tables");
  io.custom("drain_rate", c.drain_rate_bps, parse_drain_rate, format_drain_rate, {"\"unlimited\" or a rate", drain_rate_schema},
            "HCA host: rate at which it takes packets from the receive buffers");
  const config::Names<Implementation> implementations{
      {"model", Implementation::Model}, {"rtl", Implementation::Rtl}, {"rtl+check", Implementation::RtlCheck}};
  io.choice("vl_arbiter", c.vl_arbiter, implementations,
            "transmit VL arbiter: the model's C++, the Verilog of testbench/rtl (Verilated), or that Verilog with "
            "the C++ checking every grant (the run fails at the first difference)");
  io.choice("credit_manager", c.credit_manager, implementations,
            "credit test and flow-control values: the model's C++, the Verilog of testbench/rtl, or that Verilog "
            "checked against the C++ after every credit event");
}

template <class Io>
void describe(Io& io, LinkConfig& c) {
  const auto parse_propagation = [&c](const nlohmann::json& v, const std::string& path) {
    return parse_propagation_into(c, v, path);
  };
  io.choice("speed", c.speed,
            config::Names<Speed>{{"SDR", Speed::Sdr}, {"DDR", Speed::Ddr}, {"QDR", Speed::Qdr}, {"FDR", Speed::Fdr},
                                 {"EDR", Speed::Edr}, {"HDR", Speed::Hdr}, {"NDR", Speed::Ndr}},
            "link generation (sets lane rate and line code)");
  io.choice("width", c.width,
            config::Names<Width>{{"1x", Width::X1}, {"2x", Width::X2}, {"4x", Width::X4}, {"8x", Width::X8},
                                 {"12x", Width::X12}},
            "lanes");
  io.uint("framing_bytes", c.framing_bytes, 0, 64, "bytes per packet on the wire besides LRH..VCRC");
  io.custom("propagation", c, parse_propagation, format_propagation,
            {"a cable length such as \"3m\" (times propagation_per_m) or a time such as \"15ns\"",
             propagation_schema},
            "propagation delay of the link, from its cable length or given directly");
  io.time("propagation_per_m", c.ps_per_m, 0, 1000000, "propagation delay per metre of cable");
  io.time("fc_period", c.fc_period_ps, 1000, 1000000000000ull,
          "minimum gap between flow-control packets of one VL");
  io.object("faults", c.faults, "fault injection, applied by the receiver of each direction (data packets only)");
}

}  // namespace hcasim::link

namespace hcasim::config {

// Cross-field rules of a port, after reading: operational VLs within VLCap,
// SL-to-VL entries within the operational VLs, buffers that hold at least one
// MTU-sized packet. Throws ConfigError at `path`. Arbitration entries for VLs
// the port does not operate are kept (the arbiter skips them, link::VlArbiter)
// and reported in one notice per table (notices.hpp).
void check_port(const link::PortConfig& c, const std::string& path);
// The port with every default made explicit (SL-to-VL table, arbitration tables, VLs).
link::PortConfig resolve_port(const link::PortConfig& c);

}  // namespace hcasim::config
